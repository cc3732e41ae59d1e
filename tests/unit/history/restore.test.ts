import { cpSync, existsSync, readdirSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DAY, TestClock, dump, openSession, tempDatabase, type Session } from './session'

let file: string
let cleanup: () => void
let clock: TestClock
let session: Session | null

const open = (): Session => {
  session = openSession(file, { now: clock.now })
  return session
}
const restart = (): Session => {
  session?.close()
  return open()
}

beforeEach(() => {
  ;({ file, cleanup } = tempDatabase())
  clock = new TestClock()
  session = null
})
afterEach(() => {
  session?.close()
  cleanup()
})

describe('restoring to a bookmark', () => {
  it('reproduces SQL tables, key-value and metadata rows and the schema of that moment', () => {
    const s = open()
    s.write(`CREATE TABLE _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
             CREATE TABLE _cf_METADATA (key INTEGER PRIMARY KEY, value BLOB);
             CREATE TABLE rules (id INTEGER PRIMARY KEY, expr TEXT)`)
    s.write(`INSERT INTO _cf_KV VALUES ('a', x'ff0f4901'), ('b', x'ff0f4902');
             INSERT INTO _cf_METADATA VALUES (1, 1795387257721000000);
             INSERT INTO rules (expr) VALUES ('ip.src eq 1.1.1.1')`)
    const expected = dump(s.db)
    const bookmark = s.history.currentBookmark()

    s.write(`ALTER TABLE rules ADD COLUMN action TEXT DEFAULT 'block'`)
    s.write(`UPDATE _cf_KV SET value = x'00' WHERE key = 'a'; DELETE FROM _cf_METADATA`)
    s.history.checkpoint()
    s.write(`CREATE INDEX rules_expr ON rules(expr); DROP TABLE _cf_METADATA`)
    const later = restart()
    later.write(`INSERT INTO rules (expr) VALUES ('true')`)
    expect(dump(later.db)).not.toEqual(expected)

    later.history.scheduleRestore(bookmark)
    const restored = restart()
    expect(restored.restored).toBe(true)
    expect(dump(restored.db)).toEqual(expected)
    expect(restored.db.pragma('integrity_check', { simple: true })).toBe('ok')
  })

  it('is undone exactly by restoring to the bookmark it returned, including writes made after scheduling', () => {
    const s = open()
    s.write(`CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)`)
    s.write(`INSERT INTO t VALUES ('x', 'old')`)
    const early = s.history.currentBookmark()
    s.write(`UPDATE t SET v = 'new'; CREATE TABLE extra (a)`)
    const undo = s.history.scheduleRestore(early)
    s.write(`INSERT INTO t VALUES ('late', 'written after scheduling')`)
    const beforeRestore = dump(s.db)

    const restored = restart()
    expect(dump(restored.db)).not.toEqual(beforeRestore)
    restored.history.scheduleRestore(undo)
    const undone = restart()
    expect(dump(undone.db)).toEqual(beforeRestore)
  })

  it('keeps the restore in the history list, after the point it undoes', () => {
    const s = open()
    s.write(`CREATE TABLE t (a)`, 'create t')
    const target = s.history.currentBookmark()
    s.write(`INSERT INTO t VALUES (1)`, 'insert 1')
    const undo = s.history.scheduleRestore(target)
    const restored = restart()
    const [restorePoint, last] = restored.history.list()
    expect(restorePoint?.note).toBe(`restored to ${target}`)
    expect(last?.note).toBe('insert 1')
    expect(undo > (last?.bookmark ?? '')).toBe(true)
    expect(undo < (restorePoint?.bookmark ?? '')).toBe(true)
  })

  it('survives a restart between scheduling and applying', () => {
    const s = open()
    s.write(`CREATE TABLE t (a); INSERT INTO t VALUES (1)`)
    const expected = dump(s.db)
    const bookmark = s.history.currentBookmark()
    s.write(`INSERT INTO t VALUES (2)`)
    s.history.scheduleRestore(bookmark)
    // A process that dies without closing anything: only what reached the files is left.
    s.history.close()
    s.db.close()
    session = null
    expect(dump(open().db)).toEqual(expected)
  })
})

describe('checkpoints', () => {
  it('restart the WAL: commits after one overwrite it and are archived once, crash or not', () => {
    const s = open()
    s.write(`CREATE TABLE t (n INTEGER PRIMARY KEY, pad BLOB)`)
    // Enough for the checkpoint to take a snapshot too (the log outgrew 8 MB).
    for (let n = 1; n <= 20; n++)
      s.write(`INSERT INTO t VALUES (${n}, randomblob(450000))`, `row ${n}`)
    s.history.checkpoint()
    expect(readdirSync(`${file}.history`).filter((name) => name.endsWith('.db'))).toHaveLength(2)
    const points = s.history.list().length
    // What a crash right now would leave: the WAL keeps its checkpointed frames.
    const crashed = `${file}.crashed`
    for (const suffix of ['', '-wal', '.history'])
      if (existsSync(file + suffix)) cpSync(file + suffix, crashed + suffix, { recursive: true })
    s.write(`INSERT INTO t VALUES (21, x'00')`, 'row 21')
    expect(s.history.list()).toHaveLength(points + 1)

    const afterCrash = openSession(crashed, { now: clock.now })
    try {
      expect(afterCrash.history.list()).toHaveLength(points)
      afterCrash.write(`INSERT INTO t VALUES (22, x'00')`, 'row 22')
      const listed = afterCrash.history.list()
      expect(listed.map((p) => p.note).slice(0, 3)).toEqual(['row 22', 'row 20', 'row 19'])
      const row10 = listed.find((p) => p.note === 'row 10')?.bookmark ?? ''
      afterCrash.history.scheduleRestore(row10)
    } finally {
      afterCrash.close()
    }
    const restored = openSession(crashed, { now: clock.now })
    try {
      expect(restored.db.prepare('SELECT max(n) FROM t').pluck().get()).toBe(10)
    } finally {
      restored.close()
    }
  })
})

