// The Objects screen's operations: list the objects behind the workbench, see a zone object's
// tables and alarm, browse keys, run read-only SQL; anything that could write is refused.

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

  it('answers SQL errors and unknown objects with a clear 400', async () => {
    await expect(
      running.service.bridge.queryObject({
        namespace: 'zone',
        objectId: zoneObjectId,
        query: 'SELEC 1',
      }),
    ).rejects.toThrow(/SQL error/)
    await expect(
      running.service.bridge.objectDetails({ namespace: 'zone', objectId: 'a'.repeat(64) }),
    ).rejects.toThrow(/No zone object has the id/)
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
