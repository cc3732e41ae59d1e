// The history directory beside a database file, `<file>.history/`:
//   id               the history's random id (32 hex); bookmarks carry a tag derived from it
//   <seq>.db         a base snapshot: the database file as of point <seq> (16 hex digits, so names sort)
//   <seq>.log        the log segment of the commits that follow that snapshot (format in log.ts)
//   restore          a scheduled restore: the bookmark to restore at the next open
//   *.tmp            a write in flight; files are written under .tmp, synced, then renamed
// A segment exists once its log does; a snapshot without its log is a crash's leftover.

import { randomBytes } from 'node:crypto'
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { formatBookmark, parseBookmark } from './bookmark'
import { syncDirectory, writeFileDurably } from './durable'
import {
  encodeBase,
  encodeCommit,
  readCommitPageNumbers,
  replayCommit,
  scanSegment,
  type BaseRecord,
  type CommitRecord,
  type PointRecord,
} from './log'
import { encodePages } from './page-codec'
import { PageReferences } from './references'
import type { HistoryOptions } from './types'
import type { WalCursor, WalTransaction } from './wal'

const DAY_MS = 86_400_000
const DEFAULT_RETENTION_MS = 30 * DAY_MS

interface Segment {
  base: BaseRecord
  commits: CommitRecord[]
  /** log size in bytes */
  bytes: number
  /** bytes of the page images its commits replay */
  pageBytes: number
}

export interface PointToArchive {
  transaction: WalTransaction
  time: number
  note?: string
}

const seqName = (seq: number): string => seq.toString(16).padStart(16, '0')

export function historyDirectory(databaseFile: string): string {
  return `${databaseFile}.history`
}

export class HistoryStore {
  readonly points: PointRecord[] = []
  /** where archiving the WAL resumes; null when the next WAL is wholly unarchived */
  cursor: WalCursor | null = null
  private readonly segments: Segment[] = []
  private logFd: number | null = null
  /** the newest segment's page references, read when first needed */
  private references: PageReferences | null = null
  private readonly retentionMs: number

  private constructor(
    readonly dir: string,
    readonly id: string,
    private readonly now: () => number,
    retentionMs: number | undefined,
  ) {
    this.retentionMs = retentionMs ?? DEFAULT_RETENTION_MS
  }

  /** Loads the history kept for `databaseFile`, or returns null if it has none yet. */
  static load(databaseFile: string, options: HistoryOptions): HistoryStore | null {
    const dir = historyDirectory(databaseFile)
    const idFile = join(dir, 'id')
    if (!existsSync(idFile)) return null
    const store = HistoryStore.read(dir, options)
    return store.segments.length === 0 ? null : store
  }

  /** Starts a history whose first point is the database as `writeSnapshot` copies it. */
  static create(
    databaseFile: string,
    options: HistoryOptions,
    writeSnapshot: (path: string) => void,
  ): HistoryStore {
    const dir = historyDirectory(databaseFile)
    mkdirSync(dir, { recursive: true })
    const idFile = join(dir, 'id')
    if (!existsSync(idFile)) {
      writeFileDurably(idFile, (tmp) => writeFileSync(tmp, randomBytes(16).toString('hex')))
      syncDirectory(dir)
    }
    const store = HistoryStore.read(dir, options)
    store.startSegment({ seq: 0, time: options.now(), timeline: 0, origin: true }, writeSnapshot)
    return store
  }

  private static read(dir: string, options: HistoryOptions): HistoryStore {
    const id = readFileSync(join(dir, 'id'), 'utf8').trim()
    const store = new HistoryStore(dir, id, options.now, options.retentionMs)
    store.loadSegments()
    return store
  }

  private loadSegments(): void {
    const names = readdirSync(this.dir).sort()
    for (const name of names) {
      const stale =
        name.endsWith('.tmp') ||
        (name.endsWith('.db') && !names.includes(name.replace(/\.db$/, '.log')))
      if (stale) rmSync(join(this.dir, name), { force: true })
    }
    for (const name of names.filter((n) => n.endsWith('.log'))) {
      const logPath = join(this.dir, name)
      if (!existsSync(logPath.replace(/\.log$/, '.db'))) {
        throw new Error(`History log ${logPath} has lost its snapshot; the history is damaged`)
      }
      const scanned = scanSegment(logPath)
      const [base, ...rest] = scanned.records
      if (base?.kind !== 'base')
        throw new Error(`History log ${logPath} does not start with its base record`)
      const segment: Segment = { base, commits: [], bytes: scanned.length, pageBytes: 0 }
      if (base.origin) this.points.push(pointOf(base))
      // The cursor carries over from segment to segment: a snapshot leaves the WAL as it was.
      for (const record of rest) {
        if (record.kind === 'commit') {
          segment.commits.push(record)
          segment.pageBytes += record.pageBytes
          this.points.push(pointOf(record))
          this.cursor = record.cursor
        } else {
          this.cursor = null
        }
      }
      this.segments.push(segment)
    }
  }

  get head(): PointRecord {
    const last = this.points.at(-1)
    if (last === undefined) throw new Error(`History in ${this.dir} holds no point`)
    return last
  }

