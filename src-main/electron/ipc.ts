// The bridge over Electron IPC: one `ipcMain.handle` per operation of the shared contract. Each
// call checks that it comes from our own window's main frame (security checklist item 17) before
// the input is validated and the operation runs. Errors travel as data, because Electron forwards
// only the message of an error thrown from a handler.

import { ipcMain, type IpcMainInvokeEvent } from 'electron'
import { BRIDGE_OPERATIONS, type Bridge, type BridgeOutcome } from '@shared/bridge'
import { answerBridgeCall } from '../bridge'
import { API_ERRORS } from '@shared/api/error-codes'

export const ipcChannel = (operation: string) => `bridge:${operation}`

export function registerBridgeIpc(
  bridge: Bridge,
  isOwnFrame: (event: IpcMainInvokeEvent) => boolean,
) {
  for (const operation of BRIDGE_OPERATIONS) {
    ipcMain.handle(
      ipcChannel(operation),
      async (event, input: unknown): Promise<BridgeOutcome<unknown>> => {
        if (!isOwnFrame(event)) {
          return {
            ok: false,
            status: 403,
            errors: [{ code: API_ERRORS.authenticationError, message: 'Unknown sender' }],
          }
        }
        return answerBridgeCall(bridge, operation, input)
      },
    )
  }
}