describe('bookmarks', () => {
  it('sort in time order as plain strings and look like the vendor’s', () => {
    let s = open()
    const bookmarks = [s.history.currentBookmark()]
    for (let i = 0; i < 5; i++) {
      s.write(`CREATE TABLE t${i} (a)`)
      bookmarks.push(s.history.currentBookmark())
      if (i === 2) s = restart()
    }
    for (const b of bookmarks)
      expect(b).toMatch(/^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/)
    expect([...bookmarks].sort()).toEqual(bookmarks)
    expect(new Set(bookmarks).size).toBe(bookmarks.length)
  })

  it('name the same point the same way every time', () => {
    const s = open()
    s.write(`CREATE TABLE t (a)`)
    const first = s.history.currentBookmark()
    expect(s.history.currentBookmark()).toBe(first)
    expect(restart().history.currentBookmark()).toBe(first)
  })

  it('are refused when malformed or from another database', () => {
    const s = open()
    const other = tempDatabase()
    const foreign = openSession(other.file, { now: clock.now })
    foreign.write(`CREATE TABLE t (a)`)
    const foreignBookmark = foreign.history.currentBookmark()
    foreign.close()
    other.cleanup()

    expect(() => s.history.scheduleRestore('yesterday')).toThrow(
      /Invalid bookmark "yesterday": expected the form/,
    )
    expect(() => s.history.scheduleRestore(foreignBookmark)).toThrow(
      `Bookmark ${foreignBookmark} does not belong to this object's storage`,
    )
    const own = s.history.currentBookmark()
    const tampered = own.replace(/^0{8}-0{8}-0{8}/, '00000000-00000000-00000009')
    expect(() => s.history.scheduleRestore(tampered)).toThrow(/does not belong/)
  })
})

describe('bookmarkForTime', () => {
  it('picks the latest state committed at or before the time', () => {
    const s = open()
    s.write(`CREATE TABLE t (a)`)
    clock.advance(1000)
    const atOne = clock.time
    s.write(`INSERT INTO t VALUES (1)`)
    const one = dump(s.db)
    clock.advance(1000)
    s.write(`INSERT INTO t VALUES (2)`)
    clock.advance(1000)
    const bookmark = s.history.bookmarkForTime(atOne + 999)
    expect(s.history.bookmarkForTime(atOne)).toBe(bookmark)
    s.history.scheduleRestore(bookmark)
    expect(dump(restart().db)).toEqual(one)
  })

  it('refuses times outside the last 30 days', () => {
    const s = open()
    s.write(`CREATE TABLE t (a)`)
    clock.advance(40 * DAY)
    expect(() => s.history.bookmarkForTime(clock.time - 31 * DAY)).toThrow(
      /the time must be within the 30-day recovery window, which began at/,
    )
    expect(() => s.history.bookmarkForTime(clock.time + 1000)).toThrow(/in the future/)
    // 29 days ago nothing changed, so the state then is the one committed 40 days ago.
    expect(s.history.bookmarkForTime(clock.time - 29 * DAY)).toBe(s.history.currentBookmark())
  })
})

describe('retention', () => {
  it('forgets points older than 30 days but keeps the state the window starts with', () => {
    const s = open()
    s.write(`CREATE TABLE t (a)`, 'old 1')
    const old = s.history.currentBookmark()
    s.write(`INSERT INTO t VALUES (1)`, 'old 2')
    const windowStartState = dump(s.db)
    clock.advance(31 * DAY)
    s.write(`INSERT INTO t VALUES (2)`, 'recent')
    s.history.checkpoint()
    expect(s.history.list().map((p) => p.note)).toEqual(['recent', 'old 2'])
    expect(() => s.history.scheduleRestore(old)).toThrow(/outside the 30-day recovery window/)
    s.history.scheduleRestore(s.history.bookmarkForTime(clock.time - 30 * DAY))
    expect(dump(restart().db)).toEqual(windowStartState)
  })
})

describe('list', () => {
  it('shows commits newest first with their times and notes, paged with before/limit', () => {
    const s = open()
    s.write(`CREATE TABLE t (a)`, 'create')
    clock.advance(5)
    s.write(`INSERT INTO t VALUES (1)`)
    clock.advance(5)
    s.write(`INSERT INTO t VALUES (2)`, 'second row')
    const all = s.history.list()
    expect(all.map((p) => p.note)).toEqual(['second row', undefined, 'create', undefined])
    expect(all.map((p) => p.time)).toEqual([
      clock.time,
      clock.time - 5,
      clock.time - 10,
      clock.time - 10,
    ])
    expect(all[0]?.bookmark).toBe(s.history.currentBookmark())
    expect(s.history.list({ before: all[1]?.bookmark, limit: 1 })).toEqual([all[2]])
  })
})
