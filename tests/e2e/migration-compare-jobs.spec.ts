// The migration's side-by-side replay run by the service: the picked file is sent as it is (the
// page never reads it), the compare goes on while the screen is left, and coming back (or
// reloading) finds its progress and comparison; a finished one exports as JSON, and a long one can
// be cancelled.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Workbench } from './fixtures'

const ZONE = 'compare.example.com'

async function previousProductZone(workbench: Workbench): Promise<string> {
  const zone = await fetch(`${workbench.api}/zones`, {
    method: 'POST',
    headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: ZONE, plan: 'business', waf_product: 'previous' }),
  }).then((r) => r.json())
  expect(zone.success).toBe(true)
  return zone.result.id as string
}

/** `count` requests, every third a SQL injection the previous product's OWASP package scores. */
function traffic(count: number): string {
  let text = ''
  for (let i = 0; i < count; i++) {
    const query = i % 3 === 0 ? '?id=1%27%20UNION%20SELECT%20password%20FROM%20users--' : `?n=${i}`
    text += `${JSON.stringify({ method: 'GET', url: `https://${ZONE}/p${i % 7}${query}` })}\n`
  }
  return text
}

let dir: string
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'zw-e2e-compare-jobs-'))
})
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a compare in the service goes on while the screen is left, and is there on return and after a reload', async ({
  page,
  workbench,
}) => {
  const zoneId = await previousProductZone(workbench)
  const file = join(dir, 'day.ndjson')
  writeFileSync(file, traffic(600))

  await page.goto(`${workbench.ui}#/zones/${zoneId}/migration/validate`)
  await page.getByLabel('Traffic file').setInputFiles(file)
  await page.getByRole('button', { name: 'Compare', exact: true }).click()
  const jobs = page.getByRole('table', { name: 'Compare jobs' })
  // The job shows once the service has opened its input, while the page may still upload.
  await expect(jobs.getByRole('row')).toHaveCount(2, { timeout: 30_000 })

  // Away to another screen, and back to the step the address names.
  await page.getByRole('link', { name: 'Simulator' }).click()
  await expect(page.getByRole('table', { name: 'Compare jobs' })).toHaveCount(0)
  await page.goBack()
  await expect(page).toHaveURL(new RegExp(`#/zones/${zoneId}/migration/validate$`))

  const done = async () => {
    await expect(jobs.getByRole('row').nth(1)).toContainText('done', { timeout: 60_000 })
    await expect(page.getByRole('status').filter({ hasText: 'requests compared' })).toHaveText(
      '600 of 600 requests compared',
    )
    await expect(page.getByTestId('comparison-summary')).toContainText('of 600 requests')
    await expect(page.getByRole('table', { name: 'Outcome matrix' })).toBeVisible()
    await expect(
      page.getByRole('table', { name: 'Compared requests' }).locator('tbody tr'),
    ).toHaveCount(100)
  }
  await done()

  await page.reload()
  await done()

  // The jobs and the comparison as a laptop shows them: no WCAG 2.1 A/AA violation, no
  // horizontal scrolling of the page.
  await page.setViewportSize({ width: 1024, height: 700 })
  const axe = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze()
  expect(axe.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([])
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(
    true,
  )
  await page.screenshot({ path: 'test-results/e2e/migration-compare-jobs.png', fullPage: true })

  // The comparison as JSON: its counts and matrix, the requests left to the NDJSON export.
  const download = page.waitForEvent('download')
  await jobs.getByRole('button', { name: 'Export JSON' }).click()
  const saved = JSON.parse(readFileSync(await (await download).path(), 'utf8'))
  expect(saved).toMatchObject({
    requests: 600,
    new_configuration: 'generated',
    format: 'requests',
  })
  expect(saved.matrix.blocked.blocked + saved.matrix.passed.passed).toBeGreaterThan(0)
  expect(saved.results).toBeUndefined()
})

test('a running compare in the service can be cancelled', async ({ page, workbench }) => {
  const zoneId = await previousProductZone(workbench)
  const file = join(dir, 'long.ndjson')
  writeFileSync(file, traffic(400_000))

  await page.goto(`${workbench.ui}#/zones/${zoneId}/migration/validate`)
  await page.getByLabel('Traffic file').setInputFiles(file)
  await page.getByRole('button', { name: 'Compare', exact: true }).click()
  const row = page.getByRole('table', { name: 'Compare jobs' }).getByRole('row').nth(1)
  // The job shows once the service has its workers ready, while the page still uploads.
  await expect(row).toContainText('running', { timeout: 30_000 })
  await expect(page.getByRole('status').filter({ hasText: 'requests compared' })).toBeVisible()
  await row.getByRole('button', { name: 'Cancel' }).click()
  await expect(row).toContainText('cancelled')
  await expect(page.getByRole('status').filter({ hasText: '(cancelled)' })).toBeVisible()
  await expect(row.getByRole('button', { name: 'Remove' })).toBeVisible()
})
