// A security engineer's day, walked as a new user at a laptop's screen size (issue 19's "Done
// when"): on an empty workbench, create a zone, deploy the managed rulesets and tune them (a tag
// override, the OWASP paranoia level and threshold) and simulate an attack and a benign request,
// all by keyboard; write a firewall rule; replay a traffic file and open one request; review the
// history (in words, a diff, a restore); and walk a zone on the previous product through the
// migration wizard to its end. At every step: the page does not scroll sideways, the step's
// action buttons are on screen, focus is on the action's result rather than <body> (after the
// actions that move it), a reload comes back to the same zone, screen and step, and no id is shown
// where the thing has a name. These checks are soft, so one run lists every hole of the day.

import type { Locator, Page } from '@playwright/test'
import { expect, test } from './fixtures'
import { chooseWithArrows, tabTo } from './keyboard-moves'

const WIDTH = 1024
const HEIGHT = 700
const ZONE = 'day.example.com'
const LEGACY_ZONE = 'legacy.example.com'
const GENERAL = 'Cloudflare Managed Ruleset'
const OWASP = 'Cloudflare OWASP Core Ruleset'
const TRAVERSAL = 'Directory Traversal - Unix system file access'
const ATTACK_URL = `https://${ZONE}/download?file=../../etc/passwd`
const BENIGN_URL = `https://${ZONE}/products?page=2`

// The switch-over after the migration's cut-over, short enough for a test.
test.use({
  viewport: { width: WIDTH, height: HEIGHT },
  workbenchEnv: { ZONE_WORKBENCH_MIGRATION_SWITCH_MS: '3000' },
})

/** Fails when the page scrolls sideways at the laptop's width. */
async function expectNoSidewaysScroll(page: Page, step: string) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  )
  expect
    .soft(overflow, `${step}: the page scrolls sideways by ${overflow}px`)
    .toBeLessThanOrEqual(0)
}

/** Fails when an action is hidden or cut off at the page's right edge. */
async function expectOnScreen(step: string, actions: Locator[]) {
  for (const action of actions) {
    await expect.soft(action, `${step}: ${action} is not visible`).toBeVisible()
    if (!(await action.isVisible())) continue
    await action.scrollIntoViewIfNeeded()
    const box = await action.boundingBox()
    expect.soft(box, `${step}: ${action} has no box`).not.toBeNull()
    expect.soft(box!.x, `${step}: ${action} starts left of the page`).toBeGreaterThanOrEqual(0)
    expect
      .soft(box!.x + box!.width, `${step}: ${action} is cut off at the right`)
      .toBeLessThanOrEqual(WIDTH)
  }
}

/** Fails when focus fell to the page after an action instead of going to its result. */
async function expectFocusOnResult(page: Page, step: string) {
  await expect.soft(page.locator('body'), `${step}: focus is on <body>`).not.toBeFocused()
}

/** The screens whose ids are each behind their name and a Copy button, never in a bare `<code>`. */
const SCREENS_WITHOUT_BARE_IDS = ['Replay', 'Migration']

/**
 * The 32-hex ids the main region shows as text, with some context, leaving out what is there to
 * show an id: an id in its own `<code>` (the rules table's, the id under an event's rule name;
 * unless `bareIds` is false), a Copy button's id (the trace's "Rule id … Copy"), a history
 * point's bookmark, a configuration's diff, and an API path.
 */
function idsShown(page: Page, bareIds: boolean): Promise<string[]> {
  return page.getByRole('main').evaluate((main, bareIds) => {
    const id = /\b[0-9a-f]{32}\b/g
    const copy = main.cloneNode(true) as HTMLElement
    for (const code of bareIds ? copy.querySelectorAll('code') : []) {
      if (/^[0-9a-f]{32}$/.test(code.textContent?.trim() ?? '')) code.remove()
    }
    for (const shown of copy.querySelectorAll('[aria-label*="diff" i], code.bookmark')) {
      shown.remove()
    }
    for (const button of copy.querySelectorAll('button[aria-label^="Copy"]')) {
      button.parentElement?.remove()
    }
    // innerText needs the copy laid out to see what is visible, as the original is.
    copy.style.position = 'absolute'
    copy.style.left = '-100000px'
    document.body.append(copy)
    const text = copy.innerText
    copy.remove()
    return [...text.matchAll(id)]
      .filter((found) => text[found.index - 1] !== '/')
      .map((found) => text.slice(Math.max(0, found.index - 80), found.index + 40))
      .map((context) => context.replace(/\s+/g, ' '))
  }, bareIds)
}

