// The headless shell's importCredentialList. A browser page has no file dialog of the shell's, so
// it asks the browser for a file and uploads the file's content to the bridge's upload route (in
// Electron the main process opens the dialog and reads the chosen file itself). Either way the
// renderer sends content or nothing, never a path.

import type { CredentialImport } from '@shared/api/credentials'
import type { Envelope } from '@shared/api/envelope'
import type { Bridge } from '@shared/bridge'
import { ApiCallError } from './api-error'

/** Opens the browser's file picker; resolves to the file chosen, or null when it was closed. */
function pickFile(): Promise<File | null> {
  return new Promise((resolve) => {
    const input = document.createElement('input')
    input.type = 'file'
    input.addEventListener('change', () => resolve(input.files?.[0] ?? null))
    input.addEventListener('cancel', () => resolve(null))
    input.click()
  })
}

export const uploadPickedCredentialList: Bridge['importCredentialList'] = async ({
  kind,
  salt,
}) => {
  // Called from the click that asked for it: the picker needs that user activation.
  const file = await pickFile()
  if (file === null) return null
  const query = new URLSearchParams({
    kind,
    name: file.name,
    ...(salt === undefined ? {} : { salt }),
  })
  const response = await fetch(`/workbench/v1/bridge/importCredentialList?${query}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      'content-type': 'application/octet-stream',
      ...(file.name.endsWith('.gz') ? { 'content-encoding': 'gzip' } : {}),
    },
    body: file,
  })
  const envelope = (await response.json()) as Envelope<CredentialImport>
  if (!envelope.success || envelope.result === null) {
    throw new ApiCallError(response.status, envelope.errors)
  }
  return envelope.result
}