  private nextTime(time: number): number {
    return Math.max(time, this.points.at(-1)?.time ?? time)
  }

  private currentLog(): number {
    const segment = this.segments.at(-1)
    if (segment === undefined) throw new Error(`History in ${this.dir} has no log segment`)
    this.logFd ??= openSync(join(this.dir, `${seqName(segment.base.seq)}.log`), 'a')
    return this.logFd
  }

  private append(bytes: Buffer): number {
    const segment = this.segments.at(-1)
    const fd = this.currentLog()
    if (segment === undefined) throw new Error(`History in ${this.dir} has no log segment`)
    const offset = segment.bytes
    writeSync(fd, bytes)
    segment.bytes += bytes.length
    return offset
  }

  /** The newest segment's page references: its snapshot, then the pages its log writes. */
  private pageReferences(segment: Segment): PageReferences {
    if (this.references !== null) return this.references
    const name = seqName(segment.base.seq)
    const written = new Set<number>()
    if (segment.commits.length > 0) {
      const fd = openSync(join(this.dir, `${name}.log`), 'r')
      try {
        for (const commit of segment.commits)
          for (const pageNumber of readCommitPageNumbers(fd, commit)) written.add(pageNumber)
      } finally {
        closeSync(fd)
      }
    }
    this.references = new PageReferences(join(this.dir, `${name}.db`), written)
    return this.references
  }

  private forgetReferences(): void {
    this.references?.close()
    this.references = null
  }

  appendCommits(archived: PointToArchive[]): void {
    const segment = this.segments.at(-1)
    if (segment === undefined || archived.length === 0) return
    const references = this.pageReferences(segment)
    const records: Buffer[] = []
    const commits: CommitRecord[] = []
    let offset = segment.bytes
    let head = this.head
    try {
      for (const { transaction, time, note } of archived) {
        const { pageSize, pages } = transaction
        const point = pointOf({
          seq: head.seq + 1,
          time: Math.max(time, head.time),
          timeline: head.timeline,
          note,
        })
        const encoded = encodePages(
          pageSize,
          pages,
          (pageNumber) => references.reference(pageNumber, pageSize),
          (page) => references.wrote(page),
        )
        const bytes = encodeCommit(point, transaction, encoded)
        records.push(bytes)
        commits.push({
          ...point,
          kind: 'commit',
          databasePages: transaction.databasePages,
          cursor: transaction.cursor,
          encoded: true,
          pageBytes: pages.length * pageSize,
          offset,
          length: bytes.length,
        })
        offset += bytes.length
        head = point
      }
      // one write for the whole batch: a torn tail is cut off at the next scan, record by record
      // (a lone record, often a large transaction's, is written without copying it)
      const [first, ...more] = records
      this.append(first !== undefined && more.length === 0 ? first : Buffer.concat(records))
      references.keepWritten()
    } catch (error) {
      // the references took in images the log may not hold
      this.forgetReferences()
      throw error
    }
    for (const commit of commits) {
      segment.commits.push(commit)
      segment.pageBytes += commit.pageBytes
      this.points.push(pointOf(commit))
      this.cursor = commit.cursor
    }
  }

  /** Makes the log durable: called before a checkpoint lets SQLite overwrite what it archived. */
  sync(): void {
    if (this.logFd !== null) fsyncSync(this.logFd)
  }

  /** Log bytes written since the newest snapshot. */
  get bytesSinceSnapshot(): number {
    return this.segments.at(-1)?.bytes ?? 0
  }

  /** Bytes of the page images a restore from the newest snapshot would replay. */
  get pageBytesSinceSnapshot(): number {
    return this.segments.at(-1)?.pageBytes ?? 0
  }

  /**
   * Starts a new segment whose snapshot `writeSnapshot` writes. An origin base is a new point
   * (history start, a restore); otherwise it snapshots the current head.
   */
  startSegment(base: Omit<BaseRecord, 'kind'>, writeSnapshot: (path: string) => void): void {
    const record: BaseRecord = { ...base, kind: 'base', time: this.nextTime(base.time) }
    const name = seqName(base.seq)
    writeFileDurably(join(this.dir, `${name}.db`), writeSnapshot)
    writeFileDurably(join(this.dir, `${name}.log`), (tmp) => writeFileSync(tmp, encodeBase(record)))
    syncDirectory(this.dir)
    if (this.logFd !== null) closeSync(this.logFd)
    this.logFd = null
    this.forgetReferences()
    this.segments.push({
      base: record,
      commits: [],
      bytes: encodeBase(record).length,
      pageBytes: 0,
    })
    if (base.origin) this.points.push(pointOf(record))
  }

