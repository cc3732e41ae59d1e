// The round trip on screen, at 1024×700: export a zone (preview, then save the file), import a
// bundle (a dry run's changes first, written only when confirmed), and pull a zone from a second
// workbench acting as production, change it, plan and apply that change back.

import type { Page } from '@playwright/test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, startHeadless, test, type Workbench } from './fixtures'

test.use({ viewport: { width: 1024, height: 700 } })

function apiOf(workbench: Workbench) {
  return async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const response = await fetch(`${workbench.api}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    })
    return response.json()
  }
}

/** The address of one of the workbench's own routes. */
const ownRoute = (workbench: Workbench, path: string) =>
  `${workbench.api.replace(/\/client\/v4$/, '/workbench/v1')}${path}`

/** A zone with a filter and the firewall rule using it; answers the zone's and the filter's ids. */
async function zoneWithRule(workbench: Workbench, name: string) {
  const api = apiOf(workbench)
  const zone = (await api('/zones', { method: 'POST', body: { name, plan: 'business' } })).result
  const [rule] = (
    await api(`/zones/${zone.id}/firewall/rules`, {
      method: 'POST',
      body: [
        {
          action: 'block',
          description: 'block the scanner',
          filter: { expression: 'ip.src eq 192.0.2.1' },
        },
      ],
    })
  ).result
  return { zoneId: zone.id as string, filterId: rule.filter.id as string }
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/e2e/${name}.png`, fullPage: false })

/** Runs `use` with a second headless shell, the remote that plays production. */
async function withRemote(use: (remote: Workbench) => Promise<void>): Promise<void> {
  const remoteDir = mkdtempSync(join(tmpdir(), 'zw-e2e-remote-'))
  const { child, workbench: remote } = await startHeadless(remoteDir, {})
  try {
    await use(remote)
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
    rmSync(remoteDir, { recursive: true, force: true })
  }
}

/** Fills the Production screen's remote form and pulls `zone` (a name or an id). */
async function pull(page: Page, local: Workbench, remote: Workbench, zone: string) {
  await page.goto(`${local.ui}#/production`)
  await page.getByLabel('API base URL').fill(remote.api)
  await page.getByLabel('API token').fill(remote.token)
  await page.getByLabel('Remote zone (name or id)').fill(zone)
  await page.getByRole('button', { name: 'Pull from remote' }).click()
}

test('export a zone: preview each format and save the file', async ({ page, workbench }) => {
  await zoneWithRule(workbench, 'export.example')
  await page.goto(`${workbench.ui}#/export`)
  const preview = page.getByLabel('Preview of export.example.zone-workbench.json')
  await expect(preview).toContainText('"format": "zone-workbench/bundle"')
  await expect(preview).toContainText('ip.src eq 192.0.2.1')

  await page.getByLabel('Format').selectOption({ label: 'Terraform, provider v4' })
  const terraform = page.getByLabel('Preview of export.example.tf')
  await expect(terraform).toContainText('resource "cloudflare_filter"')
  await expect(page.getByRole('status')).toContainText('Preview of export.example.tf')
  await shot(page, 'round-trip-export')

  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Save export.example.tf' }).click()
  const saved = await download
  expect(saved.suggestedFilename()).toBe('export.example.tf')
  expect(readFileSync(await saved.path(), 'utf8')).toBe(await terraform.textContent())

  // The previous product's Terraform (v3) is offered only for a zone on that product.
  await expect(page.getByLabel('Format').locator('option')).not.toContainText([
    'Terraform, provider v3 (previous WAF)',
  ])
})

test('import a bundle: dry-run changes first, written when confirmed', async ({
  page,
  workbench,
}) => {
  const api = apiOf(workbench)
  const { zoneId, filterId } = await zoneWithRule(workbench, 'import.example')
  const response = await fetch(ownRoute(workbench, `/zones/${zoneId}/export?format=bundle`), {
    headers: { authorization: `Bearer ${workbench.token}` },
  })
  const bundle = await response.json()
  // The bundle blocks a second address; the zone meanwhile gained a filter the bundle lacks.
  bundle.filters[0].expression = 'ip.src in {192.0.2.1 192.0.2.2}'
  const [extra] = (
    await api(`/zones/${zoneId}/filters`, {
      method: 'POST',
      body: [{ expression: 'http.host eq "old.example"', description: 'left over' }],
    })
  ).result

  await page.goto(`${workbench.ui}#/import`)
  const dataTransfer = await page.evaluateHandle((text) => {
    const transfer = new DataTransfer()
    transfer.items.add(new File([text], 'import.example.json', { type: 'application/json' }))
    return transfer
  }, JSON.stringify(bundle))
  await page.getByRole('group', { name: 'Bundle file' }).dispatchEvent('drop', { dataTransfer })

  const changes = page.getByRole('list', { name: 'Changes to import.example' })
  await expect(changes.getByRole('listitem')).toHaveCount(2)
  await expect(changes.getByRole('listitem').filter({ hasText: filterId })).toContainText('Change')
  await expect(changes.getByRole('listitem').filter({ hasText: extra.id })).toContainText('Remove')
  await expect(page.getByRole('status')).toContainText('would change import.example in 2 places')
  // Focus goes to each step's result: the changes checked, then the changes made.
  await expect(page.getByRole('heading', { name: 'Changes to import.example' })).toBeFocused()
  await shot(page, 'round-trip-import')
  // The dry run wrote nothing.
  expect((await api(`/zones/${zoneId}/filters/${extra.id}`)).success).toBe(true)

  await page.getByRole('button', { name: 'Import into import.example' }).click()
  await expect(page.getByRole('status')).toContainText('Imported import.example: 2 changes made')
  await expect(page.getByRole('heading', { name: 'Imported into import.example' })).toBeFocused()
  expect((await api(`/zones/${zoneId}/filters/${extra.id}`)).success).toBe(false)
  expect((await api(`/zones/${zoneId}/filters/${filterId}`)).result.expression).toBe(
    'ip.src in {192.0.2.1 192.0.2.2}',
  )

  // A file that is not a bundle is refused with the API's message, and nothing is offered.
  await page
    .getByLabel('Choose a bundle file')
    .setInputFiles({ name: 'other.json', mimeType: 'application/json', buffer: Buffer.from('{}') })
  await expect(page.getByRole('alert')).toBeVisible()
  await expect(page.getByRole('button', { name: /^Import into/ })).toHaveCount(0)

  // A refusal of the whole bundle (the API's pointer `/`) says "the bundle", not a bare `/`;
  // one inside it still names where.
  const refuse = (name: string, content: unknown) =>
    page.getByLabel('Choose a bundle file').setInputFiles({
      name,
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(content)),
    })
  await refuse('unknown.json', { ...bundle, colour: 'blue' })
  await expect(page.getByRole('alert')).toHaveText(
    'Invalid bundle: the bundle has an unknown property: colour',
  )
  await refuse('zone-colour.json', { ...bundle, zone: { ...bundle.zone, colour: 'blue' } })
  await expect(page.getByRole('alert')).toHaveText(
    'Invalid bundle: /zone has an unknown property: colour /zone',
  )
})

