// The Electron shell's application menu. File ▸ Import… opens the file dialog in the main process
// and hands the chosen bundle or Terraform file's text to the Import screen, which checks it in a
// dry run and imports it once the user confirms, as for a dropped file; File ▸ Export… opens the
// Export screen, whose Save goes through the bridge's saveFile and its save dialog.

import {
  Menu,
  dialog,
  type BrowserWindow,
  type MenuItemConstructorOptions,
  type OpenDialogOptions,
} from 'electron'
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { MENU_CHANNELS, type MenuImportFile } from '@shared/shell-menu'
import { fileFault } from './file-fault'

const IMPORT_DIALOG: OpenDialogOptions = {
  title: 'Import a zone bundle or Terraform file',
  buttonLabel: 'Check',
  properties: ['openFile'],
  filters: [
    { name: 'Zone bundles and Terraform files', extensions: ['json', 'tf'] },
    { name: 'All files', extensions: ['*'] },
  ],
}

async function chooseImport(window: BrowserWindow): Promise<void> {
  const choice = await dialog.showOpenDialog(window, IMPORT_DIALOG)
  const file = choice.filePaths[0]
  if (choice.canceled || file === undefined) return
  try {
    const chosen: MenuImportFile = { name: basename(file), text: await readFile(file, 'utf8') }
    window.webContents.send(MENU_CHANNELS.import, chosen)
  } catch (error) {
    dialog.showErrorBox('Import', fileFault('read', file, error).message)
  }
}

export function installApplicationMenu(window: () => BrowserWindow | undefined): void {
  const withWindow = (action: (window: BrowserWindow) => unknown) => () => {
    const current = window()
    if (current) void action(current)
  }
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' } as const] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Import…', accelerator: 'CmdOrCtrl+O', click: withWindow(chooseImport) },
        {
          label: 'Export…',
          accelerator: 'CmdOrCtrl+E',
          click: withWindow((w) => w.webContents.send(MENU_CHANNELS.navigate, 'export')),
        },
        { type: 'separator' },
        { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'windowMenu' },
  ]
  Menu.setApplicationMenu(Menu.buildFromTemplate(template))
}
