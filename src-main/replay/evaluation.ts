// What a replay's worker does with a batch of requests, and what it answers: the zone compiled
// from its gathered configuration (the managed catalog read from resources/), each request run
// through it as the simulate API runs one, and a verdict per request. Pure but for the catalog's
// files and the credential database, so the worker (worker.ts) is only its message handling.
//
// A replay's ray ids are the log's own where it gives the vendor's (Logpush's RayID), else made
// from the input's line numbers, never from randomness: the same file gives the same verdicts on
// any number of threads and in any run.

import Database from 'better-sqlite3'
import { requestContext } from '@shared/expression'
import type { Outcome, SimulatedRequest, SimulationEvent, TraceNode } from '@shared/api/simulate'
import { compileZone, type CompiledZone, type CredentialLookup } from '../engine'
import { ManagedCatalog, readCatalogFiles } from '../zones/rulesets/catalog'
import { LEAK_QUERY, lookupLeak } from '../zones/credentials'
import { zoneConfigOf, type Gathered } from '../zones/simulator'
import type { ReplayFormat } from './formats/types'

/** What a worker is started with (sent once, as JSON-cloneable data). */
export interface ReplayWorkerSetup {
  /** the zone's configuration (Simulator.configuration) */
  configuration: Gathered
  /** the resources/ folder the managed catalog is read from */
  resourcesDir: string
}

/** One request of a batch. */
export interface ReplayItem {
  line: number
  request: SimulatedRequest
  /** when the request was made (ms since the epoch), where the log says */
  time?: number
  /** the vendor's id of the request, where the log gives it */
  rayId?: string
}

/** What the zone did to one request. */
export interface ReplayVerdict {
  line: number
  ray_id: string
  outcome: Outcome
  action: string | null
  events: SimulationEvent[]
  /**
   * whether some managed rules saw the request (CompiledZone.inDeploymentScope);
   * absent from the verdicts of a comparison, which the summary of a replay does not count
   */
  in_scope?: boolean
  /** only when the batch asked for it */
  trace?: TraceNode[]
}

export interface ReplayBatchOptions {
  /** the input's format, in which a batch's lines are read (batch.ts) */
  format: ReplayFormat
  /** the host of requests a log gives in origin form (combined logs carry none) */
  host?: string
  trace: boolean
  /** the time of requests whose log gives none (ms since the epoch): one per run */
  at: number
  /**
   * the run's credential database (a SQLite file, opened read-only by the worker); none: no
   * credentials are exposed
   */
  credentialsFile?: string
  /** the answer carries the verdicts' NDJSON lines and the requests' JSON lines (run.ts writes them) */
  lines?: { verdicts: boolean; requests: boolean }
  /** each judged request carries its whole request (the event log's record reads it) */
  requests?: boolean
}

/** The vendor's ray ids: 16 hex digits (docs/vendor-behaviour.md#logpush-http-requests-dataset). */
const VENDOR_RAY_ID = /^[0-9a-f]{16}$/i

/**
 * A verdict's ray id, for every format: the one the log recorded when it has the vendor's shape
 * (so a verdict can be looked up in the vendor's own logs and dashboard), else the input's line
 * as 16 hex digits.
 */
export const rayIdOf = (item: Pick<ReplayItem, 'line' | 'rayId'>): string =>
  item.rayId !== undefined && VENDOR_RAY_ID.test(item.rayId)
    ? item.rayId.toLowerCase()
    : item.line.toString(16).padStart(16, '0')

/** The zone compiled in a worker, the catalog read from `resourcesDir`. */
export function compileReplayZone(setup: ReplayWorkerSetup): CompiledZone {
  const catalog = new ManagedCatalog(readCatalogFiles(setup.resourcesDir))
  return compileZone(zoneConfigOf(setup.configuration, catalog))
}

/**
 * The credential database's lookup on a read-only connection to its file, answering as the
 * simulator's does (only whole pairs count as exposed). docs/decisions/0008-replay-workers-read-credentials.md
 */
export function openCredentialLookup(file: string | undefined): {
  lookup: CredentialLookup
  close(): void
} {
  if (file === undefined) return { lookup: () => undefined, close: () => undefined }
  const db = new Database(file, { readonly: true, fileMustExist: true })
  const salts = db
    .prepare<[], { salt: string }>('SELECT salt FROM salts')
    .all()
    .map((row) => row.salt)
  const query = db.prepare<[string, string], Record<string, unknown>>(LEAK_QUERY)
  return {
    lookup: (username, password) =>
      lookupLeak(salts, username, password, (pair, alone) => query.iterate(pair, alone)) === 'pair'
        ? 'pair'
        : undefined,
    close: () => db.close(),
  }
}

export function evaluateItems(
  zone: CompiledZone,
  items: readonly ReplayItem[],
  credentials: CredentialLookup,
  options: Pick<ReplayBatchOptions, 'trace' | 'at'>,
): ReplayVerdict[] {
  return items.map((item) => {
    const ctx = requestContext({ ...item.request, timestamp: item.time ?? options.at })
    const decision = zone.evaluate(ctx, { trace: options.trace, credentials })
    return {
      line: item.line,
      ray_id: rayIdOf(item),
      outcome: decision.outcome,
      action: decision.action,
      events: decision.events,
      in_scope: zone.inDeploymentScope(ctx),
      ...(options.trace ? { trace: decision.trace } : {}),
    }
  })
}
