// The Electron shell's saveFile: the main process opens the save dialog over the window,
// proposing the name the renderer suggests, and writes the text to the file the user chose. The
// renderer names no path; the dialog is the only way to one.

import { dialog, type BrowserWindow, type SaveDialogOptions } from 'electron'
import { writeFile } from 'node:fs/promises'
import { basename, extname } from 'node:path'
import type { Bridge } from '@shared/bridge'
import { fileFault } from './file-fault'

export function saveChosenFile(window: () => BrowserWindow | undefined): Bridge['saveFile'] {
  return async ({ suggestedName, text }) => {
    const extension = extname(suggestedName).slice(1)
    const options: SaveDialogOptions = {
      title: `Save ${suggestedName}`,
      defaultPath: suggestedName,
      filters: extension ? [{ name: `.${extension} files`, extensions: [extension] }] : [],
    }
    const owner = window()
    const choice = await (owner
      ? dialog.showSaveDialog(owner, options)
      : dialog.showSaveDialog(options))
    const file = choice.filePath
    if (choice.canceled || !file) return null
    try {
      await writeFile(file, text)
    } catch (error) {
      throw fileFault('write', file, error)
    }
    return { name: basename(file) }
  }
}
