// Firewall rules as a user writes one: a rule with its filter inline, created in the UI and seen
// through the API; pausing it keeps everything else about it. What the forms hold is a draft kept
// for the zone across a reload until saved or discarded, and leaving with it asks (issue 19);
// after a delete, focus goes to the record that took its place.

import type { Page } from '@playwright/test'
import { expect, test, type Workbench } from './fixtures'

/** The vendor's API as a script calls it: the result of `path` under /client/v4. */
function vendorApi(workbench: Workbench) {
  const headers = { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' }
  return async (path: string, method = 'GET', body?: unknown) => {
    const answer = await fetch(`${workbench.api}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return (await answer.json()).result
  }
}

/** A zone with these rules (each with its filter inline) and standalone filters. */
async function zoneWith(
  workbench: Workbench,
  rules: { expression: string; description: string; priority: number }[],
  filters: { expression: string; description: string }[] = [],
) {
  const call = vendorApi(workbench)
  const zoneId: string = (await call('/zones', 'POST', { name: 'shop.example.com' })).id
  if (rules.length > 0) {
    await call(
      `/zones/${zoneId}/firewall/rules`,
      'POST',
      rules.map(({ expression, ...rule }) => ({
        ...rule,
        filter: { expression },
        action: 'block',
      })),
    )
  }
  if (filters.length > 0) await call(`/zones/${zoneId}/filters`, 'POST', filters)
  return { call, zoneId }
}

/** Types into a CodeMirror expression editor, replacing what it held. */
async function typeExpression(page: Page, name: string, expression: string) {
  await page.getByRole('textbox', { name, exact: true }).click()
  await page.keyboard.press('ControlOrMeta+a')
  await page.keyboard.type(expression)
}

test('create a firewall rule with an inline filter and see it through the API', async ({
  page,
  workbench,
}) => {
  const { call, zoneId } = await zoneWith(workbench, [])
  const rulesOfZone = () => call(`/zones/${zoneId}/firewall/rules`)

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

test("a reload keeps the forms' drafts for the zone; leaving with them asks, and discarding drops them", async ({
  page,
  workbench,
}) => {
  const { call, zoneId } = await zoneWith(
    workbench,
    [{ expression: 'ip.src eq 192.0.2.1', description: 'Block one host', priority: 1 }],
    [{ expression: 'http.host eq "old.example.com"', description: 'Old host' }],
  )
  const otherZoneId: string = (await call('/zones', 'POST', { name: 'other.example.com' })).id
  const dialogs: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.type())
    void dialog.accept()
  })
  const address = `${workbench.ui}#/zones/${zoneId}/firewall-rules`
  await page.goto(address)
  const rules = page.getByRole('table', { name: 'Firewall rules' })
  const filters = page.getByRole('table', { name: 'Filters' })
  const newRule = page.getByRole('form', { name: 'Create a firewall rule' })

  await typeExpression(page, 'Rule expression', 'http.request.uri.path contains "/drafted"')
  await newRule.getByLabel('Description', { exact: true }).fill('A rule not created yet')
  await typeExpression(page, 'Filter expression', 'ip.src in {198.51.100.0/24}')
  await rules.getByRole('button', { name: 'Edit Block one host' }).click()
  const ruleEditor = page.getByRole('form', { name: 'Edit Block one host' })
  await typeExpression(page, 'Edited rule expression', 'ip.src eq 192.0.2.99')
  await filters.getByRole('button', { name: 'Edit filter Old host' }).click()
  const filterEditor = page.getByRole('form', { name: 'Edit filter Old host' })
  await filterEditor.getByLabel('Edited filter description').fill('Older host')
  await expect(page.getByText('Unsaved drafts')).toBeVisible()

  // Reloading asks (beforeunload), and once accepted every form holds what was typed.
  await page.reload()
  expect(dialogs).toContain('beforeunload')
  await expect(page.getByRole('textbox', { name: 'Rule expression', exact: true })).toHaveText(
    'http.request.uri.path contains "/drafted"',
  )
  await expect(newRule.getByLabel('Description', { exact: true })).toHaveValue(
    'A rule not created yet',
  )
  await expect(page.getByRole('textbox', { name: 'Filter expression', exact: true })).toHaveText(
    'ip.src in {198.51.100.0/24}',
  )
  await expect(ruleEditor.getByRole('textbox', { name: 'Edited rule expression' })).toHaveText(
    'ip.src eq 192.0.2.99',
  )
  await expect(filterEditor.getByLabel('Edited filter description')).toHaveValue('Older host')

  // Leaving in the app asks: Cancel keeps the screen and the drafts.
  await page.getByRole('link', { name: 'Zones' }).click()
  const confirm = page.getByRole('dialog', { name: 'Leave without saving?' })
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  await expect(confirm).toHaveCount(0)
  await expect(page.getByText('Unsaved drafts')).toBeVisible()

  // Another zone picked asks too; Cancel leaves the picker showing the zone in force.
  await page.getByLabel('Zone').selectOption(otherZoneId)
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  await expect(confirm).toHaveCount(0)
  await expect(page.getByLabel('Zone')).toHaveValue(zoneId)

  // Saving the rule's edit sends the edit kept over the reload, and that draft is done.
  await ruleEditor.getByRole('button', { name: 'Save rule' }).click()
  await expect(ruleEditor).toBeHidden()
  await expect(rules.getByRole('row', { name: /Block one host/ })).toContainText(
    'ip.src eq 192.0.2.99',
  )
  const [rule] = await call(`/zones/${zoneId}/firewall/rules`)
  expect(rule.filter.expression).toBe('ip.src eq 192.0.2.99')

  // Confirming the leave discards the rest: back on the screen, the forms are empty.
  await page.getByRole('link', { name: 'Zones' }).click()
  await confirm.getByRole('button', { name: 'Discard changes' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Zones' })).toBeVisible()
  await page.goto(address)
  await expect(rules).toBeVisible()
  await expect(page.getByText('Unsaved drafts')).toHaveCount(0)
  // an empty editor shows only its placeholder
  await expect(
    page.getByRole('textbox', { name: 'Rule expression', exact: true }),
  ).not.toContainText('/drafted')
  await expect(newRule.getByLabel('Description', { exact: true })).toHaveValue('')
  await expect(
    page.getByRole('textbox', { name: 'Filter expression', exact: true }),
  ).not.toContainText('198.51.100.0')
  await expect(filterEditor).toHaveCount(0)
  expect(
    (await call(`/zones/${zoneId}/filters`)).map((f: { description: string }) => f.description),
  ).toContain('Old host')
})

test('after a delete, focus goes to the record that took its place, else to the heading', async ({
  page,
  workbench,
}) => {
  const { zoneId } = await zoneWith(
    workbench,
    [
      { expression: 'ip.src eq 192.0.2.1', description: 'First rule', priority: 1 },
      { expression: 'ip.src eq 192.0.2.2', description: 'Second rule', priority: 2 },
    ],
    [
      { expression: 'http.host eq "a.example.com"', description: 'Host a' },
      { expression: 'http.host eq "b.example.com"', description: 'Host b' },
    ],
  )
  await page.goto(`${workbench.ui}#/zones/${zoneId}/firewall-rules`)
  const rules = page.getByRole('table', { name: 'Firewall rules' })
  const filters = page.getByRole('table', { name: 'Filters' })
  const dialog = page.getByRole('dialog')
  const focusedName = () =>
    page.evaluate(() => {
      const element = document.activeElement
      return element === document.body
        ? '<body>'
        : (element?.getAttribute('aria-label') ?? element?.textContent)
    })

  await rules.getByRole('button', { name: 'Delete First rule' }).click()
  await dialog.getByRole('button', { name: 'Delete rule' }).click()
  await expect(rules.getByRole('row', { name: /First rule/ })).toHaveCount(0)
  await expect.poll(focusedName).toBe('Edit Second rule')
  await expect(page.getByRole('status').filter({ hasText: 'Deleted First rule.' })).toBeAttached()

  await rules.getByRole('button', { name: 'Delete Second rule' }).click()
  await dialog.getByRole('button', { name: 'Delete rule' }).click()
  await expect(page.getByText('No firewall rules on this zone.')).toBeVisible()
  await expect.poll(focusedName).toBe('Rules')

  await filters.getByRole('button', { name: 'Delete filter Host a' }).click()
  await dialog.getByRole('button', { name: 'Delete filter' }).click()
  await expect(filters.getByRole('row', { name: /Host a/ })).toHaveCount(0)
  await expect.poll(focusedName).toBe('Edit filter Host b')
})
