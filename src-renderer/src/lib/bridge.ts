// The renderer's only way to the service. In Electron the preload provides the bridge; in the
// headless shell the same operations go over HTTP to /workbench/v1/bridge/, authenticated by the
// session cookie the page received when it was opened from the address the shell printed (the
// page itself holds no secret). Either way the screens see one `Bridge`. The Electron shell's File
// menu reaches the screens through ./shell-menu.svelte.

import type { Envelope } from '@shared/api/envelope'
import { BRIDGE_OPERATIONS, type Bridge } from '@shared/bridge'
import { downloadTextFile } from './download'
import { uploadPickedCredentialList } from './credential-upload'

/** The API's answer to a request that carries neither credentials nor a session cookie. */
const NO_CREDENTIALS = 9106

function httpBridge(): Bridge {
  const call = async (operation: string, input: unknown): Promise<unknown> => {
    const response = await fetch(`/workbench/v1/bridge/${operation}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input ?? {}),
    })
    const envelope = (await response.json()) as Envelope<unknown>
    if (!envelope.success) {
      if (envelope.errors.some((e) => e.code === NO_CREDENTIALS)) {
        throw new Error(
          'This page has no session with the workbench: open the UI address the workbench printed when it started (it ends in ?session=…).',
        )
      }
      throw new Error(envelope.errors.map((e) => e.message).join('; ') || `HTTP ${response.status}`)
    }
    return envelope.result
  }
  const operations = Object.fromEntries(
    BRIDGE_OPERATIONS.map((operation) => [operation, (input: unknown) => call(operation, input)]),
  ) as unknown as Bridge
  return {
    ...operations,
    importCredentialList: uploadPickedCredentialList,
    saveFile: downloadTextFile,
  }
}

export const bridge: Bridge = window.workbench ?? httpBridge()

/** A message fit to show a person, whatever was thrown. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
