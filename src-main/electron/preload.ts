// The preload (sandboxed, bundled to one CommonJS file): exposes the bridge, and nothing else, to
// the renderer as `window.workbench`. Each method is one IPC call; no Electron object and no
// `ipcRenderer` reaches the page.

import { contextBridge, ipcRenderer } from 'electron'
import { BRIDGE_OPERATIONS, type Bridge } from '@shared/bridge'
import type { IpcOutcome } from './ipc'

const bridge = Object.fromEntries(
  BRIDGE_OPERATIONS.map((operation) => [
    operation,
    async (input: unknown) => {
      const outcome = (await ipcRenderer.invoke(`bridge:${operation}`, input)) as IpcOutcome
      if (!outcome.ok) throw new Error(outcome.error.message)
      return outcome.result
    },
  ]),
) as unknown as Bridge

contextBridge.exposeInMainWorld('workbench', bridge)
