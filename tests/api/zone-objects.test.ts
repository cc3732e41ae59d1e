// Zones live in stateful objects: one SQLite file per zone under <dataDir>/objects/zone/, and the
// account's index in its own object. Data dirs from before (zones in account.sqlite) are imported
// once at start, and the old file is kept aside.

import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startService } from './harness'

const objectFile = (dataDir: string, zoneId: string) =>
  join(dataDir, 'objects', 'zone', `${createHash('sha256').update(zoneId).digest('hex')}.sqlite`)

describe('zones as objects', () => {
  it('keeps each zone in its own database file, holding its record in SQL', async () => {
    const running = await startService()
    const { body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'object.example', plan: 'pro' },
    })
    await running.stop()
    const file = objectFile(running.dataDir, body.result.id)
    expect(existsSync(file)).toBe(true)
    const db = new Database(file, { readonly: true })
    expect(db.prepare('SELECT name, plan FROM zone').get()).toEqual({
      name: 'object.example',
      plan: 'pro',
    })
    db.close()
    expect(
      readdirSync(join(running.dataDir, 'objects', 'account')).some((f) => f.endsWith('.sqlite')),
    ).toBe(true)
  })

  it("removes a deleted zone's database file, log and history, and routes nothing to it", async () => {
    const running = await startService()
    const { body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'gone.example', plan: 'pro' },
    })
    const id = body.result.id as string
    const file = objectFile(running.dataDir, id)
    expect(existsSync(file)).toBe(true)
    const deleted = await running.call(`/zones/${id}`, { method: 'DELETE' })
    expect(deleted.body.result).toEqual({ id })
    // Nothing of the object is left: database, write-ahead log, history log or snapshots.
    const stem = basename(file, '.sqlite')
    expect(readdirSync(dirname(file)).filter((f) => f.startsWith(stem))).toEqual([])
    expect(existsSync(file)).toBe(false)
    const after = await running.call(`/zones/${id}`)
    expect(after.status).toBe(404)
    expect(after.body.errors[0].code).toBe(7003)
    await running.stop()
  })

  it('imports a data dir whose zones are in account.sqlite, once, keeping the old file aside', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zw-import-'))
    const legacy = new Database(join(dataDir, 'account.sqlite'))
    legacy.exec(`CREATE TABLE zones (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
      plan TEXT NOT NULL, waf_product TEXT NOT NULL, paused INTEGER NOT NULL DEFAULT 0,
      created_on TEXT NOT NULL, modified_on TEXT NOT NULL)`)
    const insert = legacy.prepare('INSERT INTO zones VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    const at = '2026-01-02T03:04:05.000000Z'
    insert.run(
      'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      'old-one.example',
      'full',
      'business',
      'previous',
      0,
      at,
      at,
    )
    insert.run(
      'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
      'old-two.example',
      'partial',
      'free',
      'managed_rulesets',
      1,
      at,
      at,
    )
    legacy.close()

    const running = await startService(dataDir)
    const first = await running.call('/zones/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')
    expect(first.body.result).toMatchObject({
      name: 'old-one.example',
      waf_product: 'previous',
      plan: { legacy_id: 'business' },
      created_on: at,
    })
    const second = await running.call('/zones/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb')
    expect(second.body.result).toMatchObject({ paused: true, type: 'partial' })
    expect(existsSync(join(dataDir, 'account.sqlite'))).toBe(false)
    expect(existsSync(join(dataDir, 'account.sqlite.imported'))).toBe(true)
    await running.stop()

    // A second start does not import again (the names would collide if it did).
    const again = await startService(dataDir)
    expect((await again.call('/zones')).body.result_info.total_count).toBe(2)
    await again.stop()
  })
})
