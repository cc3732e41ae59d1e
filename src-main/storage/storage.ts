// The storage object behind `ctx.storage`: the vendor's key-value, transaction, alarm, SQL and
// recovery interface over one SQLite file laid out as the vendor's runtime lays it out.
import type Database from 'better-sqlite3'
import {
  compareKeys,
  deserializeBackToBack,
  deserializeEach,
  deserializeValue,
  encodeKey,
  keyAsStored,
  serializeValue,
} from './encoding'
import { InputGate, OutputGate } from './gates'
import type { History, HistoryPoint } from './history'
import { KvMirror, KvMirrorLoader, MIRROR_BUDGET_BYTES } from './kv-mirror'
import { KvTable, LIST_PAGE_ROWS } from './kv-table'
import { checkKey, checkKeyCount, checkSerializedValue } from './limits'
import { compileListOptions, type KeyRange, type ListOptions } from './list-options'
import {
  CONSTRAINT_RESET_PREFIX,
  DELETE_ALL_IN_TRANSACTION,
  NO_RECOVERY_ON_KV_BACKEND,
  NO_SQL_ON_KV_BACKEND,
  NOT_SQL_BACKED,
  NO_SYNC_KV_ON_KV_BACKEND,
  STORAGE_CLOSED,
} from './messages'
import { ReadCache } from './read-cache'
import { SqlStorage } from './sql'
import { SyncKvStorage, type SyncKvHost } from './sync-kv'
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
/**
 * When history checkpoints (archiving the WAL first). Small transactions checkpoint as soon as
 * the WAL passes the first size, so that the WAL is rewritten in place: a commit that grows the
 * file costs a much slower sync. Large transactions make growing the file cheap by comparison and
 * archiving dear (about what writing cost), so their checkpoint waits for a pause in the object's
 * writes; past the second size it happens at once, bounding the WAL.
 */
const CHECKPOINT_WAL_BYTES = 4 * 1024 * 1024
const CHECKPOINT_WAL_BYTES_NOW = 64 * 1024 * 1024
const LARGE_COMMIT_BYTES = 256 * 1024
const CHECKPOINT_PAUSE_MS = 100
const PUT_SIGNATURE =
  'put() may only be called with a single key-value pair and optional options as put(key, value, options) or with multiple key-value pairs and optional options as put(entries, options)'

interface PendingCommit {
  durable: Promise<void>
  resolve: () => void
  reject: (error: Error) => void
  /** Whether the output gate already waits for this commit. */
  gated: boolean
}

export class Storage implements TransactionScope {
  private readonly kvTable: KvTable
  private readonly cache = new ReadCache(CACHE_BUDGET_BYTES)
  /** All of `_cf_KV` once a listing has read it whole, serving the listings after; see KvMirror. */
  private kvMirror: KvMirror | null = null
  /**
   * Key-value writes of the open transaction not yet given to SQLite (null: deleted). They reach
   * it in batches, at commit or before anything that reads or rolls back SQLite.
   */
  private readonly pendingWrites = new Map<string, Buffer | null>()
  /** Keys of pending writes made with noCache, which leave the cache once written. */
  private readonly uncachedWrites = new Set<string>()
  private readonly inputGate: InputGate
  private readonly outputGate: OutputGate
  private sqlApi: SqlStorage | null = null
  private syncKvApi: SyncKvStorage | null = null
  /** Counts listings: a kv.list() iterator stops working once a later listing starts. */
  private listings = 0
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
  /** What the pending implicit transaction changes, if the object said (describeChange). */
  private commitNote: string | undefined = undefined
  private pausedCheckpoint: NodeJS.Timeout | null = null
  /** The WAL's size when history last reported a change, and commits made since. */
  private walBytesSeen = 0
  private commitsSinceWalChange = 0

  /** @internal use openStorage() */
  constructor(
    private readonly connection: Database.Database,
    private readonly config: StorageConfig,
  ) {
    this.kvTable = new KvTable(connection)
    this.inputGate = config.runtime.inputGate
    this.outputGate = config.runtime.outputGate
    this.committedAlarm = this.kvTable.readAlarm()
  }

