// How a keyboard user moves through a page in the browser tests: Tab to a control, arrow keys in
// a select. Only page.keyboard is used, so no pointer event reaches the page.

import { expect, type Locator, type Page } from '@playwright/test'

const focused = (target: Locator) =>
  target.evaluate((element) => element === document.activeElement)

/**
 * Presses Tab (or Shift+Tab, for a control above the focus) until the target has focus, as a
 * keyboard user moves through the page.
 */
export async function tabTo(page: Page, target: Locator, key: 'Tab' | 'Shift+Tab' = 'Tab') {
  await expect(target).toBeVisible()
  for (let presses = 0; presses < 400; presses += 1) {
    if (await focused(target)) return
    await page.keyboard.press(key)
  }
  throw new Error(`Tab never reached ${target}`)
}

/** Moves a focused select to the option with this value with the arrow keys. */
export async function chooseWithArrows(page: Page, select: Locator, value: string) {
  await tabTo(page, select)
  await page.keyboard.press('Home')
  const options = await select.locator('option').count()
  for (let presses = 0; presses < options; presses += 1) {
    if ((await select.inputValue()) === value) return
    await page.keyboard.press('ArrowDown')
  }
  await expect(select).toHaveValue(value)
}
