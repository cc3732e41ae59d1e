// The runtime's hidden tables: `_cf_KV` (key-value data) and `_cf_METADATA` (alarm). Both are
// created lazily by the first write, as workerd does, so an object that never used key-value
// storage has neither.
import type Database from 'better-sqlite3'
import { encodeKey, hasLoneSurrogate } from './encoding'
import type { KeyRange } from './list-options'

const CREATE_KV =
  'CREATE TABLE IF NOT EXISTS _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID'
const CREATE_METADATA =
  'CREATE TABLE IF NOT EXISTS _cf_METADATA (key INTEGER PRIMARY KEY, value BLOB)'
const ALARM_ROW = 1
const NANOS_PER_MILLI = 1_000_000n

// Keys are bound through CAST so that a WTF-8 buffer (a key with a lone surrogate) is stored as
// TEXT with exactly those bytes; a well-formed string binds as itself.
type KeyParam = string | Buffer
const keyParam = (key: string): KeyParam => (hasLoneSurrogate(key) ? encodeKey(key) : key)

interface KvStatements {
  get: Database.Statement<[KeyParam], Buffer | undefined>
  put: Database.Statement<[KeyParam, Buffer]>
  delete: Database.Statement<[KeyParam]>
  list: Map<string, Database.Statement<unknown[], [string, Buffer]>>
}

export class KvTable {
  private statements: KvStatements | null = null
  private metadataReady = false

  constructor(private readonly db: Database.Database) {
    this.refresh()
  }

  /** Re-reads which tables exist; needed after a rollback may have undone their creation. */
  refresh(): void {
    const names = new Set(
      this.db
        .prepare<[], string>(
          `SELECT name FROM sqlite_master WHERE name IN ('_cf_KV', '_cf_METADATA')`,
        )
        .pluck()
        .all(),
    )
    this.statements = names.has('_cf_KV') ? this.prepare() : null
    this.metadataReady = names.has('_cf_METADATA')
  }

  get(key: string): Buffer | undefined {
    return this.statements?.get.get(keyParam(key))
  }

  put(key: string, value: Buffer): void {
    this.writable().put.run(keyParam(key), value)
  }

  /** Returns whether a row was deleted. */
  delete(key: string): boolean {
    if (this.statements === null) return false
    return this.statements.delete.run(keyParam(key)).changes > 0
  }

  list(range: KeyRange): Array<[string, Buffer]> {
    if (this.statements === null) return []
    const shape = `${range.end === null ? 'open' : 'closed'}-${range.reverse ? 'desc' : 'asc'}`
    let statement = this.statements.list.get(shape)
    if (statement === undefined) {
      const upper = range.end === null ? '' : ' AND key < CAST(? AS TEXT)'
      const order = range.reverse ? 'DESC' : 'ASC'
      statement = this.db
        .prepare<unknown[], [string, Buffer]>(
          `SELECT key, value FROM _cf_KV WHERE key >= CAST(? AS TEXT)${upper} ORDER BY key ${order} LIMIT ?`,
        )
        .raw()
      this.statements.list.set(shape, statement)
    }
    const params: unknown[] = [range.start]
    if (range.end !== null) params.push(range.end)
    params.push(range.limit ?? -1)
    return statement.all(...params)
  }

  /** Removes every key (the key-value backend's deleteAll). */
  clear(): void {
    if (this.statements !== null) this.db.prepare('DELETE FROM _cf_KV').run()
  }

  /** Alarm time in milliseconds, or null. Stored as integer nanoseconds, like workerd. */
  readAlarm(): number | null {
    if (!this.metadataReady) return null
    const nanos = this.db
      .prepare<[number], bigint | null>('SELECT value FROM _cf_METADATA WHERE key = ?')
      .pluck()
      .safeIntegers(true)
      .get(ALARM_ROW)
    return typeof nanos === 'bigint' ? Number(nanos / NANOS_PER_MILLI) : null
  }

  writeAlarm(ms: number | null): void {
    if (!this.metadataReady) {
      if (ms === null) return
      this.db.exec(CREATE_METADATA)
      this.metadataReady = true
    }
    this.db
      .prepare(
        'INSERT INTO _cf_METADATA VALUES(?, ?) ON CONFLICT DO UPDATE SET value = excluded.value',
      )
      .run(ALARM_ROW, ms === null ? null : BigInt(ms) * NANOS_PER_MILLI)
  }

  private writable(): KvStatements {
    if (this.statements === null) {
      this.db.exec(CREATE_KV)
      this.statements = this.prepare()
    }
    return this.statements
  }

  private prepare(): KvStatements {
    return {
      get: this.db
        .prepare<[KeyParam], Buffer>('SELECT value FROM _cf_KV WHERE key = CAST(? AS TEXT)')
        .pluck(),
      put: this.db.prepare<[KeyParam, Buffer]>(
        'INSERT INTO _cf_KV VALUES(CAST(? AS TEXT), ?) ON CONFLICT DO UPDATE SET value = excluded.value',
      ),
      delete: this.db.prepare<[KeyParam]>('DELETE FROM _cf_KV WHERE key = CAST(? AS TEXT)'),
      list: new Map(),
    }
  }
}
