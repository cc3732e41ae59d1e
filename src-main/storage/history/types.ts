// The contract between the storage core (src-main/storage) and point-in-time recovery
// (src-main/storage/history). The core owns the SQLite connection and its transactions; history
// owns everything about the past: the log of committed WAL frames, base snapshots, bookmarks and
// restores. The core keeps SQLite in WAL mode with automatic checkpoints off and never
// checkpoints by itself: every checkpoint goes through History.checkpoint(), so no committed
// frame reaches the main database file without first being archived.

import type Database from 'better-sqlite3'

export interface HistoryOptions {
  /** Clock in milliseconds since the epoch; tests drive it. */
  now: () => number
  /** History older than this is pruned (default 30 days, the vendor's recovery window). */
  retentionMs?: number
}

/** One point in an object's history, as the History screen lists it. */
export interface HistoryPoint {
  bookmark: string
  /** commit time, milliseconds since the epoch */
  time: number
  /** what the committing code said it changed, if it said anything */
  note?: string
}

export interface History {
  /**
   * Called by the core right after each write transaction commits. Must be cheap: it is on
   * every write's path (the issue allows history to cost at most 20 % of write throughput).
   */
  afterCommit(note?: string): void
  /** Archives the WAL's committed frames, then checkpoints. Called when the WAL grows large and on close. */
  checkpoint(): void
  /** Bytes of committed content in the WAL, as of the last commit reported in a new millisecond. */
  walBytes(): number
  /** Bookmark of the latest committed state. */
  currentBookmark(): string
  /** Bookmark of the latest state committed at or before `time`; throws outside the retention window. */
  bookmarkForTime(time: number): string
  /**
   * Arranges for the next open of this database to restore the state at `bookmark`, and returns a
   * bookmark for the state just before that restore, so that a second restore can undo it.
   */
  scheduleRestore(bookmark: string): string
  /** Newest first. */
  list(options?: { limit?: number; before?: string }): HistoryPoint[]
  /** Writes the database as it was at `bookmark` to `outPath` (the live file is untouched). */
  copyPoint(bookmark: string, outPath: string): void
  close(): void
}

export type OpenHistory = (db: Database.Database, file: string, options: HistoryOptions) => History

/** Run before the database file is opened: applies a scheduled restore, if any. Returns whether it did. */
export type ApplyScheduledRestore = (file: string, options: HistoryOptions) => boolean
