import { openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { historyDirectory } from '../../../src-main/storage/history'
import { replayCommit, scanSegment } from '../../../src-main/storage/history/log'
import { TestClock, dump, openSession, tempDatabase, type Session } from './session'

let database: { file: string; cleanup: () => void }
let clock: TestClock
let session: Session | null = null

/** Opens the database as the storage core does, closing it first if it is open. */
const reopen = (): Session => {
  session?.close()
  session = openSession(database.file, { now: clock.now })
  return session
}

beforeEach(() => {
  database = tempDatabase()
  clock = new TestClock()
})
afterEach(() => {
  session?.close()
  session = null
  database.cleanup()
})

interface Mark {
  bookmark: string
  state: Record<string, string[]>
}

function mark(s: Session): Mark {
  return { bookmark: s.history.currentBookmark(), state: dump(s.db) }
}

/** Each mark restores to the state it recorded, with the database intact. */
function expectRestores(marks: Mark[]): void {
  for (const { bookmark, state } of marks) {
    session?.history.scheduleRestore(bookmark)
    const restored = reopen()
    expect(restored.restored).toBe(true)
    expect(dump(restored.db)).toEqual(state)
    expect(restored.db.pragma('integrity_check', { simple: true })).toBe('ok')
  }
}

const logsOf = (databaseFile: string): string[] =>
  readdirSync(historyDirectory(databaseFile))
    .filter((name) => name.endsWith('.log'))
    .map((name) => join(historyDirectory(databaseFile), name))

/**
 * Rewrites a log segment as history wrote it before it stored differences: each commit record
 * (kind 1) holds its pages as whole images after its header and note.
 */
function rewriteWithWholeImages(logPath: string): void {
  const log = readFileSync(logPath)
  const snapshot = readFileSync(logPath.replace(/\.log$/, '.db'))
  const replayed = new Map<number, Buffer>()
  const pageAt = (pageNumber: number, pageSize: number): Buffer => {
    const page = Buffer.alloc(pageSize)
    const kept = replayed.get(pageNumber)
    if (kept !== undefined) kept.copy(page)
    else snapshot.copy(page, 0, (pageNumber - 1) * pageSize, pageNumber * pageSize)
    return page
  }
  const fd = openSync(logPath, 'r')
  const parts: Buffer[] = []
  let copied = 0
  for (const record of scanSegment(logPath).records) {
    if (record.kind !== 'commit') continue
    parts.push(log.subarray(copied, record.offset))
    const header = Buffer.from(log.subarray(record.offset, record.offset + 57))
    const note = log.subarray(record.offset + 57, record.offset + 57 + header.readUInt32LE(53))
    const images: Buffer[] = []
    replayCommit(fd, record, pageAt, (page) => {
      replayed.set(page.pageNumber, Buffer.from(page.data))
      const entry = Buffer.alloc(4 + page.data.length)
      entry.writeUInt32LE(page.pageNumber, 0)
      page.data.copy(entry, 4)
      images.push(entry)
    })
    header.writeUInt8(1, 4)
    header.writeUInt32LE(
      header.length + note.length + images.reduce((sum, image) => sum + image.length, 0),
      0,
    )
    parts.push(header, note, ...images)
    copied = record.offset + record.length
  }
  parts.push(log.subarray(copied))
  writeFileSync(logPath, Buffer.concat(parts))
}

const commitFormats = (databaseFile: string): boolean[] =>
  logsOf(databaseFile).flatMap((path) =>
    scanSegment(path).records.flatMap((record) =>
      record.kind === 'commit' ? [record.encoded] : [],
    ),
  )

/** Writes `sql` to the database before its history begins, so that its first snapshot holds it. */
function populate(sql: string): void {
  const db = new Database(database.file)
  db.exec(sql)
  db.close()
}

it('restores exactly from a log whose older records hold whole page images', () => {
  populate(`CREATE TABLE rules (id INTEGER PRIMARY KEY, expression TEXT, action TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO rules SELECT i, 'ip.src eq 10.0.' || (i / 256) || '.' || (i % 256), 'block' FROM n`)
  const s = reopen()
  const marks: Mark[] = []
  for (let i = 0; i < 40; i++) {
    clock.advance(1)
    s.write(`UPDATE rules SET action = 'challenge' WHERE id = ${1 + i * 7}`)
    if (i % 10 === 0) marks.push(mark(s))
  }
  s.close()
  session = null
  for (const log of logsOf(database.file)) rewriteWithWholeImages(log)
  expect(new Set(commitFormats(database.file))).toEqual(new Set([false]))

  // the same pages again: their references are what the older records hold, not the snapshot
  let later = reopen()
  for (let i = 0; i < 40; i++) {
    clock.advance(1)
    later.write(`UPDATE rules SET action = 'log' WHERE id = ${1 + i * 7}`)
    if (i === 20) later = reopen()
    if (i % 10 === 5) marks.push(mark(later))
  }
  marks.push(mark(later))
  expect(new Set(commitFormats(database.file))).toEqual(new Set([false, true]))
  expectRestores(marks)
})

it('keeps small commits small: 300 one-row updates cost far less than their pages', () => {
  const s = reopen()
  s.write(`CREATE TABLE rules (id INTEGER PRIMARY KEY, expression TEXT, hits INTEGER)`)
  clock.advance(1)
  s.write(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
           INSERT INTO rules SELECT i, 'http.request.uri.path contains "/admin/' || i || '"', 0 FROM n`)
  s.history.checkpoint()
  const historyBytes = (): number =>
    readdirSync(historyDirectory(database.file)).reduce(
      (sum, name) => sum + statSync(join(historyDirectory(database.file), name)).size,
      0,
    )
  const before = historyBytes()
  const commits = 300
  for (let i = 0; i < commits; i++) {
    clock.advance(1)
    s.write(`UPDATE rules SET hits = hits + 1 WHERE id = ${1 + ((i * 37) % 200)}`)
  }
  s.history.checkpoint()
  expect(s.history.list()).toHaveLength(commits + 3)
  // whole page images would take at least commits × 4 KiB
  expect(historyBytes() - before).toBeLessThan((commits * 4096) / 10)
})

it('restores exactly when a transaction wrote more pages than history keeps references for', () => {
  populate(`CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
            INSERT INTO blobs SELECT i, zeroblob(3000) FROM n`)
  const s = reopen()
  s.write(`UPDATE blobs SET data = randomblob(3000)`)
  const marks = [mark(s)]
  // the first rows' pages were dropped from memory: neither the snapshot nor kept, so stored whole
  for (let i = 1; i <= 30; i++) {
    clock.advance(1)
    s.write(`UPDATE blobs SET data = randomblob(3000) WHERE id = ${i * 7}`)
    if (i % 10 === 0) marks.push(mark(s))
  }
  reopen()
  expectRestores(marks)
})
