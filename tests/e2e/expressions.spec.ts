// The expression editor as a user meets it: a typo is underlined under the right token with a
// message saying what is wrong; once fixed, the expression is tried on the sample request.

import { expect, test } from './fixtures'

test('a wrong expression is underlined under the right token; a fixed one evaluates', async ({
  page,
  workbench,
}) => {
  await page.goto(`${workbench.ui}#/expressions`)
  const editor = page.getByRole('textbox', { name: 'Expression' })
  await editor.click()
  await page.keyboard.press('ControlOrMeta+a')
  await page.keyboard.press('Delete')
  await page.keyboard.type('http.request.method eq "POST" and http.hots eq "example.com"')

  // The underline covers exactly the unknown field, and the message names it.
  const underline = page.locator('.cm-content .zw-expression-error')
  await expect(underline).toHaveText('http.hots')
  const message = page.locator('.zw-expression-error-message')
  await expect(message).toContainText('1:35')
  await expect(message).toContainText('unknown identifier')
  await expect(message).toContainText('http.host')
  await expect(editor).toHaveAttribute('aria-invalid', 'true')
  await page.screenshot({ path: 'test-results/e2e/expression-error.png', fullPage: true })

  // Fix the typo: the underline goes, and the expression is tried on the sample request.
  await underline.click()
  await page.keyboard.press('End')
  await page.keyboard.press('ControlOrMeta+a')
  await page.keyboard.press('Delete')
  await page.keyboard.type('http.request.method eq "POST" and http.host eq "example.com"')
  await expect(page.locator('.cm-content .zw-expression-error')).toHaveCount(0)
  await expect(editor).toHaveAttribute('aria-invalid', 'false')
  await expect(page.getByTestId('verdict')).toHaveText('Matches')

  await page.getByLabel('URL').fill('https://other.example/login')
  await expect(page.getByTestId('verdict')).toHaveText('Does not match')
})
