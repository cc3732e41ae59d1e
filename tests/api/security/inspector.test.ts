// The Objects screen's SQL cannot write, hang or starve the service (issue 15): statements that
// could change the object or its connection are refused before anything runs, a query with no end
// is stopped at its budget while the API keeps answering, and the zone's history is untouched.

import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '@shared/api/errors'
import { ObjectInspector } from '../../../src-main/zones/inspector'
import { openZoneObjects, ZoneRegistry } from '../../../src-main/zones/registry'
import { startService, type Running } from '../harness'

const RUNAWAY =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c'
const ATTACH_TARGET = join(mkdtempSync(join(tmpdir(), 'zw-attach-')), 'x.sqlite')
const REFUSED = [
  'PRAGMA wal_autocheckpoint=1',
  'PRAGMA max_page_count=1',
  'PRAGMA locking_mode=NORMAL',
  'PRAGMA journal_size_limit=0',
  `ATTACH DATABASE '${ATTACH_TARGET}' AS x`,
  "SELECT load_extension('x')",
  "INSERT INTO zone (id, name) VALUES ('0', 'x')",
  "SELECT 1; UPDATE zone SET plan = 'free'",
  'VACUUM',
]
/** The settings every object's connection is opened with (storage's configureConnection). */
const WRITER_SETTINGS = [
  'locking_mode',
  'journal_mode',
  'synchronous',
  'wal_autocheckpoint',
  'journal_size_limit',
  'max_page_count',
  'foreign_keys',
  'recursive_triggers',
  'query_only',
]

async function failure(answer: Promise<unknown>): Promise<ApiError> {
  try {
    await answer
  } catch (error) {
    if (error instanceof ApiError) return error
    throw error
  }
  throw new Error('the query was answered')
}

/** The commands of this test process's children still running, but for ps itself. */
function childProcesses(): string[] {
  const listed = execFileSync('ps', ['-A', '-o', 'ppid=,comm='], { encoding: 'utf8' })
  return listed
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([ppid, command]) => ppid === String(process.pid) && command !== 'ps')
    .map(([, command]) => command ?? '')
}

describe('inspector over the running service', () => {
  let running: Running
  let zoneId: string
  let objectId: string
  const query = (sql: string) =>
    running.service.bridge.queryObject({ namespace: 'zone', objectId, query: sql })
  const history = async () =>
    (await running.call(`${running.origin}/workbench/v1/zones/${zoneId}/history`)).body.result

  beforeAll(async () => {
    running = await startService()
    const created = await running.call('/zones', {
      method: 'POST',
      json: { name: 'inspected.example', plan: 'pro' },
    })
    zoneId = created.body.result.id
    const objects = await running.service.bridge.listObjects({})
    objectId = objects.find((o) => o.label === 'Zone inspected.example')!.objectId
  })
  afterAll(() => running.stop())

  it('stops a recursive CTE with no bound at its budget, while GET /zones answers within a second', async () => {
    let settled = false
    const runaway = failure(query(RUNAWAY)).finally(() => {
      settled = true
    })
    const latencies: number[] = []
    while (!settled) {
      const started = performance.now()
      const listed = await running.call('/zones')
      latencies.push(performance.now() - started)
      expect(listed.status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    const stopped = await runaway
    expect(stopped.status).toBe(400)
    expect(stopped.message).toMatch(/^Query stopped after 5 s/)
    // The service answered throughout the query, not only once it ended.
    expect(latencies.length).toBeGreaterThan(10)
    expect(Math.max(...latencies)).toBeLessThan(1000)
    expect(childProcesses()).toEqual([])
  })

  it('runs queries one at a time: four wait their turn and a fifth is told to slow down', async () => {
    const runaway = failure(query(RUNAWAY))
    // Let the runaway query take its turn, so the next four wait behind it.
    await new Promise(setImmediate)
    const waiting = [1, 2, 3, 4].map((n) => query(`SELECT ${n}`))
    const fifth = await failure(query('SELECT 5'))
    expect([fifth.status, fifth.code]).toEqual([429, 971])
    expect(fifth.message).toMatch(/^Please wait and consider throttling your request speed/)
    expect((await runaway).message).toMatch(/^Query stopped/)
    expect((await Promise.all(waiting)).map((answer) => answer.rows)).toEqual([
      [[1]],
      [[2]],
      [[3]],
      [[4]],
    ])
  })

  it.each(REFUSED)('refuses %j with a 400, running nothing', async (sql) => {
    const refused = await failure(query(sql))
    expect([refused.status, refused.code]).toEqual([400, 1001])
    expect(refused.message).toMatch(/^Only read-only SQL runs here: /)
    expect(existsSync(ATTACH_TARGET)).toBe(false)
  })

  it("leaves the zone's history as it was: each later change is a point of its own", async () => {
    const before = await history()
    for (const sql of REFUSED) await failure(query(sql))
    const plans = ['business', 'enterprise', 'pro']
    for (const plan of plans) {
      const changed = await running.call(`/zones/${zoneId}`, { method: 'PATCH', json: { plan } })
      expect(changed.status).toBe(200)
    }
    const after = await history()
    expect(after).toHaveLength(before.length + plans.length)
    expect(after.slice(plans.length)).toEqual(before)
    expect((await query('SELECT plan FROM zone')).rows).toEqual([['pro']])
  })
})

describe("the object's own connection", () => {
  it('keeps the settings it was opened with, whatever the inspector is asked', async () => {
    const objects = openZoneObjects(mkdtempSync(join(tmpdir(), 'zw-inspector-')))
    const zone = await new ZoneRegistry(objects).create({ name: 'settings.example', plan: 'pro' })
    const id = objects.zones.idFromName(zone.id)
    const settings = () =>
      objects.zones.inspect(id, (storage) =>
        WRITER_SETTINGS.map((name) => [name, storage.db.pragma(name, { simple: true })]),
      )
    const before = await settings()
    expect(Object.fromEntries(before)).toMatchObject({
      locking_mode: 'exclusive',
      wal_autocheckpoint: 0,
    })
    const inspector = new ObjectInspector(objects)
    for (const sql of REFUSED) await failure(inspector.query('zone', id.toString(), sql))
    // What does run sees a database of its own: an in-memory copy, not the object's file.
    const databases = await inspector.query('zone', id.toString(), 'PRAGMA database_list')
    expect(databases.rows).toEqual([[0, 'main', '']])
    expect(await settings()).toEqual(before)
    await Promise.all([objects.accounts.close(), objects.zones.close()])
  })
})
