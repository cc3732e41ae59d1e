// The Objects screen: find a zone's object, see its tables, run read-only SQL, and see a write
// refused with the reason.

import { expect, test } from './fixtures'

test('inspect a zone object and run read-only SQL', async ({ page, workbench }) => {
  await fetch(`${workbench.api}/zones`, {
    method: 'POST',
    headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'objects.example', plan: 'business' }),
  })
  await page.goto(`${workbench.ui}#/objects`)
  await page.getByRole('button', { name: /Zone objects\.example/ }).click()
  await expect(page.getByRole('table', { name: 'Tables' })).toContainText('zone')
  await expect(page.getByLabel('Alarm')).toHaveText('none set')

  await page.getByLabel('SQL query').fill('SELECT name, plan FROM zone')
  await page.getByRole('button', { name: 'Run' }).click()
  const result = page.getByRole('table', { name: 'Query result' })
  await expect(result).toContainText('objects.example')
  await expect(result).toContainText('business')
  await page.screenshot({ path: 'test-results/e2e/objects.png', fullPage: true })

  await page.getByLabel('SQL query').fill('DELETE FROM zone')
  await page.getByRole('button', { name: 'Run' }).click()
  await expect(page.getByRole('alert')).toContainText('Only read-only SQL runs here')
})
