// Firewall rules as a user writes one: a rule with its filter inline, created in the UI and seen
// through the API; pausing it keeps everything else about it.

import { expect, test } from './fixtures'

test('create a firewall rule with an inline filter and see it through the API', async ({
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
    body: JSON.stringify({ name: 'shop.example.com' }),
  }).then((r) => r.json())
  const zoneId: string = zone.result.id
  const rulesOfZone = async () =>
    (
      await fetch(`${workbench.api}/zones/${zoneId}/firewall/rules`, { headers }).then((r) =>
        r.json(),
      )
    ).result

  await page.goto(`${workbench.ui}#/firewall-rules`)
  await expect(page.getByText('No firewall rules on this zone.')).toBeVisible()

  const expression = 'http.request.uri.path contains "/admin"'
  await page.getByRole('textbox', { name: 'Rule expression' }).click()
  await page.keyboard.type(expression)
  await page.getByLabel('Action', { exact: true }).selectOption('block')
  await page.getByLabel('Description', { exact: true }).fill('Block the admin area')
  await page.getByLabel('Priority', { exact: true }).fill('10')
  await page.getByRole('button', { name: 'Create rule' }).click()

  const row = page.getByRole('table', { name: 'Firewall rules' }).getByRole('row', {
    name: /Block the admin area/,
  })
  await expect(row).toContainText(expression)
  await expect(row.getByLabel('Priority of Block the admin area')).toHaveValue('10')
  await expect(page.getByRole('table', { name: 'Filters' })).toContainText('1 rule')

  const [rule] = await rulesOfZone()
  expect(rule.action).toBe('block')
  expect(rule.priority).toBe(10)
  expect(rule.description).toBe('Block the admin area')
  expect(rule.filter.expression).toBe(expression)
  expect(rule.paused).toBe(false)

  // Pausing sends the whole rule back: description and priority survive the PUT.
  await row.getByRole('button', { name: 'Pause Block the admin area' }).click()
  await expect(row).toContainText('Paused')
  const [paused] = await rulesOfZone()
  expect(paused.paused).toBe(true)
  expect(paused.priority).toBe(10)
  expect(paused.description).toBe('Block the admin area')
  await page.screenshot({ path: 'test-results/e2e/firewall-rules.png', fullPage: true })
})
