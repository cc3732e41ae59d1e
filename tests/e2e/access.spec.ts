// Every screen, empty, filled and in an error state, at a laptop's size and a desktop's: no WCAG
// 2.1 A/AA violation that axe finds, no horizontal scrolling of the page, and every action button
// reachable in view, not cut off by a container (issue 19, "Layout and access"). One service and
// one page visit all of them; each screen's screenshot at each size is kept in test-results/.

import AxeBuilder from '@axe-core/playwright'
import type { Page, TestInfo } from '@playwright/test'
import { SCREENS, type Screen } from '../../src-renderer/src/lib/route'
import { expect, test, type Workbench } from './fixtures'

const VIEWPORTS = [
  { width: 1024, height: 700 },
  { width: 1920, height: 1080 },
]
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
const PHASE = 'http_request_firewall_managed'
const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'

async function call(workbench: Workbench, method: string, path: string, body?: unknown) {
  const answer = await fetch(`${workbench.api}${path}`, {
    method,
    headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((r) => r.json())
  expect(answer.success, JSON.stringify(answer.errors)).toBe(true)
  return answer.result
}

/** A zone with the managed ruleset deployed, a firewall rule, and a recorded simulated event. */
async function filledZone(workbench: Workbench): Promise<string> {
  const zone = await call(workbench, 'POST', '/zones', { name: 'shop.example.com', plan: 'pro' })
  await call(workbench, 'PUT', `/zones/${zone.id}/rulesets/phases/${PHASE}/entrypoint`, {
    rules: [{ action: 'execute', expression: 'true', action_parameters: { id: GENERAL } }],
  })
  await call(workbench, 'POST', `/zones/${zone.id}/firewall/rules`, [
    {
      description: 'Block the admin area',
      action: 'block',
      filter: { expression: 'http.request.uri.path contains "/admin"' },
    },
  ])
  const simulate = `${workbench.api.replace('/client/v4', '/workbench/v1')}/zones/${zone.id}/simulate`
  const simulated = await fetch(simulate, {
    method: 'POST',
    headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', url: 'https://shop.example.com/admin' }),
  }).then((r) => r.json())
  expect(simulated.success, JSON.stringify(simulated.errors)).toBe(true)
  return zone.id as string
}

/**
 * Buttons the user can act on that are not reachable in view: after scrolling each into view, it
 * lies outside the window or outside the box of an ancestor that clips its overflow.
 */
function unreachableButtons(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const clipped: string[] = []
    const buttons = document.querySelectorAll<HTMLElement>(
      'main button, main [role="button"], main input[type="submit"]',
    )
    for (const button of buttons) {
      if (button.getClientRects().length === 0) continue
      button.scrollIntoView({ block: 'nearest', inline: 'nearest' })
      const box = button.getBoundingClientRect()
      const name = (button.textContent ?? '').trim() || button.getAttribute('aria-label') || '?'
      const inWindow =
        box.left >= -0.5 &&
        box.top >= -0.5 &&
        box.right <= window.innerWidth + 0.5 &&
        box.bottom <= window.innerHeight + 0.5
      let cutBy: string | null = inWindow ? null : 'the window'
      for (let parent = button.parentElement; parent && cutBy === null;) {
        const style = getComputedStyle(parent)
        if (style.overflowX !== 'visible' || style.overflowY !== 'visible') {
          const frame = parent.getBoundingClientRect()
          const inside =
            box.left >= frame.left - 0.5 &&
            box.right <= frame.right + 0.5 &&
            box.top >= frame.top - 0.5 &&
            box.bottom <= frame.bottom + 0.5
          if (!inside) cutBy = parent.tagName.toLowerCase() + '.' + parent.className
        }
        parent = parent.parentElement
      }
      if (cutBy !== null) clipped.push(`${name} (cut by ${cutBy})`)
    }
    for (const scrolled of document.querySelectorAll('*')) scrolled.scrollTo(0, 0)
    window.scrollTo(0, 0)
    return clipped
  })
}

/** Radios outside a named group: each is a tab stop of its own instead of one per group. */
function ungroupedRadios(page: Page): Promise<string[]> {
  return page
    .locator('main input[type="radio"]:not([name])')
    .evaluateAll((radios) =>
      radios.map((radio) => radio.closest('label')?.textContent?.trim() ?? '?'),
    )
}

/** The page's own width and that of its scrolling region beside the navigation, where wider. */
async function pageOverflow(page: Page) {
  return page.evaluate(() =>
    [document.documentElement, document.querySelector('main')]
      .filter((element) => element !== null)
      .filter((element) => element.scrollWidth > element.clientWidth)
      .map((element) => `${element.tagName} ${element.scrollWidth} > ${element.clientWidth}`),
  )
}

/** Opens a screen and waits until it has drawn what it loads. */
async function open(page: Page, hash: string, ready: (page: Page) => Promise<void>) {
  await page.evaluate((target) => (location.hash = target), hash)
  await expect(page.locator('main h1')).toBeVisible()
  await ready(page)
  // What a screen fetches on opening settles before it is judged.
  await page.waitForLoadState('networkidle')
}

