// The Replay screen's replays run by the service, past their summary: any result opens its
// requests and any request its headers, body, verdict and trace (issue 19's per-request
// drill-down); the job shown is in the address, so a reload or a link opens it; and a finished
// job's summary and verdicts save as files.

import AxeBuilder from '@axe-core/playwright'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { expect, test, type Workbench } from './fixtures'
import { zoneExecuting } from './managed-zone'

const TRAVERSAL = 'Directory Traversal - Unix system file access'

/** `count` requests with headers and a body, every third (lines 1, 4, 7…) an attack. */
function traffic(count: number): string {
  let text = ''
  for (let i = 0; i < count; i++) {
    const query = i % 3 === 0 ? '?file=../../etc/passwd' : `?n=${i}`
    const request = {
      method: 'POST',
      url: `https://drill.example.com/p${i % 2}${query}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-case': `case-${i}` },
      body: `note=${i}`,
    }
    text += `${JSON.stringify(request)}\n`
  }
  return text
}

let dir: string
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'zw-e2e-replay-drill-'))
})
test.afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Replays `count` requests in the service from the Replay screen and waits for the result. */
async function replayInService(page: Page, count: number): Promise<void> {
  const file = join(dir, `day-${count}.ndjson`)
  writeFileSync(file, traffic(count))
  await page.getByLabel('Traffic file').setInputFiles(file)
  await page.getByRole('button', { name: 'Replay in the service' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'in the service' })).toHaveText(
    `${count} requests replayed in the service (NDJSON request descriptions)`,
    { timeout: 30_000 },
  )
}

/** A zone executing the general ruleset, chosen on the Replay screen, with 30 requests replayed. */
async function replayedZone(page: Page, workbench: Workbench): Promise<string> {
  const zoneId = await zoneExecuting(workbench, 'drill.example.com')
  await page.goto(`${workbench.ui}#/replay`)
  await expect(page.getByLabel('Zone')).toHaveValue(zoneId)
  await replayInService(page, 30)
  return zoneId
}

/** The job the address names. */
function shownJob(page: Page): string {
  const job = /#\/zones\/[0-9a-f]{32}\/replay\/([0-9a-f]{32})$/.exec(page.url())?.[1]
  expect(job, page.url()).toBeDefined()
  return job!
}

test('a replay’s rule, path and outcome open its requests, and a request its headers, body, verdict and trace', async ({
  page,
  workbench,
}) => {
  await replayedZone(page, workbench)

  const requests = page.getByRole('table', { name: 'Replayed requests' })
  await expect(requests.getByRole('row')).toHaveCount(31)

  await page.getByRole('button', { name: `Requests of ${TRAVERSAL}` }).click()
  await expect(
    page.getByRole('heading', { name: `Requests rule ${TRAVERSAL} acted on` }),
  ).toBeVisible()
  await expect(requests.getByRole('row')).toHaveCount(11)
  await expect(requests.getByRole('row').filter({ hasText: 'Passed' })).toHaveCount(0)

  await page.getByRole('button', { name: 'Open the request on line 4' }).click()
  const detail = page.getByRole('region', { name: 'Request on line 4' })
  await expect(page.getByRole('heading', { name: 'Request on line 4' })).toBeFocused()
  await expect(detail).toContainText('POST https://drill.example.com/p1?file=../../etc/passwd')
  await expect(detail.getByRole('table', { name: 'Request headers' })).toContainText('case-3')
  await expect(detail).toContainText('note=3')
  await expect(detail).toContainText(`Blocked Block by ${TRAVERSAL}`)
  await expect(page.getByRole('region', { name: 'Outcome' })).toContainText('Blocked')
  await expect(page.getByRole('list', { name: 'Trace' })).toContainText(TRAVERSAL)
  const scan = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze()
  expect(scan.violations.map((violation) => violation.id)).toEqual([])
  await page.screenshot({ path: 'test-results/e2e/replay-drill-down.png', fullPage: true })
  // at a laptop's size the page does not scroll sideways
  await page.setViewportSize({ width: 1024, height: 700 })
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  )
  expect(overflow).toBeLessThanOrEqual(0)

  await page.getByRole('button', { name: 'Requests to /p0' }).click()
  await expect(page.getByRole('heading', { name: 'Requests to /p0' })).toBeVisible()
  await expect(requests.getByRole('row')).toHaveCount(16)
  await expect(page.getByRole('region', { name: 'Request on line 4' })).toHaveCount(0)

  await page.getByLabel('Outcome', { exact: true }).selectOption('passed')
  await expect(page.getByRole('heading', { name: 'Passed requests' })).toBeVisible()
  await expect(requests.getByRole('row')).toHaveCount(21)
  await expect(requests.getByRole('row').filter({ hasText: 'Blocked' })).toHaveCount(0)
})

test('the job shown is in the address: a reload, or its link, opens it', async ({
  page,
  workbench,
}) => {
  const zoneId = await replayedZone(page, workbench)
  const first = shownJob(page)
  await replayInService(page, 60)
  const second = shownJob(page)
  expect(second).not.toBe(first)

  // the older job, shown: the address names it, and a reload opens it rather than the newest
  const jobs = page.getByRole('table', { name: 'Replay jobs' })
  await jobs.getByRole('row').nth(2).getByRole('button', { name: 'Show' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'in the service' })).toHaveText(
    '30 requests replayed in the service (NDJSON request descriptions)',
  )
  expect(shownJob(page)).toBe(first)
  await page.reload()
  await expect(page.getByRole('status').filter({ hasText: 'in the service' })).toHaveText(
    '30 requests replayed in the service (NDJSON request descriptions)',
  )
  expect(shownJob(page)).toBe(first)
  await expect(jobs.getByRole('row').nth(2)).toHaveAttribute('aria-current', 'true')

  // a link opens the job it names, followed on this screen or loaded from another
  await page.evaluate((hash) => (location.hash = hash), `#/zones/${zoneId}/replay/${second}`)
  await expect(page.getByRole('status').filter({ hasText: 'in the service' })).toHaveText(
    '60 requests replayed in the service (NDJSON request descriptions)',
  )
  await page.goto(`${workbench.ui}#/simulator`)
  await page.goto(`${workbench.ui}#/zones/${zoneId}/replay/${first}`)
  await expect(page.getByRole('status').filter({ hasText: 'in the service' })).toHaveText(
    '30 requests replayed in the service (NDJSON request descriptions)',
  )

  // a job the service no longer holds is said to be gone
  await page.goto(`${workbench.ui}#/simulator`)
  await page.goto(`${workbench.ui}#/zones/${zoneId}/replay/${'0'.repeat(32)}`)
  await expect(page.getByText('is no longer in the service')).toBeVisible()
})

