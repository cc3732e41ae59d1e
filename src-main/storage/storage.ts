// The storage object behind `ctx.storage`: the vendor's key-value, transaction, alarm, SQL and
// recovery interface over one SQLite file laid out as the vendor's runtime lays it out.
import { statSync } from 'node:fs'
import type Database from 'better-sqlite3'
import { compareKeys, deserializeValue, keyAsStored, serializeValue } from './encoding'
import { InputGate, OutputGate } from './gates'
import type { History, HistoryPoint } from './history'
import { KvTable } from './kv-table'
import { checkKey, checkKeyCount, checkSerializedValue } from './limits'
import { compileListOptions, type ListOptions } from './list-options'
import {
  CONSTRAINT_RESET_PREFIX,
  DELETE_ALL_IN_TRANSACTION,
  NO_RECOVERY_ON_KV_BACKEND,
  NO_SQL_ON_KV_BACKEND,
  NOT_SQL_BACKED,
  STORAGE_CLOSED,
} from './messages'
import { ReadCache } from './read-cache'
import { SqlStorage } from './sql'
import { formatSqliteError } from './sql/errors'
import { StorageTransaction, type TransactionScope } from './transaction'

export type Backend = 'sql' | 'kv'

export interface GetOptions {
  allowConcurrency?: boolean
  noCache?: boolean
}
export interface PutOptions {
  allowConcurrency?: boolean
  allowUnconfirmed?: boolean
  noCache?: boolean
}
export type { ListOptions }

/** What the object runtime plugs in; a bare openStorage() gets private gates and no listener. */
export interface StorageRuntime {
  inputGate: InputGate
  outputGate: OutputGate
  /** Called after a commit that changed the stored alarm. */
  onAlarmCommitted?: (scheduledTime: number | null) => void
  /** Called when a failed commit has reset storage; the object must be restarted. */
  onBroken?: (error: Error) => void
}

export interface StorageConfig {
  file: string
  backend: Backend
  now: () => number
  runtime: StorageRuntime
  history: History | null
}

const CACHE_BUDGET_BYTES = 32 * 1024 * 1024
const CHECKPOINT_WAL_BYTES = 4 * 1024 * 1024
const COMMITS_PER_WAL_CHECK = 32
const PUT_SIGNATURE =
  'put() may only be called with a single key-value pair and optional options as put(key, value, options) or with multiple key-value pairs and optional options as put(entries, options)'

interface PendingCommit {
  durable: Promise<void>
  resolve: () => void
  reject: (error: Error) => void
}

export class Storage implements TransactionScope {
  private readonly kv: KvTable
  private readonly cache = new ReadCache(CACHE_BUDGET_BYTES)
  private readonly inputGate: InputGate
  private readonly outputGate: OutputGate
  private sqlApi: SqlStorage | null = null
  private pending: PendingCommit | null = null
  private commitScheduled = false
  private explicitDepth = 0
  private syncDepth = 0
  private broken: Error | null = null
  /** Alarm as stored, including uncommitted changes; undefined until first read. */
  private alarm: number | null | undefined = undefined
  private committedAlarm: number | null
  /** Scheduled time of the alarm whose handler is running: getAlarm() reads null meanwhile. */
  private runningAlarm: number | null = null
  private alarmRefusal: string | null = null
  private commitsSinceWalCheck = 0
  /** What the pending implicit transaction changes, if the object said (describeChange). */
  private commitNote: string | undefined = undefined

  /** @internal use openStorage() */
  constructor(
    readonly db: Database.Database,
    private readonly config: StorageConfig,
  ) {
    this.kv = new KvTable(db)
    this.inputGate = config.runtime.inputGate
    this.outputGate = config.runtime.outputGate
    this.committedAlarm = this.kv.readAlarm()
  }

  // ---- key-value ------------------------------------------------------------------------------

