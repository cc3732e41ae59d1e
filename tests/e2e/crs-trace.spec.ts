// The CRS story on the screens: the OWASP ruleset deployed at paranoia level 2 with the Managed
// rules screen's control (by keyboard alone: one tab stop, arrow keys move), its threshold set to
// CRS's own 5, then a SQL injection simulated: the trace names the CRS rule, the variable that
// matched and the total against the threshold at that level; the outcome names the rule and the
// ruleset instead of their ids; a deployment whose expression did not match shows it.

import { readFileSync } from 'node:fs'
import { expect, test } from './fixtures'

const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const ANOMALY_RULE = '6179ae15870a4bb7b2d480d4843b323c'
const PHASE = 'http_request_firewall_managed'
const ADMIN_ONLY = 'http.host eq "admin.example.com"'

const owasp = JSON.parse(readFileSync(`resources/managed-rulesets/${OWASP}.json`, 'utf8')) as {
  name: string
  rules: { id: string; description: string }[]
}
const anomalyRule = owasp.rules.find((rule) => rule.id === ANOMALY_RULE)!

test('deploy OWASP at PL2 by keyboard, simulate a SQL injection, read the CRS story', async ({
  page,
  workbench,
}) => {
  const headers = {
    authorization: `Bearer ${workbench.token}`,
    'content-type': 'application/json',
  }
  const zone = await fetch(`${workbench.api}/zones`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'shop.example.com', plan: 'business' }),
  }).then((r) => r.json())
  expect(zone.success).toBe(true)
  const zoneId: string = zone.result.id
  const entrypointUrl = `${workbench.api}/zones/${zoneId}/rulesets/phases/${PHASE}/entrypoint`
  // The general ruleset runs on another host only: on this request it does not match.
  const deployed = await fetch(entrypointUrl, {
    method: 'PUT',
    headers,
    body: JSON.stringify({
      rules: [{ action: 'execute', expression: ADMIN_ONLY, action_parameters: { id: GENERAL } }],
    }),
  }).then((r) => r.json())
  expect(deployed.success).toBe(true)

  await page.goto(workbench.ui)
  await page.getByRole('link', { name: 'Managed rules' }).click()
  await page.getByRole('button', { name: `Deploy ${owasp.name}` }).click()
  const editor = page.getByRole('region', { name: `Configure ${owasp.name}` })
  await expect(editor.getByRole('table', { name: 'Managed rules' })).toBeVisible()

  // Every level's rules are enabled in the catalog: the deployment runs at PL4 until told.
  const inForce = editor.getByTestId('paranoia-in-force')
  await expect(inForce).toHaveText('In force: PL4, threshold 40')
  await editor.getByLabel('Status of all rules').focus()
  await page.keyboard.press('Tab')
  await expect(editor.getByRole('radio', { name: 'Paranoia level 4' })).toBeFocused()
  await page.keyboard.press('ArrowLeft')
  await page.keyboard.press('ArrowLeft')
  const level2 = editor.getByRole('radio', { name: 'Paranoia level 2' })
  await expect(level2).toBeFocused()
  await expect(level2).toBeChecked()
  await expect(inForce).toHaveText('In force: PL2, threshold 40')
  // Each level's name begins with the words it shows (WCAG 2.5.3): "PL2" names the second.
  for (const level of [1, 2, 3, 4]) {
    await expect(
      editor.getByRole('radio', { name: `Paranoia level ${level}` }),
    ).toHaveAccessibleName(`PL${level}, paranoia level ${level}`)
    await expect(editor.getByRole('radio', { name: `PL${level}` })).toHaveCount(1)
  }
  await expect(page.getByText('Unsaved changes')).toBeVisible()
  // One tab stop: the next Tab leaves the group for the threshold.
  await page.keyboard.press('Tab')
  await expect(editor.getByLabel('Anomaly score threshold')).toBeFocused()
  await page.keyboard.press('Shift+Tab')
  await expect(level2).toBeFocused()

  await editor.getByLabel('Anomaly score threshold').selectOption('custom')
  await editor.getByLabel('Custom threshold').fill('5')
  await expect(inForce).toHaveText('In force: PL2, threshold 5')
  await page.getByRole('button', { name: 'Save', exact: true }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Saved: version' })).toBeVisible()

  const entrypoint = await fetch(entrypointUrl, { headers }).then((r) => r.json())
  const execute = entrypoint.result.rules.find(
    (rule: { action_parameters?: { id?: string } }) => rule.action_parameters?.id === OWASP,
  )
  expect(execute.action_parameters.overrides).toEqual({
    categories: [
      { category: 'paranoia-level-1', enabled: true },
      { category: 'paranoia-level-2', enabled: true },
      { category: 'paranoia-level-3', enabled: false },
      { category: 'paranoia-level-4', enabled: false },
    ],
    rules: [{ id: ANOMALY_RULE, score_threshold: 5 }],
  })

  await page.getByRole('link', { name: 'Simulator' }).click()
  await page.getByLabel('URL').fill("https://shop.example.com/products?id=1' OR 1=1--")
  await page.getByRole('button', { name: 'Run', exact: true }).click()

  const outcome = page.getByRole('region', { name: 'Outcome' })
  await expect(outcome.locator('[data-outcome]').first()).toHaveAttribute('data-outcome', 'blocked')
  const stopped = outcome.locator('.stopped')
  await expect(stopped).toHaveText(
    `Rule “${anomalyRule.description}” of ${owasp.name} (block) ended evaluation`,
  )
  await expect(stopped).not.toContainText(ANOMALY_RULE)

  const trace = page.getByRole('list', { name: 'Trace' })
  const verdict = trace
    .getByRole('article', { name: anomalyRule.description })
    .getByTestId('anomaly-verdict')
  await expect(verdict).toHaveText(
    /^Score \d+ at paranoia level 2 reached the threshold 5: blocked$/,
  )
  const sqli = trace.getByRole('article', { name: /^942100: / })
  await expect(sqli.getByTestId('crs-id')).toHaveText('942100')
  await expect(sqli.getByTestId('crs-variable')).toHaveText('ARGS:id')
  await expect(sqli.getByTestId('crs-value')).toContainText('1')
  await expect(sqli).toContainText('+5 to the anomaly score')
  // The name shows; the id is on hover.
  await expect(sqli.locator('.title')).toHaveAttribute('title', /^Rule ID [0-9a-f]{32}$/)

  const general = trace.getByRole('article', { name: 'Execute Cloudflare Managed Ruleset' })
  await expect(general).toContainText('Not matched: its ruleset did not run')
  await expect(general).toContainText(ADMIN_ONLY)
  await page.screenshot({ path: 'test-results/e2e/crs-trace.png', fullPage: true })
})
