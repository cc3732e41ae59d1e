// The bridge over Electron IPC: one `ipcMain.handle` per operation of the shared contract. Each
// call checks that it comes from our own window's main frame (security checklist item 17) before
// the input is validated and the operation runs. Errors travel as data, because Electron forwards
// only the message of an error thrown from a handler.

import { ipcMain, type IpcMainInvokeEvent } from 'electron'
import { ApiError } from '@shared/api/errors'
import { BRIDGE_OPERATIONS, type Bridge } from '@shared/bridge'
import { invokeBridge } from '../bridge'

export type IpcOutcome =
  | { ok: true; result: unknown }
  | { ok: false; error: { status: number; code: number; message: string } }

export const ipcChannel = (operation: string) => `bridge:${operation}`

export function registerBridgeIpc(
  bridge: Bridge,
  isOwnFrame: (event: IpcMainInvokeEvent) => boolean,
) {
  for (const operation of BRIDGE_OPERATIONS) {
    ipcMain.handle(ipcChannel(operation), async (event, input: unknown): Promise<IpcOutcome> => {
      if (!isOwnFrame(event)) {
        return { ok: false, error: { status: 403, code: 10000, message: 'Unknown sender' } }
      }
      try {
        return { ok: true, result: await invokeBridge(bridge, operation, input) }
      } catch (error) {
        if (error instanceof ApiError) {
          return {
            ok: false,
            error: { status: error.status, code: error.code, message: error.message },
          }
        }
        console.error(`bridge ${operation}:`, error)
        return {
          ok: false,
          error: { status: 500, code: 10001, message: 'Internal error; see the log' },
        }
      }
    })
  }
}
