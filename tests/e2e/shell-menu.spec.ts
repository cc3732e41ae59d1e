// The Electron shell's File menu, on the renderer's side: the page is given the menu's events as
// the preload gives them (`window.workbenchMenu`), which the headless shell otherwise lacks, so the
// main process's sends can be played here. Import… hands a bundle or Terraform file to the Import
// screen, which checks it in a dry run and writes it only when confirmed; Export… opens Export.

import type { Page } from '@playwright/test'
import { expect, test, type Workbench } from './fixtures'

interface MenuDouble {
  importFile?: (file: { name: string; text: string }) => void
  navigate?: (screen: string) => void
}

/** A zone with one filter; answers the API's fetch with credentials and the ids. */
async function zoneWithFilter(workbench: Workbench, name: string) {
  const headers = { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' }
  const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const response = await fetch(`${workbench.api}${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    })
    return response
  }
  const created = await call('/zones', { method: 'POST', body: { name, plan: 'business' } })
  const zoneId = ((await created.json()) as { result: { id: string } }).result.id
  const filters = await call(`/zones/${zoneId}/filters`, {
    method: 'POST',
    body: [{ expression: 'ip.src eq 192.0.2.1', description: 'scanner' }],
  })
  const filterId = ((await filters.json()) as { result: { id: string }[] }).result[0]!.id
  const exported = (query: string) =>
    fetch(
      `${workbench.api.replace(/\/client\/v4$/, '/workbench/v1')}/zones/${zoneId}/export?${query}`,
      { headers },
    ).then((response) => response.text())
  const expression = async (zone = zoneId, filter = filterId) =>
    (
      (await (await call(`/zones/${zone}/filters/${filter}`)).json()) as {
        result: { expression: string }
      }
    ).result.expression
  return { call, zoneId, filterId, exported, expression }
}

/** Opens the UI with the menu's events in hand, as the Electron preload provides them. */
async function openWithMenu(page: Page, workbench: Workbench) {
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
  return {
    importFile: (name: string, text: string) =>
      page.evaluate(
        (file) => (window as unknown as { menuDouble: MenuDouble }).menuDouble.importFile!(file),
        { name, text },
      ),
    navigate: (screen: string) =>
      page.evaluate(
        (to) => (window as unknown as { menuDouble: MenuDouble }).menuDouble.navigate!(to),
        screen,
      ),
  }
}

test('File menu: Import… checks the chosen bundle, then imports it; Export… opens Export', async ({
  page,
  workbench,
}) => {
  const zone = await zoneWithFilter(workbench, 'menu.example')
  const bundle = JSON.parse(await zone.exported('format=bundle')) as {
    filters: { expression: string }[]
  }
  bundle.filters[0]!.expression = 'ip.src eq 192.0.2.2'
  const menu = await openWithMenu(page, workbench)

  await menu.navigate('export')
  await expect(page.getByRole('heading', { name: 'Export', level: 1 })).toBeVisible()
  await expect(page.getByLabel('Preview of menu.example.zone-workbench.json')).toBeVisible()

  await menu.importFile('menu.example.zone-workbench.json', JSON.stringify(bundle))
  await expect(page.getByRole('heading', { name: 'Import', level: 1 })).toBeVisible()
  const changes = page.getByRole('list', { name: 'Changes to menu.example' })
  await expect(changes.getByRole('listitem')).toHaveCount(1)
  await expect(changes.getByRole('listitem').filter({ hasText: zone.filterId })).toContainText(
    'Change',
  )
  await expect(page.getByRole('status')).toContainText(
    'menu.example.zone-workbench.json would change menu.example in 1 place',
  )
  expect(await zone.expression()).toBe('ip.src eq 192.0.2.1')

  await page.getByRole('button', { name: 'Import into menu.example' }).click()
  await expect(page.getByRole('status')).toContainText('Imported menu.example: 1 change made')
  expect(await zone.expression()).toBe('ip.src eq 192.0.2.2')
})

test('File menu: Import… of a Terraform file goes into the zone named on screen', async ({
  page,
  workbench,
}) => {
  const zone = await zoneWithFilter(workbench, 'tf.example')
  const terraform = (await zone.exported('format=terraform&provider=v4')).replace(
    'ip.src eq 192.0.2.1',
    'ip.src eq 192.0.2.3',
  )
  const menu = await openWithMenu(page, workbench)

  await menu.importFile('tf.example.tf', terraform)
  const zoneName = page.getByLabel('Zone to import tf.example.tf into')
  await expect(zoneName).toHaveValue('tf.example')
  const changes = page.getByRole('list', { name: 'Changes to tf.example' })
  await expect(changes.getByRole('listitem')).toHaveCount(1)
  await expect(changes.getByRole('listitem').filter({ hasText: zone.filterId })).toContainText(
    'Change',
  )
  expect(await zone.expression()).toBe('ip.src eq 192.0.2.1')

  // Another name: the file's import blocks name this zone's id, so the API refuses it there.
  await zoneName.fill('copy.example')
  await page.getByRole('button', { name: 'Check again' }).click()
  await expect(page.getByRole('alert')).toContainText(`A zone with the id ${zone.zoneId} exists`)
  await expect(page.getByRole('button', { name: /^Import into/ })).toHaveCount(0)

  await zoneName.fill('tf.example')
  await page.getByRole('button', { name: 'Check again' }).click()
  await expect(page.getByRole('status')).toContainText('tf.example.tf would change tf.example')
  await page.getByRole('button', { name: 'Import into tf.example' }).click()
  await expect(page.getByRole('status')).toContainText('Imported tf.example: 1 change made')
  expect(await zone.expression()).toBe('ip.src eq 192.0.2.3')
  const copies = await (await zone.call('/zones?name=copy.example')).json()
  expect((copies as { result: unknown[] }).result).toHaveLength(0)
})
