// The leaked-credential database on the Settings screen: the counts it holds, and a list imported
// from a file the user picks, with the keyboard; importing it again replaces it; an empty file is
// refused.

import { createHash } from 'node:crypto'
import { expect, test } from './fixtures'

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex').toUpperCase()

test('imports a picked list into the credential database, and replaces it when imported again', async ({
  page,
  workbench,
}) => {
  await page.goto(`${workbench.ui}#/settings`)
  const section = page.getByRole('region', { name: 'Leaked credentials' })
  const passwords = section.getByRole('definition').nth(1)
  await expect(section.getByRole('rowheader', { name: 'sample:passwords.txt' })).toBeVisible()
  const before = Number((await passwords.innerText()).replace(/\D/g, ''))

  const list = [`${sha1('Corr3ct-Horse')}:12`, `${sha1('Battery-Stap1e')}:3`, 'not a hash'].join(
    '\n',
  )
  await section.getByLabel('Passwords alone').check()
  await section.getByLabel('Salt the hashes were made with (optional)').fill('')
  const importButton = section.getByRole('button', { name: 'Import a list…' })
  for (const verb of ['Imported', 'Replaced']) {
    await importButton.focus()
    const chooser = page.waitForEvent('filechooser')
    await page.keyboard.press('Enter')
    await (
      await chooser
    ).setFiles({ name: 'my-list.txt', mimeType: 'text/plain', buffer: Buffer.from(list) })
    await expect(
      section.getByText(`${verb} my-list.txt: 2 lines added, 1 line skipped as malformed.`),
    ).toBeVisible()
    await expect(importButton).toBeEnabled()
  }

  const row = section.getByRole('row', { name: /my-list\.txt/ })
  await expect(row).toContainText('Passwords alone')
  await expect(row.getByRole('cell').nth(2)).toHaveText('2')
  await expect(passwords).toHaveText(String(before + 2))
  await page.screenshot({ path: 'test-results/e2e/credential-import.png', fullPage: true })

  // An empty file is refused, and the database stays as it was.
  const chooser = page.waitForEvent('filechooser')
  await importButton.click()
  await (
    await chooser
  ).setFiles({ name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) })
  await expect(section.getByRole('alert')).toContainText('the upload is empty')
  await expect(passwords).toHaveText(String(before + 2))
})