  get(key: string, options?: GetOptions): Promise<unknown>
  get(keys: string[], options?: GetOptions): Promise<Map<string, unknown>>
  async get(keyOrKeys: unknown, options?: GetOptions): Promise<unknown> {
    this.assertUsable()
    this.holdInputGate(options)
    if (!Array.isArray(keyOrKeys)) {
      const key = String(keyOrKeys)
      checkKey(key)
      const bytes = this.read(key, options)
      return bytes === null ? undefined : deserializeValue(bytes)
    }
    checkKeyCount(keyOrKeys.length)
    const keys = [...new Set(keyOrKeys.map(String))].sort(compareKeys)
    const found = new Map<string, unknown>()
    for (const key of keys) {
      const bytes = this.read(key, options)
      if (bytes !== null) found.set(keyAsStored(key), deserializeValue(bytes))
    }
    return found
  }

  put(key: string, value: unknown, options?: PutOptions): Promise<void>
  put(entries: Record<string, unknown>, options?: PutOptions): Promise<void>
  async put(...args: unknown[]): Promise<void> {
    const [first, second, third] = args
    if (args.length === 0) {
      throw new TypeError(
        "Failed to execute 'put' on 'DurableObjectStorage': parameter 1 is not of type 'string or object'.",
      )
    }
    if (typeof first === 'object' && first !== null) {
      if (second !== undefined && second !== null && typeof second !== 'object')
        throw new TypeError(PUT_SIGNATURE)
      // Entries whose value is undefined are skipped silently, as the runtime does.
      const entries = Object.entries(first).filter(([, value]) => value !== undefined)
      const serialized = entries.map(([key, value]) => [key, serializeValue(value)] as const)
      checkKeyCount(serialized.length)
      for (const [key, bytes] of serialized) {
        checkKey(key)
        checkSerializedValue(bytes)
      }
      if (serialized.length === 0) return
      this.write(second as PutOptions | undefined, () => {
        for (const [key, bytes] of serialized)
          this.store(key, bytes, second as PutOptions | undefined)
      })
      return
    }
    if (second === undefined) throw new TypeError('put() called with undefined value.')
    const key = String(first)
    const bytes = serializeValue(second)
    checkKey(key)
    checkSerializedValue(bytes)
    const options = third as PutOptions | undefined
    this.write(options, () => this.store(key, bytes, options))
  }

  delete(key: string, options?: PutOptions): Promise<boolean>
  delete(keys: string[], options?: PutOptions): Promise<number>
  async delete(keyOrKeys: unknown, options?: PutOptions): Promise<boolean | number> {
    this.assertUsable()
    if (!Array.isArray(keyOrKeys)) {
      const key = String(keyOrKeys)
      checkKey(key)
      return this.write(options, () => this.remove(key))
    }
    checkKeyCount(keyOrKeys.length)
    const keys = [...new Set(keyOrKeys.map(String))]
    keys.forEach(checkKey)
    if (keys.length === 0) return 0
    return this.write(options, () => keys.filter((key) => this.remove(key)).length)
  }

  async list(options?: ListOptions): Promise<Map<string, unknown>> {
    this.assertUsable()
    const range = compileListOptions(options)
    this.holdInputGate(options)
    const found = new Map<string, unknown>()
    if (range === null) return found
    for (const [key, bytes] of this.kv.list(range)) found.set(key, deserializeValue(bytes))
    return found
  }

  /**
   * Removes all data; never the alarm. On the SQL backend this also drops every SQL table, view,
   * index and trigger, atomically.
   */
  async deleteAll(options?: PutOptions): Promise<void> {
    this.assertUsable()
    if (this.explicitDepth > 0 || this.syncDepth > 0) throw new Error(DELETE_ALL_IN_TRANSACTION)
    const alarm = this.currentAlarm()
    // The runtime always confirms deleteAll, whatever allowUnconfirmed says.
    this.write({ ...options, allowUnconfirmed: false }, () => {
      if (this.config.backend === 'kv') this.kv.clear()
      else this.dropEverything()
      this.cache.clear()
      this.kv.refresh()
      this.kv.writeAlarm(alarm)
    })
  }

