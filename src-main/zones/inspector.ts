// The Objects screen's view into the stateful objects behind the workbench: which objects exist,
// their tables, keys and alarm, and read-only SQL. Everything goes through each object's runtime
// (ObjectNamespace.inspect), one event at a time, so a look never races a write. Reads see the
// whole database, hidden `_cf_` tables included: this is a power user's tool.

import { statSync } from 'node:fs'
import { inspect } from 'node:util'
import { badRequest } from '@shared/api/errors'
import type {
  ObjectDetails,
  ObjectKeyEntry,
  ObjectNamespaceName,
  ObjectQueryResult,
  ObjectSummary,
} from '@shared/bridge'
import type { ObjectNamespace } from '../objects'
import type { Storage } from '../storage'
import { ACCOUNT, type ZoneObjects } from './registry'

const MAX_QUERY_ROWS = 500

export class ObjectInspector {
  constructor(private readonly objects: ZoneObjects) {}

  private namespace(name: ObjectNamespaceName): ObjectNamespace<undefined, unknown> {
    return (name === 'account' ? this.objects.accounts : this.objects.zones) as ObjectNamespace<
      undefined,
      unknown
    >
  }

  private look<R>(
    name: ObjectNamespaceName,
    objectId: string,
    work: (storage: Storage) => R,
  ): Promise<Awaited<R>> {
    const namespace = this.namespace(name)
    if (!namespace.ids().some((id) => id.toString() === objectId)) {
      throw badRequest(1001, `No ${name} object has the id ${objectId}`)
    }
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

  /** Runs one read-only statement; anything that could write is refused before it runs. */
  query(name: ObjectNamespaceName, objectId: string, sql: string): Promise<ObjectQueryResult> {
    return this.look(name, objectId, (storage) => {
      let statement
      try {
        statement = storage.db.prepare(sql)
      } catch (error) {
        throw badRequest(
          1001,
          `SQL error: ${error instanceof Error ? error.message : String(error)}`,
        )
      }
      if (!statement.readonly)
        throw badRequest(1001, 'Only read-only SQL runs here: this statement could write.')
      if (!statement.reader) return { columns: [], rows: [], truncated: false }
      const columns = statement.columns().map((column) => column.name)
      const rows: unknown[][] = []
      let truncated = false
      for (const row of statement.raw(true).iterate() as Iterable<unknown[]>) {
        if (rows.length === MAX_QUERY_ROWS) {
          truncated = true
          break
        }
        rows.push(row.map(displayable))
      }
      return { columns, rows, truncated }
    })
  }
}

function describeType(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value !== 'object') return typeof value
  return value.constructor?.name ?? 'Object'
}

/** Cells travel as JSON: blobs become a byte count, big integers text. */
function displayable(cell: unknown): unknown {
  if (cell instanceof Uint8Array) return `<${cell.byteLength} bytes>`
  if (typeof cell === 'bigint') return cell.toString()
  return cell
}
