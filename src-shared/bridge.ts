// The bridge: what only the shell can do for the renderer, declared once: where the service
// listens, the object inspector, the files the user picks or saves, and `callApi`, which carries
// every other request to the API (docs/architecture.md#the-bridge-src-sharedbridgets). The
// Electron preload, the main process's IPC handlers and the headless shell's HTTP adapter all
// implement the one `Bridge` type derived below, and each registers exactly the operations of
// `BRIDGE_INPUTS`, so they cannot drift. Every operation takes one JSON argument, validated in
// main against its schema here: the renderer is untrusted.

import { Type, type Static, type TSchema } from 'typebox'
import { CREDENTIAL_KINDS, type CredentialImport } from './api/credentials'
import type { ApiMessage, Envelope } from './api/envelope'
import { REPLAY_JOB_KINDS, type ReplayJob } from './api/simulate'

export interface ServiceInfo {
  /** e.g. http://127.0.0.1:8787/client/v4 */
  apiBaseUrl: string
  apiToken: string
  /** the global-key form of the credentials: X-Auth-Email + X-Auth-Key */
  apiEmail: string
  apiKey: string
  dataDir: string
  shell: 'electron' | 'headless'
  version: string
}

export const OBJECT_NAMESPACES = ['account', 'zone'] as const
export type ObjectNamespaceName = (typeof OBJECT_NAMESPACES)[number]

export interface ObjectSummary {
  namespace: ObjectNamespaceName
  /** 64 hex digits */
  objectId: string
  label: string
  sizeBytes: number
}

export interface ObjectDetails {
  /** milliseconds since the epoch, or null when no alarm is set */
  alarm: number | null
  tables: { name: string; rows: number }[]
}

export interface ObjectKeyEntry {
  key: string
  /** the value's type, e.g. "string", "Map" */
  type: string
  preview: string
}

export interface ObjectQueryResult {
  columns: string[]
  rows: unknown[][]
  /** more rows matched than were returned */
  truncated: boolean
}

/** What `callApi` answers: the HTTP status and the envelope, exactly as the API sent them. */
export interface ApiAnswer {
  status: number
  /** null for the API's empty answers (204) and for files (see `text`) */
  body: Envelope<unknown> | null
  /**
   * The answer's text when it is a file rather than an envelope (an attachment, or any type but
   * JSON: an export, an NDJSON stream), byte for byte as the API sent it.
   */
  text?: string
}

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/** Storage keys are at most 2,048 bytes. */
const KeyText = Type.String({ maxLength: 2048 })
const ObjectRef = Type.Object({
  namespace: Type.Enum(OBJECT_NAMESPACES),
  objectId: Type.String({ pattern: '^[0-9a-f]{64}$' }),
})

export const BRIDGE_INPUTS = {
  serviceInfo: Type.Object({}),
  listObjects: Type.Object({}),
  objectDetails: ObjectRef,
  objectKeys: Type.Object({
    ...ObjectRef.properties,
    prefix: Type.Optional(KeyText),
    startAfter: Type.Optional(KeyText),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  }),
  queryObject: Type.Object({
    ...ObjectRef.properties,
    query: Type.String({ minLength: 1, maxLength: 100_000 }),
  }),
  /**
   * One request to the loopback API (the vendor's routes or the workbench's own), through the very
   * handlers, validation and errors an SDK meets: the screens change a zone the way scripts do.
   */
  callApi: Type.Object({
    method: Type.Enum(API_METHODS),
    path: Type.String({ pattern: '^/(?:client/v4/|workbench/v1/(?!bridge/))' }),
    body: Type.Optional(Type.Unknown()),
  }),
  /**
   * Imports a leaked-credential list the user picks: the Electron shell opens its file dialog and
   * streams the file from the main process; the headless shell's page uploads the file it picked
   * (POST /workbench/v1/bridge/importCredentialList?kind=…&name=… with the content as the body).
   * The renderer never names a path.
   */
  importCredentialList: Type.Object({
    kind: Type.Enum(CREDENTIAL_KINDS),
    salt: Type.Optional(Type.String({ maxLength: 256 })),
  }),
  /**
   * Saves a text the user exported: the Electron shell opens its save dialog over the window,
   * proposing `suggestedName`, and writes the file the user chose from the main process; the
   * headless shell's page downloads it. The renderer never names a path, only a file name.
   */
  saveFile: Type.Object({
    suggestedName: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^/\\\\]+$' }),
    text: Type.String(),
  }),
  /**
   * Starts a replay (or the migration's compare) of a traffic file the user picks, run by the
   * service as a job: the Electron shell opens its file dialog and posts the chosen path as
   * `{"file": …}`, so the service streams the file from disk; the headless shell's page uploads
   * the file it picked instead. The renderer never names a path.
   */
  replayChosenFile: Type.Object({
    zoneId: Type.String({ minLength: 1, maxLength: 64 }),
    kind: Type.Enum(REPLAY_JOB_KINDS),
  }),
} satisfies Record<string, TSchema>

export interface BridgeOutputs {
  serviceInfo: ServiceInfo
  listObjects: ObjectSummary[]
  objectDetails: ObjectDetails
  objectKeys: ObjectKeyEntry[]
  queryObject: ObjectQueryResult
  callApi: ApiAnswer
  /** null when the user closed the file dialog without choosing */
  importCredentialList: CredentialImport | null
  /** the saved file's name, or null when the user closed the save dialog without choosing */
  saveFile: { name: string } | null
  /** the job started, or null when the user closed the file dialog without choosing */
  replayChosenFile: ReplayJob | null
}

export type BridgeOperation = keyof typeof BRIDGE_INPUTS & keyof BridgeOutputs
export type BridgeInput<K extends BridgeOperation> = Static<(typeof BRIDGE_INPUTS)[K]>
export type Bridge = {
  [K in BridgeOperation]: (input: BridgeInput<K>) => Promise<BridgeOutputs[K]>
}

/**
 * A bridge call's answer where it crosses a process (Electron's IPC, the headless shell's HTTP):
 * errors travel as data, with the API's codes and `source.pointer`s, since Electron forwards only
 * an error's message (https://www.electronjs.org/docs/latest/api/context-bridge#parameter--error--return-type-support).
 */
export type BridgeOutcome<T> =
  { ok: true; result: T } | { ok: false; status: number; errors: ApiMessage[] }

/** The bridge as the Electron preload exposes it to the renderer: each call answers its outcome. */
export type BridgeTransport = {
  [K in BridgeOperation]: (input: BridgeInput<K>) => Promise<BridgeOutcome<BridgeOutputs[K]>>
}

export const BRIDGE_OPERATIONS = Object.keys(BRIDGE_INPUTS) as BridgeOperation[]

export function isBridgeOperation(name: string): name is BridgeOperation {
  return Object.hasOwn(BRIDGE_INPUTS, name)
}
