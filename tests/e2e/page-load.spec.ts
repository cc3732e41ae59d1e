// Opening the UI costs the browser nothing it cannot have: on every screen, with and without a
// zone, no console error, no uncaught exception, no request that fails or is answered 4xx or 5xx
// (a missing /favicon.ico was one on every screen). The page names its own icon, served as SVG
// and allowed by the page's policy, and the headless shell sends the one directive a <meta>
// policy cannot carry (frame-ancestors) as a header.

import type { Page } from '@playwright/test'
import { SCREENS } from '../../src-renderer/src/lib/route'
import { expect, test, type Workbench } from './fixtures'

/** What went wrong in the browser while the page was open, one line each. */
function watch(page: Page): string[] {
  const faults: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') faults.push(`console: ${message.text()}`)
  })
  page.on('pageerror', (error) => faults.push(`exception: ${error.message}`))
  page.on('requestfailed', (request) =>
    faults.push(`failed: ${request.url()} (${request.failure()?.errorText})`),
  )
  page.on('response', (response) => {
    if (response.status() >= 400) faults.push(`${response.status()}: ${response.url()}`)
  })
  return faults
}

async function openEach(page: Page, zoneId: string | null) {
  for (const screen of SCREENS) {
    const zoneScreen = !['zones', 'import', 'production', 'objects', 'settings'].includes(screen)
    const hash = zoneScreen && zoneId !== null ? `#/zones/${zoneId}/${screen}` : `#/${screen}`
    await page.evaluate((target) => (location.hash = target), hash)
    await expect(page.locator('main h1')).toBeVisible()
    await expect(page.getByText(/^Loading/)).toHaveCount(0)
    await page.waitForLoadState('networkidle')
  }
}

async function newZone(workbench: Workbench): Promise<string> {
  const answer = await fetch(`${workbench.api}/zones`, {
    method: 'POST',
    headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'quiet.example', plan: 'business' }),
  }).then((response) => response.json())
  expect(answer.success, JSON.stringify(answer.errors)).toBe(true)
  return answer.result.id as string
}

test('every screen opens without a console error or a failed request', async ({
  page,
  workbench,
}) => {
  test.setTimeout(120_000)
  const faults = watch(page)
  const opened = await page.goto(workbench.ui)
  await expect(page.locator('main h1')).toBeVisible()
  await page.waitForLoadState('networkidle')
  await openEach(page, null)
  await openEach(page, await newZone(workbench))
  expect(faults).toEqual([])
  expect(opened?.headers()['content-security-policy']).toBe("frame-ancestors 'none'")
})

test('the page names its own icon, served as SVG', async ({ page, workbench }) => {
  const icons: string[] = []
  page.on('request', (request) => {
    if (/\/favicon\.[a-z]+$/.test(new URL(request.url()).pathname)) icons.push(request.url())
  })
  await page.goto(workbench.ui)
  await expect(page.locator('main h1')).toBeVisible()

  await expect(page.locator('link[rel="icon"]')).toHaveAttribute('href', './favicon.svg')
  const icon = await page.request.get(new URL('favicon.svg', page.url()).href)
  expect(icon.status()).toBe(200)
  expect(icon.headers()['content-type']).toMatch(/^image\/svg\+xml\b/)
  expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
  await expect.poll(() => icons).toEqual([new URL('/favicon.svg', workbench.ui).href])
})
