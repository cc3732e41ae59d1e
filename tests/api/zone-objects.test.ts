// Zones live in stateful objects: one SQLite file per zone under <dataDir>/objects/zone/, and the
// account's index in its own object.

import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
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
})
