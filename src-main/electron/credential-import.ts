// The Electron shell's importCredentialList: the main process opens the file dialog over the
// window and streams the file the user chose into the credential database. The renderer says only
// which kind of list it is; it never names a path, and no other file is read.

import { dialog, type BrowserWindow, type OpenDialogOptions } from 'electron'
import { createReadStream, statSync } from 'node:fs'
import { basename } from 'node:path'
import { pipeline } from 'node:stream'
import { createGunzip } from 'node:zlib'
import type { Bridge } from '@shared/bridge'
import { uploadFault } from '../api/routes/credentials'
import { importHashList, type CredentialNamespace } from '../zones/credentials'
import { fileFault } from './file-fault'

const DIALOG: OpenDialogOptions = {
  title: 'Import a leaked-credential list',
  buttonLabel: 'Import',
  properties: ['openFile'],
  filters: [
    { name: 'Hash lists (HASH:COUNT per line)', extensions: ['txt', 'gz'] },
    { name: 'All files', extensions: ['*'] },
  ],
}

export function importChosenList(
  window: () => BrowserWindow | undefined,
  credentials: CredentialNamespace,
): Bridge['importCredentialList'] {
  return async ({ kind, salt }) => {
    const owner = window()
    const choice = await (owner
      ? dialog.showOpenDialog(owner, DIALOG)
      : dialog.showOpenDialog(DIALOG))
    const file = choice.filePaths[0]
    if (choice.canceled || file === undefined) return null
    const name = basename(file)
    try {
      const totalBytes = statSync(file).size
      const input = createReadStream(file)
      // pipeline's callback sees the failure the import's reading rethrows; nothing to add here.
      const content = file.endsWith('.gz')
        ? pipeline(input, createGunzip(), () => undefined)
        : input
      const outcome = await importHashList(credentials, content, { name, kind, salt })
      return { name, kind, bytesRead: input.bytesRead, totalBytes, ...outcome }
    } catch (error) {
      throw uploadFault(error) ?? fileFault('read', file, error)
    }
  }
}
