// The Objects screen: find a zone's object, see its tables, run read-only SQL, and see a write
// refused with the reason; a table's rows paged from what each read finds, as rows are added.

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

test('a table is paged from what its read finds, after rows were added since it was listed', async ({
  page,
  workbench,
}) => {
  const call = (path: string, method: string, body?: unknown) =>
    fetch(`${workbench.api}${path}`, {
      method,
      headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then((r) => r.json())
  const addFilters = (count: number, from: number) =>
    call(
      `/zones/${zoneId}/filters`,
      'POST',
      Array.from({ length: count }, (_, index) => ({
        expression: `ip.src eq 203.0.113.${from + index}`,
      })),
    )
  const zoneId: string = (await call('/zones', 'POST', { name: 'paging.example' })).result.id
  await addFilters(50, 1)

  await page.goto(`${workbench.ui}#/objects`)
  await page.getByRole('button', { name: /Zone paging\.example/ }).click()
  const browse = page.getByRole('button', { name: 'Browse filters' })
  await browse.click()
  await expect(page.getByText('Rows 1–50 of 50')).toBeVisible()
  await expect(page.getByRole('button', { name: 'Next rows' })).toBeDisabled()

  // Ten more while the screen is open: the tables listed still say 50, the page's read says 60.
  await addFilters(10, 101)
  await browse.click()
  await expect(page.getByText('Rows 1–50 of 60')).toBeVisible()
  // The list of tables counts the table browsed as its page was read.
  await expect(
    page.getByRole('table', { name: 'Tables' }).getByRole('row').filter({ has: browse }),
  ).toContainText('60')
  await page.getByRole('button', { name: 'Next rows' }).click()
  await expect(page.getByText('Rows 51–60 of 60')).toBeVisible()
  await expect(page.getByRole('table', { name: 'Rows of filters' })).toContainText(
    'ip.src eq 203.0.113.110',
  )
  // The last page disables Next, which hands focus to Previous; closing returns it to Browse.
  await expect(page.getByRole('button', { name: 'Next rows' })).toBeDisabled()
  await expect(page.getByRole('button', { name: 'Previous rows' })).toBeFocused()
  await page.getByRole('button', { name: 'Close' }).click()
  await expect(browse).toBeFocused()
})
