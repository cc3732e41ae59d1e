// The history of an open database. Subtle points:
// - Nothing may checkpoint behind our back: a checkpoint lets SQLite reuse WAL space, so frames
//   must be archived first. The core turns automatic checkpoints off and calls checkpoint() here.
// - A checkpoint restarts the WAL rather than truncating it: commits then overwrite the file
//   instead of growing it, and syncing a file whose size does not change costs far less (it was
//   most of what history cost a small transaction). The file's size therefore says nothing about
//   where its content ends; committedWalEnd() finds that from the frames' salts.
// - Closing SQLite's last connection checkpoints and deletes the WAL (better-sqlite3 cannot set
//   SQLITE_FCNTL_PERSIST_WAL), so close() archives first; the core closes the database after it.
// - A WAL left by a crash is archived when the history opens, before anything is written to it,
//   and then checkpointed and truncated: a process killed while SQLite wrote a frame can leave a
//   commit frame whose page never followed, which only a checksum check (SQLite's recovery, the
//   leftover archive) refuses.

import { closeSync, copyFileSync, openSync, statSync } from 'node:fs'
import type Database from 'better-sqlite3'
import { archiveLeftoverWal, archiveWal, type CommitReport, type ReportBatch } from './archive'
import { formatBookmark, parseBookmark } from './bookmark'
import { HistoryStore } from './store'
import type { History, HistoryOptions, HistoryPoint, OpenHistory } from './types'
import { committedWalEnd, type WalCursor } from './wal'

/**
 * How often a commit closes a batch, which reads where the WAL's content ends (two system calls).
 * Commits are dated one by one all the same; a batch only bounds the dating of commits that were
 * not reported one for one (see archive.ts).
 */
const BATCH_INTERVAL_MS = 20

/**
 * A snapshot is due when the log since the last one outgrows the database (or this floor, so that
 * a small database is not copied, and synced, at every checkpoint of a stream of small writes).
 */
const MIN_LOG_BYTES_PER_SNAPSHOT = 8 << 20

/**
 * Or when a restore from the last snapshot would replay page images of this many times that size:
 * the log stores differences, so it can stay small over many more page images than it holds.
 */
const REPLAY_LIMIT_IN_SNAPSHOTS = 4

function checkpointTruncating(db: Database.Database): void {
  db.pragma('wal_checkpoint(TRUNCATE)')
}

/** Checkpoints and has the next commit write the WAL from its start; false if a reader prevented it. */
function checkpointRestarting(db: Database.Database): boolean {
  const [result] = db.pragma('wal_checkpoint(RESTART)') as Array<{ busy: number }>
  return result?.busy === 0
}

