// The renderer's only way to the service. In Electron the preload provides the bridge; in the
// headless shell the same operations go over HTTP to /workbench/v1/bridge/, authenticated with
// the token the server put in the page. Either way the screens see one `Bridge`.

import type { Envelope } from '@shared/api/envelope'
import { BRIDGE_OPERATIONS, type Bridge } from '@shared/bridge'
import { uploadPickedCredentialList } from './credential-upload'

function httpBridge(): Bridge {
  const token = document.querySelector<HTMLMetaElement>(
    'meta[name="zone-workbench-token"]',
  )?.content
  if (!token) throw new Error('This page was not served by Zone Workbench: no bridge is available')
  const call = async (operation: string, input: unknown): Promise<unknown> => {
    const response = await fetch(`/workbench/v1/bridge/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(input ?? {}),
    })
    const envelope = (await response.json()) as Envelope<unknown>
    if (!envelope.success) {
      throw new Error(envelope.errors.map((e) => e.message).join('; ') || `HTTP ${response.status}`)
    }
    return envelope.result
  }
  const operations = Object.fromEntries(
    BRIDGE_OPERATIONS.map((operation) => [operation, (input: unknown) => call(operation, input)]),
  ) as unknown as Bridge
  return { ...operations, importCredentialList: uploadPickedCredentialList }
}

export const bridge: Bridge = window.workbench ?? httpBridge()

/** A message fit to show a person, whatever was thrown. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