/** axe, the page's width and the action buttons, at both sizes; a screenshot of each. */
async function check(page: Page, info: TestInfo, label: string) {
  const findings: string[] = []
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport)
    const size = `${viewport.width}x${viewport.height}`
    await page.screenshot({ path: info.outputPath(`${label}-${size}.png`) })
    for (const overflow of await pageOverflow(page)) {
      findings.push(`${label} at ${size}: page scrolls sideways (${overflow})`)
    }
    for (const button of await unreachableButtons(page)) {
      findings.push(`${label} at ${size}: button not in view: ${button}`)
    }
  }
  for (const radio of await ungroupedRadios(page)) {
    findings.push(`${label}: radio outside a named group: ${radio}`)
  }
  const axe = await new AxeBuilder({ page }).withTags(WCAG_21_AA).analyze()
  for (const violation of axe.violations) {
    const targets = violation.nodes.map((node) => node.target.join(' ')).join(', ')
    findings.push(`${label}: axe ${violation.id}: ${violation.help} (${targets})`)
  }
  return findings
}

/** A zone screen's route, on the zone given. */
function zoneHash(screen: Screen, zoneId: string | null) {
  if (screen === 'zones' || zoneId === null) return `#/${screen}`
  return ['settings', 'objects', 'import', 'production'].includes(screen)
    ? `#/${screen}`
    : `#/zones/${zoneId}/${screen}`
}

const loaded = async (page: Page) => {
  await expect(page.getByText(/^Loading/)).toHaveCount(0)
}

test('every screen, empty, filled and in error, at 1024×700 and 1920×1080', async ({
  page,
  workbench,
}, info) => {
  test.setTimeout(240_000)
  const findings: string[] = []
  await page.goto(workbench.ui)
  await expect(page.locator('main h1')).toBeVisible()

  for (const screen of SCREENS) {
    await open(page, `#/${screen}`, loaded)
    findings.push(...(await check(page, info, `${screen}-empty`)))
  }

  const zoneId = await filledZone(workbench)
  for (const screen of SCREENS) {
    await open(page, zoneHash(screen, zoneId), loaded)
    findings.push(...(await check(page, info, `${screen}-filled`)))
  }

  // A zone on the previous product: the migration wizard, and Managed rules as it stands there.
  const legacy = await call(workbench, 'POST', '/zones', {
    name: 'legacy.example.com',
    plan: 'business',
    waf_product: 'previous',
  })
  for (const screen of ['migration', 'managed-rules', 'firewall-rules'] as const) {
    await open(page, zoneHash(screen, legacy.id), loaded)
    findings.push(...(await check(page, info, `${screen}-previous-product`)))
  }

  // The Simulator's result: the outcome, its events and the trace.
  await open(page, zoneHash('simulator', zoneId), loaded)
  await page.getByLabel('URL').fill('https://shop.example.com/admin')
  await page.getByRole('button', { name: 'Run', exact: true }).click()
  await expect(page.getByRole('region', { name: 'Outcome' })).toBeVisible()
  findings.push(...(await check(page, info, 'simulator-result')))

  // The error states: what a user's mistake shows on the screens that take input.
  await open(page, '#/zones', loaded)
  await page.getByPlaceholder('example.com').fill('not a zone name')
  await page.getByRole('button', { name: 'Create zone' }).click()
  await expect(page.locator('.error, [role="alert"]').first()).toBeVisible()
  findings.push(...(await check(page, info, 'zones-error')))

  await open(page, zoneHash('simulator', zoneId), loaded)
  await page.getByRole('radio', { name: 'JSON' }).check()
  await page.getByLabel('JSON body').fill('{"log": ')
  await expect(page.getByText(/^Not valid JSON/)).toBeVisible()
  findings.push(...(await check(page, info, 'simulator-error')))

  await open(page, zoneHash('expressions', zoneId), loaded)
  await page.getByRole('textbox').first().fill('ip.src in {1.2.3')
  await expect(page.locator('.error, [role="alert"], .cm-lintRange-error').first()).toBeVisible()
  findings.push(...(await check(page, info, 'expressions-error')))

  await open(page, zoneHash('firewall-rules', zoneId), loaded)
  await page.getByRole('textbox', { name: 'Rule expression' }).fill('ip.src in {1.2.3')
  await expect(page.locator('.cm-lintRange-error, [role="alert"]').first()).toBeVisible()
  findings.push(...(await check(page, info, 'firewall-rules-error')))

  // Managed rules with a deployment open (its table of every rule), then a refused save. The
  // firewall rule typed above is a draft, which leaving discards once confirmed.
  await page.evaluate((target) => (location.hash = target), zoneHash('managed-rules', zoneId))
  await page.getByRole('button', { name: 'Discard changes' }).click()
  await open(page, zoneHash('managed-rules', zoneId), loaded)
  await page
    .getByRole('button', { name: /^Configure / })
    .first()
    .click()
  const editor = page.getByRole('region', { name: /^Configure / })
  await expect(editor.getByRole('table', { name: 'Managed rules' })).toBeVisible()
  findings.push(...(await check(page, info, 'managed-rules-configured')))
  await editor.getByLabel('Payload logging public key').fill('not-a-key')
  await editor.getByLabel('Payload logging public key').press('Tab')
  await page.getByRole('button', { name: 'Save', exact: true }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'public_key' })).toBeVisible()
  findings.push(...(await check(page, info, 'managed-rules-error')))

  // Production: a remote the workbench refuses before connecting (plain http off loopback).
  await page.evaluate(() => (location.hash = '#/production'))
  await page.getByRole('button', { name: 'Discard changes' }).click()
  await open(page, '#/production', loaded)
  await page.getByLabel('API base URL').fill('http://api.example.com/client/v4')
  await page.getByLabel('API token').fill('not-a-token')
  await page.getByRole('button', { name: 'Pull from remote' }).click()
  await expect(page.getByRole('alert').first()).toBeVisible()
  findings.push(...(await check(page, info, 'production-error')))

  expect(findings).toEqual([])
})
