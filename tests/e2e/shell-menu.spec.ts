// The Electron shell's File menu, on the renderer's side: the page is given the menu's events as
// the preload gives them (`window.workbenchMenu`), which the headless shell otherwise lacks, so the
// main process's sends can be played here. Import… hands a bundle to the Import screen, which
// checks it in a dry run and writes it only when confirmed; Export… opens the Export screen.

import { expect, test } from './fixtures'

interface MenuDouble {
  importFile?: (file: { name: string; text: string }) => void
  navigate?: (screen: string) => void
}

test('File menu: Import… checks the chosen bundle, then imports it; Export… opens Export', async ({
  page,
  workbench,
}) => {
  const headers = { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' }
  const created = await fetch(`${workbench.api}/zones`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'menu.example', plan: 'business' }),
  })
  const zoneId = ((await created.json()) as { result: { id: string } }).result.id
  const filters = await fetch(`${workbench.api}/zones/${zoneId}/filters`, {
    method: 'POST',
    headers,
    body: JSON.stringify([{ expression: 'ip.src eq 192.0.2.1', description: 'scanner' }]),
  })
  const [filter] = ((await filters.json()) as { result: { id: string }[] }).result
  const exported = await fetch(
    `${workbench.api.replace(/\/client\/v4$/, '/workbench/v1')}/zones/${zoneId}/export?format=bundle`,
    { headers },
  )
  const bundle = (await exported.json()) as { filters: { expression: string }[] }
  bundle.filters[0]!.expression = 'ip.src eq 192.0.2.2'

  await page.addInitScript(() => {
    const double: MenuDouble = {}
    Object.assign(window, {
      menuDouble: double,
      workbenchMenu: {
        onImport: (listener: MenuDouble['importFile']) => (double.importFile = listener),
        onNavigate: (listener: MenuDouble['navigate']) => (double.navigate = listener),
      },
    })
  })
  await page.goto(workbench.ui)
  await expect(page.getByRole('heading', { name: 'Zones', level: 1 })).toBeVisible()

  await page.evaluate(() =>
    (window as unknown as { menuDouble: MenuDouble }).menuDouble.navigate!('export'),
  )
  await expect(page.getByRole('heading', { name: 'Export', level: 1 })).toBeVisible()
  await expect(page.getByLabel('Preview of menu.example.zone-workbench.json')).toBeVisible()

  await page.evaluate(
    (text) =>
      (window as unknown as { menuDouble: MenuDouble }).menuDouble.importFile!({
        name: 'menu.example.zone-workbench.json',
        text,
      }),
    JSON.stringify(bundle),
  )
  await expect(page.getByRole('heading', { name: 'Import', level: 1 })).toBeVisible()
  const changes = page.getByRole('list', { name: 'Changes to menu.example' })
  await expect(changes.getByRole('listitem')).toHaveCount(1)
  await expect(changes.getByRole('listitem').filter({ hasText: filter!.id })).toContainText(
    'Change',
  )
  await expect(page.getByRole('status')).toContainText(
    'menu.example.zone-workbench.json would change menu.example in 1 place',
  )
  const unchanged = await fetch(`${workbench.api}/zones/${zoneId}/filters/${filter!.id}`, {
    headers,
  })
  expect(((await unchanged.json()) as { result: { expression: string } }).result.expression).toBe(
    'ip.src eq 192.0.2.1',
  )

  await page.getByRole('button', { name: 'Import into menu.example' }).click()
  await expect(page.getByRole('status')).toContainText('Imported menu.example: 1 change made')
  const changed = await fetch(`${workbench.api}/zones/${zoneId}/filters/${filter!.id}`, {
    headers,
  })
  expect(((await changed.json()) as { result: { expression: string } }).result.expression).toBe(
    'ip.src eq 192.0.2.2',
  )
})
