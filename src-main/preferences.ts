// Preferences: small settings that belong to the user, not to a zone (window bounds, API port,
// credentials, theme). Both shells keep them with `conf`, in `preferences.json` in their data dir
// (the file electron-store, which is built on conf, kept for the Electron shell: the renderer
// never reads preferences, so electron-store's IPC adds nothing). Zone data never lives here. The
// file holds the API's secrets, so it is its owner's alone (0600).

import Conf from 'conf'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync } from 'node:fs'
import type { Credentials } from './api/auth'

export interface Preferences {
  apiToken: string
  apiEmail: string
  apiKey: string
  /** the port the API listens on; 0 picks a free port each start */
  apiPort: number
  windowBounds?: { x?: number; y?: number; width: number; height: number }
}

/** What the credentials need of the store. */
export interface PreferenceStore {
  get<K extends keyof Preferences>(key: K): Preferences[K] | undefined
  set<K extends keyof Preferences>(key: K, value: Preferences[K]): void
}

export const DEFAULT_API_PORT = 8787

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A token shaped like the vendor's: 40 characters from [A-Za-z0-9]. */
export function generateApiToken(): string {
  return [...randomBytes(40)].map((byte) => BASE62[byte % BASE62.length]).join('')
}

/** The mode of every file that holds a secret: read and written by its owner only. */
export const SECRET_FILE_MODE = 0o600

/**
 * The preferences kept in `dataDir`, their file made private: the store applies its mode only to
 * files it creates, and data dirs from before this rule hold world-readable ones.
 */
export function openPreferences(dataDir: string): Conf<Preferences> {
  const preferences = new Conf<Preferences>({
    cwd: dataDir,
    configName: 'preferences',
    projectName: 'zone-workbench',
    configFileMode: SECRET_FILE_MODE,
  })
  if (existsSync(preferences.path)) chmodSync(preferences.path, SECRET_FILE_MODE)
  return preferences
}

/** The vendor's global keys are 37 lowercase hex characters. */
export function generateApiKey(): string {
  return randomBytes(19).toString('hex').slice(0, 37)
}

/** Keeps rotated credentials in `store`, for the next start. */
export function storeCredentials(store: PreferenceStore, credentials: Credentials): void {
  store.set('apiToken', credentials.apiToken)
  store.set('apiKey', credentials.apiKey)
}

/**
 * The credentials the API accepts, generated on first run and kept in preferences. A token given
 * on the command line wins for that run and is kept, so scripts can rely on it.
 */
export function ensureCredentials(store: PreferenceStore, tokenOverride?: string): Credentials {
  if (tokenOverride !== undefined) {
    if (!/^[A-Za-z0-9_-]{8,}$/.test(tokenOverride)) {
      throw new Error('An API token must be at least 8 characters of A-Z, a-z, 0-9, _ or -')
    }
    store.set('apiToken', tokenOverride)
  }
  if (store.get('apiToken') === undefined) store.set('apiToken', generateApiToken())
  if (store.get('apiEmail') === undefined) store.set('apiEmail', 'user@zone-workbench.local')
  if (store.get('apiKey') === undefined) store.set('apiKey', generateApiKey())
  return {
    apiToken: store.get('apiToken') as string,
    email: store.get('apiEmail') as string,
    apiKey: store.get('apiKey') as string,
  }
}
