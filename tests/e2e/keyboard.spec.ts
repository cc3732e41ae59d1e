// A day's first task by keyboard alone (issue 19): create a zone, deploy the managed ruleset with
// its WordPress tag logged instead of blocked, and simulate a request, reaching every control with
// Tab and acting with Enter, Space and the arrow keys. No mouse event is sent: nothing here clicks,
// fills or selects through Playwright's element actions, only page.keyboard.

import { readFileSync } from 'node:fs'
import { expect, test } from './fixtures'
import { chooseWithArrows, tabTo } from './keyboard-moves'

const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const PHASE = 'http_request_firewall_managed'
const catalog = JSON.parse(readFileSync(`resources/managed-rulesets/${GENERAL}.json`, 'utf8')) as {
  name: string
}

test('create a zone, deploy the managed ruleset with a tag override and simulate, by keyboard only', async ({
  page,
  workbench,
}) => {
  test.setTimeout(120_000)
  // Every pointer press the page sees is counted: there must be none.
  await page.addInitScript(() => {
    const presses = { count: 0 }
    Object.assign(window, { pointerPresses: presses })
    for (const kind of ['pointerdown', 'mousedown']) {
      window.addEventListener(kind, () => (presses.count += 1), { capture: true })
    }
  })
  await page.goto(workbench.ui)
  await expect(page.getByRole('heading', { name: 'Zones', level: 1 })).toBeVisible()

  // Zones: name the zone and press Enter in its field.
  await tabTo(page, page.getByPlaceholder('example.com'))
  await page.keyboard.type('keys.example.com')
  await page.keyboard.press('Enter')
  await expect(page.getByRole('row', { name: /keys\.example\.com/ })).toBeVisible()

  // Managed rules: deploy, then override the wordpress tag to log, then save.
  await tabTo(page, page.getByRole('link', { name: 'Managed rules' }))
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { name: 'Managed rules', level: 1 })).toBeVisible()
  await tabTo(page, page.getByRole('button', { name: `Deploy ${catalog.name}` }))
  await page.keyboard.press('Enter')
  await expect(page.getByRole('status').filter({ hasText: 'Saved: version' })).toBeVisible()
  const editor = page.getByRole('region', { name: `Configure ${catalog.name}` })
  await chooseWithArrows(page, editor.getByLabel('Tag to override'), 'wordpress')
  await chooseWithArrows(page, editor.getByLabel('Tag action'), 'log')
  await tabTo(page, editor.getByRole('button', { name: 'Add tag override' }))
  await page.keyboard.press('Space')
  await expect(page.getByText('Unsaved changes')).toBeVisible()
  await tabTo(page, page.getByRole('button', { name: 'Save', exact: true }), 'Shift+Tab')
  await page.keyboard.press('Enter')
  await expect(page.getByText('Unsaved changes')).toHaveCount(0)
  await expect(page.getByRole('status').filter({ hasText: 'Saved: version' })).toBeVisible()

  // Simulator: a WordPress login page, run with Enter on the Run button.
  await tabTo(page, page.getByRole('link', { name: 'Simulator' }), 'Shift+Tab')
  await page.keyboard.press('Enter')
  const url = page.getByLabel('URL')
  await tabTo(page, url)
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.type('https://keys.example.com/wp-login.php')
  await tabTo(page, page.getByRole('button', { name: 'Run', exact: true }))
  await page.keyboard.press('Enter')
  const outcome = page.getByRole('region', { name: 'Outcome' })
  await expect(outcome.locator('[data-outcome]').first()).toBeVisible()
  // The outcome is said by the screen's live region, in the words the badge shows.
  const badge = (await outcome.locator('[data-outcome]').first().innerText()).trim()
  await expect(page.getByRole('status').filter({ hasText: badge })).toHaveCount(1)

  const pointerPresses = await page.evaluate(
    () => (window as unknown as { pointerPresses: { count: number } }).pointerPresses.count,
  )
  expect(pointerPresses).toBe(0)

  const zones = await fetch(`${workbench.api}/zones?name=keys.example.com`, {
    headers: { authorization: `Bearer ${workbench.token}` },
  }).then((r) => r.json())
  const entrypoint = await fetch(
    `${workbench.api}/zones/${zones.result[0].id}/rulesets/phases/${PHASE}/entrypoint`,
    { headers: { authorization: `Bearer ${workbench.token}` } },
  ).then((r) => r.json())
  const execute = entrypoint.result.rules.find(
    (rule: { action: string }) => rule.action === 'execute',
  )
  expect(execute.action_parameters.id).toBe(GENERAL)
  expect(execute.action_parameters.overrides.categories).toEqual([
    { category: 'wordpress', action: 'log' },
  ])
})