/** `nameless`: ids of things with no name to show instead (a filter without a description). */
async function expectNoIdsForNames(page: Page, step: string, nameless: string[]) {
  const bareIds = !SCREENS_WITHOUT_BARE_IDS.some((screen) => step.startsWith(`${screen}:`))
  const shown = (await idsShown(page, bareIds)).filter(
    (text) => !nameless.some((id) => text.includes(id)),
  )
  expect.soft(shown, `${step}: ids shown where names exist`).toEqual([])
}

/** The checks every step of the day passes, before its reload. */
async function checkStep(page: Page, step: string, actions: Locator[], nameless: string[] = []) {
  await expectNoSidewaysScroll(page, step)
  await expectOnScreen(step, actions)
  await expectNoIdsForNames(page, step, nameless)
}

/** Reloads and expects the same address, zone and what shows the step. */
async function expectReloadKeeps(page: Page, step: string, zoneId: string, shows: Locator) {
  const address = new URL(page.url()).hash
  await page.reload()
  await expect.soft
    .poll(() => new URL(page.url()).hash, { message: `${step}: the reload moved the address` })
    .toBe(address)
  await expect.soft(page.getByLabel('Zone', { exact: true })).toHaveValue(zoneId)
  await expect.soft(shows, `${step}: the reload lost the step`).toBeVisible()
}

/** The zone's id, as a script would read it. */
async function zoneIdOf(api: string, token: string, name: string): Promise<string> {
  const answer = await fetch(`${api}/zones?name=${name}`, {
    headers: { authorization: `Bearer ${token}` },
  }).then((r) => r.json())
  return answer.result[0].id as string
}

