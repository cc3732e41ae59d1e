// A zone's history in the UI: change a zone, restore it to an earlier point after confirming,
// see the earlier state, then undo the restore.

import { expect, test } from './fixtures'

test('restore a zone to an earlier point from the History screen, then undo', async ({
  page,
  workbench,
}) => {
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${workbench.api}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
    }).then((r) => r.json())
  const created = await api('/zones', {
    method: 'POST',
    body: JSON.stringify({ name: 'history.example', plan: 'pro' }),
  })
  const id = created.result.id
  await api(`/zones/${id}`, { method: 'PATCH', body: JSON.stringify({ plan: 'enterprise' }) })

  await page.goto(`${workbench.ui}#/history`)
  await page.getByLabel('Zone', { exact: true }).selectOption({ label: 'history.example' })
  const points = page.getByRole('list', { name: 'Points in history' }).getByRole('listitem')
  await expect(points.first()).toContainText('current')
  const count = await points.count()
  expect(count).toBeGreaterThanOrEqual(2)
  await page.screenshot({ path: 'test-results/e2e/history.png', fullPage: true })

  // The oldest point is the zone as created, on the Pro plan.
  await points
    .nth(count - 1)
    .getByRole('button', { name: 'Restore to here' })
    .click()
  await page.getByRole('dialog').getByRole('button', { name: 'Restore' }).click()
  await expect(page.getByRole('status')).toContainText('Restored history.example')
  expect((await api(`/zones/${id}`)).result.plan.legacy_id).toBe('pro')

  await page.getByRole('button', { name: 'Undo restore' }).click()
  await expect(page.getByRole('status')).toHaveCount(0)
  // The word and its button are gone: focus goes to the points, not to <body>.
  await expect(page.getByRole('list', { name: 'Points in history' })).toBeFocused()
  expect((await api(`/zones/${id}`)).result.plan.legacy_id).toBe('enterprise')
})
