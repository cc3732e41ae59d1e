// State that survives (issue 19): the address carries the zone and the screen's step or selection,
// so a reload, back and forward and a link open the same place; unsaved work is kept per zone
// until saved or discarded, and leaving it asks; a refused change shows what is in force; each
// screen titles the window; focus goes to the result of an action.

import { readFileSync } from 'node:fs'
import type { Page } from '@playwright/test'
import { expect, test, type Workbench } from './fixtures'

const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const catalog = JSON.parse(readFileSync(`resources/managed-rulesets/${GENERAL}.json`, 'utf8')) as {
  name: string
}

async function newZone(
  workbench: Workbench,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await fetch(`${workbench.api}/zones`, {
    method: 'POST',
    headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, ...extra }),
  })
  const body = (await response.json()) as { result: { id: string } }
  return body.result.id
}

/** The page's address after the `#`. */
function hash(page: Page): string {
  return new URL(page.url()).hash
}

test('Managed rules: a reload keeps the zone, the open deployment and the unsaved override; leaving asks', async ({
  page,
  workbench,
}) => {
  await newZone(workbench, 'first.example.com')
  const zoneId = await newZone(workbench, 'second.example.com')
  const dialogs: string[] = []
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.type())
    void dialog.accept()
  })

  await page.goto(`${workbench.ui}#/zones/${zoneId}/managed-rules`)
  await expect(page.getByLabel('Zone')).toHaveValue(zoneId)
  await expect(page).toHaveTitle('Managed rules · second.example.com · Zone Workbench')
  await page.getByRole('button', { name: `Deploy ${catalog.name}` }).click()
  const editor = page.getByRole('region', { name: `Configure ${catalog.name}` })
  await expect(editor).toBeVisible()
  await expect.poll(() => hash(page)).toMatch(new RegExp(`^#/zones/${zoneId}/managed-rules/\\w+$`))
  const deploymentAddress = hash(page)

  await editor.getByLabel('Tag to override').selectOption('wordpress')
  await editor.getByLabel('Tag action').selectOption('log')
  await editor.getByRole('button', { name: 'Add tag override' }).click()
  await expect(page.getByText('Unsaved changes')).toBeVisible()

  // Every address the reloaded page takes, from its first: the screen opening the zone must not
  // write one without the deployment, even for a moment.
  await page.addInitScript(() => {
    const addresses = [location.hash]
    Object.assign(window, { addresses })
    const replaceState = history.replaceState.bind(history)
    history.replaceState = (...args: Parameters<History['replaceState']>) => {
      replaceState(...args)
      addresses.push(location.hash)
    }
    addEventListener('hashchange', () => addresses.push(location.hash))
  })

  // Reloading asks (beforeunload), and once accepted comes back to the same zone, deployment and edit.
  await page.reload()
  expect(dialogs).toContain('beforeunload')
  await expect(page.getByLabel('Zone')).toHaveValue(zoneId)
  await expect(page.getByText('Unsaved changes')).toBeVisible()
  await expect(editor.getByRole('list', { name: 'Tag overrides' })).toContainText('wordpress')
  expect(hash(page)).toBe(deploymentAddress)
  const addresses = await page.evaluate(
    () => (window as unknown as { addresses: string[] }).addresses,
  )
  expect(new Set(addresses)).toEqual(new Set([deploymentAddress]))

  // Leaving in the app asks: Cancel keeps the screen and the draft.
  await page.getByRole('link', { name: 'Zones' }).click()
  const confirm = page.getByRole('dialog', { name: 'Leave without saving?' })
  await expect(confirm).toBeVisible()
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  await expect(confirm).toHaveCount(0)
  await expect(page.getByRole('link', { name: 'Zones' })).toBeFocused()
  expect(hash(page)).toBe(deploymentAddress)
  await expect(page.getByText('Unsaved changes')).toBeVisible()
  await expect(editor.getByRole('list', { name: 'Tag overrides' })).toContainText('wordpress')

  // Confirming discards the draft and leaves.
  await page.getByRole('link', { name: 'Zones' }).click()
  await confirm.getByRole('button', { name: 'Discard changes' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Zones' })).toBeVisible()
  await page.goto(`${workbench.ui}${deploymentAddress}`)
  await expect(editor).toBeVisible()
  await expect(page.getByText('Unsaved changes')).toHaveCount(0)
  await expect(editor.getByRole('list', { name: 'Tag overrides' })).toHaveCount(0)
})

