// The runtime's hidden tables: `_cf_KV` (key-value data) and `_cf_METADATA` (alarm). Both are
// created lazily by the first write, as workerd does, so an object that never used key-value
// storage has neither.
import Database from 'better-sqlite3'
import { encodeKey, hasLoneSurrogate } from './encoding'
import type { KeyRange } from './list-options'

const CREATE_KV =
  'CREATE TABLE IF NOT EXISTS _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID'
const CREATE_METADATA =
  'CREATE TABLE IF NOT EXISTS _cf_METADATA (key INTEGER PRIMARY KEY, value BLOB)'
const ALARM_ROW = 1
const NANOS_PER_MILLI = 1_000_000n
/**
 * Rows per write statement. One statement per row spends most of its time crossing into SQLite;
 * a few dozen rows per statement divide that cost (32: SQLite allows 100 bound parameters here).
 */
const ROWS_PER_STATEMENT = 32
/** Rows list() reads per query: enough to amortize a query, few enough to stop early. */
export const LIST_PAGE_ROWS = 256

// Keys are bound through CAST so that a WTF-8 buffer (a key with a lone surrogate) is stored as
// TEXT with exactly those bytes; a well-formed string binds as itself.
type KeyParam = string | Buffer
const keyParam = (key: string): KeyParam => (hasLoneSurrogate(key) ? encodeKey(key) : key)

/** A page of list() results: keys, and the values' bytes back to back. */
export interface ListPage {
  keys: string[]
  values: Buffer
  /** Byte length of each value in `values`, in order; null unless asked for. */
  lengths: number[] | null
  /** Where the next page starts (`from` of the next listPage() call); null after the last. */
  next: Buffer | null
}

type ListRow = [keys: string, values: Buffer | null]
type DetailedListRow = [
  keys: string,
  values: Buffer | null,
  lengths: string,
  largest: Buffer | null,
  smallest: Buffer | null,
]
const EMPTY_PAGE: ListPage = { keys: [], values: Buffer.alloc(0), lengths: [], next: null }
/** What a lone surrogate's bytes read back as: a key holding it may not encode to its bytes. */
const REPLACEMENT_CHARACTER = '\uFFFD'

interface KvStatements {
  db: Database.Database
  get: Database.Statement<[KeyParam], string | undefined>
  has: Database.Statement<[KeyParam], number | undefined>
  /** Upserts and deletes of n rows, prepared on first use. */
  upsert: Map<number, Database.Statement<[KeyParam[]]>>
  delete: Map<number, Database.Statement<[KeyParam[]]>>
  /** list() queries by shape (bounded or not, order), without and with details. */
  list: Map<string, Database.Statement<unknown[], unknown[]>>
  detailedList: Map<string, Database.Statement<unknown[], unknown[]>>
}