  // ---- key-value ------------------------------------------------------------------------------

  get(key: string, options?: GetOptions): Promise<unknown>
  get(keys: string[], options?: GetOptions): Promise<Map<string, unknown>>
  async get(keyOrKeys: unknown, options?: GetOptions): Promise<unknown> {
    return this.readEntries(null, keyOrKeys, options)
  }

  put(key: string, value: unknown, options?: PutOptions): Promise<void>
  put(entries: Record<string, unknown>, options?: PutOptions): Promise<void>
  async put(...args: unknown[]): Promise<void> {
    this.writeEntries(null, args)
  }

  delete(key: string, options?: PutOptions): Promise<boolean>
  delete(keys: string[], options?: PutOptions): Promise<number>
  async delete(keyOrKeys: unknown, options?: PutOptions): Promise<boolean | number> {
    return this.deleteEntries(null, keyOrKeys, options)
  }

  async list(options?: ListOptions): Promise<Map<string, unknown>> {
    return this.listEntries(null, options)
  }

  /**
   * Removes all data; never the alarm. On the SQL backend this also drops every SQL table, view,
   * index and trigger, atomically.
   */
  async deleteAll(options?: PutOptions): Promise<void> {
    this.assertUsable()
    if (this.explicitDepth > 0 || this.syncDepth > 0) throw new Error(DELETE_ALL_IN_TRANSACTION)
    const alarm = this.currentAlarm()
    // What is still to be written would be deleted at once.
    this.discardPendingWrites()
    // The runtime always confirms deleteAll, whatever allowUnconfirmed says.
    this.write({ ...options, allowUnconfirmed: false }, () => {
      this.kvMirror = null
      if (this.config.backend === 'kv') this.kvTable.clear()
      else this.dropEverything()
      this.cache.clear()
      this.kvTable.refresh()
      this.kvTable.writeAlarm(alarm)
    })
  }

  // ---- transactions ---------------------------------------------------------------------------

