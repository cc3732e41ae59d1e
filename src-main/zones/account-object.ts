// The account as a stateful object: the index of the zones it holds (id and name). A zone's own
// settings live in the zone's object; the index exists so that names stay unique across zones
// and lists need not open every zone.

import type { ObjectContext } from '../objects'
import type { ManagedRuleset } from './catalog'
import { RULESET_SCHEMA, RULESET_SCHEMA_V2, RulesetStore } from './rulesets/store'
import { migrateSchema, transact } from './zone-object'

const SCHEMA: readonly string[] = [
  `CREATE TABLE zones (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_on TEXT NOT NULL)`,
  `CREATE TABLE managed_rulesets (
     id TEXT NOT NULL, version TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (id, version))`,
  ...RULESET_SCHEMA,
  ...RULESET_SCHEMA_V2,
]

export interface ZoneIndexEntry {
  id: string
  name: string
}

export class AccountObject {
  /** The account's own rulesets (its `root` entry points and custom rulesets). */
  readonly rulesets: RulesetStore

  constructor(private readonly ctx: ObjectContext) {
    migrateSchema(ctx, SCHEMA)
    this.rulesets = new RulesetStore(ctx)
  }

  change<R>(work: () => R, options: { dryRun?: boolean } = {}): R {
    return transact(this.ctx, work, options)
  }

  describe(note: string): void {
    this.ctx.storage.describeChange(note)
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

  list(query: { name?: string; offset: number; limit: number }): { ids: string[]; total: number } {
    const sql = this.ctx.storage.sql
    const where = query.name === undefined ? '' : 'WHERE name = ?'
    const filter = query.name === undefined ? [] : [query.name]
    const total = Number(sql.exec(`SELECT count(*) AS n FROM zones ${where}`, ...filter).one().n)
    const ids = sql
      .exec(
        `SELECT id FROM zones ${where} ORDER BY name LIMIT ? OFFSET ?`,
        ...filter,
        query.limit,
        query.offset,
      )
      .toArray()
      .map((row) => String(row.id))
    return { ids, total }
  }

  /** Every zone of the index, by name. */
  entries(): ZoneIndexEntry[] {
    return this.ctx.storage.sql
      .exec('SELECT id, name FROM zones ORDER BY name')
      .toArray()
      .map((row) => ({ id: String(row.id), name: String(row.name) }))
  }

  has(id: string): boolean {
    return this.ctx.storage.sql.exec('SELECT 1 FROM zones WHERE id = ?', id).toArray().length > 0
  }

  /** The zone holding `name`, if any. */
  holderOf(name: string): string | undefined {
    const row = this.ctx.storage.sql.exec('SELECT id FROM zones WHERE name = ?', name).toArray()[0]
    return row === undefined ? undefined : String(row.id)
  }

  add(entry: ZoneIndexEntry & { created_on: string }): void {
    this.ctx.storage.sql.exec(
      'INSERT INTO zones VALUES (?, ?, ?)',
      entry.id,
      entry.name,
      entry.created_on,
    )
  }

  rename(id: string, name: string): void {
    this.ctx.storage.sql.exec('UPDATE zones SET name = ? WHERE id = ?', name, id)
  }

  remove(id: string): void {
    this.ctx.storage.sql.exec('DELETE FROM zones WHERE id = ?', id)
  }
}