export class KvTable {
  private statements: KvStatements | null = null
  private metadataReady = false
  private readonly upsertParams: KeyParam[] = []
  private readonly deleteParams: KeyParam[] = []

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
    const hex = this.statements?.get.get(keyParam(key))
    return hex === undefined ? undefined : Buffer.from(hex, 'hex')
  }

  has(key: string): boolean {
    return this.statements?.has.get(keyParam(key)) !== undefined
  }

  /** Stores every entry of `writes`: bytes are upserted, null deletes the key. */
  write(writes: ReadonlyMap<string, Buffer | null>): void {
    // Deleting from a table not yet created deletes nothing.
    if (this.statements === null && ![...writes.values()].some((bytes) => bytes !== null)) return
    const upserts = this.upsertParams
    const deletes = this.deleteParams
    for (const [key, bytes] of writes) {
      if (bytes === null) {
        deletes.push(keyParam(key))
        if (deletes.length === ROWS_PER_STATEMENT) this.runBatch('delete', deletes)
      } else {
        upserts.push(keyParam(key), bytes)
        if (upserts.length === 2 * ROWS_PER_STATEMENT) this.runBatch('upsert', upserts)
      }
    }
    if (upserts.length > 0) this.runBatch('upsert', upserts)
    if (deletes.length > 0) this.runBatch('delete', deletes)
  }

  /**
   * One page of the range, in key order (descending when `range.reverse`): at most `rows` rows,
   * from `from` on (null: from the range's own bound). With `withLengths`, also each value's
   * length (needed to read values that do not mark their own end).
   */
  listPage(range: KeyRange, from: Buffer | null, rows: number, withLengths: boolean): ListPage {
    const statements = this.statements
    if (statements === null) return EMPTY_PAGE
    const lower = range.reverse ? range.start : (from ?? range.start)
    const upper = range.reverse ? (from ?? range.end) : range.end
    const params: unknown[] = [lower]
    if (upper !== null) params.push(upper)
    params.push(rows)
    try {
      if (!withLengths) {
        const plain = listStatement(statements, upper !== null, range.reverse, false)
        const row = plain.get(...params) as ListRow | undefined
        if (row === undefined || row[1] === null) return EMPTY_PAGE
        const keys = JSON.parse(row[0]) as string[]
        const last = keys[keys.length - 1] ?? ''
        // A key read back with U+FFFD may have been stored as a lone surrogate's bytes, which
        // its string no longer gives: then the page is read again with the boundary keys' bytes.
        if (keys.length < rows || !last.includes(REPLACEMENT_CHARACTER)) {
          const next = keys.length < rows ? null : nextFrom(encodeKey(last), range.reverse)
          return { keys, values: row[1], lengths: null, next }
        }
      }
      const detailed = listStatement(statements, upper !== null, range.reverse, true)
      const row = detailed.get(...params) as DetailedListRow | undefined
      if (row === undefined || row[1] === null) return EMPTY_PAGE
      const [keys, values, lengths, largest, smallest] = row
      const page = JSON.parse(keys) as string[]
      const boundary = range.reverse ? smallest : largest
      const next =
        page.length < rows || boundary === null ? null : nextFrom(boundary, range.reverse)
      return { keys: page, values, lengths: JSON.parse(lengths) as number[], next }
    } catch (error) {
      // Values written elsewhere may be large enough (up to 4 MiB in workerd) that a page of them
      // exceeds SQLite's length limit: read fewer at a time.
      const tooBig = error instanceof Database.SqliteError && error.code === 'SQLITE_TOOBIG'
      if (tooBig && rows > 1) return this.listPage(range, from, Math.ceil(rows / 2), withLengths)
      throw error
    }
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

  private runBatch(kind: 'upsert' | 'delete', params: KeyParam[]): void {
    const statements = this.writable()[kind]
    const rows = kind === 'upsert' ? params.length / 2 : params.length
    let statement = statements.get(rows)
    if (statement === undefined) {
      statement = this.db.prepare<[KeyParam[]]>(
        kind === 'upsert'
          ? `INSERT INTO _cf_KV VALUES ${repeat('(CAST(? AS TEXT), ?)', rows)} ON CONFLICT DO UPDATE SET value = excluded.value`
          : `DELETE FROM _cf_KV WHERE key IN (${repeat('CAST(? AS TEXT)', rows)})`,
      )
      statements.set(rows, statement)
    }
    try {
      statement.run(params)
    } finally {
      params.length = 0
    }
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
      db: this.db,
      // A value read as a BLOB costs better-sqlite3 a buffer of its own, which took longer than
      // the lookup; as hex it comes back as a string, turned into bytes from Node's buffer pool.
      get: this.db
        .prepare<[KeyParam], string>('SELECT hex(value) FROM _cf_KV WHERE key = CAST(? AS TEXT)')
        .pluck(),
      has: this.db
        .prepare<[KeyParam], number>('SELECT 1 FROM _cf_KV WHERE key = CAST(? AS TEXT)')
        .pluck(),
      upsert: new Map(),
      delete: new Map(),
      list: new Map(),
      detailedList: new Map(),
    }
  }
}

// A page comes back as one row: the keys as a JSON array and the values concatenated into one
// BLOB (in detail, also their lengths and the boundary keys' bytes). Reading a BLOB costs
// better-sqlite3 a buffer allocation each, which made row-by-row reading several times slower
// than the scan. The aggregates read the subquery's rows in one pass, in its order.
function listStatement(
  statements: KvStatements,
  bounded: boolean,
  reverse: boolean,
  detailed: boolean,
): Database.Statement<unknown[], unknown[]> {
  const cache = detailed ? statements.detailedList : statements.list
  const shape = `${bounded ? 'closed' : 'open'}-${reverse ? 'desc' : 'asc'}`
  let statement = cache.get(shape)
  if (statement === undefined) {
    const upper = bounded ? ' AND key < CAST(? AS TEXT)' : ''
    const order = reverse ? 'DESC' : 'ASC'
    const details = detailed
      ? ', json_group_array(length(value)), CAST(max(key) AS BLOB), CAST(min(key) AS BLOB)'
      : ''
    statement = statements.db
      .prepare<unknown[], unknown[]>(
        `SELECT json_group_array(key), CAST(group_concat(value, x'') AS BLOB)${details}
         FROM (SELECT key, value FROM _cf_KV WHERE key >= CAST(? AS TEXT)${upper}
           ORDER BY key ${order} LIMIT ?)`,
      )
      .raw()
    cache.set(shape, statement)
  }
  return statement
}

const repeat = (sql: string, times: number): string => Array<string>(times).fill(sql).join(', ')

/**
 * Where the page after one ending at `lastKey` starts: an ascending listing goes on just past
 * the last key, a descending one ends (exclusively) at it.
 */
export const nextFrom = (lastKey: Buffer, reverse: boolean): Buffer =>
  reverse ? lastKey : Buffer.concat([lastKey, Buffer.from([0])])
