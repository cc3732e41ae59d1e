// The vendor dashboard's everyday tools in the workbench (issue 19): editing a firewall rule and
// its filter, deleting a filter, the Security events' details, breakdowns and export, the Objects
// table browser and the search of long managed rule lists.

import { readFileSync } from 'node:fs'
import { expect, test, type Workbench } from './fixtures'

/** The service's API as a script calls it: `path` under /client/v4, or under /workbench/v1. */
function client(workbench: Workbench) {
  const headers = { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' }
  const call = async (url: string, method = 'GET', body?: unknown) => {
    const answer = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return answer.json()
  }
  const workbenchApi = workbench.api.replace(/\/client\/v4$/, '/workbench/v1')
  return {
    vendor: (path: string, method?: string, body?: unknown) =>
      call(`${workbench.api}${path}`, method, body),
    workbench: (path: string, method?: string, body?: unknown) =>
      call(`${workbenchApi}${path}`, method, body),
  }
}

async function zoneWithRule(workbench: Workbench, expression: string) {
  const api = client(workbench)
  const zone = (await api.vendor('/zones', 'POST', { name: 'shop.example.com' })).result
  const [rule] = (
    await api.vendor(`/zones/${zone.id}/firewall/rules`, 'POST', [
      { filter: { expression }, action: 'block', description: 'Guard the admin area' },
    ])
  ).result
  return { api, zoneId: zone.id as string, rule }
}

test('edit a firewall rule: its expression, action and description, in force at once', async ({
  page,
  workbench,
}) => {
  const { api, zoneId } = await zoneWithRule(workbench, 'http.request.uri.path contains "/admin"')
  const outcome = async (url: string) =>
    (await api.workbench(`/zones/${zoneId}/simulate?record=false`, 'POST', { method: 'GET', url }))
      .result.outcome
  expect(await outcome('https://shop.example.com/wp-login.php')).toBe('passed')

  await page.goto(`${workbench.ui}#/firewall-rules`)
  const rules = page.getByRole('table', { name: 'Firewall rules' })
  await rules.getByRole('button', { name: 'Edit Guard the admin area' }).click()
  const editor = page.getByRole('form', { name: 'Edit Guard the admin area' })
  await editor.getByRole('textbox', { name: 'Edited rule expression' }).click()
  await page.keyboard.press('ControlOrMeta+a')
  await page.keyboard.type('http.request.uri.path contains "/wp-login"')
  await editor.getByLabel('Edited rule action').selectOption('managed_challenge')
  await editor.getByLabel('Edited rule description').fill('Guard the login')
  await editor.getByRole('button', { name: 'Save rule' }).click()

  await expect(editor).toBeHidden()
  await expect(rules.getByRole('button', { name: 'Edit Guard the login' })).toBeFocused()
  const row = rules.getByRole('row', { name: /Guard the login/ })
  await expect(row).toContainText('http.request.uri.path contains "/wp-login"')
  await expect(row).toContainText('Managed Challenge')
  expect(await outcome('https://shop.example.com/wp-login.php')).toBe('challenged')
  expect(await outcome('https://shop.example.com/admin')).toBe('passed')
})

test('delete a filter: refused at its row while a rule uses it, then deleted', async ({
  page,
  workbench,
}) => {
  const { api, zoneId } = await zoneWithRule(workbench, 'ip.src eq 192.0.2.1')
  await api.vendor(`/zones/${zoneId}/filters`, 'POST', [
    { expression: 'http.host eq "old.example.com"', description: 'Old host' },
  ])

  await page.goto(`${workbench.ui}#/firewall-rules`)
  const filters = page.getByRole('table', { name: 'Filters' })
  await filters.getByRole('button', { name: 'Delete filter ip.src eq 192.0.2.1' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Delete filter' }).click()
  const refusal = filters.getByRole('alert')
  await expect(refusal).toContainText('is used by firewall rule')
  await expect(filters).toContainText('ip.src eq 192.0.2.1')

  await filters.getByRole('button', { name: 'Delete filter Old host' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Delete filter' }).click()
  await expect(filters).not.toContainText('Old host')
  await expect(refusal).toBeHidden()
  const left = (await api.vendor(`/zones/${zoneId}/filters`)).result
  expect(left.map((filter: { expression: string }) => filter.expression)).toEqual([
    'ip.src eq 192.0.2.1',
  ])
})

test('Security events: open an event, filter by a top value, export the events as CSV', async ({
  page,
  workbench,
}) => {
  const { api, zoneId } = await zoneWithRule(workbench, 'http.request.uri.path eq "/admin"')
  for (const [path, ip] of [
    ['/admin', '198.51.100.1'],
    ['/admin', '198.51.100.2'],
    ['/admin', '198.51.100.1'],
  ] as const) {
    await api.workbench(`/zones/${zoneId}/simulate`, 'POST', {
      method: 'GET',
      url: `https://shop.example.com${path}`,
      ip,
    })
  }

  await page.goto(`${workbench.ui}#/events`)
  const table = page.getByRole('table', { name: 'Security events' })
  await expect(table.getByRole('button', { name: /^Details of event/ })).toHaveCount(3)

  await table
    .getByRole('button', { name: /^Details of event/ })
    .first()
    .click()
  const fields = page.getByRole('definition')
  await expect(page.getByRole('term').filter({ hasText: 'ray_id' })).toBeVisible()
  await expect(fields.filter({ hasText: 'Guard the admin area' })).toBeVisible()

  await page
    .getByRole('region', { name: 'Top values' })
    .getByRole('button', { name: 'Filter by client IP 198.51.100.2: 1 event' })
    .click()
  await expect(table.getByRole('button', { name: /^Details of event/ })).toHaveCount(1)
  await expect(page.getByLabel('Client IP', { exact: true })).toHaveValue('198.51.100.2')

  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Export CSV' }).click()
  const file = await download
  expect(file.suggestedFilename()).toBe(`security-events-${zoneId}.csv`)
  const stream = await file.createReadStream()
  let text = ''
  for await (const chunk of stream) text += chunk
  const [header, ...rows] = text.trimEnd().split('\r\n')
  expect(header).toContain('ray_id,action')
  expect(rows).toHaveLength(1)
  expect(rows[0]).toContain('198.51.100.2')
})

test("Objects: browse a zone object's table, a page of rows at a time", async ({
  page,
  workbench,
}) => {
  const api = client(workbench)
  const zone = (await api.vendor('/zones', 'POST', { name: 'browse.example' })).result
  const filters = Array.from({ length: 60 }, (_, index) => ({
    expression: `ip.src eq 192.0.2.${index + 1}`,
  }))
  await api.vendor(`/zones/${zone.id}/filters`, 'POST', filters)

  await page.goto(`${workbench.ui}#/objects`)
  await page.getByRole('button', { name: /Zone browse\.example/ }).click()
  await page.getByRole('button', { name: 'Browse filters' }).click()
  const rows = page.getByRole('table', { name: 'Rows of filters' })
  await expect(rows.getByRole('row')).toHaveCount(51)
  await expect(page.getByText('Rows 1–50 of 60')).toBeVisible()
  await expect(page.getByRole('button', { name: 'Previous rows' })).toBeDisabled()

  await page.getByRole('button', { name: 'Next rows' }).click()
  await expect(page.getByText('Rows 51–60 of 60')).toBeVisible()
  await expect(rows.getByRole('row')).toHaveCount(11)
  await expect(rows).toContainText('ip.src eq 192.0.2.60')
  await expect(page.getByRole('button', { name: 'Next rows' })).toBeDisabled()
})

test('Managed rules: search the 142 rules, shown 50 at a time', async ({ page, workbench }) => {
  const general = 'efb7b8c949ac4650a09736fc376e9aee'
  const catalog = JSON.parse(
    readFileSync(`resources/managed-rulesets/${general}.json`, 'utf8'),
  ) as { name: string; rules: { description: string; categories: string[] }[] }
  await client(workbench).vendor('/zones', 'POST', { name: 'rules.example' })

  await page.goto(`${workbench.ui}#/managed-rules`)
  await page.getByRole('button', { name: `Deploy ${catalog.name}` }).click()
  const editor = page.getByRole('region', { name: `Configure ${catalog.name}` })
  const rows = editor.getByRole('table', { name: 'Managed rules' }).locator('tbody tr')
  await expect(rows).toHaveCount(50)
  await expect(editor.getByRole('combobox', { name: /^Action override for/ })).toHaveCount(50)
  const pages = editor.getByRole('navigation', { name: 'Pages of rules' })
  await expect(pages).toContainText('Page 1 of 3')
  await pages.getByRole('button', { name: 'Next page' }).click()
  await pages.getByRole('button', { name: 'Next page' }).click()
  await expect(pages).toContainText('Page 3 of 3')
  await expect(rows).toHaveCount(catalog.rules.length - 100)

  const search = editor.getByRole('searchbox', { name: 'Search rules' })
  await search.fill('wordpress')
  const wordpress = catalog.rules.filter((rule) => rule.categories.includes('wordpress'))
  await expect(rows).toHaveCount(wordpress.length)
  await expect(pages).toBeHidden()
  const last = catalog.rules[catalog.rules.length - 1]!
  await search.fill(last.description)
  await expect(rows.first()).toContainText(last.description)
})