class LiveHistory implements History {
  private readonly walPath: string
  private walFd: number | null = null
  /** Where the committed content of the WAL ended when last looked at. */
  private walEnd: WalCursor | null = null
  /** A checkpoint restarted the WAL and no commit has been looked at since. */
  private walRestarted = false
  private batches: ReportBatch[] = []
  private openReports: CommitReport[] = []
  private openBatchTime = NaN

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    private readonly store: HistoryStore,
    private readonly options: HistoryOptions,
  ) {
    this.walPath = `${file}-wal`
  }

  afterCommit(note?: string): void {
    const time = this.options.now()
    this.openReports.push(note === undefined ? { time } : { time, note })
    if (!(time - this.openBatchTime < BATCH_INTERVAL_MS)) {
      this.closeBatch()
      this.openBatchTime = time
    }
  }

  /** Where the WAL's committed content ends now (0: there is no WAL). */
  private committedWalBytes(): number {
    if (this.walFd === null) {
      try {
        this.walFd = openSync(this.walPath, 'r')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
        throw error
      }
    }
    this.walEnd = committedWalEnd(this.walFd, this.walEnd)
    this.walRestarted = false
    return this.walEnd?.end ?? 0
  }

  private closeBatch(): void {
    if (this.openReports.length === 0) return
    this.batches.push({ walEnd: this.committedWalBytes(), reports: this.openReports })
    this.openReports = []
  }

  private archive(): void {
    this.closeBatch()
    archiveWal(this.store, this.walPath, this.batches, this.options.now)
    this.batches = []
  }

  walBytes(): number {
    return this.walRestarted ? 0 : (this.walEnd?.end ?? 0)
  }

  checkpoint(): void {
    this.archive()
    this.store.sync()
    // A reader still using the WAL makes SQLite leave it in place: the archive cursor still
    // points into it, so the next archive carries on from there. After a restart the cursor
    // names a generation the next commit replaces (new salts), so archiving starts afresh then,
    // while a crash before that commit leaves a WAL the cursor says is archived already.
    if (!checkpointRestarting(this.db)) return
    // Until the next commit writes the new generation, the file still holds the old frames.
    this.walRestarted = true
    const snapshotBytes = Math.max(statSync(this.file).size, MIN_LOG_BYTES_PER_SNAPSHOT)
    if (
      this.store.bytesSinceSnapshot > snapshotBytes ||
      this.store.pageBytesSinceSnapshot > REPLAY_LIMIT_IN_SNAPSHOTS * snapshotBytes
    ) {
      const { seq, time, timeline } = this.store.head
      this.store.startSegment({ seq, time, timeline, origin: false }, (path) =>
        copyFileSync(this.file, path),
      )
    }
    this.store.prune()
  }

  currentBookmark(): string {
    this.archive()
    return this.store.bookmarkOf(this.store.head)
  }

  bookmarkForTime(time: number): string {
    if (!Number.isFinite(time)) {
      throw new TypeError(
        `getBookmarkForTime() needs a time in milliseconds since the epoch, got ${time}`,
      )
    }
    this.archive()
    const asked = new Date(time).toISOString()
    const now = this.options.now()
    if (time > now) {
      throw new RangeError(
        `Cannot get a bookmark for ${asked}: it is in the future (now is ${new Date(now).toISOString()})`,
      )
    }
    if (time < this.store.windowStart) {
      throw new RangeError(
        `Cannot get a bookmark for ${asked}: the time must be within the ${this.store.retentionDescription} recovery window, which began at ${new Date(this.store.windowStart).toISOString()}`,
      )
    }
    const point = this.store.visiblePoints().findLast((p) => p.time <= time)
    if (point === undefined) {
      const first = this.store.visiblePoints()[0]
      throw new RangeError(
        `Cannot get a bookmark for ${asked}: this object's history begins at ${first === undefined ? 'a later time' : new Date(first.time).toISOString()}`,
      )
    }
    return this.store.bookmarkOf(point)
  }

  scheduleRestore(bookmark: string): string {
    this.archive()
    this.store.resolve(bookmark)
    this.store.scheduleRestore(bookmark)
    // The restore ends the current timeline; its last commit is the state just before the restore.
    return formatBookmark(this.store.id, { timeline: this.store.head.timeline, seq: null })
  }

  copyPoint(bookmark: string, outPath: string): void {
    this.archive()
    this.store.materialize(this.store.resolve(bookmark).seq, outPath)
  }

  list(options: { limit?: number; before?: string } = {}): HistoryPoint[] {
    const { limit = Infinity, before } = options
    if (!(limit > 0)) throw new RangeError(`list() limit must be positive, got ${limit}`)
    if (before !== undefined) parseBookmark(this.store.id, before)
    this.archive()
    const points: HistoryPoint[] = []
    const visible = this.store.visiblePoints()
    for (let i = visible.length - 1; i >= 0 && points.length < limit; i--) {
      const point = visible[i]
      if (point === undefined) continue
      const bookmark = this.store.bookmarkOf(point)
      if (before !== undefined && bookmark >= before) continue
      points.push(
        point.note === undefined
          ? { bookmark, time: point.time }
          : { bookmark, time: point.time, note: point.note },
      )
    }
    return points
  }

  close(): void {
    this.archive()
    this.store.close()
    if (this.walFd !== null) closeSync(this.walFd)
    this.walFd = null
  }
}

export const openHistory: OpenHistory = (db, file, options) => {
  const existing = HistoryStore.load(file, options)
  if (existing !== null) {
    archiveLeftoverWal(existing, `${file}-wal`, options.now)
    // What the crash left past the last valid commit stays in the file until overwritten; the
    // live reader, which trusts frames of its generation without their checksums, must never see
    // it, so the archived WAL is checkpointed away now.
    checkpointTruncating(db)
    return new LiveHistory(db, file, existing, options)
  }
  // Whatever the WAL holds from before history began becomes part of the first snapshot.
  checkpointTruncating(db)
  const created = HistoryStore.create(file, options, (path) => copyFileSync(file, path))
  return new LiveHistory(db, file, created, options)
}
