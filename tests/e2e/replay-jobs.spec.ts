// Replays run by the service from the Replay screen: the picked file is sent as it is (the page
// never reads it), the job goes on while the screen is left, and coming back finds its result;
// a long one can be cancelled.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from './fixtures'
import { zoneExecuting } from './managed-zone'

/** `count` requests, every third an attack the general ruleset blocks. */
function traffic(count: number): string {
  let text = ''
  for (let i = 0; i < count; i++) {
    const query = i % 3 === 0 ? '?file=../../etc/passwd' : `?n=${i}`
    text += `${JSON.stringify({ method: 'GET', url: `https://jobs.example.com/p${i % 7}${query}` })}\n`
  }
  return text
}

let dir: string
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'zw-e2e-replay-jobs-'))
})
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

test('a replay in the service goes on while the screen is left, and its result is there on return', async ({
  page,
  workbench,
}) => {
  await zoneExecuting(workbench, 'jobs.example.com')
  const file = join(dir, 'day.ndjson')
  writeFileSync(file, traffic(900))

  await page.goto(`${workbench.ui}#/replay`)
  await expect(page.getByLabel('Zone')).toHaveValue(/^[0-9a-f]{32}$/)
  await page.getByLabel('Traffic file').setInputFiles(file)
  await page.getByRole('button', { name: 'Replay in the service' }).click()
  const jobs = page.getByRole('table', { name: 'Replay jobs' })
  await expect(jobs.getByRole('row')).toHaveCount(2)

  await page.goto(`${workbench.ui}#/simulator`)
  await expect(page.getByRole('button', { name: 'Replay in the service' })).toHaveCount(0)
  await page.goto(`${workbench.ui}#/replay`)

  await expect(jobs.getByRole('row').nth(1)).toContainText('done', { timeout: 30_000 })
  await expect(page.getByRole('status').filter({ hasText: 'in the service' })).toHaveText(
    '900 requests replayed in the service (NDJSON request descriptions)',
  )
  await expect(page.getByRole('img', { name: /^Outcomes of 900 requests/ })).toHaveAttribute(
    'aria-label',
    /Blocked: 300/,
  )
  await page.screenshot({ path: 'test-results/e2e/replay-jobs.png', fullPage: true })
})

test('a running replay in the service can be cancelled', async ({ page, workbench }) => {
  await zoneExecuting(workbench, 'jobs.example.com')
  const file = join(dir, 'long.ndjson')
  writeFileSync(file, traffic(400_000))

  await page.goto(`${workbench.ui}#/replay`)
  await expect(page.getByLabel('Zone')).toHaveValue(/^[0-9a-f]{32}$/)
  await page.getByLabel('Traffic file').setInputFiles(file)
  await page.getByRole('button', { name: 'Replay in the service' }).click()
  const row = page.getByRole('table', { name: 'Replay jobs' }).getByRole('row').nth(1)
  // The job shows once the service has its workers ready, while the page still uploads.
  await expect(row).toContainText('running', { timeout: 30_000 })
  // its requests, input read, rate and time left, shown and said in a polite live region
  await expect(page.getByRole('progressbar', { name: 'Input read' })).toBeVisible()
  await expect(page.getByText(/^[\d,]+ requests, [\d.]+ MiB of [\d.]+ MiB read, /)).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: 'Replay under way: ' })).toContainText(
    /MiB read/,
  )
  await row.getByRole('button', { name: 'Cancel' }).click()
  // The service's own bound (within a second) is the API test's (tests/api/replay-jobs.test.ts);
  // here the screen shows it at its next poll, late on a loaded machine (CI failed on it once).
  await expect(row).toContainText('cancelled', { timeout: 15_000 })
  await expect(row.getByRole('button', { name: 'Remove' })).toBeVisible()
})
