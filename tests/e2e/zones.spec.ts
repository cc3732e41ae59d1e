// A new user's first minutes: open the UI, see the empty state, create a zone with a plan, see it
// listed (and through the API), rename it, delete it after confirming.

import { expect, test } from './fixtures'

test('create, list, rename and delete a zone from the UI', async ({ page, workbench }) => {
  await page.goto(workbench.ui)
  await expect(page.getByRole('heading', { name: 'Zones', exact: true })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'No zones yet' })).toBeVisible()

  await page.getByPlaceholder('example.com').fill('shop.example.com')
  await page.getByLabel('Plan', { exact: true }).selectOption('business')
  await page.getByLabel('WAF product').selectOption('previous')
  await page.getByRole('button', { name: 'Create zone' }).click()

  const table = page.getByRole('table', { name: 'Zones' })
  const row = table.getByRole('row', { name: /shop\.example\.com/ })
  await expect(row).toBeVisible()
  await expect(row.getByLabel('Plan of shop.example.com')).toHaveValue('business')
  await expect(row).toContainText('Previous WAF')

  // What the UI shows is what the API serves.
  const listed = await fetch(`${workbench.api}/zones?name=shop.example.com`, {
    headers: { authorization: `Bearer ${workbench.token}` },
  }).then((r) => r.json())
  expect(listed.result).toHaveLength(1)
  expect(listed.result[0].plan.legacy_id).toBe('business')

  await page.screenshot({ path: 'test-results/e2e/zones.png', fullPage: true })

  await row.getByRole('button', { name: 'Rename' }).click()
  await page.getByLabel('New name').fill('store.example.com')
  await page.getByRole('button', { name: 'Save' }).click()
  await expect(table.getByRole('row', { name: /store\.example\.com/ })).toBeVisible()

  // A duplicate is refused with the vendor's message, shown to the user.
  await page.getByPlaceholder('example.com').fill('store.example.com')
  await page.getByRole('button', { name: 'Create zone' }).click()
  await expect(page.getByRole('alert')).toHaveText('store.example.com already exists.')

  await table
    .getByRole('row', { name: /store\.example\.com/ })
    .getByRole('button', { name: 'Delete' })
    .click()
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('Delete store.example.com?')
  await dialog.getByRole('button', { name: 'Delete zone' }).click()
  await expect(page.getByRole('heading', { name: 'No zones yet' })).toBeVisible()
})

test('settings show the API address and a token that works', async ({ page, workbench }) => {
  await page.goto(`${workbench.ui}#/settings`)
  await expect(page.getByLabel('API base URL', { exact: true })).toHaveText(workbench.api)
  await page.getByRole('button', { name: 'Show' }).first().click()
  await expect(page.getByLabel('API token', { exact: true })).toHaveText(workbench.token)
  await page.screenshot({ path: 'test-results/e2e/settings.png', fullPage: true })
})

test('settings rotate the token: the old one stops working, the new one works', async ({
  page,
  workbench,
}) => {
  await page.goto(`${workbench.ui}#/settings`)
  await page.getByRole('button', { name: 'Rotate token and key' }).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText('Rotate the API token and key?')
  await dialog.getByRole('button', { name: 'Rotate' }).click()
  await expect(page.getByText('New token and key are in force')).toBeVisible()
  // Focus goes to that result, not to <body> (the button was disabled meanwhile).
  await expect(page.getByText('New token and key are in force')).toBeFocused()
  await page.getByRole('button', { name: 'Show' }).first().click()
  const token = page.getByLabel('API token', { exact: true })
  await expect(token).not.toHaveText(workbench.token)
  const rotated = (await token.textContent()) ?? ''
  const zones = (bearer: string) =>
    fetch(`${workbench.api}/zones`, { headers: { authorization: `Bearer ${bearer}` } })
  expect((await zones(workbench.token)).status).toBe(403)
  expect((await zones(rotated)).status).toBe(200)
  // The page's own session is not the token: the screens keep working after the rotation.
  await page.reload()
  await expect(page.getByLabel('API base URL', { exact: true })).toHaveText(workbench.api)
})

test('a page opened without the address the shell printed has no session', async ({
  page,
  workbench,
}) => {
  await page.goto(`${new URL(workbench.ui).origin}/#/settings`)
  await expect(page.getByRole('alert')).toContainText('no session with the workbench')
})