test('Migration: a reload at the review step stays at it', async ({ page, workbench }) => {
  const zoneId = await newZone(workbench, 'legacy.example.com', {
    plan: 'business',
    waf_product: 'previous',
  })
  await page.goto(`${workbench.ui}#/zones/${zoneId}/migration`)
  await expect(page.locator('[aria-current="step"]')).toContainText('Current settings')
  const steps = page.getByRole('navigation', { name: 'Migration steps' })
  await steps.getByRole('button', { name: 'Eligibility' }).click()
  await steps.getByRole('button', { name: 'Review' }).click()
  await expect(page.locator('[aria-current="step"]')).toContainText('Review')
  await expect.poll(() => hash(page)).toBe(`#/zones/${zoneId}/migration/review`)

  await page.reload()
  await expect(page.getByLabel('Zone')).toHaveValue(zoneId)
  await expect(page.locator('[aria-current="step"]')).toContainText('Review')
  await expect(page).toHaveTitle('Migration · legacy.example.com · Zone Workbench')
})

test("Simulator: a reload keeps the zone's request; the outcome takes focus after a run", async ({
  page,
  workbench,
}) => {
  await newZone(workbench, 'first.example.com')
  const zoneId = await newZone(workbench, 'second.example.com')
  await page.goto(`${workbench.ui}#/zones/${zoneId}/simulator`)
  await expect(page.getByLabel('URL')).toHaveValue('https://second.example.com/')
  await page.getByLabel('Method').selectOption('POST')
  await page.getByLabel('URL').fill('https://second.example.com/wp-login.php?draft=kept')

  await page.reload()
  await expect(page.getByLabel('Zone')).toHaveValue(zoneId)
  await expect(page.getByLabel('Method')).toHaveValue('POST')
  await expect(page.getByLabel('URL')).toHaveValue(
    'https://second.example.com/wp-login.php?draft=kept',
  )

  await page.getByRole('button', { name: 'Run', exact: true }).click()
  await expect(page.locator(':focus').getByRole('region', { name: 'Outcome' })).toBeVisible()
})

test("back and forward move between two zones' screens", async ({ page, workbench }) => {
  const first = await newZone(workbench, 'first.example.com')
  const second = await newZone(workbench, 'second.example.com')
  await page.goto(`${workbench.ui}#/zones/${first}/firewall-rules`)
  await expect(page.getByLabel('Zone')).toHaveValue(first)
  await expect(page).toHaveTitle('Firewall rules · first.example.com · Zone Workbench')

  await page.getByLabel('Zone').selectOption(second)
  await expect.poll(() => hash(page)).toBe(`#/zones/${second}/firewall-rules`)
  await expect(page).toHaveTitle('Firewall rules · second.example.com · Zone Workbench')

  await page.goBack()
  await expect(page.getByLabel('Zone')).toHaveValue(first)
  expect(hash(page)).toBe(`#/zones/${first}/firewall-rules`)
  await page.goForward()
  await expect(page.getByLabel('Zone')).toHaveValue(second)
})

