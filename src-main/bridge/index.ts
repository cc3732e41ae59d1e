// The handlers behind the bridge: what only the shell can do for the renderer, and `callApi` for
// everything else. Whichever shell carries a call (Electron IPC or the headless shell's HTTP), it
// ends in `invokeBridge`, which validates the untrusted input against the operation's schema
// before anything runs.

import { Value } from 'typebox/value'
import { ApiError, badRequest } from '@shared/api/errors'
import {
  BRIDGE_INPUTS,
  isBridgeOperation,
  type ApiAnswer,
  type Bridge,
  type BridgeInput,
  type BridgeOutcome,
  type ServiceInfo,
} from '@shared/bridge'
import type { ObjectInspector } from '../zones/inspector'
import { API_ERRORS } from '@shared/api/error-codes'

export interface BridgeDependencies {
  inspector: ObjectInspector
  serviceInfo: () => ServiceInfo
  /** Runs one request through the loopback API's own handlers, with the service's credentials. */
  callApi: (request: BridgeInput<'callApi'>) => Promise<ApiAnswer>
}

export function createBridge({ inspector, serviceInfo, callApi }: BridgeDependencies): Bridge {
  return {
    serviceInfo: async () => serviceInfo(),
    listObjects: async () => inspector.list(),
    objectDetails: async ({ namespace, objectId }) => inspector.details(namespace, objectId),
    objectKeys: async ({ namespace, objectId, prefix, startAfter, limit = 100 }) =>
      inspector.keys(namespace, objectId, { prefix, startAfter, limit }),
    queryObject: async ({ namespace, objectId, query }) =>
      inspector.query(namespace, objectId, query),
    callApi,
    importCredentialList: async () => {
      throw badRequest(
        API_ERRORS.invalidRequest,
        'This shell has no file dialog: upload the list to POST /workbench/v1/bridge/importCredentialList?kind=…&name=… with its content as the body',
      )
    },
    saveFile: async () => {
      throw badRequest(
        API_ERRORS.invalidRequest,
        'This shell has no save dialog: export the file from GET /workbench/v1/zones/{id}/export',
      )
    },
    replayChosenFile: async () => {
      throw badRequest(
        API_ERRORS.invalidRequest,
        'This shell has no file dialog: upload the traffic to POST /workbench/v1/zones/{id}/replays (or …/waf_migration/compares) as the body, or post {"file": "/abs/path"}',
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
    throw new ApiError(
      404,
      API_ERRORS.couldNotRoute,
      `Unknown workbench operation ${JSON.stringify(operation)}`,
    )
  }
  const schema = BRIDGE_INPUTS[operation]
  const argument = input ?? {}
  if (!Value.Check(schema, argument)) {
    const [first] = Value.Errors(schema, argument)
    const where = first?.instancePath ? ` at ${first.instancePath}` : ''
    throw badRequest(
      API_ERRORS.invalidRequest,
      `Invalid input for ${operation}${where}: ${first?.message ?? 'invalid'}`,
    )
  }
  const handler = bridge[operation] as (input: unknown) => Promise<unknown>
  return handler(argument)
}

/**
 * Runs one bridge call for a caller in another process (the Electron renderer): a refusal
 * answers as data with the API's messages, any other failure as the API's 500, logged here.
 */
export async function answerBridgeCall(
  bridge: Bridge,
  operation: string,
  input: unknown,
): Promise<BridgeOutcome<unknown>> {
  try {
    return { ok: true, result: await invokeBridge(bridge, operation, input) }
  } catch (error) {
    if (error instanceof ApiError) {
      return { ok: false, status: error.status, errors: error.toMessages() }
    }
    console.error(`bridge ${operation}:`, error)
    return {
      ok: false,
      status: 500,
      errors: [{ code: API_ERRORS.internalError, message: 'Internal error; see the log' }],
    }
  }
}
