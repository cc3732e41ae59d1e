// The handlers behind the bridge: the same operations the API offers, for the renderer. Whichever
// shell carries a call (Electron IPC or the headless shell's HTTP), it ends in `invokeBridge`,
// which validates the untrusted input against the operation's schema before anything runs.

import { Value } from 'typebox/value'
import { ApiError, badRequest } from '@shared/api/errors'
import {
  BRIDGE_INPUTS,
  isBridgeOperation,
  type ApiAnswer,
  type Bridge,
  type BridgeInput,
  type ServiceInfo,
} from '@shared/bridge'
import type { ObjectInspector } from '../zones/inspector'
import type { ZoneRegistry } from '../zones/registry'

export interface BridgeDependencies {
  zones: ZoneRegistry
  inspector: ObjectInspector
  serviceInfo: () => ServiceInfo
  /** Runs one request through the loopback API's own handlers, with the service's credentials. */
  callApi: (request: BridgeInput<'callApi'>) => Promise<ApiAnswer>
}

export function createBridge({
  zones,
  inspector,
  serviceInfo,
  callApi,
}: BridgeDependencies): Bridge {
  return {
    serviceInfo: async () => serviceInfo(),
    listZones: async ({ name, page = 1, perPage = 50 }) => zones.list({ name, page, perPage }),
    createZone: async (input) => zones.create(input),
    renameZone: async ({ zoneId, name }) => zones.rename(zoneId, name),
    setZonePlan: async ({ zoneId, plan }) => zones.edit(zoneId, { plan }),
    deleteZone: async ({ zoneId }) => zones.delete(zoneId),
    zoneHistory: async ({ zoneId, limit, before }) => zones.history(zoneId, { limit, before }),
    listObjects: async () => inspector.list(),
    objectDetails: async ({ namespace, objectId }) => inspector.details(namespace, objectId),
    objectKeys: async ({ namespace, objectId, prefix, startAfter, limit = 100 }) =>
      inspector.keys(namespace, objectId, { prefix, startAfter, limit }),
    queryObject: async ({ namespace, objectId, query }) =>
      inspector.query(namespace, objectId, query),
    restoreZone: async ({ zoneId, bookmark }) => {
      const { restored, undo } = await zones.restore(zoneId, bookmark)
      return { restored, undoBookmark: undo }
    },
    callApi,
    importCredentialList: async () => {
      throw badRequest(
        1001,
        'This shell has no file dialog: upload the list to POST /workbench/v1/bridge/importCredentialList?kind=…&name=… with its content as the body',
      )
    },
    saveFile: async () => {
      throw badRequest(
        1001,
        'This shell has no save dialog: export the file from GET /workbench/v1/zones/{id}/export',
      )
    },
  }
}

/** Runs one bridge call from an untrusted caller: unknown operations and bad input are 400s. */
export async function invokeBridge(
  bridge: Bridge,
  operation: string,
  input: unknown,
): Promise<unknown> {
  if (!isBridgeOperation(operation)) {
    throw new ApiError(404, 7003, `Unknown workbench operation ${JSON.stringify(operation)}`)
  }
  const schema = BRIDGE_INPUTS[operation]
  const argument = input ?? {}
  if (!Value.Check(schema, argument)) {
    const [first] = Value.Errors(schema, argument)
    const where = first?.instancePath ? ` at ${first.instancePath}` : ''
    throw badRequest(1001, `Invalid input for ${operation}${where}: ${first?.message ?? 'invalid'}`)
  }
  const handler = bridge[operation] as (input: unknown) => Promise<unknown>
  return handler(argument)
}
