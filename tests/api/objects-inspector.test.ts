// The Objects screen's operations: list the objects behind the workbench, see a zone object's
// tables and alarm, browse keys, run read-only SQL within its budget; anything that could write
// is refused (tests/api/security/inspector.test.ts tries harder).

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type Running } from './harness'

let running: Running
let zoneObjectId: string
beforeAll(async () => {
  running = await startService()
  await running.call('/zones', { method: 'POST', json: { name: 'inspect.example', plan: 'pro' } })
  const objects = await running.service.bridge.listObjects({})
  zoneObjectId = objects.find((o) => o.label === 'Zone inspect.example')!.objectId
})
afterAll(() => running.stop())

describe('object inspector', () => {
  it('lists the account and each zone by name, with their sizes', async () => {
    const objects = await running.service.bridge.listObjects({})
    expect(objects.map((o) => o.label).sort()).toEqual(['Account', 'Zone inspect.example'])
    for (const object of objects) {
      expect(object.objectId).toMatch(/^[0-9a-f]{64}$/)
      expect(object.sizeBytes).toBeGreaterThan(0)
    }
  })

  it("shows a zone object's tables with row counts and its alarm", async () => {
    const details = await running.service.bridge.objectDetails({
      namespace: 'zone',
      objectId: zoneObjectId,
    })
    expect(details.alarm).toBeNull()
    expect(details.tables).toContainEqual({ name: 'zone', rows: 1 })
  })

  it('runs read-only SQL and returns columns and rows', async () => {
    const result = await running.service.bridge.queryObject({
      namespace: 'zone',
      objectId: zoneObjectId,
      query: 'SELECT name, plan FROM zone',
    })
    expect(result).toEqual({
      columns: ['name', 'plan'],
      rows: [['inspect.example', 'pro']],
      truncated: false,
    })
  })

  it.each([
    'DELETE FROM zone',
    "UPDATE zone SET plan = 'free'",
    'DROP TABLE zone',
    'CREATE TABLE t (x)',
  ])('refuses a statement that could write (%s), changing nothing', async (query) => {
    await expect(
      running.service.bridge.queryObject({ namespace: 'zone', objectId: zoneObjectId, query }),
    ).rejects.toThrow(/Only read-only SQL/)
    const zone = (await running.call('/zones?name=inspect.example')).body.result[0]
    expect(zone.plan.legacy_id).toBe('pro')
  })

  it.each([
    ['SELEC 1', 'near "SELEC": syntax error'],
    ['SELECT * FROM nowhere', 'no such table: nowhere'],
    ["SELECT json_extract('{', '$')", 'malformed JSON'],
    ['SELECT abs(-9223372036854775808)', 'integer overflow'],
  ])("answers the SQL error of %j with a 400 carrying SQLite's message", async (query, said) => {
    const answer = running.service.bridge.queryObject({
      namespace: 'zone',
      objectId: zoneObjectId,
      query,
    })
    await expect(answer).rejects.toMatchObject({ status: 400, code: 1001 })
    await expect(answer).rejects.toThrow(`SQL error: ${said}`)
  })

  it('answers an unknown object with a clear 400', async () => {
    await expect(
      running.service.bridge.objectDetails({ namespace: 'zone', objectId: 'a'.repeat(64) }),
    ).rejects.toThrow(/No zone object has the id/)
    await expect(
      running.service.bridge.queryObject({
        namespace: 'zone',
        objectId: 'a'.repeat(64),
        query: 'SELECT 1',
      }),
    ).rejects.toThrow(/No zone object has the id/)
  })

  it('reads the object as its last change left it', async () => {
    const zone = (await running.call('/zones?name=inspect.example')).body.result[0]
    await running.call(`/zones/${zone.id}`, { method: 'PATCH', json: { plan: 'business' } })
    const result = await running.service.bridge.queryObject({
      namespace: 'zone',
      objectId: zoneObjectId,
      query: 'SELECT plan FROM zone',
    })
    expect(result.rows).toEqual([['business']])
    await running.call(`/zones/${zone.id}`, { method: 'PATCH', json: { plan: 'pro' } })
  })

  it('answers at most 500 rows of an endless result, marked truncated', async () => {
    const result = await running.service.bridge.queryObject({
      namespace: 'zone',
      objectId: zoneObjectId,
      query: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c',
    })
    expect(result.rows).toHaveLength(500)
    expect(result.rows.at(-1)).toEqual([500])
    expect(result.truncated).toBe(true)
  })

  it('answers at most 4 MiB of rows, and cuts a text cell past 10,000 characters', async () => {
    const wide = await running.service.bridge.queryObject({
      namespace: 'zone',
      objectId: zoneObjectId,
      query:
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 500) SELECT printf('%.*c', 10000, 'x') FROM c",
    })
    expect(wide.truncated).toBe(true)
    expect(JSON.stringify(wide.rows).length).toBeLessThanOrEqual(4 * 1024 * 1024)
    // 500 rows of 10,000 characters pass 4 MiB at the 420th.
    expect(wide.rows).toHaveLength(419)
    const long = await running.service.bridge.queryObject({
      namespace: 'zone',
      objectId: zoneObjectId,
      query: "SELECT printf('%.*c', 25000, 'y'), randomblob(300)",
    })
    expect(long.rows).toEqual([[`${'y'.repeat(10_000)}… <15000 more characters>`, '<300 bytes>']])
    expect(long.truncated).toBe(false)
  })

  it('browses key-value entries with a preview of each value', async () => {
    const objects = await running.service.bridge.listObjects({})
    const account = objects.find((o) => o.namespace === 'account')!
    const keys = await running.service.bridge.objectKeys({
      namespace: 'account',
      objectId: account.objectId,
    })
    expect(Array.isArray(keys)).toBe(true)
  })
})
