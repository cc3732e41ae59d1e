// History in words (issue 19): three changes to a zone read as what they did, a point compared
// with now shows the configuration's diff, a restore names the point it went back to, and a point
// from before a migration that cannot be undone is not offered for restore, with the reason.

import AxeBuilder from '@axe-core/playwright'
import { expect, test } from './fixtures'

const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
const MANAGED_ENTRYPOINT = 'rulesets/phases/http_request_firewall_managed/entrypoint'

test('history says what changed, compares a point with now, and offers only restores that can happen', async ({
  page,
  workbench,
}) => {
  const call = (url: string, init: { method?: string; json?: unknown } = {}) =>
    fetch(url, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    }).then((r) => r.json())
  const api = (path: string, init?: { method?: string; json?: unknown }) =>
    call(`${workbench.api}${path}`, init)
  const workbenchApi = (path: string, init?: { method?: string; json?: unknown }) =>
    call(`${new URL(workbench.api).origin}/workbench/v1${path}`, init)

  const id = (await api('/zones', { method: 'POST', json: { name: 'words.example', plan: 'pro' } }))
    .result.id
  await api(`/zones/${id}/${MANAGED_ENTRYPOINT}`, {
    method: 'PUT',
    json: { rules: [{ action: 'execute', expression: 'true', action_parameters: { id: OWASP } }] },
  })
  await workbenchApi(`/zones/${id}/rename`, { method: 'POST', json: { name: 'worded.example' } })
  await api(`/zones/${id}`, { method: 'PATCH', json: { paused: true } })

  // A zone whose migration off the previous WAF has begun: earlier points cannot be restored.
  const migrating = (
    await api('/zones', {
      method: 'POST',
      json: { name: 'migrating.example', plan: 'enterprise', waf_product: 'previous' },
    })
  ).result.id
  const config = (await api(`/zones/${migrating}/waf_migration/config?phase_two=1`)).result
  await api(`/zones/${migrating}/${MANAGED_ENTRYPOINT}?waf_migration=pending&phase_two=1`, {
    method: 'PUT',
    json: config,
  })

  await page.goto(`${workbench.ui}#/history`)
  // The screen says what it does: points in words, a comparison with now, restores that can happen.
  await expect(page.getByRole('main')).toContainText(
    'Every change to a zone is a point in its history, kept for 30 days and said in words. Compare any point with now',
  )
  await page.getByLabel('Zone', { exact: true }).selectOption({ label: 'worded.example' })
  const points = page.getByRole('list', { name: 'Points in history' }).getByRole('listitem')
  await expect(points).toHaveCount(4)
  await expect(points.nth(0)).toContainText('Zone paused: false → true')
  await expect(points.nth(1)).toContainText('Renamed the zone to worded.example')
  await expect(points.nth(2)).toContainText('Deployed Cloudflare OWASP Core Ruleset')
  await expect(points.nth(3)).toContainText('Zone words.example created (pro plan)')

  // The zone as created against now: the three changes, and the diff of its configuration.
  await points.nth(3).getByRole('button', { name: 'Compare with now' }).click()
  const comparison = page.getByRole('region', { name: /to now$/ })
  await expect(comparison.getByRole('heading')).toBeFocused()
  const diff = comparison.getByLabel('Configuration diff, then against now')
  await expect(diff).toContainText('removed: "paused": false')
  await expect(diff).toContainText('added: "paused": true')
  await expect(diff).toContainText('added: "name": "worded.example"')
  await expect(diff).toContainText(OWASP)
  await page.screenshot({ path: 'test-results/e2e/history-words-diff.png', fullPage: true })
  // The diff scrolls within its box: a keyboard reaches it and scrolls it, and axe finds nothing.
  await page.setViewportSize({ width: 1024, height: 700 })
  expect(await diff.evaluate((pre) => pre.scrollHeight > pre.clientHeight)).toBe(true)
  await comparison.getByRole('button', { name: 'Close comparison' }).focus()
  await page.keyboard.press('Tab')
  await expect(diff).toBeFocused()
  await page.keyboard.press('End')
  await expect.poll(() => diff.evaluate((pre) => pre.scrollTop)).toBeGreaterThan(0)
  const axe = await new AxeBuilder({ page })
    .include('section.comparison')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze()
  expect(axe.violations).toEqual([])
  await comparison.getByRole('button', { name: 'Close comparison' }).click()
  await expect(comparison).toHaveCount(0)
  await expect(points.nth(3).getByRole('button', { name: 'Compare with now' })).toBeFocused()

  // A restore reads as the point it went back to.
  await points.nth(2).getByRole('button', { name: 'Restore to here' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Restore' }).click()
  await expect(points.nth(0)).toContainText(
    /Restored to the point of .+ ‘Deployed Cloudflare OWASP Core Ruleset’/,
  )
  // Focus goes to the word that the zone was restored, not to <body>.
  await expect(page.getByRole('status').filter({ hasText: /^\s*Restored / })).toBeFocused()

  // The zone whose migration has begun: earlier points cannot be restored.
  await page.getByLabel('Zone', { exact: true }).selectOption({ label: 'migrating.example' })
  await expect(points.nth(0)).toContainText('WAF migration started')
  const created = points.filter({ hasText: 'Zone migrating.example created' })
  const restoreCreated = created.getByRole('button', { name: 'Restore to here' })
  await expect(restoreCreated).toBeDisabled()
  await expect(restoreCreated).toHaveAccessibleDescription(
    /before the zone began its migration to WAF managed rulesets/,
  )
  await page.screenshot({ path: 'test-results/e2e/history-words-migration.png', fullPage: true })
})

test('replay warns when the traffic’s hosts match no deployment', async ({ page, workbench }) => {
  const call = (path: string, init: { method: string; json: unknown }) =>
    fetch(`${workbench.api}${path}`, {
      method: init.method,
      headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(init.json),
    }).then((r) => r.json())
  const id = (
    await call('/zones', { method: 'POST', json: { name: 'scoped.example', plan: 'pro' } })
  ).result.id
  await call(`/zones/${id}/${MANAGED_ENTRYPOINT}`, {
    method: 'PUT',
    json: {
      rules: [
        {
          action: 'execute',
          expression: 'http.host eq "a.scoped.example"',
          action_parameters: { id: OWASP },
        },
      ],
    },
  })
  const traffic = ['b.scoped.example', 'c.scoped.example', 'b.scoped.example']
    .map((host, i) =>
      JSON.stringify({ method: 'GET', url: `https://${host}/page/${i}`, headers: { host } }),
    )
    .join('\n')

  await page.goto(`${workbench.ui}#/replay`)
  await page.getByLabel('Zone', { exact: true }).selectOption({ label: 'scoped.example' })
  await page.getByLabel('Traffic file').setInputFiles({
    name: 'other-hosts.ndjson',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(traffic),
  })
  await page.getByRole('button', { name: 'Replay', exact: true }).click()
  await expect(page.getByRole('status').filter({ hasText: 'requests replayed' })).toHaveText(
    '3 of 3 requests replayed',
  )
  await expect(
    page
      .getByRole('status')
      .filter({ hasText: 'No request of this replay matched any deployment' }),
  ).toBeVisible()
  await page.screenshot({ path: 'test-results/e2e/history-words-replay-scope.png', fullPage: true })

  // A zone on the previous WAF with the WAF turned off: the warning names the previous WAF.
  const previous = (
    await call('/zones', {
      method: 'POST',
      json: { name: 'previous.example', plan: 'pro', waf_product: 'previous' },
    })
  ).result.id
  await call(`/zones/${previous}/settings/waf`, { method: 'PATCH', json: { value: 'off' } })
  await page.reload()
  await page.getByLabel('Zone', { exact: true }).selectOption({ label: 'previous.example' })
  await page.getByLabel('Traffic file').setInputFiles({
    name: 'waf-off.ndjson',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(traffic),
  })
  await page.getByRole('button', { name: 'Replay', exact: true }).click()
  await expect(
    page
      .getByRole('status')
      .filter({ hasText: 'No request of this replay reached the previous WAF' }),
  ).toContainText('Check the WAF setting and the page rules.')
})
