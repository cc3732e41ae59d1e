// The renderer's only way to the service. In Electron the preload provides the bridge; in the
// headless shell the same operations go over HTTP to /workbench/v1/bridge/, authenticated by the
// session cookie the page received when it was opened from the address the shell printed (the
// page itself holds no secret). Either way each call answers its outcome as data, and the screens
// see one `Bridge` whose refusals throw ApiCallError. The Electron shell's File menu reaches the
// screens through ./shell-menu.svelte.

import type { Envelope } from '@shared/api/envelope'
import {
  BRIDGE_OPERATIONS,
  type Bridge,
  type BridgeOutcome,
  type BridgeTransport,
} from '@shared/bridge'
import { ApiCallError } from './api-error'
import { downloadTextFile } from './download'
import { uploadPickedCredentialList } from './credential-upload'
import { API_ERRORS } from '@shared/api/error-codes'

/** The bridge's routes of the headless shell, each answering the operation's result in the envelope. */
async function overHttp(operation: string, input: unknown): Promise<BridgeOutcome<unknown>> {
  const response = await fetch(`/workbench/v1/bridge/${operation}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input ?? {}),
  })
  const envelope = (await response.json()) as Envelope<unknown>
  if (envelope.success) return { ok: true, result: envelope.result }
  const errors = envelope.errors.map((error) =>
    error.code === API_ERRORS.missingCredentials
      ? {
          ...error,
          message:
            'This page has no session with the workbench: open the UI address the workbench printed when it started (it ends in ?session=…).',
        }
      : error,
  )
  return { ok: false, status: response.status, errors }
}

/** The bridge over a shell's transport: a refused call throws ApiCallError. */
export function bridgeOver(transport: BridgeTransport): Bridge {
  return Object.fromEntries(
    BRIDGE_OPERATIONS.map((operation) => [
      operation,
      async (input: unknown) => {
        const call = transport[operation] as (input: unknown) => Promise<BridgeOutcome<unknown>>
        const outcome = await call(input)
        if (!outcome.ok) throw new ApiCallError(outcome.status, outcome.errors)
        return outcome.result
      },
    ]),
  ) as unknown as Bridge
}

function httpBridge(): Bridge {
  const transport = Object.fromEntries(
    BRIDGE_OPERATIONS.map((operation) => [
      operation,
      (input: unknown) => overHttp(operation, input),
    ]),
  ) as unknown as BridgeTransport
  return {
    ...bridgeOver(transport),
    importCredentialList: uploadPickedCredentialList,
    saveFile: downloadTextFile,
  }
}

export const bridge: Bridge = window.workbench ? bridgeOver(window.workbench) : httpBridge()