test('a finished replay’s summary and verdicts save as files', async ({ page, workbench }) => {
  await replayedZone(page, workbench)
  const job = shownJob(page)

  const summarySaved = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Export summary (JSON)' }).click()
  const summaryFile = await summarySaved
  expect(summaryFile.suggestedFilename()).toBe(`replay-${job}.summary.json`)
  const summary = JSON.parse(readFileSync(await summaryFile.path(), 'utf8'))
  expect(summary).toMatchObject({ requests: 30, outcomes: { blocked: 10, passed: 20 } })

  const verdictsSaved = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Export verdicts (NDJSON)' }).click()
  const verdictsFile = await verdictsSaved
  expect(verdictsFile.suggestedFilename()).toBe(`replay-${job}.ndjson`)
  const verdicts = readFileSync(await verdictsFile.path(), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  expect(verdicts).toHaveLength(30)
  expect(verdicts.filter((verdict) => verdict.outcome === 'blocked')).toHaveLength(10)
  expect(verdicts[3]).toMatchObject({ line: 4, method: 'POST', outcome: 'blocked' })
})

test('a finished replay’s opened request stays open while another replay runs', async ({
  page,
  workbench,
}) => {
  await replayedZone(page, workbench)
  const long = join(dir, 'long.ndjson')
  writeFileSync(long, traffic(300_000))
  await page.getByLabel('Traffic file').setInputFiles(long)
  await page.getByRole('button', { name: 'Replay in the service' }).click()
  const jobs = page.getByRole('table', { name: 'Replay jobs' })
  await expect(jobs.getByRole('row').nth(1)).toContainText('running', { timeout: 30_000 })

  await jobs.getByRole('row').nth(2).getByRole('button', { name: 'Show' }).click()
  await page.getByRole('button', { name: 'Open the request on line 1', exact: true }).click()
  const detail = page.getByRole('region', { name: 'Request on line 1' })
  await expect(detail).toBeVisible()
  // the running job's count moves at each poll of the list; the opened request stays
  const requests = jobs.getByRole('row').nth(1).getByRole('cell').nth(2)
  const before = await requests.textContent()
  await expect(requests).not.toHaveText(before ?? '')
  await expect(detail).toBeVisible()
  await jobs.getByRole('row').nth(1).getByRole('button', { name: 'Cancel' }).click()
  await expect(jobs.getByRole('row').nth(1)).toContainText('cancelled')
  await expect(detail).toBeVisible()
})