test("a security engineer's day at 1024×700: tune, simulate, write a rule, replay, review history, migrate", async ({
  page,
  workbench,
}) => {
  test.setTimeout(300_000)
  // Leaving or reloading with unsaved work asks; the day answers yes where it means to leave.
  page.on('dialog', (dialog) => void dialog.accept())

  // Zones, by keyboard: name the zone and press Enter. Focus goes to the new zone's row.
  await page.goto(workbench.ui)
  await expect(page.getByRole('heading', { name: 'Zones', level: 1 })).toBeVisible()
  await tabTo(page, page.getByPlaceholder('example.com'))
  await page.keyboard.type(ZONE)
  await page.keyboard.press('Enter')
  const zoneRow = page.getByRole('row', { name: new RegExp(ZONE.replaceAll('.', '\\.')) })
  await expect(zoneRow.locator(':focus')).toHaveText(ZONE)
  const zoneId = await zoneIdOf(workbench.api, workbench.token, ZONE)
  await checkStep(page, 'Zones', [
    page.getByRole('button', { name: 'Create zone' }),
    zoneRow.getByRole('button', { name: 'Delete' }),
  ])

  // Managed rules, by keyboard: deploy the managed ruleset, log the WordPress tag.
  await tabTo(page, page.getByRole('link', { name: 'Managed rules' }))
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { name: 'Managed rules', level: 1 })).toBeVisible()
  await expect(page).toHaveURL(new RegExp(`#/zones/${zoneId}/managed-rules`))
  await tabTo(page, page.getByRole('button', { name: `Deploy ${GENERAL}` }))
  await page.keyboard.press('Enter')
  await expect(page.getByRole('status').filter({ hasText: 'Saved: version' })).toBeVisible()
  const general = page.getByRole('region', { name: `Configure ${GENERAL}` })
  await expect(general.getByRole('heading', { name: GENERAL })).toBeFocused()
  await chooseWithArrows(page, general.getByLabel('Tag to override'), 'wordpress')
  await chooseWithArrows(page, general.getByLabel('Tag action'), 'log')
  await tabTo(page, general.getByRole('button', { name: 'Add tag override' }))
  await page.keyboard.press('Space')
  await expect(page.getByText('Unsaved changes')).toBeVisible()
  await expectFocusOnResult(page, 'Managed rules: tag override added')
  await checkStep(page, 'Managed rules: tag override', [
    page.getByRole('button', { name: 'Save', exact: true }),
    general.getByRole('button', { name: 'Add tag override' }),
    general.getByRole('combobox', { name: /^Status override for / }).first(),
  ])
  // A reload keeps the zone, the open deployment and the unsaved override.
  await expectReloadKeeps(
    page,
    'Managed rules: unsaved override',
    zoneId,
    general.getByRole('list', { name: 'Tag overrides' }),
  )
  await expect(general.getByRole('list', { name: 'Tag overrides' })).toContainText('wordpress')
  await expect(page.getByText('Unsaved changes')).toBeVisible()
  await tabTo(page, page.getByRole('button', { name: 'Save', exact: true }))
  await page.keyboard.press('Enter')
  await expect(page.getByText('Unsaved changes')).toHaveCount(0)
  await expect(page.getByRole('status').filter({ hasText: 'Saved: version' })).toBeFocused()

  // The OWASP core ruleset: deployed, then paranoia level 2 (arrow keys in the radio group) and
  // the medium threshold, saved.
  await tabTo(page, page.getByRole('button', { name: `Deploy ${OWASP}` }))
  await page.keyboard.press('Enter')
  const owasp = page.getByRole('region', { name: `Configure ${OWASP}` })
  await expect(owasp.getByRole('heading', { name: OWASP })).toBeFocused()
  // The group is one tab stop, its checked radio; the arrow keys move between levels.
  const levelInForce = owasp.getByRole('radio', { checked: true })
  await tabTo(page, levelInForce)
  const from = Number(await levelInForce.getAttribute('value'))
  for (let step = from; step !== 2; step += from < 2 ? 1 : -1) {
    await page.keyboard.press(from < 2 ? 'ArrowRight' : 'ArrowLeft')
  }
  await expect(owasp.getByRole('radio', { name: 'Paranoia level 2' })).toBeChecked()
  await chooseWithArrows(page, owasp.getByLabel('Anomaly score threshold'), '40')
  await expect(owasp.getByTestId('paranoia-in-force')).toHaveText('In force: PL2, threshold 40')
  await checkStep(page, 'Managed rules: OWASP tuned', [
    page.getByRole('button', { name: 'Save', exact: true }),
    owasp.getByRole('radio', { name: 'Paranoia level 2' }),
    owasp.getByLabel('Anomaly score threshold'),
  ])
  await tabTo(page, page.getByRole('button', { name: 'Save', exact: true }), 'Shift+Tab')
  await page.keyboard.press('Enter')
  await expect(page.getByText('Unsaved changes')).toHaveCount(0)
  await expect(page.getByRole('status').filter({ hasText: 'Saved: version' })).toBeFocused()
  await expectReloadKeeps(
    page,
    'Managed rules: saved',
    zoneId,
    owasp.getByTestId('paranoia-in-force'),
  )
  await expect(owasp.getByTestId('paranoia-in-force')).toHaveText('In force: PL2, threshold 40')

  // Simulator, by keyboard: the attack is blocked by a rule named in the outcome and the trace.
  await tabTo(page, page.getByRole('link', { name: 'Simulator' }), 'Shift+Tab')
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(new RegExp(`#/zones/${zoneId}/simulator`))
  const url = page.getByLabel('URL')
  await tabTo(page, url)
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.type(ATTACK_URL)
  const run = page.getByRole('button', { name: 'Run', exact: true })
  await tabTo(page, run)
  await page.keyboard.press('Enter')
  const outcome = page.getByRole('region', { name: 'Outcome' })
  // The first run after deploying the OWASP ruleset compiles it, which takes a while on a busy
  // machine.
  await expect(outcome.locator('[data-outcome]').first()).toHaveAttribute(
    'data-outcome',
    'blocked',
    { timeout: 30_000 },
  )
  await expect(page.locator(':focus').getByRole('region', { name: 'Outcome' })).toBeVisible()
  await expect(outcome).toContainText(TRAVERSAL)
  const trace = page.getByRole('list', { name: 'Trace' })
  await expect(trace.getByRole('article', { name: TRAVERSAL })).toContainText('Matched')
  await checkStep(page, 'Simulator: attack', [run])
  await expectReloadKeeps(page, 'Simulator: attack', zoneId, url)
  await expect(url).toHaveValue(ATTACK_URL)

  // The benign request passes, and says which deployments it went through.
  await tabTo(page, url)
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.type(BENIGN_URL)
  await tabTo(page, run)
  await page.keyboard.press('Enter')
  await expect(outcome.locator('[data-outcome]').first()).toHaveAttribute('data-outcome', 'passed')
  await expect(page.locator(':focus').getByRole('region', { name: 'Outcome' })).toBeVisible()
  await expect(trace).toContainText(GENERAL)
  await expect(trace).toContainText(OWASP)
  await checkStep(page, 'Simulator: benign', [run])

  // Firewall rules: a rule blocking the admin area, with its filter written inline.
  await page.getByRole('link', { name: 'Firewall rules' }).click()
  await expect(page).toHaveURL(new RegExp(`#/zones/${zoneId}/firewall-rules`))
  await page.getByRole('textbox', { name: 'Rule expression' }).click()
  await page.keyboard.type('http.request.uri.path contains "/admin"')
  await page.getByLabel('Action', { exact: true }).selectOption('block')
  await page.getByLabel('Description', { exact: true }).fill('Block the admin area')
  const createRule = page.getByRole('button', { name: 'Create rule' })
  await checkStep(page, 'Firewall rules: new rule', [createRule])
  await createRule.click()
  const ruleRow = page
    .getByRole('table', { name: 'Firewall rules' })
    .getByRole('row', { name: /Block the admin area/ })
  await expect(ruleRow.getByRole('button', { name: /^Edit / })).toBeFocused()
  await checkStep(page, 'Firewall rules: rule created', [
    createRule,
    ruleRow.getByRole('button', { name: 'Edit' }),
    ruleRow.getByRole('button', { name: 'Delete' }),
  ])
  await expectReloadKeeps(page, 'Firewall rules', zoneId, ruleRow)

  // Replay: a small traffic file, run by the service; a rule's requests, then one request.
  const traffic = Array.from({ length: 12 }, (_, i) =>
    JSON.stringify({
      method: 'GET',
      url: i % 3 === 0 ? ATTACK_URL : `https://${ZONE}/products?page=${i}`,
    }),
  ).join('\n')
  await page.getByRole('link', { name: 'Replay' }).click()
  await expect(page).toHaveURL(new RegExp(`#/zones/${zoneId}/replay`))
  await page.getByLabel('Traffic file').setInputFiles({
    name: 'morning.ndjson',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(`${traffic}\n`),
  })
  const replayInService = page.getByRole('button', { name: 'Replay in the service' })
  await checkStep(page, 'Replay: file chosen', [replayInService])
  await replayInService.click()
  const replayed = page.getByRole('status').filter({ hasText: 'in the service' })
  await expect(replayed).toHaveText(
    '12 requests replayed in the service (NDJSON request descriptions)',
    {
      timeout: 60_000,
    },
  )
  await expect(page.getByRole('img', { name: /^Outcomes of 12 requests/ })).toHaveAttribute(
    'aria-label',
    /Blocked: 4/,
  )
  await expectFocusOnResult(page, 'Replay: finished')
  await checkStep(page, 'Replay: finished', [
    page.getByRole('button', { name: 'Export summary (JSON)' }),
    page.getByRole('button', { name: `Requests of ${TRAVERSAL}` }),
  ])
  await page.getByRole('button', { name: `Requests of ${TRAVERSAL}` }).click()
  const requests = page.getByRole('table', { name: 'Replayed requests' })
  await expect(requests.getByRole('row')).toHaveCount(5)
  await page.getByRole('button', { name: 'Open the request on line 4' }).click()
  const detail = page.getByRole('region', { name: 'Request on line 4' })
  await expect(page.getByRole('heading', { name: 'Request on line 4' })).toBeFocused()
  await expect(detail).toContainText(`Blocked Block by ${TRAVERSAL}`)
  await expect(page.getByRole('list', { name: 'Trace' })).toContainText(TRAVERSAL)
  await checkStep(page, 'Replay: one request', [
    page.getByRole('button', { name: 'Open the request on line 4' }),
  ])
  await expectReloadKeeps(page, 'Replay', zoneId, replayed)

  // History: the day's changes in words, one compared with now, then a restore.
  await page.getByRole('link', { name: 'History' }).click()
  await expect(page).toHaveURL(new RegExp(`#/zones/${zoneId}/history`))
  const points = page.getByRole('list', { name: 'Points in history' }).getByRole('listitem')
  await expect(points.last()).toContainText(`Zone ${ZONE} created`)
  await expect(points.filter({ hasText: `Deployed ${OWASP}` })).not.toHaveCount(0)
  await expect(points.first()).toContainText(
    'Firewall rule “Block the admin area” created, with its filter',
  )
  await checkStep(page, 'History', [
    points.nth(1).getByRole('button', { name: 'Compare with now' }),
    points.nth(1).getByRole('button', { name: 'Restore to here' }),
  ])
  const beforeRule = points.nth(1)
  await beforeRule.getByRole('button', { name: 'Compare with now' }).click()
  const comparison = page.getByRole('region', { name: /to now$/ })
  await expect(comparison.getByRole('heading')).toBeFocused()
  await expect(comparison.getByLabel('Configuration diff, then against now')).toBeVisible()
  const filters = await fetch(`${workbench.api}/zones/${zoneId}/filters`, {
    headers: { authorization: `Bearer ${workbench.token}` },
  }).then((r) => r.json())
  const namelessFilters = (filters.result as { id: string; description?: string }[])
    .filter((filter) => !filter.description)
    .map((filter) => filter.id)
  await checkStep(
    page,
    'History: compared',
    [comparison.getByRole('button', { name: 'Close comparison' })],
    namelessFilters,
  )
  await comparison.getByRole('button', { name: 'Close comparison' }).click()
  await beforeRule.getByRole('button', { name: 'Restore to here' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Restore' }).click()
  await expect(points.first()).toContainText('Restored to the point of')
  await expectFocusOnResult(page, 'History: restored')
  await checkStep(page, 'History: restored', [page.getByRole('button', { name: 'Undo restore' })])
  await expectReloadKeeps(page, 'History', zoneId, points.first())

  // Migration: a second zone, on the previous product, walked through the wizard to its end.
  await page.getByRole('link', { name: 'Zones' }).click()
  await page.getByPlaceholder('example.com').fill(LEGACY_ZONE)
  await page.getByLabel('Plan', { exact: true }).selectOption('business')
  await page.getByLabel('WAF product').selectOption('previous')
  await page.getByRole('button', { name: 'Create zone' }).click()
  const legacyRow = page.getByRole('row', { name: new RegExp(LEGACY_ZONE.replaceAll('.', '\\.')) })
  await expect(legacyRow).toContainText('Previous WAF (to migrate)')
  const legacyId = await zoneIdOf(workbench.api, workbench.token, LEGACY_ZONE)
  await page.getByRole('link', { name: 'Migration' }).click()
  await page.getByLabel('Zone', { exact: true }).selectOption(legacyId)
  await expect(page).toHaveURL(new RegExp(`#/zones/${legacyId}/migration`))
  const step = page.locator('[aria-current="step"]')
  await expect(step).toContainText('Current settings')
  await checkStep(page, 'Migration: current settings', [
    page.getByRole('button', { name: 'Next: Eligibility' }),
  ])

  await page.getByRole('button', { name: 'Next: Eligibility' }).click()
  await expect(page.getByTestId('eligibility')).toHaveText('Eligible: this zone can migrate')
  await expectFocusOnResult(page, 'Migration: eligibility')
  await checkStep(page, 'Migration: eligibility', [
    page.getByRole('button', { name: 'Next: Review' }),
  ])
  await expectReloadKeeps(page, 'Migration: eligibility', legacyId, page.getByTestId('eligibility'))

  await page.getByRole('button', { name: 'Next: Review' }).click()
  await expect(step).toContainText('Review')
  await expect(page.getByTestId('paranoia-level')).toBeVisible()
  await expectFocusOnResult(page, 'Migration: review')
  await checkStep(page, 'Migration: review', [page.getByRole('button', { name: 'Next: Validate' })])
  await expectReloadKeeps(page, 'Migration: review', legacyId, page.getByTestId('paranoia-level'))

  await page.getByRole('button', { name: 'Next: Validate' }).click()
  await expect(step).toContainText('Validate')
  await page
    .getByLabel('Traffic', { exact: true })
    .fill(
      [`https://${LEGACY_ZONE}/`, `https://${LEGACY_ZONE}/?id=1%27%20UNION%20SELECT%20password--`]
        .map((target) => JSON.stringify({ method: 'GET', url: target }))
        .join('\n'),
    )
  const compare = page.getByRole('button', { name: 'Compare', exact: true })
  await checkStep(page, 'Migration: validate', [compare])
  await compare.click()
  await expect(page.getByRole('table', { name: 'Outcome matrix' })).toBeVisible({
    timeout: 60_000,
  })
  await expectFocusOnResult(page, 'Migration: compared')
  await checkStep(page, 'Migration: compared', [
    page.getByRole('button', { name: 'Next: Cut over' }),
  ])
  await expectReloadKeeps(
    page,
    'Migration: compared',
    legacyId,
    page.getByRole('table', { name: 'Outcome matrix' }),
  )

  await page.getByRole('button', { name: 'Next: Cut over' }).click()
  await expect(step).toContainText('Cut over')
  const migrate = page.getByRole('button', { name: 'Migrate to managed rulesets' })
  await expect(migrate).toBeDisabled()
  await page.getByLabel('Zone name to confirm').fill(LEGACY_ZONE)
  await checkStep(page, 'Migration: cut over', [migrate])
  await migrate.click()
  const done = page.getByRole('heading', { name: 'This zone is on managed rulesets' })
  await expect(done).toBeVisible({ timeout: 30_000 })
  await expectFocusOnResult(page, 'Migration: done')
  await checkStep(page, 'Migration: done', [page.getByRole('link', { name: 'Open Managed rules' })])
  await expectReloadKeeps(page, 'Migration: done', legacyId, done)
})
