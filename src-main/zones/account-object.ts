// The account as a stateful object: the index of the zones it holds (id and name). A zone's own
// settings live in the zone's object; the index exists so that names stay unique across zones
// and lists need not open every zone.

import type { ObjectContext } from '../objects'
import { migrateSchema } from './zone-object'

const SCHEMA: readonly string[] = [
  `CREATE TABLE zones (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_on TEXT NOT NULL)`,
]

export interface ZoneIndexEntry {
  id: string
  name: string
}

export class AccountObject {
  constructor(private readonly ctx: ObjectContext) {
    migrateSchema(ctx, SCHEMA)
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