  // ---- transactions ---------------------------------------------------------------------------

  /** Runs `closure` in a transaction: commits when it returns, rolls back when it throws. */
  async transaction<T>(closure: (txn: StorageTransaction) => T | Promise<T>): Promise<T> {
    this.assertUsable()
    // The runtime first lets an open implicit transaction commit, then nests a savepoint.
    if (this.explicitDepth === 0 && this.db.inTransaction) this.commit()
    const releaseGate = this.inputGate.hold()
    const depth = this.explicitDepth++
    const savepoint = `_cf_savepoint_${depth}`
    this.db.exec(`SAVEPOINT ${savepoint}`)
    const txn = new StorageTransaction(this, depth, () => {
      if (this.explicitDepth > depth + 1) {
        throw new Error(
          'Cannot roll back an outer transaction while a nested transaction is still running.',
        )
      }
      this.rollbackTo(savepoint)
    })
    try {
      const result = await closure(txn)
      this.db.exec(`RELEASE ${savepoint}`)
      return result
    } catch (error) {
      if (!this.broken && this.db.inTransaction) {
        this.rollbackTo(savepoint)
        this.db.exec(`RELEASE ${savepoint}`)
      }
      throw error
    } finally {
      this.explicitDepth--
      txn.finish()
      releaseGate()
      if (this.explicitDepth === 0 && !this.broken) this.commit()
    }
  }

  /** Runs `fn` synchronously inside a savepoint of the current implicit transaction (SQL backend). */
  transactionSync<T>(fn: () => T): T {
    this.assertUsable()
    if (this.config.backend !== 'sql') throw new Error(NOT_SQL_BACKED)
    this.beforeWrite()
    const savepoint = `_cf_sync_savepoint_${this.syncDepth++}`
    this.db.exec(`SAVEPOINT ${savepoint}`)
    try {
      const result = fn()
      this.db.exec(`RELEASE ${savepoint}`)
      return result
    } catch (error) {
      if (!this.broken) {
        this.rollbackTo(savepoint)
        this.db.exec(`RELEASE ${savepoint}`)
      }
      throw error
    } finally {
      this.syncDepth--
    }
  }

  /** Resolves when every write made so far is committed to disk. */
  async sync(): Promise<void> {
    this.assertUsable()
    if (this.pending !== null) await this.pending.durable
  }

  // ---- alarms ---------------------------------------------------------------------------------

  async getAlarm(options?: GetOptions): Promise<number | null> {
    this.assertUsable()
    this.holdInputGate(options)
    const alarm = this.currentAlarm()
    return alarm !== null && alarm === this.runningAlarm ? null : alarm
  }

  async setAlarm(scheduledTime: Date | number, options?: PutOptions): Promise<void> {
    this.assertUsable()
    if (typeof scheduledTime !== 'number' && !(scheduledTime instanceof Date)) {
      throw new TypeError(
        "Failed to execute 'setAlarm' on 'DurableObjectStorage': parameter 1 is not of type 'date'.",
      )
    }
    const time = Math.trunc(Number(scheduledTime))
    if (Number.isNaN(time))
      throw new TypeError('The value cannot be converted because it is not a valid Date.')
    if (time <= 0) throw new TypeError('setAlarm() cannot be called with an alarm time <= 0')
    if (this.alarmRefusal !== null) throw new TypeError(this.alarmRefusal)
    const clamped = Math.max(time, this.config.now())
    if (clamped === this.currentAlarm()) return
    this.runningAlarm = null
    this.write(options, () => this.storeAlarm(clamped))
  }

  async deleteAlarm(options?: PutOptions): Promise<void> {
    this.assertUsable()
    if (this.currentAlarm() === null) return
    this.write(options, () => this.storeAlarm(null))
  }

  // ---- SQL and recovery -----------------------------------------------------------------------

