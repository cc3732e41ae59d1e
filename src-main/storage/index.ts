// Stateful-object storage: the vendor's `ctx.storage` interface on better-sqlite3.
//
//   const storage = await openStorage('/data/objects/zone/<id>.sqlite', { backend: 'sql' })
//   await storage.put('k', new Map([[1, 2]]))
//   storage.sql.exec('CREATE TABLE t (x)')
//   storage.close()
//
// Both backends keep data in one SQLite file with the vendor runtime's layout (`_cf_KV`,
// `_cf_METADATA`, V8-serialized values), so the file is one the vendor's runtime could open. The
// 'kv' backend exposes no SQL and no point-in-time recovery. DEVIATIONS.md lists where behaviour
// knowingly differs from local workerd.
import { rmSync } from 'node:fs'
import Database from 'better-sqlite3'
import { InputGate, OutputGate } from './gates'
import { applyScheduledRestore, historyDirectory, openHistory } from './history'
import { Storage, type Backend, type StorageRuntime } from './storage'

export { InputGate, OutputGate } from './gates'
export {
  Storage,
  type Backend,
  type GetOptions,
  type ListOptions,
  type PutOptions,
  type StorageRuntime,
} from './storage'
export { StorageTransaction } from './transaction'
export { SyncKvStorage, ListIterator, type SyncKvListOptions } from './sync-kv'
export { SqlStorage, SqlCursor, type SqlRow, type SqlValue } from './sql'
export { MAX_KEY_BYTES, MAX_KEYS_PER_CALL, MAX_VALUE_BYTES } from './limits'
export type { HistoryPoint } from './history'
export { isOriginBookmark, isTimelineEndBookmark, restoredBookmark } from './history'

export interface OpenStorageOptions {
  backend: Backend
  /** Clock in milliseconds since the epoch (alarms in the past are clamped to it); tests drive it. */
  now?: () => number
  /** Gates and listeners of the object runtime; a storage opened alone gets its own gates. */
  runtime?: StorageRuntime
  /**
   * Keep point-in-time history (SQL backend only; default true). Off only to measure its cost:
   * without it the recovery methods fail as on the key-value backend.
   */
  history?: boolean
}

const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024

/**
 * Sets up a freshly opened connection as every object's database is set up. The history benchmark
 * uses it too, so its figures are for the core's settings.
 */
export function configureConnection(db: Database.Database, keepHistory: boolean): void {
  // One live instance owns an object's file. Holding the lock for good spares every statement
  // outside a transaction the lock and unlock system calls of shared WAL access (the larger part
  // of a point read), and keeps the WAL index in memory instead of a -shm file. Set before WAL.
  db.pragma('locking_mode = EXCLUSIVE')
  db.pragma('journal_mode = WAL')
  // Durable on commit: sync() and the output gate promise that writes are on disk.
  db.pragma('synchronous = FULL')
  // workerd's SQLite is built without these defaults; better-sqlite3's with them.
  db.pragma('recursive_triggers = OFF')
  db.pragma('foreign_keys = ON')
  // History archives the WAL before every checkpoint, so SQLite must never checkpoint alone.
  // Checkpoints restart the WAL, which then keeps its size: a large transaction's WAL is cut
  // back to this at the next restart.
  if (keepHistory) {
    db.pragma('wal_autocheckpoint = 0')
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`)
  }
}

/** Opens (creating if needed) the storage of one object, kept in the SQLite file `file`. */
export async function openStorage(file: string, options: OpenStorageOptions): Promise<Storage> {
  const now = options.now ?? Date.now
  const keepHistory = options.backend === 'sql' && options.history !== false
  // A restore scheduled by onNextSessionRestoreBookmark() happens here, before SQLite opens.
  if (keepHistory) applyScheduledRestore(file, { now })
  const db = new Database(file)
  try {
    configureConnection(db, keepHistory)
    return new Storage(db, {
      file,
      backend: options.backend,
      now,
      runtime: options.runtime ?? { inputGate: new InputGate(), outputGate: new OutputGate() },
      history: keepHistory ? openHistory(db, file, { now }) : null,
    })
  } catch (error) {
    db.close()
    throw error
  }
}

/**
 * Removes the files of one object's storage: the database, its WAL and the history kept beside
 * it. The storage must be closed (the object runtime's ObjectNamespace.erase() sees to that).
 */
export function eraseStorageFiles(file: string): void {
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`])
    rmSync(path, { force: true })
  rmSync(historyDirectory(file), { recursive: true, force: true })
}
