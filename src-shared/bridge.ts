// The bridge: everything the renderer may ask of the service, declared once. The Electron preload,
// the main process's IPC handlers and the headless shell's HTTP adapter all implement the one
// `Bridge` type derived below, and each registers exactly the operations of `BRIDGE_INPUTS`, so
// they cannot drift. Every operation takes one JSON argument, validated in main against its
// schema here: the renderer is untrusted.

import { Type, type Static, type TSchema } from 'typebox'
import { ZONE_PLANS, ZoneCreateBody, type Zone } from './api/zones'

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

export interface HistoryEntry {
  bookmark: string
  /** ISO 8601 */
  time: string
  note: string | null
}

export interface ZonePage {
  zones: Zone[]
  total: number
}

const ZoneId = Type.String({ pattern: '^[0-9a-f]{32}$' })

export const BRIDGE_INPUTS = {
  serviceInfo: Type.Object({}),
  listZones: Type.Object({
    name: Type.Optional(Type.String()),
    page: Type.Optional(Type.Integer({ minimum: 1 })),
    perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  }),
  createZone: ZoneCreateBody,
  renameZone: Type.Object({ zoneId: ZoneId, name: Type.String({ minLength: 1 }) }),
  setZonePlan: Type.Object({ zoneId: ZoneId, plan: Type.Enum(ZONE_PLANS) }),
  deleteZone: Type.Object({ zoneId: ZoneId }),
  zoneHistory: Type.Object({
    zoneId: ZoneId,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    before: Type.Optional(Type.String()),
  }),
  restoreZone: Type.Object({ zoneId: ZoneId, bookmark: Type.String({ minLength: 1 }) }),
} satisfies Record<string, TSchema>

export interface BridgeOutputs {
  serviceInfo: ServiceInfo
  listZones: ZonePage
  createZone: Zone
  renameZone: Zone
  setZonePlan: Zone
  deleteZone: { id: string }
  zoneHistory: HistoryEntry[]
  restoreZone: { restored: string; undoBookmark: string }
}

export type BridgeOperation = keyof typeof BRIDGE_INPUTS & keyof BridgeOutputs
export type BridgeInput<K extends BridgeOperation> = Static<(typeof BRIDGE_INPUTS)[K]>
export type Bridge = {
  [K in BridgeOperation]: (input: BridgeInput<K>) => Promise<BridgeOutputs[K]>
}

export const BRIDGE_OPERATIONS = Object.keys(BRIDGE_INPUTS) as BridgeOperation[]

export function isBridgeOperation(name: string): name is BridgeOperation {
  return Object.hasOwn(BRIDGE_INPUTS, name)
}
