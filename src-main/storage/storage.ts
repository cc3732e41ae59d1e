// The storage object behind `ctx.storage`: the vendor's key-value, transaction, alarm, SQL and
// recovery interface over one SQLite file laid out as the vendor's runtime lays it out.
//
// What is left here is one piece, though over 500 lines: the implicit transaction, the commit it
// waits for, the output gate and the broken state after a failed commit, which every method reads
// and moves. What has a state of its own lives beside it: get, put, delete and list
// (key-value-store.ts, with its write buffer, read cache and listing mirror), the alarm
// (alarm-state.ts), when to checkpoint (checkpoint-policy.ts), the key-value backend's
// transaction (overlay-transaction.ts), SQL (sql/) and history (history/).
import type Database from 'better-sqlite3'
import { AlarmState } from './alarm-state'
import { CheckpointPolicy } from './checkpoint-policy'
import { InputGate, OutputGate } from './gates'
import type { History, HistoryPoint } from './history'
import { KeyValueStore, type KeyValueHost } from './key-value-store'
import type { ListOptions } from './list-options'
import {
  CONSTRAINT_RESET_PREFIX,
  DELETE_ALL_IN_TRANSACTION,
  NO_RECOVERY_ON_KV_BACKEND,
  NO_SQL_ON_KV_BACKEND,
  NOT_SQL_BACKED,
  NO_SYNC_KV_ON_KV_BACKEND,
  STORAGE_CLOSED,
} from './messages'
import { overlayTransaction, type OverlayHost } from './overlay-transaction'
import { SqlStorage } from './sql'
import { SyncKvStorage } from './sync-kv'
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

interface PendingCommit {
  durable: Promise<void>
  resolve: () => void
  reject: (error: Error) => void
  /** Whether the output gate already waits for this commit. */
  gated: boolean
}

export class Storage implements TransactionScope {
  private readonly keyValue: KeyValueStore
  private readonly inputGate: InputGate
  private readonly outputGate: OutputGate
  private sqlApi: SqlStorage | null = null
  private syncKvApi: SyncKvStorage | null = null
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
    this.inputGate = config.runtime.inputGate
    this.outputGate = config.runtime.outputGate
    this.keyValue = new KeyValueStore(connection, this.keyValueHost)
    this.alarms = new AlarmState(this.keyValue.table)
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
    return this.keyValue.readEntries(null, keyOrKeys, options)
  }

  put(key: string, value: unknown, options?: PutOptions): Promise<void>
  put(entries: Record<string, unknown>, options?: PutOptions): Promise<void>
  async put(...args: unknown[]): Promise<void> {
    this.keyValue.writeEntries(null, args)
  }

  delete(key: string, options?: PutOptions): Promise<boolean>
  delete(keys: string[], options?: PutOptions): Promise<number>
  async delete(keyOrKeys: unknown, options?: PutOptions): Promise<boolean | number> {
    return this.keyValue.deleteEntries(null, keyOrKeys, options)
  }

  async list(options?: ListOptions): Promise<Map<string, unknown>> {
    return this.keyValue.listEntries(null, options)
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
    this.keyValue.discardWrites()
    // The runtime always confirms deleteAll, whatever allowUnconfirmed says.
    this.write({ ...options, allowUnconfirmed: false }, () => {
      if (this.config.backend === 'kv') this.keyValue.table.clear()
      else this.dropEverything()
      this.keyValue.forgetCaches()
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
    this.keyValue.flush()
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
      this.keyValue.flush()
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
    const alone = !this.connection.inTransaction && !this.keyValue.hasPendingWrites
    this.beforeWrite()
    this.keyValue.flush()
    const savepoint = `_cf_sync_savepoint_${this.syncDepth++}`
    this.connection.exec(`SAVEPOINT ${savepoint}`)
    // What the rolled-back writes said of themselves goes with them: the note would otherwise
    // label (or make) a point in history for a change that was never made.
    const noteBefore = this.commitNote
    try {
      const result = fn()
      this.keyValue.flush()
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
    this.syncKvApi ??= new SyncKvStorage(this.keyValue.syncHost)
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

  /**
   * Writes this object's database as it was at `bookmark` to `outPath`, a file of its own (a
   * workbench extension, for comparing a point with now); throws, saying why, for a bookmark the
   * history does not hold.
   */
  copyHistoryPoint(bookmark: string, outPath: string): void {
    const history = this.requireHistory()
    this.commit()
    history.copyPoint(bookmark, outPath)
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
    this.keyValue.discardWrites()
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
    if (this.connection.open && !this.broken) this.keyValue.flush()
    return this.connection
  }

  // ---- internals ------------------------------------------------------------------------------

  // The key-value store writes under this storage's transaction and commit.
  private readonly keyValueHost: KeyValueHost = {
    assertUsable: () => this.assertUsable(),
    holdInputGate: (options) => this.holdInputGate(options),
    beforeBufferedWrite: (options) => this.beforeBufferedWrite(options),
    breakOn: (error) => this.breakOn(error),
  }

  // The overlay transaction reaches the key-value methods through the overlay it writes into.
  private readonly overlayHost: OverlayHost = {
    holdInputGate: () => this.inputGate.hold(),
    assertUsable: () => this.assertUsable(),
    readEntries: (overlay, keyOrKeys, options) =>
      this.keyValue.readEntries(overlay, keyOrKeys, options),
    writeEntries: (overlay, args) => this.keyValue.writeEntries(overlay, args),
    deleteEntries: (overlay, keyOrKeys, options) =>
      this.keyValue.deleteEntries(overlay, keyOrKeys, options),
    listEntries: (overlay, options) => this.keyValue.listEntries(overlay, options),
    getAlarm: (options) => this.getAlarm(options),
    alarmTime: (scheduledTime) => this.alarmTime(scheduledTime),
    store: (overlay) => {
      this.keyValue.storeWrites(overlay.writes)
      const alarm = overlay.alarm
      if (alarm !== undefined && alarm !== this.alarms.current())
        this.write(undefined, () => this.alarms.set(alarm))
    },
  }

  /** Checks an alarm time as setAlarm() does; returns it in whole milliseconds, not before now. */
  private alarmTime(scheduledTime: unknown): number {
    return this.alarms.checkedTime(scheduledTime, this.config.now())
  }

  private write<T>(options: PutOptions | undefined, work: () => T): T {
    this.beforeWrite(options)
    try {
      return work()
    } catch (error) {
      throw formatSqliteError(error, '')
    }
  }

  // A key-value write reaches SQLite later (KeyValueStore.flush), inside a transaction begun then; here
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

  private holdInputGate(options: { allowConcurrency?: boolean } | undefined): void {
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
      this.keyValue.flush()
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
    this.keyValue.discardWrites()
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
    this.keyValue.discardWrites()
    this.connection.exec(`ROLLBACK TO ${savepoint}`)
    this.keyValue.forgetCaches()
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
