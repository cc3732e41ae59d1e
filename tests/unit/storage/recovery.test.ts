import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import type { Storage } from '../../../src-main/storage'
import { newFile, nextTurn, open } from './temp-storage'

const DAY = 24 * 60 * 60 * 1000

// Everything a user could see: every SQL object with its rows, and every key with its value.
async function dump(storage: Storage): Promise<unknown> {
  const tables = storage.sql
    .exec(
      "SELECT name, sql FROM sqlite_master WHERE name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY name",
    )
    .toArray()
  const rows = tables
    .filter((t) => typeof t.sql === 'string' && t.sql.startsWith('CREATE TABLE'))
    .map((t) => storage.sql.exec(`SELECT * FROM "${String(t.name)}" ORDER BY rowid`).toArray())
  return { tables, rows, kv: [...(await storage.list())] }
}

describe('point-in-time recovery', () => {
  it('restores SQL and key-value state across schema changes, and the undo bookmark reverses it', async () => {
    let time = Date.UTC(2026, 0, 1)
    const now = (): number => time
    const file = newFile()
    const storage = await open('sql', file, now)
    storage.sql.exec('CREATE TABLE rules (id INTEGER PRIMARY KEY, expression TEXT)')
    storage.sql.exec("INSERT INTO rules (expression) VALUES ('ip.src eq 1.1.1.1')")
    await storage.put('settings', { mode: 'block' })
    await nextTurn()
    time += 1000
    const early = await storage.getCurrentBookmark()
    const earlyState = await dump(storage)

    time += 1000
    storage.sql.exec(
      'ALTER TABLE rules ADD COLUMN paused INTEGER DEFAULT 0; CREATE INDEX by_expression ON rules (expression)',
    )
    storage.sql.exec("UPDATE rules SET expression = 'true'")
    await storage.put({ settings: { mode: 'log' }, extra: [1, 2] })
    await nextTurn()
    const lateState = await dump(storage)
    expect(lateState).not.toEqual(earlyState)
    const late = await storage.getCurrentBookmark()
    expect(early < late).toBe(true)

    const undo = await storage.onNextSessionRestoreBookmark(early)
    storage.close()
    const restored = await open('sql', file, now)
    expect(await dump(restored)).toEqual(earlyState)

    await restored.onNextSessionRestoreBookmark(undo)
    restored.close()
    const undone = await open('sql', file, now)
    expect(await dump(undone)).toEqual(lateState)
  })

  it('finds bookmarks by time within 30 days only', async () => {
    let time = Date.UTC(2026, 0, 1)
    const storage = await open('sql', newFile(), () => time)
    await storage.put('k', 1)
    await nextTurn()
    time += DAY
    expect(await storage.getBookmarkForTime(new Date(time))).toBe(
      await storage.getCurrentBookmark(),
    )
    await expect(storage.getBookmarkForTime(time - 31 * DAY)).rejects.toThrow()
  })

  it('is refused on the key-value backend', async () => {
    const storage = await open('kv')
    const refusal =
      "This Durable Object's storage back-end does not implement point-in-time recovery."
    await expect(storage.getBookmarkForTime(Date.now())).rejects.toThrow(refusal)
    await expect(storage.onNextSessionRestoreBookmark('x')).rejects.toThrow(refusal)
  })

  it('archives a large WAL once the object pauses writing', async () => {
    const file = newFile()
    const storage = await open('sql', file)
    const logBytes = (): number =>
      readdirSync(`${file}.history`)
        .filter((name) => name.endsWith('.log'))
        .reduce((sum, name) => sum + statSync(join(`${file}.history`, name)).size, 0)
    const before = logBytes()
    const chunk = 'x'.repeat(100_000)
    for (let i = 0; i < 60; i++) void storage.put(`k${i}`, chunk)
    await storage.sync()
    expect(logBytes()).toBe(before)
    await vi.waitFor(() => expect(logBytes()).toBeGreaterThan(before + 6_000_000), {
      timeout: 10_000,
    })
    expect(await storage.get('k59')).toBe(chunk)
  })
})
