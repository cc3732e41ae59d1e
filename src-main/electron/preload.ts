// The preload (sandboxed, bundled to one CommonJS file): exposes the bridge to the renderer as
// `window.workbench`, and the File menu's events as `window.workbenchMenu`, and nothing else.
// Each bridge method is one IPC call answering its outcome as data (the renderer turns a refusal
// into its error); no Electron object, IPC event or `ipcRenderer` reaches the page.

import { contextBridge, ipcRenderer } from 'electron'
import { BRIDGE_OPERATIONS, type BridgeTransport } from '@shared/bridge'
import { MENU_CHANNELS, type MenuImportFile, type ShellMenu } from '@shared/shell-menu'

const bridge = Object.fromEntries(
  BRIDGE_OPERATIONS.map((operation) => [
    operation,
    (input: unknown) => ipcRenderer.invoke(`bridge:${operation}`, input),
  ]),
) as unknown as BridgeTransport

contextBridge.exposeInMainWorld('workbench', bridge)

const menu: ShellMenu = {
  onImport: (listener) => {
    ipcRenderer.on(MENU_CHANNELS.import, (_event, file: MenuImportFile) => listener(file))
  },
  onNavigate: (listener) => {
    ipcRenderer.on(MENU_CHANNELS.navigate, (_event, screen: string) => listener(screen))
  },
}

contextBridge.exposeInMainWorld('workbenchMenu', menu)
