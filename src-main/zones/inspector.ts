// The Objects screen's view into the stateful objects behind the workbench: which objects exist,
// their tables, keys and alarm, and read-only SQL. Everything goes through each object's runtime
// (ObjectNamespace.inspect), one event at a time, so a look never races a write. Reads see the
// whole database, hidden `_cf_` tables included: this is a power user's tool.
//
// SQL never runs on the object's own connection, where a PRAGMA could change its settings (one
// broke a zone's history) and a long query would hold the service. The object's database is
// copied (serialize(), one event, so the copy is consistent) and the query runs on that copy in a
// process of its own, within a budget (inspector-process.ts). A copy because the object's
// connection holds its file in locking_mode EXCLUSIVE: no second connection can read it.

import { statSync } from 'node:fs'
import { inspect } from 'node:util'
import { ApiError, badRequest } from '@shared/api/errors'
import type {
  ObjectDetails,
  ObjectKeyEntry,
  ObjectNamespaceName,
  ObjectQueryResult,
  ObjectSummary,
} from '@shared/bridge'
import type { ObjectNamespace } from '../objects'
import type { Storage } from '../storage'
import { runQuery, type QueryBudget } from './inspector-process'
import { readOnlyStatement } from './inspector-sql'
import { ACCOUNT, type ZoneObjects } from './registry'
import { API_ERRORS } from '@shared/api/error-codes'

const QUERY_BUDGET: QueryBudget = {
  timeMs: 5_000,
  rows: 500,
  answerBytes: 4 * 1024 * 1024,
  cellCharacters: 10_000,
}
/**
 * Queries run one at a time, each taking at most a core for its budget, so the service keeps the
 * other; this many more may wait their turn.
 */
const MAX_WAITING_QUERIES = 4

export class ObjectInspector {
  /** Settles when the last query queued has finished, whatever its outcome. */
  private lastQuery: Promise<unknown> = Promise.resolve()
  private queriesWaiting = 0

  constructor(private readonly objects: ZoneObjects) {}

  private namespace(name: ObjectNamespaceName): ObjectNamespace<undefined, unknown> {
    return (name === 'account' ? this.objects.accounts : this.objects.zones) as ObjectNamespace<
      undefined,
      unknown
    >
  }

  private checkObject(name: ObjectNamespaceName, objectId: string): void {
    const known = this.namespace(name)
      .ids()
      .some((id) => id.toString() === objectId)
    if (!known)
      throw badRequest(API_ERRORS.invalidRequest, `No ${name} object has the id ${objectId}`)
  }

  private look<R>(
    name: ObjectNamespaceName,
    objectId: string,
    work: (storage: Storage) => R,
  ): Promise<Awaited<R>> {
    this.checkObject(name, objectId)
    const namespace = this.namespace(name)
    return namespace.inspect(namespace.idFromString(objectId), work)
  }

  /** Every object, labelled: the account, and each zone by its name. */
  async list(): Promise<ObjectSummary[]> {
    const accountId = this.objects.accounts.idFromName(ACCOUNT.id)
    const zones = await this.objects.accounts.call(accountId, (account) => account.entries())
    const labels = new Map<string, string>()
    for (const zone of zones)
      labels.set(this.objects.zones.idFromName(zone.id).toString(), zone.name)
    const summaries: ObjectSummary[] = []
    for (const name of ['account', 'zone'] as const) {
      for (const id of this.namespace(name).ids()) {
        const objectId = id.toString()
        const file = this.namespace(name).fileOf(id)
        summaries.push({
          namespace: name,
          objectId,
          label: name === 'account' ? 'Account' : `Zone ${labels.get(objectId) ?? '(deleted)'}`,
          sizeBytes: statSync(file).size,
        })
      }
    }
    return summaries
  }

  details(name: ObjectNamespaceName, objectId: string): Promise<ObjectDetails> {
    return this.look(name, objectId, async (storage) => {
      const tables = storage.db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all() as string[]
      return {
        alarm: await storage.getAlarm(),
        tables: tables.map((table) => ({
          name: table,
          rows: Number(
            storage.db
              .prepare(`SELECT count(*) FROM "${table.replaceAll('"', '""')}"`)
              .pluck()
              .get(),
          ),
        })),
      }
    })
  }

  keys(
    name: ObjectNamespaceName,
    objectId: string,
    options: { prefix?: string; startAfter?: string; limit: number },
  ): Promise<ObjectKeyEntry[]> {
    return this.look(name, objectId, async (storage) => {
      const entries = await storage.list({
        prefix: options.prefix,
        startAfter: options.startAfter,
        limit: options.limit,
      })
      return [...entries].map(([key, value]) => ({
        key,
        type: describeType(value),
        preview: inspect(value, {
          depth: 4,
          breakLength: Infinity,
          maxStringLength: 300,
          maxArrayLength: 50,
        }),
      }))
    })
  }

  /**
   * Runs one read-only statement on a copy of the object's database; anything else is refused
   * before it runs (inspector-sql.ts).
   */
  async query(
    name: ObjectNamespaceName,
    objectId: string,
    sql: string,
  ): Promise<ObjectQueryResult> {
    const statement = readOnlyStatement(sql)
    this.checkObject(name, objectId)
    if (this.queriesWaiting === MAX_WAITING_QUERIES) {
      // The vendor's answer to too many requests: status 429
      // (https://developers.cloudflare.com/support/troubleshooting/http-status-codes/4xx-client-error/error-429/)
      // with code 971 and this message (https://github.com/cloudflare/workers-sdk/issues/10025).
      throw new ApiError(
        429,
        API_ERRORS.tooManyRequests,
        `Please wait and consider throttling your request speed: ${MAX_WAITING_QUERIES} inspector queries are waiting to run.`,
      )
    }
    this.queriesWaiting++
    const query = this.lastQuery.then(async () => {
      this.queriesWaiting--
      const image = await this.look(name, objectId, imageOf)
      return runQuery(image, statement, QUERY_BUDGET)
    })
    this.lastQuery = query.catch(() => undefined)
    return query
  }
}

/**
 * The database as the object's connection sees it, as one buffer. Its header still says WAL
 * (bytes 18 and 19 are 2), which an in-memory database cannot open; 1 is the rollback journal
 * (https://sqlite.org/fileformat2.html#file_format_version_numbers).
 */
export function imageOf(storage: Storage): Buffer {
  const image = storage.db.serialize()
  image[18] = 1
  image[19] = 1
  return image
}

function describeType(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value !== 'object') return typeof value
  return value.constructor?.name ?? 'Object'
}