  /** The SQL API; only on the SQL backend. */
  get sql(): SqlStorage {
    if (this.config.backend !== 'sql') throw new Error(NO_SQL_ON_KV_BACKEND)
    this.sqlApi ??= new SqlStorage(this)
    return this.sqlApi
  }

  async getCurrentBookmark(): Promise<string> {
    const history = this.requireHistory()
    this.commit()
    return history.currentBookmark()
  }

  async getBookmarkForTime(time: Date | number): Promise<string> {
    return this.requireHistory().bookmarkForTime(Number(time))
  }

  /** Arranges the restore for the next open; returns a bookmark that undoes it. */
  async onNextSessionRestoreBookmark(bookmark: string): Promise<string> {
    const history = this.requireHistory()
    this.commit()
    return history.scheduleRestore(String(bookmark))
  }

  /**
   * Says what the writes of the current implicit transaction change, for the History screen
   * (a workbench extension; the vendor's interface has no such method). Several notes in one
   * transaction are joined.
   */
  describeChange(note: string): void {
    this.commitNote = this.commitNote === undefined ? note : `${this.commitNote}; ${note}`
  }

  /** Points in this object's history, newest first (what the History screen lists). */
  listHistory(options?: { limit?: number; before?: string }): HistoryPoint[] {
    return this.requireHistory().list(options)
  }

  /** Commits what is pending, archives history and closes the file. Later calls fail. */
  close(): void {
    if (this.db.open) {
      if (!this.broken) this.commit()
      this.config.history?.checkpoint()
      this.config.history?.close()
      this.db.close()
    }
    this.broken ??= new Error(STORAGE_CLOSED)
  }

  // ---- for the object runtime and the transaction object --------------------------------------

  /** Makes setAlarm() fail with `message` (the object's class has no alarm() handler). */
  refuseAlarms(message: string): void {
    this.alarmRefusal = message
  }

  /** The committed alarm, as the scheduler must see it. */
  scheduledAlarm(): number | null {
    return this.committedAlarm
  }

  /** The handler for the alarm at `scheduledTime` starts: getAlarm() reads null while it runs. */
  alarmHandlerStarted(scheduledTime: number): void {
    this.runningAlarm = scheduledTime
  }

  /** The handler finished. On success the alarm is cleared unless the handler set a new one. */
  alarmHandlerFinished(succeeded: boolean): void {
    const ran = this.runningAlarm
    this.runningAlarm = null
    if (succeeded && ran !== null && this.currentAlarm() === ran && !this.broken) {
      this.write({ allowUnconfirmed: true }, () => this.storeAlarm(null))
    }
  }

  /** Breaks storage on the runtime's behalf (ctx.abort()): unflushed writes are discarded. */
  abandon(error: Error): void {
    if (this.broken) return
    this.broken = error
    if (this.db.inTransaction) this.db.exec('ROLLBACK')
    this.pending?.reject(error)
    this.pending = null
    this.close()
  }

  assertUsable(): void {
    if (this.broken) throw this.broken
  }

  beforeWrite(options?: PutOptions): void {
    this.assertUsable()
    if (!this.db.inTransaction) {
      this.db.exec('BEGIN')
      this.scheduleCommit()
    }
    if (this.pending === null) {
      let resolve = (): void => undefined
      let reject = (_error: Error): void => undefined
      const durable = new Promise<void>((res, rej) => {
        resolve = res
        reject = rej
      })
      // A failure is reported through the output gate, sync() and onBroken; nobody may be waiting.
      durable.catch(() => undefined)
      this.pending = { durable, resolve, reject }
    }
    if (!options?.allowUnconfirmed) this.outputGate.lockUntil(this.pending.durable)
  }

  // ---- internals ------------------------------------------------------------------------------

  private write<T>(options: PutOptions | undefined, work: () => T): T {
    this.beforeWrite(options)
    try {
      return work()
    } catch (error) {
      throw formatSqliteError(error, '')
    }
  }

