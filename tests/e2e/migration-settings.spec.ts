// The previous product's page rules and URI-based overrides on the Migration screen's first step:
// each is added from its form and deleted from its row after the dialog's confirmation, which
// says what deleting it changes; the API agrees. A page rule's target is added with the operator
// chosen and listed with it. After a delete, focus goes to the record in its place, or to the
// panel's heading when none is left. At 1024×700, as a laptop shows it.

import AxeBuilder from '@axe-core/playwright'
import { expect, test } from './fixtures'

test.use({ viewport: { width: 1024, height: 700 } })

test('page rules and URI-based overrides are added and deleted, each after a confirmation', async ({
  page,
  workbench,
}) => {
  const headers = { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' }
  const zone = await fetch(`${workbench.api}/zones`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'rules.example.com', plan: 'pro', waf_product: 'previous' }),
  }).then((r) => r.json())
  const zoneId: string = zone.result.id
  const listed = (path: string) =>
    fetch(`${workbench.api}/zones/${zoneId}/${path}`, { headers })
      .then((r) => r.json())
      .then((answer) => answer.result as unknown[])

  await page.goto(`${workbench.ui}#/zones/${zoneId}/migration/settings`)

  const pageRules = page.getByRole('region', { name: 'Page rules' })
  await expect(pageRules).toContainText('No page rules.')
  const operator = pageRules.getByLabel('Operator')
  const value = pageRules.getByLabel('Value')
  await expect(operator).toHaveValue('matches')
  await expect(value).toHaveAccessibleDescription(/URL pattern/)
  await value.fill('*rules.example.com/admin/*')
  await pageRules.getByLabel('Setting').selectOption('waf_off')
  await pageRules.getByRole('button', { name: 'Add page rule' }).click()
  const ruleRow = pageRules.getByRole('table', { name: 'Page rules list' }).getByRole('row').nth(1)
  await expect(ruleRow).toContainText('Web Application Firewall: Off')
  await expect(ruleRow).toContainText('matches *rules.example.com/admin/*')
  expect(await listed('pagerules')).toHaveLength(1)

  await ruleRow.getByRole('button', { name: 'Delete page rule *rules.example.com/admin/*' }).click()
  const ruleDialog = page.getByRole('dialog', { name: 'Delete this page rule?' })
  await expect(ruleDialog).toContainText(
    "Requests matching *rules.example.com/admin/* get the zone's WAF setting again.",
  )
  await ruleDialog.getByRole('button', { name: 'Delete page rule' }).click()
  await expect(pageRules).toContainText('No page rules.')
  expect(await listed('pagerules')).toHaveLength(0)
  // none left: focus goes to the panel's heading, and a status says what was deleted
  await expect(pageRules.getByRole('heading', { name: 'Page rules' })).toBeFocused()
  await expect(pageRules.getByRole('status')).toHaveText(
    'Deleted page rule *rules.example.com/admin/*.',
  )

  const overrides = page.getByRole('region', { name: 'URI-based overrides' })
  await overrides.getByLabel('URL pattern').fill('rules.example.com/api/*')
  await overrides.getByLabel('Group').selectOption({ index: 1 })
  await overrides.getByRole('button', { name: 'Add override' }).click()
  const overrideRow = overrides
    .getByRole('table', { name: 'URI-based overrides list' })
    .getByRole('row')
    .nth(1)
  await expect(overrideRow).toContainText('rules.example.com/api/*')
  expect(await listed('firewall/waf/overrides')).toHaveLength(1)

  // A rule whose target contains a path, its operator chosen from the keyboard: the form says
  // what such a value is, the API stores the operator, and the table shows it.
  await operator.focus()
  await page.keyboard.press('ArrowDown')
  await expect(operator).toHaveValue('contains')
  await expect(value).toHaveAccessibleDescription(/Any part of the URL/)
  await expect(value).toHaveAttribute('placeholder', '/admin')
  await value.fill('/old')
  await pageRules.getByRole('button', { name: 'Add page rule' }).click()
  const containsRow = pageRules
    .getByRole('table', { name: 'Page rules list' })
    .getByRole('row', { name: /contains \/old/ })
  await expect(containsRow).toContainText('contains /old')
  await expect(containsRow.getByRole('button')).toHaveAccessibleName(
    'Delete page rule contains /old',
  )
  expect(await listed('pagerules')).toMatchObject([
    { targets: [{ target: 'url', constraint: { operator: 'contains', value: '/old' } }] },
  ])

  // Both tables filled, then the dialog open: no WCAG 2.1 A/AA violation, and the page does not
  // scroll sideways.
  const wcag = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
  expect((await new AxeBuilder({ page }).withTags(wcag).analyze()).violations).toEqual([])
  const sideways = await page.evaluate(() =>
    [document.documentElement, document.querySelector('main')!].some(
      (element) => element.scrollWidth > element.clientWidth,
    ),
  )
  expect(sideways).toBe(false)

  // Cancelled first: nothing is deleted.
  await overrideRow.getByRole('button', { name: 'Delete override rules.example.com/api/*' }).click()
  const overrideDialog = page.getByRole('dialog', { name: 'Delete this WAF override?' })
  await expect(overrideDialog).toContainText('The migration does not carry overrides over.')
  expect((await new AxeBuilder({ page }).withTags(wcag).analyze()).violations).toEqual([])
  await overrideDialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(overrideRow).toContainText('rules.example.com/api/*')

  await overrideRow.getByRole('button', { name: 'Delete override rules.example.com/api/*' }).click()
  await overrideDialog.getByRole('button', { name: 'Delete override' }).click()
  await expect(overrides).toContainText('No URI-based overrides.')
  expect(await listed('firewall/waf/overrides')).toHaveLength(0)
  await expect(overrides.getByRole('heading', { name: 'URI-based overrides' })).toBeFocused()

  // A page rule deleted beside another: focus goes to the Delete of the one in its place; its
  // dialog says which requests the rule took.
  await operator.selectOption('matches')
  await value.fill('*rules.example.com/new/*')
  await pageRules.getByRole('button', { name: 'Add page rule' }).click()
  const rules = pageRules.getByRole('table', { name: 'Page rules list' }).getByRole('row')
  await expect(rules).toHaveCount(3)
  const first = ((await rules.nth(1).getByRole('button').getAttribute('aria-label')) ?? '').replace(
    /^Delete /,
    '',
  )
  const second = (await rules.nth(2).getByRole('button').getAttribute('aria-label')) ?? ''
  expect(first).toBe('page rule contains /old')
  await rules.nth(1).getByRole('button').click()
  await expect(ruleDialog).toContainText(
    "Requests whose URL contains /old get the zone's WAF setting again.",
  )
  await ruleDialog.getByRole('button', { name: 'Delete page rule' }).click()
  await expect(rules).toHaveCount(2)
  await expect(pageRules.getByRole('button', { name: second })).toBeFocused()
  await expect(pageRules.getByRole('status')).toHaveText(`Deleted ${first}.`)
})
