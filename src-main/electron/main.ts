// The Electron shell: one window over the same service the headless shell runs. It follows
// Electron's security checklist: context isolation, sandbox, no Node in the renderer, a strict
// CSP (in index.html), no navigation and no new windows, permissions denied, IPC sender checked.

import { app, BrowserWindow, session, type IpcMainInvokeEvent } from 'electron'
import Store from 'electron-store'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  DEFAULT_API_PORT,
  SECRET_FILE_MODE,
  ensureCredentials,
  protectPreferencesFile,
  storeCredentials,
  type Preferences,
} from '../preferences'
import { createService, type Service } from '../service'
import { importChosenList } from './credential-import'
import { registerBridgeIpc } from './ipc'

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
  const preferences = new Store<Preferences>({
    name: 'preferences',
    configFileMode: SECRET_FILE_MODE,
  })
  protectPreferencesFile(preferences.path)
  const credentials = ensureCredentials(preferences)
  service = await createService({
    dataDir: process.env.ZONE_WORKBENCH_DATA_DIR ?? app.getPath('userData'),
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
  window.on('close', () => preferences.set('windowBounds', window?.getBounds()))
  await window.loadFile(rendererIndex)
}

app.whenReady().then(start, (error: unknown) => {
  console.error(error)
  app.exit(1)
})
app.on('window-all-closed', () => app.quit())
app.on('before-quit', () => void service?.close())