  private read(key: string, options: GetOptions | undefined): Buffer | null {
    const cached = this.cache.get(key)
    if (cached !== undefined) return cached
    const bytes = this.kv.get(key) ?? null
    if (!options?.noCache) this.cache.set(key, bytes)
    return bytes
  }

  private store(key: string, bytes: Buffer, options: PutOptions | undefined): void {
    this.kv.put(key, bytes)
    if (options?.noCache) this.cache.delete(key)
    else this.cache.set(key, bytes)
  }

  private remove(key: string): boolean {
    const cached = this.cache.get(key)
    if (cached === null) return false
    this.cache.set(key, null)
    return this.kv.delete(key)
  }

  private holdInputGate(options: GetOptions | undefined): void {
    if (!options?.allowConcurrency) this.inputGate.holdForThisTurn()
  }

  private currentAlarm(): number | null {
    this.alarm ??= this.kv.readAlarm()
    return this.alarm
  }

  private storeAlarm(time: number | null): void {
    this.kv.writeAlarm(time)
    this.alarm = time
  }

  // Writes made in one turn commit together, on a later turn: the runtime's write coalescing.
  private scheduleCommit(): void {
    if (this.commitScheduled) return
    this.commitScheduled = true
    setImmediate(() => {
      this.commitScheduled = false
      if (this.explicitDepth === 0 && !this.broken && this.db.open) this.commit()
    })
  }

  private commit(): void {
    const pending = this.pending
    this.pending = null
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT')
    } catch (error) {
      const cause = formatSqliteError(error, '')
      const message = cause instanceof Error ? cause.message : String(cause)
      const failure = new Error(
        /CONSTRAINT/.test(message) ? CONSTRAINT_RESET_PREFIX + message : message,
      )
      if (this.db.inTransaction) this.db.exec('ROLLBACK')
      this.broken = failure
      pending?.reject(failure)
      this.config.runtime.onBroken?.(failure)
      return
    }
    const note = this.commitNote
    this.commitNote = undefined
    if (pending !== null) this.afterCommit(note)
    pending?.resolve()
  }

  private afterCommit(note: string | undefined): void {
    const history = this.config.history
    if (history !== null) {
      history.afterCommit(note)
      // Looking at the WAL's size costs a stat() call, so only every so many commits.
      if (++this.commitsSinceWalCheck >= COMMITS_PER_WAL_CHECK) {
        this.commitsSinceWalCheck = 0
        if (walSize(this.config.file) >= CHECKPOINT_WAL_BYTES) history.checkpoint()
      }
    }
    const alarm = this.currentAlarm()
    if (alarm !== this.committedAlarm) {
      this.committedAlarm = alarm
      this.config.runtime.onAlarmCommitted?.(alarm)
    }
  }

  private rollbackTo(savepoint: string): void {
    this.db.exec(`ROLLBACK TO ${savepoint}`)
    this.cache.clear()
    this.kv.refresh()
    this.alarm = undefined
  }

  // The runtime deletes the whole database file; dropping every object inside the implicit
  // transaction gives the same result atomically, and keeps the change in the WAL for history.
  private dropEverything(): void {
    const objects = this.db
      .prepare<[], { type: string; name: string }>(
        `SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type = 'table'`,
      )
      .all()
    this.db.pragma('defer_foreign_keys = ON')
    for (const { type, name } of objects)
      this.db.exec(`DROP ${type.toUpperCase()} "${name.replace(/"/g, '""')}"`)
    for (const internal of ['sqlite_sequence', 'sqlite_stat1', 'sqlite_stat4']) {
      if (
        this.db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(internal) !== undefined
      ) {
        this.db.exec(`DELETE FROM ${internal}`)
      }
    }
    this.sqlApi = null
  }

  private requireHistory(): History {
    this.assertUsable()
    if (this.config.backend !== 'sql' || this.config.history === null)
      throw new Error(NO_RECOVERY_ON_KV_BACKEND)
    return this.config.history
  }
}

function walSize(file: string): number {
  try {
    return statSync(`${file}-wal`).size
  } catch {
    return 0
  }
}
