// Managed rules as a user tunes them: deploy the managed ruleset to a new zone, send its
// WordPress rules to log, see the preview and the chart change before saving, and find the
// override in the entry point the API serves. A refused save shows the API's message under the
// field it names, which takes focus, with the value in force, and keeps the edits; focus follows
// each action's result.

import { readFileSync } from 'node:fs'
import { expect, test } from './fixtures'

const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const PHASE = 'http_request_firewall_managed'

interface CatalogRule {
  description: string
  action: string
  categories: string[]
}
const catalog = JSON.parse(readFileSync(`resources/managed-rulesets/${GENERAL}.json`, 'utf8')) as {
  name: string
  rules: CatalogRule[]
}
const wordpressRules = catalog.rules.filter((rule) => rule.categories.includes('wordpress'))

test('deploy the managed ruleset, override a tag to log, save, and see it through the API', async ({
  page,
  workbench,
}) => {
  const auth = { authorization: `Bearer ${workbench.token}` }

  await page.goto(workbench.ui)
  await page.getByPlaceholder('example.com').fill('shop.example.com')
  await page.getByRole('button', { name: 'Create zone' }).click()
  await expect(page.getByRole('row', { name: /shop\.example\.com/ })).toBeVisible()
  const zones = await fetch(`${workbench.api}/zones?name=shop.example.com`, {
    headers: auth,
  }).then((r) => r.json())
  const zoneId: string = zones.result[0].id

  await page.getByRole('link', { name: 'Managed rules' }).click()
  await expect(page.getByTestId('entrypoint-version')).toHaveText('Nothing deployed yet')
  await page.getByRole('button', { name: `Deploy ${catalog.name}` }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Saved: version' })).toBeVisible()
  const editor = page.getByRole('region', { name: `Configure ${catalog.name}` })
  await expect(editor.getByRole('table', { name: 'Managed rules' })).toBeVisible()
  // Focus goes to the deployment made, to configure it.
  await expect(editor.getByRole('heading', { name: catalog.name })).toBeFocused()

  // Override the wordpress tag: the preview and the chart change before anything is saved.
  await editor.getByLabel('Tag to override').selectOption('wordpress')
  await editor.getByLabel('Tag action').selectOption('log')
  await editor.getByRole('button', { name: 'Add tag override' }).click()
  await expect(page.getByText('Unsaved changes')).toBeVisible()
  // The emptied form's button is disabled: focus goes to the override added.
  await expect(editor.getByLabel('Action for tag wordpress')).toBeFocused()
  // A second override moved above the first, then removed: focus follows the entry each time.
  await editor.getByLabel('Tag to override').selectOption('joomla')
  await editor.getByLabel('Tag action').selectOption('log')
  await editor.getByRole('button', { name: 'Add tag override' }).click()
  await expect(editor.getByLabel('Action for tag joomla')).toBeFocused()
  await editor.getByRole('button', { name: 'Move joomla up' }).click()
  await expect(editor.getByLabel('Action for tag joomla')).toBeFocused()
  await editor.getByRole('button', { name: 'Remove override of joomla' }).click()
  await expect(editor.getByLabel('Action for tag wordpress')).toBeFocused()
  // All requests, disabled once pressed, hands focus to the expression it wrote.
  const expression = editor.getByLabel('Deployment expression')
  await expression.click()
  await page.keyboard.press('End')
  await page.keyboard.type(' and http.host eq "shop.example.com"')
  await editor.getByRole('button', { name: 'All requests' }).click()
  await expect(expression).toHaveText('true')
  await expect(expression).toBeFocused()
  await expect(editor.getByTestId('action-changed-count')).toHaveText(
    String(wordpressRules.filter((rule) => rule.action !== 'log').length),
  )

  await editor.getByLabel('Filter by tag').selectOption('wordpress')
  const rows = editor.getByRole('table', { name: 'Managed rules' }).locator('tbody tr')
  await expect(rows).toHaveCount(wordpressRules.length)
  const firstWordpress = wordpressRules[0]!
  const row = rows.filter({ hasText: firstWordpress.description })
  await expect(row.getByTestId('effective-action')).toHaveAttribute('data-action', 'log')
  await expect(row.getByTestId('effective-action')).toHaveText('Log')
  await expect(row).toContainText('from tag')

  // A key that is not an X25519 public key is refused by the API; the edits stay.
  await editor.getByLabel('Payload logging public key').fill('not-a-key')
  await editor.getByLabel('Payload logging public key').press('Tab')
  await page.getByRole('button', { name: 'Save', exact: true }).click()
  const refusal = page.getByRole('alert').filter({ hasText: 'public_key' })
  await expect(refusal).toBeVisible()
  await expect(page.getByText('Unsaved changes')).toBeVisible()
  await expect(editor.getByRole('list', { name: 'Tag overrides' })).toContainText('wordpress')
  // The refusal is under the field it points at, which takes focus, with the value in force.
  const keyField = editor.getByLabel('Payload logging public key')
  await expect(editor.locator('#publicKey-refused')).toContainText('public_key')
  await expect(page.locator('.screen > .error')).toHaveCount(0)
  await expect(keyField).toBeFocused()
  await expect(keyField).toHaveAttribute('aria-invalid', 'true')
  await expect(keyField).toHaveValue('not-a-key')
  await expect(editor.getByText('In force: none (payload logging off)')).toBeVisible()

  await editor.getByLabel('Payload logging public key').fill('')
  await editor.getByLabel('Payload logging public key').press('Tab')
  await page.getByRole('button', { name: 'Save', exact: true }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Saved: version' })).toBeVisible()
  await expect(refusal).toHaveCount(0)
  await expect(page.getByRole('status').filter({ hasText: 'Saved: version' })).toBeFocused()
  await page.screenshot({ path: 'test-results/e2e/managed-rules.png', fullPage: true })

  const entrypoint = await fetch(
    `${workbench.api}/zones/${zoneId}/rulesets/phases/${PHASE}/entrypoint`,
    {
      headers: auth,
    },
  ).then((r) => r.json())
  expect(entrypoint.success).toBe(true)
  await expect(page.getByTestId('entrypoint-version')).toHaveText(
    `Entry point version ${entrypoint.result.version}`,
  )
  const execute = entrypoint.result.rules.filter((rule: any) => rule.action === 'execute')
  expect(execute).toHaveLength(1)
  expect(execute[0].expression).toBe('true')
  expect(execute[0].action_parameters.id).toBe(GENERAL)
  expect(execute[0].action_parameters.overrides.categories).toEqual([
    { category: 'wordpress', action: 'log' },
  ])
  expect(execute[0].action_parameters.matched_data).toBeUndefined()
})

test('at 1024×700 every column of the rules table fits its card, the status overrides included', async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1024, height: 700 })
  await page.goto(workbench.ui)
  await page.getByPlaceholder('example.com').fill('narrow.example.com')
  await page.getByRole('button', { name: 'Create zone' }).click()
  await expect(page.getByRole('row', { name: /narrow\.example\.com/ })).toBeVisible()
  await page.getByRole('link', { name: 'Managed rules' }).click()
  await page.getByRole('button', { name: `Deploy ${catalog.name}` }).click()
  const editor = page.getByRole('region', { name: `Configure ${catalog.name}` })
  const table = editor.getByRole('table', { name: 'Managed rules' })
  await expect(table).toBeVisible()

  // the card the table is drawn in, the nearest around it
  const card = table.locator('xpath=ancestor::div[contains(@class, "card")][1]')
  const cardBox = (await card.boundingBox())!
  const statuses = table.getByRole('combobox', { name: /^Status override for / })
  expect(await statuses.count()).toBeGreaterThan(0)
  for (const select of await statuses.all()) {
    const box = (await select.boundingBox())!
    expect(box.x).toBeGreaterThanOrEqual(cardBox.x)
    expect(box.x + box.width).toBeLessThanOrEqual(cardBox.x + cardBox.width)
  }
  // Nothing of the table is left to scroll to inside its card.
  const hidden = await table.evaluate((element) => {
    const scroller = element.parentElement!
    return scroller.scrollWidth - scroller.clientWidth
  })
  expect(hidden).toBeLessThanOrEqual(0)
  await table.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/e2e/managed-rules-1024.png' })
})