  /** Writes the database file as it was at point `seq` to `outPath`. */
  materialize(seq: number, outPath: string): void {
    const segment = this.segments.findLast((s) => s.base.seq <= seq)
    if (segment === undefined)
      throw new Error(`History in ${this.dir} holds no snapshot before point ${seq}`)
    const name = seqName(segment.base.seq)
    copyFileSync(join(this.dir, `${name}.db`), outPath)
    const commits = segment.commits.filter((c) => c.seq <= seq)
    const target = commits.at(-1)
    if (target === undefined) return
    const logFd = openSync(join(this.dir, `${name}.log`), 'r')
    const outFd = openSync(outPath, 'r+')
    // a page past the file's end reads as zeros, as the encoder's references do
    const readPage = (pageNumber: number, pageSize: number): Buffer => {
      const page = Buffer.alloc(pageSize)
      readSync(outFd, page, 0, pageSize, (pageNumber - 1) * pageSize)
      return page
    }
    try {
      let pageSize = 0
      for (const commit of commits) {
        pageSize = replayCommit(logFd, commit, readPage, (page) =>
          writeSync(
            outFd,
            page.data,
            0,
            page.data.length,
            (page.pageNumber - 1) * page.data.length,
          ),
        )
      }
      ftruncateSync(outFd, target.databasePages * pageSize)
    } finally {
      closeSync(logFd)
      closeSync(outFd)
    }
  }

  /** Index of the oldest point still in the recovery window: the state as the window opens. */
  private firstVisible(): number {
    const cutoff = this.now() - this.retentionMs
    let low = 0
    let high = this.points.length - 1
    while (low < high) {
      const mid = Math.ceil((low + high) / 2)
      if ((this.points[mid]?.time ?? Infinity) <= cutoff) low = mid
      else high = mid - 1
    }
    return low
  }

  /** The points inside the recovery window, oldest first. */
  visiblePoints(): PointRecord[] {
    return this.points.slice(this.firstVisible())
  }

  get windowStart(): number {
    return this.now() - this.retentionMs
  }

  get retentionDescription(): string {
    const days = this.retentionMs / DAY_MS
    return Number.isInteger(days) ? `${days}-day` : `${this.retentionMs} ms`
  }

  bookmarkOf(point: PointRecord): string {
    return formatBookmark(this.id, point)
  }

  /** The point `bookmark` names; throws, saying why, unless it is in this history's window. */
  resolve(bookmark: unknown): PointRecord {
    const target = parseBookmark(this.id, bookmark)
    const point =
      target.seq === null
        ? this.points.findLast((p) => p.timeline === target.timeline)
        : this.points.find((p) => p.seq === target.seq && p.timeline === target.timeline)
    if (point === undefined) {
      throw new Error(
        `Bookmark ${bookmark as string} names a point this object's history does not hold`,
      )
    }
    if (point.seq < (this.points[this.firstVisible()]?.seq ?? 0)) {
      throw new RangeError(
        `Bookmark ${bookmark as string} is outside the ${this.retentionDescription} recovery window (it is from ${new Date(point.time).toISOString()})`,
      )
    }
    return point
  }

  /** Deletes the segments that hold only points older than the recovery window. */
  prune(): void {
    const oldestKept = this.points[this.firstVisible()]?.seq ?? 0
    while ((this.segments[1]?.base.seq ?? Infinity) <= oldestKept) {
      const [dropped] = this.segments.splice(0, 1)
      if (dropped === undefined) break
      rmSync(join(this.dir, `${seqName(dropped.base.seq)}.log`), { force: true })
      rmSync(join(this.dir, `${seqName(dropped.base.seq)}.db`), { force: true })
    }
    const firstSeq = this.segments[0]?.base.seq ?? 0
    const firstKept = this.points.findIndex((p) => p.seq >= firstSeq)
    if (firstKept > 0) this.points.splice(0, firstKept)
  }

  /** Whether the newest segment is the restore to `bookmark`, with nothing committed since. */
  endsWithRestoreTo(bookmark: string): boolean {
    const last = this.segments.at(-1)
    return (
      last !== undefined &&
      last.commits.length === 0 &&
      last.base.origin &&
      last.base.note === restoreNote(bookmark)
    )
  }

  get scheduledRestore(): string | null {
    const file = join(this.dir, 'restore')
    return existsSync(file) ? readFileSync(file, 'utf8').trim() : null
  }

  scheduleRestore(bookmark: string): void {
    writeFileDurably(join(this.dir, 'restore'), (tmp) => writeFileSync(tmp, bookmark))
    syncDirectory(this.dir)
  }

  clearScheduledRestore(): void {
    rmSync(join(this.dir, 'restore'), { force: true })
    syncDirectory(this.dir)
  }

  close(): void {
    if (this.logFd !== null) closeSync(this.logFd)
    this.logFd = null
    this.forgetReferences()
  }
}

const RESTORE_NOTE_PREFIX = 'restored to '

/** How a restore point describes itself in the history list. */
export function restoreNote(bookmark: string): string {
  return `${RESTORE_NOTE_PREFIX}${bookmark}`
}

/** The bookmark a restore point's note names; undefined for any other note. */
export function restoredBookmark(note: string | undefined): string | undefined {
  return note?.startsWith(RESTORE_NOTE_PREFIX) ? note.slice(RESTORE_NOTE_PREFIX.length) : undefined
}

function pointOf(record: PointRecord): PointRecord {
  const point: PointRecord = { seq: record.seq, time: record.time, timeline: record.timeline }
  if (record.note !== undefined) point.note = record.note
  return point
}