  /** Runs `closure` in a transaction: commits when it returns, rolls back when it throws. */
  async transaction<T>(closure: (txn: StorageTransaction) => T | Promise<T>): Promise<T> {
    this.assertUsable()
    if (this.config.backend === 'kv') return this.overlayTransaction(closure)
    // The runtime first lets an open implicit transaction commit, then nests a savepoint.
    if (this.explicitDepth === 0 && (this.pending !== null || this.connection.inTransaction))
      this.commit()
    const releaseGate = this.inputGate.hold()
    const depth = this.explicitDepth++
    const savepoint = `_cf_savepoint_${depth}`
    this.flushWrites()
    this.connection.exec(`SAVEPOINT ${savepoint}`)
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
      this.flushWrites()
      this.connection.exec(`RELEASE ${savepoint}`)
      return result
    } catch (error) {
      if (!this.broken && this.connection.inTransaction) {
        this.rollbackTo(savepoint)
        this.connection.exec(`RELEASE ${savepoint}`)
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
    // A failure of a transaction that this call opens, with nothing written before it, rolls the
    // whole implicit transaction back: ROLLBACK TO leaves the pages it restored dirty, and COMMIT
    // would write them again, a point in history for a change that was never made.
    const alone = !this.connection.inTransaction && this.pendingWrites.size === 0
    this.beforeWrite()
    this.flushWrites()
    const savepoint = `_cf_sync_savepoint_${this.syncDepth++}`
    this.connection.exec(`SAVEPOINT ${savepoint}`)
    // What the rolled-back writes said of themselves goes with them: the note would otherwise
    // label (or make) a point in history for a change that was never made.
    const noteBefore = this.commitNote
    try {
      const result = fn()
      this.flushWrites()
      this.connection.exec(`RELEASE ${savepoint}`)
      return result
    } catch (error) {
      if (!this.broken) {
        this.rollbackTo(savepoint)
        this.connection.exec(`RELEASE ${savepoint}`)
        if (alone) this.abandonEmptyTransaction()
      }
      this.commitNote = noteBefore
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
    const time = this.alarmTime(scheduledTime)
    if (time === this.currentAlarm()) return
    this.runningAlarm = null
    this.write(options, () => this.storeAlarm(time))
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

  /** The synchronous key-value API (`ctx.storage.kv`); only on the SQL backend. */
  get kv(): SyncKvStorage {
    if (this.config.backend !== 'sql') throw new Error(NO_SYNC_KV_ON_KV_BACKEND)
    this.syncKvApi ??= new SyncKvStorage(this.syncKvHost)
    return this.syncKvApi
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
    if (this.connection.open) {
      if (!this.broken) this.commit()
      this.checkpoint()
      this.config.history?.close()
      this.connection.close()
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
    this.discardPendingWrites()
    this.kvMirror = null
    if (this.connection.inTransaction) this.connection.exec('ROLLBACK')
    this.pending?.reject(error)
    this.pending = null
    this.close()
  }

  assertUsable(): void {
    if (this.broken) throw this.broken
  }

  /** Called before a statement that may write: opens the implicit transaction. */
  beforeWrite(options?: PutOptions): void {
    this.assertUsable()
    if (!this.connection.inTransaction) {
      this.connection.exec('BEGIN')
      this.scheduleCommit()
    }
    this.awaitCommit(options)
  }

  /** See SqlHost.afterFailedWrite: beforeWrite() opened a transaction, so none left means SQLite ended it. */
  afterFailedWrite(error: unknown): void {
    if (!this.broken && !this.connection.inTransaction) throw this.breakOn(error)
  }

  /**
   * The database connection, with every write made so far handed to SQLite: for reading the
   * file's tables directly (tests, the workbench's inspector).
   */
  get db(): Database.Database {
    if (this.connection.open && !this.broken) this.flushWrites()
    return this.connection
  }

  // ---- internals ------------------------------------------------------------------------------

  private readEntries(
    overlay: TransactionOverlay | null,
    keyOrKeys: unknown,
    options: GetOptions | undefined,
  ): unknown {
    this.assertUsable()
    this.holdInputGate(options)
    if (!Array.isArray(keyOrKeys)) {
      const key = typeof keyOrKeys === 'string' ? keyOrKeys : String(keyOrKeys)
      checkKey(key)
      const bytes = this.read(key, options, overlay)
      return bytes === null ? undefined : deserializeValue(bytes)
    }
    checkKeyCount(keyOrKeys.length)
    const keys = [...new Set(keyOrKeys.map(String))].sort(compareKeys)
    const found = new Map<string, unknown>()
    for (const key of keys) {
      const bytes = this.read(key, options, overlay)
      if (bytes !== null) found.set(keyAsStored(key), deserializeValue(bytes))
    }
    return found
  }

  private writeEntries(overlay: TransactionOverlay | null, args: unknown[]): void {
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
      const options = second as PutOptions | undefined
      if (overlay === null) this.beforeBufferedWrite(options)
      for (const [key, bytes] of serialized) this.bufferWrite(key, bytes, options, overlay)
      return
    }
    if (second === undefined) throw new TypeError('put() called with undefined value.')
    const key = typeof first === 'string' ? first : String(first)
    const bytes = serializeValue(second)
    checkKey(key)
    checkSerializedValue(bytes)
    const options = third as PutOptions | undefined
    if (overlay === null) this.beforeBufferedWrite(options)
    this.bufferWrite(key, bytes, options, overlay)
  }

  private deleteEntries(
    overlay: TransactionOverlay | null,
    keyOrKeys: unknown,
    options: PutOptions | undefined,
  ): boolean | number {
    this.assertUsable()
    if (!Array.isArray(keyOrKeys)) {
      const key = String(keyOrKeys)
      checkKey(key)
      if (overlay === null) this.beforeBufferedWrite(options)
      return this.remove(key, options, overlay)
    }
    checkKeyCount(keyOrKeys.length)
    const keys = [...new Set(keyOrKeys.map(String))]
    keys.forEach(checkKey)
    if (keys.length === 0) return 0
    if (overlay === null) this.beforeBufferedWrite(options)
    return keys.filter((key) => this.remove(key, options, overlay)).length
  }

  private listEntries(
    overlay: TransactionOverlay | null,
    options: ListOptions | undefined,
  ): Map<string, unknown> {
    this.assertUsable()
    const range = compileListOptions(options)
    this.holdInputGate(options)
    const found = new Map<string, unknown>()
    this.listings++
    if (range === null) return found
    if (overlay !== null && overlay.writes.size > 0)
      return this.listWithOverlay(overlay, range, options)
    this.flushWrites()
    let remaining = range.limit ?? Infinity
    const add = (key: string, value: unknown): void => void found.set(key, value)
    if (this.kvMirror !== null) {
      this.kvMirror.visit(range, null, remaining, add)
      return found
    }
    // A listing of the whole table reads every row anyway: it keeps them for the next listings.
    const whole = range.start.length === 0 && range.end === null && range.limit === null
    const loader = whole ? new KvMirrorLoader() : null
    // Page by page, so that a limit reads no more rows than it returns.
    let from: Buffer | null = null
    do {
      const rows = Math.min(remaining, LIST_PAGE_ROWS)
      const page = this.readPage(range, from, rows, add, loader)
      remaining -= page.count
      from = page.next
    } while (from !== null && remaining > 0)
    if (loader !== null) this.kvMirror = loader.finish(range.reverse)
    return found
  }

  // Each write of the transaction hides or replaces at most one stored pair, so the stored pairs
  // the listing needs are among the first `limit` plus that many.
  private listWithOverlay(
    overlay: TransactionOverlay,
    range: KeyRange,
    options: ListOptions | undefined,
  ): Map<string, unknown> {
    const stored = this.listEntries(null, {
      ...options,
      limit: range.limit === null ? undefined : range.limit + overlay.writes.size,
    })
    for (const [key, bytes] of overlay.writes) {
      const encoded = encodeKey(key)
      if (Buffer.compare(encoded, range.start) < 0) continue
      if (range.end !== null && Buffer.compare(encoded, range.end) >= 0) continue
      if (bytes === null) stored.delete(keyAsStored(key))
      else stored.set(keyAsStored(key), deserializeValue(bytes))
    }
    const entries = [...stored].sort(([a], [b]) => compareKeys(a, b))
    if (range.reverse) entries.reverse()
    return new Map(range.limit === null ? entries : entries.slice(0, range.limit))
  }

  // transaction() on the key-value backend, as workerd's in-memory backend runs it: writes made
  // through `txn` are seen only through `txn` until the closure returns, and then are stored
  // together; ctx.storage.* calls inside the closure are not part of it.
  private async overlayTransaction<T>(
    closure: (txn: StorageTransaction) => T | Promise<T>,
  ): Promise<T> {
    const releaseGate = this.inputGate.hold()
    const overlay = new TransactionOverlay()
    const txn = new StorageTransaction(this.overlayScope(overlay), 0, () => overlay.discard())
    try {
      const result = await closure(txn)
      this.assertUsable()
      if (overlay.writes.size > 0) {
        this.beforeBufferedWrite(undefined)
        for (const [key, bytes] of overlay.writes) this.bufferWrite(key, bytes, undefined, null)
      }
      const alarm = overlay.alarm
      if (alarm !== undefined && alarm !== this.currentAlarm()) {
        this.runningAlarm = null
        this.write(undefined, () => this.storeAlarm(alarm))
      }
      return result
    } finally {
      txn.finish()
      releaseGate()
    }
  }

  private overlayScope(overlay: TransactionOverlay): TransactionScope {
    return {
      get: async (keyOrKeys, options) => this.readEntries(overlay, keyOrKeys, options),
      put: async (...args) => this.writeEntries(overlay, args),
      delete: async (keyOrKeys, options) => this.deleteEntries(overlay, keyOrKeys, options),
      list: async (options) => this.listEntries(overlay, options),
      getAlarm: async (options) => {
        if (overlay.alarm === undefined) return this.getAlarm(options)
        this.assertUsable()
        return overlay.alarm
      },
      setAlarm: async (scheduledTime) => {
        this.assertUsable()
        overlay.alarm = this.alarmTime(scheduledTime)
      },
      deleteAlarm: async () => {
        this.assertUsable()
        overlay.alarm = null
      },
    }
  }

  /** Checks an alarm time as setAlarm() does; returns it in whole milliseconds, not before now. */
  private alarmTime(scheduledTime: unknown): number {
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
    return Math.max(time, this.config.now())
  }

  // The synchronous API goes through the same checks, pending writes and cache as the async one.
  private readonly syncKvHost: SyncKvHost = {
    readValue: (key) => {
      this.assertUsable()
      checkKey(key)
      const bytes = this.read(key, undefined, null)
      return bytes === null ? undefined : deserializeValue(bytes)
    },
    writeValue: (key, value) => {
      this.assertUsable()
      const bytes = serializeValue(value)
      checkKey(key)
      checkSerializedValue(bytes)
      this.beforeBufferedWrite(undefined)
      this.bufferWrite(key, bytes, undefined, null)
    },
    removeKey: (key) => {
      this.assertUsable()
      checkKey(key)
      this.beforeBufferedWrite(undefined)
      return this.remove(key, undefined, null)
    },
    startListing: () => ++this.listings,
    currentListing: () => this.listings,
    readPage: (range, from, rows) => {
      const entries: Array<[string, unknown]> = []
      const { next } = this.readPage(range, from, rows, (key, value) => entries.push([key, value]))
      return { entries, next }
    },
  }

  /**
   * Reads a page of the range, handing each pair to `visit`; says how many and where next.
   * `loader` takes in the page's rows too.
   */
  private readPage(
    range: KeyRange,
    from: Buffer | null,
    rows: number,
    visit: (key: string, value: unknown) => void,
    loader: KvMirrorLoader | null = null,
  ): { count: number; next: Buffer | null } {
    this.assertUsable()
    this.flushWrites()
    if (this.kvMirror !== null) return this.kvMirror.visit(range, from, rows, visit)
    let page = this.kvTable.listPage(range, from, rows, false)
    const lengths = loader === null ? undefined : []
    let values =
      page.lengths === null ? deserializeBackToBack(page.values, page.keys.length, lengths) : null
    if (values !== null) {
      loader?.addDecoded(page.keys, values, lengths ?? [])
    } else {
      if (page.lengths === null) page = this.kvTable.listPage(range, from, rows, true)
      values = deserializeEach(page.values, page.lengths ?? [])
      loader?.addStored(page.keys, page.values, page.lengths ?? [])
    }
    const { keys } = page
    for (let i = 0; i < keys.length; i++) visit(keys[i] as string, values[i])
    return { count: keys.length, next: page.next }
  }

  private write<T>(options: PutOptions | undefined, work: () => T): T {
    this.beforeWrite(options)
    try {
      return work()
    } catch (error) {
      throw formatSqliteError(error, '')
    }
  }

  // A key-value write reaches SQLite later (flushWrites), inside a transaction begun then; here
  // it only needs the commit that will carry it.
  private beforeBufferedWrite(options: PutOptions | undefined): void {
    this.assertUsable()
    if (this.pending === null) this.scheduleCommit()
    this.awaitCommit(options)
  }

  // The write belongs to the next commit; unless it is unconfirmed, the output gate waits for it.
  private awaitCommit(options: PutOptions | undefined): void {
    let pending = this.pending
    if (pending === null) {
      let resolve = (): void => undefined
      let reject = (_error: Error): void => undefined
      const durable = new Promise<void>((res, rej) => {
        resolve = res
        reject = rej
      })
      // A failure is reported through the output gate, sync() and onBroken; nobody may be waiting.
      durable.catch(() => undefined)
      pending = { durable, resolve, reject, gated: false }
      this.pending = pending
    }
    if (!pending.gated && !options?.allowUnconfirmed) {
      pending.gated = true
      this.outputGate.lockUntil(pending.durable)
    }
  }

  private bufferWrite(
    key: string,
    bytes: Buffer | null,
    options: PutOptions | undefined,
    overlay: TransactionOverlay | null,
  ): void {
    if (overlay !== null) {
      overlay.writes.set(key, bytes)
      return
    }
    this.pendingWrites.set(key, bytes)
    if (options?.noCache) this.uncachedWrites.add(key)
    else if (this.uncachedWrites.size > 0) this.uncachedWrites.delete(key)
  }

  /** Hands pending key-value writes to SQLite; a failure breaks storage, as a failed commit does. */
  private flushWrites(): void {
    const writes = this.pendingWrites
    if (writes.size === 0) return
    try {
      // User SQL may have ended the transaction (INSERT OR ROLLBACK); the writes still go together.
      if (!this.connection.inTransaction) this.connection.exec('BEGIN')
      this.kvTable.write(writes)
    } catch (error) {
      throw this.breakOn(error)
    }
    if (this.kvMirror !== null) {
      this.kvMirror.apply(writes)
      if (this.kvMirror.estimatedBytes > MIRROR_BUDGET_BYTES) this.kvMirror = null
    }
    const uncached = this.uncachedWrites
    for (const [key, bytes] of writes) {
      if (uncached.size > 0 && uncached.has(key)) this.cache.delete(key)
      else this.cache.set(key, bytes)
    }
    writes.clear()
    uncached.clear()
  }

  private discardPendingWrites(): void {
    this.pendingWrites.clear()
    this.uncachedWrites.clear()
  }

  private read(
    key: string,
    options: GetOptions | undefined,
    overlay: TransactionOverlay | null,
  ): Buffer | null {
    if (overlay !== null) {
      const written = overlay.writes.get(key)
      if (written !== undefined) return written
    }
    if (this.pendingWrites.size > 0) {
      const pending = this.pendingWrites.get(key)
      if (pending !== undefined) return pending
    }
    const cached = this.cache.get(key)
    if (cached !== undefined) return cached
    const bytes = this.kvTable.get(key) ?? null
    if (!options?.noCache && this.cache.admitRead(key)) this.cache.set(key, bytes)
    return bytes
  }

  /** Deletes `key` (at the next flush, or when the transaction commits); returns whether it existed. */
  private remove(
    key: string,
    options: PutOptions | undefined,
    overlay: TransactionOverlay | null,
  ): boolean {
    let known = overlay?.writes.get(key)
    if (known === undefined) known = this.pendingWrites.get(key)
    if (known === undefined) known = this.cache.get(key)
    const existed = known === undefined ? this.kvTable.has(key) : known !== null
    if (existed) this.bufferWrite(key, null, options, overlay)
    return existed
  }

  private holdInputGate(options: GetOptions | undefined): void {
    if (!options?.allowConcurrency) this.inputGate.holdForThisTurn()
  }

  private currentAlarm(): number | null {
    this.alarm ??= this.kvTable.readAlarm()
    return this.alarm
  }

  private storeAlarm(time: number | null): void {
    this.kvTable.writeAlarm(time)
    this.alarm = time
  }

  // Writes made in one turn commit together, on a later turn: the runtime's write coalescing.
  private scheduleCommit(): void {
    if (this.commitScheduled) return
    this.commitScheduled = true
    setImmediate(() => {
      this.commitScheduled = false
      if (this.explicitDepth === 0 && !this.broken && this.connection.open) this.commit()
    })
  }

  private commit(): void {
    const pending = this.pending
    try {
      this.flushWrites()
      if (this.connection.inTransaction) this.connection.exec('COMMIT')
    } catch (error) {
      if (!this.broken) this.breakOn(error)
      return
    }
    this.pending = null
    const note = this.commitNote
    this.commitNote = undefined
    if (pending !== null) this.afterCommit(note)
    pending?.resolve()
  }

  // A write or commit failed: SQLite has rolled back or is made to, the writes waiting on the
  // commit fail, and the object must be restarted (the runtime's reset).
  private breakOn(error: unknown): Error {
    const cause = formatSqliteError(error, '')
    const message = cause instanceof Error ? cause.message : String(cause)
    const failure = new Error(
      /CONSTRAINT/.test(message) ? CONSTRAINT_RESET_PREFIX + message : message,
    )
    this.discardPendingWrites()
    this.kvMirror = null
    if (this.connection.inTransaction) this.connection.exec('ROLLBACK')
    this.broken = failure
    this.pending?.reject(failure)
    this.pending = null
    this.config.runtime.onBroken?.(failure)
    return failure
  }

  private afterCommit(note: string | undefined): void {
    const history = this.config.history
    if (history !== null) {
      history.afterCommit(note)
      this.considerCheckpoint(history)
    }
    const alarm = this.currentAlarm()
    if (alarm !== this.committedAlarm) {
      this.committedAlarm = alarm
      this.config.runtime.onAlarmCommitted?.(alarm)
    }
  }

  // Writes still pending were all made after the savepoint: every savepoint flushes first.
  // When to checkpoint: see CHECKPOINT_WAL_BYTES.
  private considerCheckpoint(history: History): void {
    this.commitsSinceWalChange++
    const walBytes = history.walBytes()
    if (walBytes === this.walBytesSeen) return
    const bytesPerCommit = (walBytes - this.walBytesSeen) / this.commitsSinceWalChange
    this.walBytesSeen = walBytes
    this.commitsSinceWalChange = 0
    if (walBytes < CHECKPOINT_WAL_BYTES) return
    if (walBytes < CHECKPOINT_WAL_BYTES_NOW && bytesPerCommit >= LARGE_COMMIT_BYTES)
      this.checkpointAfterPause()
    else this.checkpoint()
  }

  private checkpointAfterPause(): void {
    if (this.pausedCheckpoint !== null) clearTimeout(this.pausedCheckpoint)
    this.pausedCheckpoint = setTimeout(() => {
      this.pausedCheckpoint = null
      // A transaction open by then has writes of its own to finish first.
      if (this.broken || this.pending !== null || this.connection.inTransaction) return
      this.checkpoint()
    }, CHECKPOINT_PAUSE_MS)
    this.pausedCheckpoint.unref()
  }

  private checkpoint(): void {
    if (this.pausedCheckpoint !== null) clearTimeout(this.pausedCheckpoint)
    this.pausedCheckpoint = null
    this.config.history?.checkpoint()
  }

  /** Ends an implicit transaction that holds no write: nothing to commit, nobody to wait. */
  private abandonEmptyTransaction(): void {
    if (this.connection.inTransaction) this.connection.exec('ROLLBACK')
    const pending = this.pending
    this.pending = null
    pending?.resolve()
  }

  private rollbackTo(savepoint: string): void {
    this.discardPendingWrites()
    this.connection.exec(`ROLLBACK TO ${savepoint}`)
    this.cache.clear()
    this.kvMirror = null
    this.kvTable.refresh()
    this.alarm = undefined
  }

  // The runtime deletes the whole database file; dropping every object inside the implicit
  // transaction gives the same result atomically, and keeps the change in the WAL for history.
  private dropEverything(): void {
    const objects = this.connection
      .prepare<[], { type: string; name: string }>(
        `SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type = 'table'`,
      )
      .all()
    this.connection.pragma('defer_foreign_keys = ON')
    for (const { type, name } of objects)
      this.connection.exec(`DROP ${type.toUpperCase()} "${name.replace(/"/g, '""')}"`)
    for (const internal of ['sqlite_sequence', 'sqlite_stat1', 'sqlite_stat4']) {
      if (
        this.connection.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(internal) !==
        undefined
      ) {
        this.connection.exec(`DELETE FROM ${internal}`)
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

/** What a transaction() on the key-value backend has written so far (null: deleted). */
class TransactionOverlay {
  readonly writes = new Map<string, Buffer | null>()
  /** The alarm as the transaction set it; undefined while it has not touched it. */
  alarm: number | null | undefined = undefined

  discard(): void {
    this.writes.clear()
    this.alarm = undefined
  }
}
