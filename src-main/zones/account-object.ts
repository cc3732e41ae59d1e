// The account as a stateful object: the index of the zones it holds (id and name). A zone's own
// settings live in the zone's object; the index exists so that names stay unique across zones
// and lists need not open every zone. A row may carry the intent of a change that spans the
// index and the zone's object (`pending`: create, delete or restore): the registry writes it
// before touching the zone and clears it after, so that a start after a kill finishes or undoes
// the change (registry.ts, `recover`). A zone being created or deleted holds its name but is not
// listed and cannot be reached.

import { nameMatches, type NameSearch } from '@shared/api/zones'
import type { ObjectContext } from '../objects'
import type { ManagedRuleset } from './rulesets/catalog'
import { RULESET_SCHEMA, RULESET_SCHEMA_V2, RulesetStore } from './rulesets/store'
import { ConfiguredObject, migrateSchema } from './configured-object'

const SCHEMA: readonly string[] = [
  `CREATE TABLE zones (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_on TEXT NOT NULL)`,
  `CREATE TABLE managed_rulesets (
     id TEXT NOT NULL, version TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (id, version))`,
  ...RULESET_SCHEMA,
  ...RULESET_SCHEMA_V2,
  `ALTER TABLE zones ADD COLUMN pending TEXT`,
  `ALTER TABLE zones ADD COLUMN pending_detail TEXT`,
]

/** A change that spans the index and a zone's object, written before it starts. */
export type PendingChange =
  | { kind: 'create' }
  | { kind: 'delete' }
  | { kind: 'restore'; bookmark: string; undo: string; migratingBefore: boolean }

/** The rows a zone's routes and lists see: not those of zones being created or deleted. */
const REACHABLE = `(pending IS NULL OR pending = 'restore')`

export interface ZoneIndexEntry {
  id: string
  name: string
}

export interface IndexRow extends ZoneIndexEntry {
  pending: PendingChange | null
}

export class AccountObject extends ConfiguredObject {
  /** The account's own rulesets (its `root` entry points and custom rulesets). */
  readonly rulesets: RulesetStore

  constructor(ctx: ObjectContext) {
    super(ctx)
    migrateSchema(ctx, SCHEMA)
    this.rulesets = new RulesetStore(ctx)
  }

  /**
   * Installs the catalog versions the account does not have yet (older versions stay, for the
   * deployments pinned to them) and answers every version installed.
   */
  installManagedRulesets(rulesets: readonly ManagedRuleset[]): ManagedRuleset[] {
    const sql = this.ctx.storage.sql
    const missing = rulesets.filter(
      (r) =>
        sql
          .exec('SELECT 1 FROM managed_rulesets WHERE id = ? AND version = ?', r.id, r.version)
          .toArray().length === 0,
    )
    if (missing.length > 0) {
      this.describe(
        `Managed rulesets installed: ${missing.map((r) => `${r.name} version ${r.version}`).join(', ')}`,
      )
      for (const r of missing) {
        sql.exec(
          'INSERT INTO managed_rulesets VALUES (?, ?, ?)',
          r.id,
          r.version,
          JSON.stringify(r),
        )
      }
    }
    return sql
      .exec('SELECT body FROM managed_rulesets')
      .toArray()
      .map((row) => JSON.parse(String(row.body)) as ManagedRuleset)
  }

  /**
   * A page of the reachable zones by name (`descending` or not), only those `name` looks for when
   * given. A search reads every reachable name and matches it here, since its operators (parts of
   * a name, with or without case) are not SQL's; the whole list pages in SQL.
   */
  list(query: { name?: NameSearch; descending?: boolean; offset: number; limit: number }): {
    ids: string[]
    total: number
  } {
    const sql = this.ctx.storage.sql
    const order = `ORDER BY name ${query.descending === true ? 'DESC' : 'ASC'}`
    const search = query.name
    if (search !== undefined) {
      const found = sql
        .exec(`SELECT id, name FROM zones WHERE ${REACHABLE} ${order}`)
        .toArray()
        .filter((row) => nameMatches(search, String(row.name)))
      return {
        ids: found.slice(query.offset, query.offset + query.limit).map((row) => String(row.id)),
        total: found.length,
      }
    }
    const total = Number(sql.exec(`SELECT count(*) AS n FROM zones WHERE ${REACHABLE}`).one().n)
    const ids = sql
      .exec(
        `SELECT id FROM zones WHERE ${REACHABLE} ${order} LIMIT ? OFFSET ?`,
        query.limit,
        query.offset,
      )
      .toArray()
      .map((row) => String(row.id))
    return { ids, total }
  }

  /** Every row of the index with its pending change, if any. */
  rows(): IndexRow[] {
    return this.ctx.storage.sql
      .exec('SELECT id, name, pending, pending_detail FROM zones ORDER BY name')
      .toArray()
      .map((row) => ({
        id: String(row.id),
        name: String(row.name),
        pending:
          row.pending === null
            ? null
            : ({
                kind: row.pending,
                ...(row.pending_detail === null ? {} : JSON.parse(String(row.pending_detail))),
              } as PendingChange),
      }))
  }

  /** Every zone of the index, by name. */
  entries(): ZoneIndexEntry[] {
    return this.ctx.storage.sql
      .exec('SELECT id, name FROM zones ORDER BY name')
      .toArray()
      .map((row) => ({ id: String(row.id), name: String(row.name) }))
  }

  /** Whether `id` names a zone that routes reach (not one being created or deleted). */
  has(id: string): boolean {
    return (
      this.ctx.storage.sql.exec(`SELECT 1 FROM zones WHERE id = ? AND ${REACHABLE}`, id).toArray()
        .length > 0
    )
  }

  /** Whether the index holds a row for `id`, whatever its state. */
  holds(id: string): boolean {
    return this.ctx.storage.sql.exec('SELECT 1 FROM zones WHERE id = ?', id).toArray().length > 0
  }

  /** The zone holding `name`, if any. */
  holderOf(name: string): string | undefined {
    const row = this.ctx.storage.sql.exec('SELECT id FROM zones WHERE name = ?', name).toArray()[0]
    return row === undefined ? undefined : String(row.id)
  }

  /** Adds a zone being created: it holds its name from now on, and is listed once settled. */
  addPending(entry: ZoneIndexEntry & { created_on: string }): void {
    this.ctx.storage.sql.exec(
      "INSERT INTO zones (id, name, created_on, pending) VALUES (?, ?, ?, 'create')",
      entry.id,
      entry.name,
      entry.created_on,
    )
  }

  /** Records the change about to span the index and the zone's object. */
  markPending(id: string, change: PendingChange): void {
    const { kind, ...detail } = change
    this.ctx.storage.sql.exec(
      'UPDATE zones SET pending = ?, pending_detail = ? WHERE id = ?',
      kind,
      Object.keys(detail).length === 0 ? null : JSON.stringify(detail),
      id,
    )
  }

  /** The change on `id` is complete. */
  settle(id: string): void {
    this.ctx.storage.sql.exec(
      'UPDATE zones SET pending = NULL, pending_detail = NULL WHERE id = ?',
      id,
    )
  }

  rename(id: string, name: string): void {
    this.ctx.storage.sql.exec('UPDATE zones SET name = ? WHERE id = ?', name, id)
  }

  remove(id: string): void {
    this.ctx.storage.sql.exec('DELETE FROM zones WHERE id = ?', id)
  }
}