test('production: pull a remote zone, change it, plan and apply the change back', async ({
  page,
  workbench,
}) => {
  await withRemote(async (remote) => {
    const remoteApi = apiOf(remote)
    const localApi = apiOf(workbench)
    const { zoneId, filterId } = await zoneWithRule(remote, 'prod.example')

    await pull(page, workbench, remote, 'prod.example')
    await expect(page.getByRole('status')).toContainText('Pulled prod.example')
    await expect(page.getByLabel('Zone', { exact: true })).toHaveValue(zoneId)

    // The local edit: the filter blocks a second address.
    await localApi(`/zones/${zoneId}/filters/${filterId}`, {
      method: 'PUT',
      body: { id: filterId, expression: 'ip.src in {192.0.2.1 192.0.2.9}' },
    })
    await page.getByRole('button', { name: 'Plan', exact: true }).click()
    const planned = page.getByRole('list', { name: 'Planned changes' }).getByRole('listitem')
    await expect(planned).toHaveCount(1)
    await expect(planned).toContainText(filterId)
    const calls = page.getByRole('list', { name: 'Planned calls' }).getByRole('listitem')
    await expect(calls).toHaveCount(1)
    await expect(calls).toContainText(`PUT /zones/${zoneId}/filters/${filterId}`)
    await expect(page.getByRole('heading', { name: 'Plan: changes to prod.example' })).toBeFocused()
    await shot(page, 'round-trip-production-plan')

    await page.getByRole('button', { name: 'Apply to remote' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Apply' }).click()
    await expect(page.getByRole('status')).toContainText('1 of 1 calls applied to prod.example')
    await expect(page.getByRole('heading', { name: 'Apply: result per call' })).toBeFocused()
    await expect(page.getByRole('progressbar', { name: 'Calls applied' })).toHaveAttribute(
      'value',
      '1',
    )
    await expect(
      page.getByRole('list', { name: 'Applied calls' }).getByRole('listitem'),
    ).toContainText('Done')
    await shot(page, 'round-trip-production-apply')
    expect((await remoteApi(`/zones/${zoneId}/filters/${filterId}`)).result.expression).toBe(
      'ip.src in {192.0.2.1 192.0.2.9}',
    )

    await page.getByRole('button', { name: 'Plan', exact: true }).click()
    await expect(page.getByRole('status')).toContainText('already matches')
  })
})

test('production: an apply the remote refuses midway says what ran, what failed and what did not', async ({
  page,
  workbench,
}) => {
  await withRemote(async (remote) => {
    const { zoneId } = await zoneWithRule(remote, 'refusing.example')
    await pull(page, workbench, remote, zoneId)
    await expect(page.getByRole('status')).toContainText('Pulled refusing.example')

    // Three new firewall rules here; the remote takes only one more (its rule quota).
    await apiOf(workbench)(`/zones/${zoneId}/firewall/rules`, {
      method: 'POST',
      body: ['192.0.2.10', '192.0.2.11', '192.0.2.12'].map((address) => ({
        action: 'block',
        description: `block ${address}`,
        filter: { expression: `ip.src eq ${address}` },
      })),
    })
    await fetch(ownRoute(remote, `/zones/${zoneId}/firewall/settings`), {
      method: 'PATCH',
      headers: { authorization: `Bearer ${remote.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rule_quota: 2 }),
    })

    await page.getByRole('button', { name: 'Plan', exact: true }).click()
    await expect(
      page.getByRole('list', { name: 'Planned changes' }).getByRole('listitem'),
    ).toHaveCount(6)
    await page.getByRole('button', { name: 'Apply to remote' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Apply' }).click()

    const applied = page.getByRole('list', { name: 'Applied calls' }).getByRole('listitem')
    const failed = applied.filter({ hasText: 'Failed' })
    await expect(failed).toHaveCount(1)
    await expect(failed).toContainText('(10017)')
    await expect(failed).toContainText('HTTP 400')
    await expect(applied.filter({ hasText: 'Not run' }).first()).toBeVisible()
    await expect(page.getByRole('alert')).toBeVisible()
    const done = await applied.filter({ hasText: /^\s*Done/ }).count()
    await expect(page.getByRole('status')).toContainText(`${done} of 6 calls applied`)
    await shot(page, 'round-trip-production-refused')
  })
})