test('back from a screen still opening its zone stays back when the opening ends', async ({
  page,
  workbench,
}) => {
  // Back changes the address at once and tells the page in a hashchange event later. The page's
  // fetch holds one answer (the real one) of the screen's opening, its last, until that moment,
  // so that the screen finishes opening in between, as it may by chance.
  await page.addInitScript(() => {
    const page = window as unknown as { heldPath?: string; held?: boolean }
    const fetchNow = window.fetch.bind(window)
    window.fetch = async (input, init) => {
      const response = await fetchNow(input, init)
      const body = typeof init?.body === 'string' ? init.body : ''
      if (page.heldPath === undefined || !body.includes(`"path":"${page.heldPath}`)) return response
      page.heldPath = undefined
      const text = await response.text()
      page.held = true
      await new Promise((resolve) => addEventListener('popstate', resolve, { once: true }))
      // read at once: a body read from its stream would wait for a task, after the hashchange
      const answer = new Response(text, response)
      answer.json = () => Promise.resolve(JSON.parse(text))
      return answer
    }
  })
  const zoneId = await newZone(workbench, 'only.example.com')
  await page.goto(`${workbench.ui}#/zones/${zoneId}/firewall-rules`)
  await expect(page.getByLabel('Zone')).toHaveValue(zoneId)

  // The Simulator's opening ends with the zone's rulesets.
  await page.evaluate((path) => {
    ;(window as unknown as { heldPath: string }).heldPath = path
  }, `/client/v4/zones/${zoneId}/rulesets`)
  await page.getByRole('link', { name: 'Simulator' }).click()
  await page.waitForFunction(() => (window as unknown as { held?: boolean }).held === true)
  await page.goBack()

  await expect(page).toHaveTitle(/^Firewall rules/)
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 250)))
  expect(hash(page)).toBe(`#/zones/${zoneId}/firewall-rules`)
  await expect(page).toHaveTitle(/^Firewall rules/)
})

test('a refused plan change shows the plan in force', async ({ page, workbench }) => {
  await newZone(workbench, 'legacy.example.com', { plan: 'pro', waf_product: 'previous' })
  await page.goto(workbench.ui)
  const plan = page.getByLabel('Plan of legacy.example.com')
  await expect(plan).toHaveValue('pro')
  // The previous product is not available on Free: the API refuses the change.
  await plan.selectOption('free')
  await expect(page.getByRole('alert')).toBeVisible()
  await expect(plan).toHaveValue('pro')
})

test('an unknown address shows Not found with a way home', async ({ page, workbench }) => {
  await page.goto(`${workbench.ui}#/no-such-screen`)
  await expect(page.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible()
  await expect(page).toHaveTitle('Not found · Zone Workbench')
  await page.getByRole('link', { name: 'Go to Zones' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Zones' })).toBeVisible()
  await expect(page).toHaveTitle('Zones · Zone Workbench')
})

test('each screen titles the window; the skip link reaches the main content', async ({
  page,
  workbench,
}) => {
  await page.goto(`${workbench.ui}#/expressions`)
  await expect(page).toHaveTitle('Expressions · Zone Workbench')
  await page.keyboard.press('Tab')
  const skip = page.getByRole('link', { name: 'Skip to main content' })
  await expect(skip).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('main')).toBeFocused()
  expect(hash(page)).toBe('#/expressions')

  await page.getByRole('link', { name: 'Settings' }).click()
  await expect(page).toHaveTitle('Settings · Zone Workbench')
  await page.getByRole('link', { name: 'Zones' }).click()
  await expect(page).toHaveTitle('Zones · Zone Workbench')
})

test("focus lands on the new zone's row after create, and on the next row after delete", async ({
  page,
  workbench,
}) => {
  await newZone(workbench, 'next.example.com')
  await page.goto(workbench.ui)
  await page.getByPlaceholder('example.com').fill('focus.example.com')
  await page.getByRole('button', { name: 'Create zone' }).click()
  const row = page.getByRole('row', { name: /focus\.example\.com/ })
  await expect(row.locator(':focus')).toHaveText('focus.example.com')

  await row.getByRole('button', { name: 'Delete' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Delete zone' }).click()
  await expect(row).toHaveCount(0)
  const next = page.getByRole('row', { name: /next\.example\.com/ })
  await expect(next.locator(':focus')).toHaveText('next.example.com')
})
