// Security events apart from the zone's history: recording writes no history point and a restore
// keeps them; replays record only when asked; the log's caps drop the oldest events and count
// them; the log survives a restart and prunes by age; and events a zone kept in its own object
// (the layout before) are handed over to its log, with History listing configuration only.

import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openZoneObjects, type ZoneObjects } from '../../src-main/zones/registry'
import { EVENT_RETENTION_MS, type NewSecurityEvent } from '../../src-main/zones/events'
import { FakeClock } from '../unit/objects/fake-clock'
import { removeDataDir, type Running, simulate, startService, zoneExecuting } from './harness'

const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const ATTACKS = readFileSync(
  resolve(import.meta.dirname, '../fixtures/traffic/attacks.ndjson'),
  'utf8',
)
const DAY_MS = 24 * 3600 * 1000

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

const workbench = (zoneId: string, path: string) =>
  `${running.origin}/workbench/v1/zones/${zoneId}/${path}`

/** A request the general ruleset blocks, on a path of its own. */
const attack = (path: string) => ({
  method: 'GET',
  url: `https://shop.example.com${path}?q=<script>alert(1)</script>`,
})

async function replay(zoneId: string, query = '') {
  const answer = await running.call(`${workbench(zoneId, 'replay')}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: ATTACKS,
  })
  expect(answer.status).toBe(200)
  return answer.body.result
}

async function events(zoneId: string, query = 'limit=10000') {
  const answer = await running.call(`${workbench(zoneId, 'events')}?${query}`)
  expect(answer.status).toBe(200)
  return answer.body
}

const history = async (zoneId: string, query = '') =>
  (await running.call(workbench(zoneId, `history${query}`))).body.result

const settings = (zoneId: string, json?: unknown) =>
  running.call(
    workbench(zoneId, 'events/settings'),
    json === undefined ? {} : { method: 'PATCH', json },
  )

describe('events apart from history', () => {
  it('150 recorded simulations leave the zone’s history as it was', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    await running.call(`/zones/${zone}`, { method: 'PATCH', json: { paused: true } })
    const before = await history(zone)
    expect(before.map((p: any) => p.note)).toEqual([
      'Zone paused: false → true',
      expect.any(String),
      expect.stringContaining('created'),
    ])
    for (let i = 0; i < 150; i++) await simulate(running, zone, attack(`/p${i}`))
    expect(await history(zone)).toEqual(before)
    expect(await history(zone, '?limit=2')).toEqual(before.slice(0, 2))
    expect((await events(zone)).result).toHaveLength(150)
  })

  it('records a replay’s events only with ?record=true, and a simulation’s unless ?record=false', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    expect((await replay(zone)).outcomes.blocked).toBeGreaterThan(0)
    expect((await events(zone)).result).toEqual([])
    await simulate(running, zone, attack('/quiet'), '?record=false')
    expect((await events(zone)).result).toEqual([])

    const points = await history(zone)
    const summary = await replay(zone, '?record=true')
    const recorded = (await events(zone)).result
    const eventsOfRules = summary.rules.reduce((n: number, rule: any) => n + rule.requests, 0)
    expect(recorded).toHaveLength(eventsOfRules)
    expect(await history(zone)).toEqual(points)
  })

  it('keeps the events recorded after a point the zone is restored to', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const [point] = await history(zone)
    await running.call(`/zones/${zone}`, { method: 'PATCH', json: { paused: true } })
    await simulate(running, zone, attack('/after-the-point'))
    const restored = await running.call(workbench(zone, 'history/restore'), {
      method: 'POST',
      json: { bookmark: point.bookmark },
    })
    expect(restored.status).toBe(200)
    expect((await running.call(`/zones/${zone}`)).body.result.paused).toBe(false)
    expect((await events(zone)).result.map((e: any) => e.path)).toEqual(['/after-the-point'])
  })
})

describe('the event log’s caps', () => {
  it('drops the oldest events past max_events and counts them', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const status = (await settings(zone)).body.result
    expect(status).toEqual({
      max_events: 100_000,
      max_bytes: 64 * 1024 * 1024,
      stored_events: 0,
      stored_bytes: expect.any(Number),
      dropped: 0,
    })
    expect((await settings(zone, { max_events: 5 })).body.result).toMatchObject({
      max_events: 5,
      dropped: 0,
    })
    for (let i = 0; i < 8; i++) await simulate(running, zone, attack(`/e${i}`))
    const answer = await events(zone)
    expect(answer.result.map((e: any) => e.path)).toEqual(['/e7', '/e6', '/e5', '/e4', '/e3'])
    expect(answer.result_info).toEqual({ count: 5, stored_events: 5, dropped: 3 })

    // A lowered cap drops at once; null puts the default back.
    expect((await settings(zone, { max_events: 2 })).body.result).toMatchObject({
      stored_events: 2,
      dropped: 6,
    })
    expect((await events(zone)).result.map((e: any) => e.path)).toEqual(['/e7', '/e6'])
    expect((await settings(zone, { max_events: null })).body.result.max_events).toBe(100_000)
  })

  it('drops the oldest events past max_bytes', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const maxBytes = 65_536
    await settings(zone, { max_bytes: maxBytes })
    for (let i = 0; i < 4; i++) await replay(zone, '?record=true')
    const status = (await settings(zone)).body.result
    expect(status.dropped).toBeGreaterThan(0)
    expect(status.stored_events).toBeGreaterThan(0)
    expect(status.stored_bytes).toBeLessThanOrEqual(maxBytes)
    // Ids are given in recording order: what is left is the newest, with nothing missing.
    const kept = (await events(zone)).result
    const total = status.stored_events + status.dropped
    expect(kept.map((e: any) => e.id)).toEqual(
      Array.from({ length: status.stored_events }, (_, i) => total - i),
    )
  })

  it('refuses caps out of bounds and unknown settings with 400, changing nothing', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const before = (await settings(zone)).body.result
    for (const body of [
      { max_bytes: 1000 },
      { max_events: 0 },
      { max_events: 10, max_bytes: 'big' },
      { keep: 'all' },
    ]) {
      const refused = await settings(zone, body)
      expect(refused.status).toBe(400)
      expect(refused.body.success).toBe(false)
    }
    expect((await settings(zone)).body.result).toEqual(before)
    const unknown = await running.call(workbench('0'.repeat(32), 'events/settings'))
    expect(unknown.status).toBe(404)
    expect(unknown.body.errors[0].code).toBe(7003)
  })
})

describe('the event log across restarts and time', () => {
  it('keeps events, caps and the dropped count across a service restart', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    await settings(zone, { max_events: 3 })
    for (let i = 0; i < 4; i++) await simulate(running, zone, attack(`/r${i}`))
    const before = await events(zone)
    await running.stop()
    running = await startService(running.dataDir)
    const after = await events(zone)
    expect(after).toEqual(before)
    expect(after.result_info.dropped).toBe(1)
    expect((await settings(zone)).body.result.max_events).toBe(3)
  })

  it('prunes events past the retention period by the log’s alarm', async () => {
    const dataDir = `${running.dataDir}-pruning`
    const clock = new FakeClock(Date.UTC(2025, 0, 1))
    const objects = openZoneObjects(dataDir, clock)
    try {
      const log = objects.events.idFromName('a-zone')
      const event = (path: string): NewSecurityEvent => ({
        time: clock.now(),
        ray_id: path,
        method: 'GET',
        host: 'example.com',
        path,
        client_ip: null,
        country: null,
        outcome: 'blocked',
        source: 'firewallManaged',
        ruleset_id: GENERAL,
        rule_id: 'rule',
        action: 'block',
        description: 'a rule',
      })
      await objects.events.call(log, (l) => l.record([event('/old')]))
      await clock.advance(10 * DAY_MS)
      await objects.events.call(log, (l) => l.record([event('/newer')]))
      const paths = () => objects.events.call(log, (l) => l.query({ limit: 10 }).map((e) => e.path))
      await clock.advance(EVENT_RETENTION_MS - 10 * DAY_MS + 1)
      expect(await paths()).toEqual(['/newer'])
      await clock.advance(10 * DAY_MS)
      expect(await paths()).toEqual([])
      expect(await objects.events.call(log, (l) => l.status().stored_events)).toBe(0)
    } finally {
      await closeAll(objects)
      removeDataDir(dataDir)
    }
  })
})

async function closeAll(objects: ZoneObjects): Promise<void> {
  await Promise.all(Object.values(objects).map((namespace) => namespace.close()))
}

describe('events kept in the zone’s own object (the layout before)', () => {
  // The zone's table as the workbench created it before events had an object of their own.
  const LEGACY_TABLE = [
    `CREATE TABLE IF NOT EXISTS security_events (
       id INTEGER PRIMARY KEY, time INTEGER NOT NULL, ray_id TEXT NOT NULL, method TEXT NOT NULL,
       host TEXT NOT NULL, path TEXT NOT NULL, client_ip TEXT, country TEXT, outcome TEXT NOT NULL,
       source TEXT NOT NULL, ruleset_id TEXT, rule_id TEXT NOT NULL, action TEXT NOT NULL,
       description TEXT NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS security_events_time ON security_events (time)`,
  ]
  const LEGACY_NOTE = 'Security events recorded'

  /** 150 points that each recorded two events into the zone's own table, as before. */
  async function recordTheOldWay(objects: ZoneObjects, zoneId: string, from: number) {
    const id = objects.zones.idFromName(zoneId)
    for (let i = from; i < from + 150; i++) {
      await objects.zones.inspect(id, (storage) => {
        storage.describeChange(LEGACY_NOTE)
        if (i === 0) for (const step of LEGACY_TABLE) storage.sql.exec(step)
        for (const n of [2 * i, 2 * i + 1]) {
          storage.sql.exec(
            'INSERT INTO security_events VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
            Date.now() - 1000 + n,
            `ray${n}`,
            'GET',
            'legacy.example',
            `/legacy/${n}`,
            '192.0.2.1',
            'FR',
            'blocked',
            'firewallManaged',
            GENERAL,
            'rule',
            'block',
            'an older event',
          )
        }
      })
      // Each its own commit, and so its own point.
      await objects.zones.inspect(id, (storage) => storage.sync())
    }
  }

  it('hands them over to the log, lists configuration points only, and keeps them across a restore', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    await running.stop()
    const objects = openZoneObjects(running.dataDir)
    const zoneObject = objects.zones.idFromName(zone)
    try {
      await recordTheOldWay(objects, zone, 0)
      await objects.zones.call(zoneObject, (z) =>
        z.change(() => z.update({ paused: true, modified_on: new Date().toISOString() })),
      )
      await objects.zones.inspect(zoneObject, (storage) => storage.sync())
      await recordTheOldWay(objects, zone, 150)
    } finally {
      await closeAll(objects)
    }
    running = await startService(running.dataDir)

    // History: the configuration points only, however many event points are newer.
    const points = await history(zone)
    expect(points.map((p: any) => p.note)).toEqual([
      'Zone paused: false → true',
      expect.any(String),
      expect.stringContaining('created'),
    ])
    expect(await history(zone, '?limit=2')).toEqual(points.slice(0, 2))
    expect(
      await history(zone, `?limit=1&before=${encodeURIComponent(points[0].bookmark)}`),
    ).toEqual(points.slice(1, 2))

    const moved = await events(zone)
    expect(moved.result).toHaveLength(600)
    expect(moved.result[0]).toMatchObject({
      path: '/legacy/599',
      ray_id: 'ray599',
      host: 'legacy.example',
      client_ip: '192.0.2.1',
      country: 'FR',
      outcome: 'blocked',
      action: 'block',
    })
    expect(await running.service.zones.inZone(zone, (z) => z.holdsLegacyEvents())).toBe(false)
    expect(await history(zone)).toEqual(points)

    // A point from before the handover brings the table back; its events are not taken twice.
    const restored = await running.call(workbench(zone, 'history/restore'), {
      method: 'POST',
      json: { bookmark: points[0].bookmark },
    })
    expect(restored.status).toBe(200)
    expect(await running.service.zones.inZone(zone, (z) => z.holdsLegacyEvents())).toBe(true)
    expect((await events(zone)).result).toEqual(moved.result)
    expect(await running.service.zones.inZone(zone, (z) => z.holdsLegacyEvents())).toBe(false)
  })
})
