// The storage object behind `ctx.storage`: the vendor's key-value, transaction, alarm, SQL and
// recovery interface over one SQLite file laid out as the vendor's runtime lays it out.
//
// One piece, though long, because every method reads and moves the same few things: the implicit
// transaction and the commit it waits for, the output gate, the broken state after a failed
// commit. What has a state of its own lives beside it: the write buffer (write-buffer.ts), the
// alarm (alarm-state.ts), when to checkpoint (checkpoint-policy.ts), the key-value backend's
// transaction (overlay-transaction.ts), put()'s arguments (put-arguments.ts), the `_cf_KV` table
// (kv-table.ts), the caches (read-cache.ts, kv-mirror.ts), SQL (sql/) and history (history/).
import type Database from 'better-sqlite3'
import { AlarmState } from './alarm-state'
import { CheckpointPolicy } from './checkpoint-policy'
import {
  compareKeys,
  deserializeBackToBack,
  deserializeEach,
  deserializeValue,
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
import {
  listWithOverlay,
  overlayTransaction,
  type OverlayHost,
  type TransactionOverlay,
} from './overlay-transaction'
import { putArguments } from './put-arguments'
import { ReadCache } from './read-cache'
import { SqlStorage } from './sql'
import { SyncKvStorage, type SyncKvHost } from './sync-kv'
import { formatSqliteError } from './sql/errors'
import { StorageTransaction, type TransactionScope } from './transaction'
import { WriteBuffer } from './write-buffer'

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
  /** Key-value writes of the open transaction not yet given to SQLite. */
  private readonly pendingWrites = new WriteBuffer()
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
  private readonly alarms: AlarmState
  /** What the pending implicit transaction changes, if the object said (describeChange). */
  private commitNote: string | undefined = undefined
  private readonly checkpoints: CheckpointPolicy | null

  /** @internal use openStorage() */
  constructor(
    private readonly connection: Database.Database,
    private readonly config: StorageConfig,
  ) {
    this.kvTable = new KvTable(connection)
    this.inputGate = config.runtime.inputGate
    this.outputGate = config.runtime.outputGate
    this.alarms = new AlarmState(this.kvTable)
    this.checkpoints =
      config.history === null
        ? null
        : new CheckpointPolicy(
            config.history,
            () => !this.broken && this.pending === null && !this.connection.inTransaction,
          )
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
    const alarm = this.alarms.current()
    // What is still to be written would be deleted at once.
    this.pendingWrites.discard()
    // The runtime always confirms deleteAll, whatever allowUnconfirmed says.
    this.write({ ...options, allowUnconfirmed: false }, () => {
      this.kvMirror = null
      if (this.config.backend === 'kv') this.kvTable.clear()
      else this.dropEverything()
      this.cache.clear()
      this.kvTable.refresh()
      this.alarms.store(alarm)
    })
  }

  // ---- transactions ---------------------------------------------------------------------------

  /** Runs `closure` in a transaction: commits when it returns, rolls back when it throws. */
  async transaction<T>(closure: (txn: StorageTransaction) => T | Promise<T>): Promise<T> {
    this.assertUsable()
    if (this.config.backend === 'kv') return overlayTransaction(this.overlayHost, closure)
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
    return this.alarms.visible()
  }

  async setAlarm(scheduledTime: Date | number, options?: PutOptions): Promise<void> {
    this.assertUsable()
    const time = this.alarmTime(scheduledTime)
    if (time === this.alarms.current()) return
    this.write(options, () => this.alarms.set(time))
  }

  async deleteAlarm(options?: PutOptions): Promise<void> {
    this.assertUsable()
    if (this.alarms.current() === null) return
    this.write(options, () => this.alarms.store(null))
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
      this.checkpoints?.checkpoint()
      this.config.history?.close()
      this.connection.close()
    }
    this.broken ??= new Error(STORAGE_CLOSED)
  }

  // ---- for the object runtime and the transaction object --------------------------------------

  /** Makes setAlarm() fail with `message` (the object's class has no alarm() handler). */
  refuseAlarms(message: string): void {
    this.alarms.refuse(message)
  }

  /** The committed alarm, as the scheduler must see it. */
  scheduledAlarm(): number | null {
    return this.alarms.scheduled()
  }

  /** The handler for the alarm at `scheduledTime` starts: getAlarm() reads null while it runs. */
  alarmHandlerStarted(scheduledTime: number): void {
    this.alarms.handlerStarted(scheduledTime)
  }

  /** The handler finished. On success the alarm is cleared unless the handler set a new one. */
  alarmHandlerFinished(succeeded: boolean): void {
    if (this.alarms.handlerFinished(succeeded) && !this.broken)
      this.write({ allowUnconfirmed: true }, () => this.alarms.store(null))
  }

  /** Breaks storage on the runtime's behalf (ctx.abort()): unflushed writes are discarded. */
  abandon(error: Error): void {
    if (this.broken) return
    this.broken = error
    this.pendingWrites.discard()
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
    const { entries, options } = putArguments(args)
    if (entries.length === 0) return
    if (overlay === null) this.beforeBufferedWrite(options)
    for (const [key, bytes] of entries) this.bufferWrite(key, bytes, options, overlay)
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
      return listWithOverlay(overlay, range, options, (stored) => this.listEntries(null, stored))
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

  // The overlay transaction reaches the key-value methods through the overlay it writes into.
  private readonly overlayHost: OverlayHost = {
    holdInputGate: () => this.inputGate.hold(),
    assertUsable: () => this.assertUsable(),
    readEntries: (overlay, keyOrKeys, options) => this.readEntries(overlay, keyOrKeys, options),
    writeEntries: (overlay, args) => this.writeEntries(overlay, args),
    deleteEntries: (overlay, keyOrKeys, options) => this.deleteEntries(overlay, keyOrKeys, options),
    listEntries: (overlay, options) => this.listEntries(overlay, options),
    getAlarm: (options) => this.getAlarm(options),
    alarmTime: (scheduledTime) => this.alarmTime(scheduledTime),
    store: (overlay) => {
      if (overlay.writes.size > 0) {
        this.beforeBufferedWrite(undefined)
        for (const [key, bytes] of overlay.writes) this.bufferWrite(key, bytes, undefined, null)
      }
      const alarm = overlay.alarm
      if (alarm !== undefined && alarm !== this.alarms.current())
        this.write(undefined, () => this.alarms.set(alarm))
    },
  }

  /** Checks an alarm time as setAlarm() does; returns it in whole milliseconds, not before now. */
  private alarmTime(scheduledTime: unknown): number {
    return this.alarms.checkedTime(scheduledTime, this.config.now())
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
    this.pendingWrites.set(key, bytes, options?.noCache)
  }

  /** Hands pending key-value writes to SQLite; a failure breaks storage, as a failed commit does. */
  private flushWrites(): void {
    if (this.pendingWrites.size === 0) return
    const { writes } = this.pendingWrites
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
    this.pendingWrites.written(this.cache)
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
    const pending = this.pendingWrites.get(key)
    if (pending !== undefined) return pending
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
    this.pendingWrites.discard()
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
      this.checkpoints?.afterCommit()
    }
    const alarm = this.alarms.committedChange()
    if (alarm !== undefined) this.config.runtime.onAlarmCommitted?.(alarm)
  }

  /** Ends an implicit transaction that holds no write: nothing to commit, nobody to wait. */
  private abandonEmptyTransaction(): void {
    if (this.connection.inTransaction) this.connection.exec('ROLLBACK')
    const pending = this.pending
    this.pending = null
    pending?.resolve()
  }

  // Writes still pending were all made after the savepoint: every savepoint flushes first.
  private rollbackTo(savepoint: string): void {
    this.pendingWrites.discard()
    this.connection.exec(`ROLLBACK TO ${savepoint}`)
    this.cache.clear()
    this.kvMirror = null
    this.kvTable.refresh()
    this.alarms.forget()
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
