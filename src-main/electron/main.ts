// The Electron shell: one window over the same service the headless shell runs. It follows
// Electron's security checklist: context isolation, sandbox, no Node in the renderer, a strict
// CSP (in index.html), no navigation and no new windows, permissions denied, IPC sender checked.
// One instance per data dir: a second start focuses the first window and quits.

import { app, BrowserWindow, dialog, session, type IpcMainInvokeEvent } from 'electron'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  DEFAULT_API_PORT,
  ensureCredentials,
  openPreferences,
  storeCredentials,
} from '../preferences'
import { replayChosenFile } from '../bridge/replay-file'
import { createService, type Service } from '../service'
import { importChosenList } from './credential-import'
import { saveChosenFile } from './file-save'
import { registerBridgeIpc } from './ipc'
import { installApplicationMenu } from './menu'
import { chooseTrafficFile } from './traffic-file'

const rendererIndex = join(import.meta.dirname, '..', 'renderer', 'index.html')
const rendererUrl = pathToFileURL(rendererIndex).href

let service: Service | undefined
let window: BrowserWindow | undefined

function isOwnFrame(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame
  return (
    frame !== null &&
    frame.parent === null &&
    frame.url === rendererUrl &&
    event.sender === window?.webContents
  )
}

async function start(): Promise<void> {
  const preferences = openPreferences(app.getPath('userData'))
  const credentials = ensureCredentials(preferences)
  service = await createService({
    dataDir: app.getPath('userData'),
    api: {
      credentials,
      port: preferences.get('apiPort') ?? DEFAULT_API_PORT,
      keepCredentials: (rotated) => storeCredentials(preferences, rotated),
    },
    shell: 'electron',
  })
  for (const repair of service.repairs) console.log(`Repaired ${repair}`)
  await service.listen()
  registerBridgeIpc(
    {
      ...service.bridge,
      importCredentialList: importChosenList(() => window, service.credentials),
      saveFile: saveChosenFile(() => window),
      replayChosenFile: replayChosenFile(
        chooseTrafficFile(() => window),
        service.bridge.callApi,
      ),
    },
    isOwnFrame,
  )

  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) =>
    callback(false),
  )

  const bounds = preferences.get('windowBounds') ?? { width: 1280, height: 820 }
  window = new BrowserWindow({
    ...bounds,
    title: 'Zone Workbench',
    webPreferences: {
      preload: join(import.meta.dirname, '..', 'preload', 'index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
    },
  })
  window.webContents.on('will-navigate', (event, url) => {
    if (url !== rendererUrl) event.preventDefault()
  })
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }))
  // A screen with unsaved changes refuses to unload (beforeunload), which Electron obeys silently:
  // ask, and leave if told to. https://www.electronjs.org/docs/latest/api/web-contents#event-will-prevent-unload
  const frame = window
  frame.webContents.on('will-prevent-unload', (event) => {
    const answer = dialog.showMessageBoxSync(frame, {
      type: 'question',
      message: 'Leave without saving?',
      detail: 'This screen has changes that are not saved. Leaving discards them.',
      buttons: ['Discard changes', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
    })
    if (answer === 0) event.preventDefault()
  })
  window.on('close', () => preferences.set('windowBounds', window?.getBounds()))
  installApplicationMenu(() => window)
  await window.loadFile(rendererIndex)
}

function focusWindow(): void {
  if (!window) return
  if (window.isMinimized()) window.restore()
  window.focus()
}

// Electron holds the single-instance lock in the userData folder
// (https://github.com/electron/electron/pull/33559), so a data dir given in the environment becomes
// that folder: the lock is then per data dir, as a second instance on it would open its databases
// again. https://www.electronjs.org/docs/latest/api/app#apprequestsingleinstancelockadditionaldata
if (process.env.ZONE_WORKBENCH_DATA_DIR) {
  app.setPath('userData', process.env.ZONE_WORKBENCH_DATA_DIR)
}
if (!app.requestSingleInstanceLock()) {
  app.exit(0)
} else {
  app.on('second-instance', focusWindow)
  app.whenReady().then(start, (error: unknown) => {
    console.error(error)
    app.exit(1)
  })
  app.on('window-all-closed', () => app.quit())
  app.on('before-quit', () => void service?.close())
}
