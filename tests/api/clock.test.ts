// The service reads the time from the one clock it is given (ServiceOptions.clock;
// docs/architecture.md#the-object-runtime-src-mainobjectsindexts): a zone's timestamps, a rule's
// last_updated, the zone's points in history, the events a simulation records and a bundle's
// exported_at all say the clock's time, and move when it moves.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { FakeClock } from '../unit/objects/fake-clock'
import { removeDataDir, startService, type Running } from './harness'

const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
/** A time no other clock gives while these tests run. */
const START = Date.UTC(2031, 4, 6, 7, 8, 9)
const MINUTE_MS = 60_000
const clock = new FakeClock(START)
/** The vendor's timestamps carry microseconds. */
const vendorTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z')
const isoTime = (ms: number) => new Date(ms).toISOString()

let running: Running
beforeAll(async () => {
  running = await startService(undefined, { clock })
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

const workbench = (zone: string, path: string) =>
  `${running.origin}/workbench/v1/zones/${zone}/${path}`

it("stamps zones, rules, history, events and bundles with the clock's time", async () => {
  const zone = await running.ok('/zones', { method: 'POST', json: { name: 'clock.example' } })
  expect(zone.created_on).toBe(vendorTime(START))
  expect(zone.modified_on).toBe(vendorTime(START))

  await clock.advance(MINUTE_MS)
  const deployed = await running.ok(
    `/zones/${zone.id}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    {
      method: 'PUT',
      json: {
        rules: [{ action: 'execute', expression: 'true', action_parameters: { id: GENERAL } }],
      },
    },
  )
  expect(deployed.last_updated).toBe(vendorTime(START + MINUTE_MS))
  const [point] = await running.ok(workbench(zone.id, 'history'))
  expect(point.time).toBe(isoTime(START + MINUTE_MS))

  await clock.advance(MINUTE_MS)
  const simulated = await running.ok(workbench(zone.id, 'simulate'), {
    method: 'POST',
    json: { method: 'GET', url: 'https://clock.example/?q=<script>alert(1)</script>' },
  })
  expect(simulated.events.length).toBeGreaterThan(0)
  const recorded = await running.ok(workbench(zone.id, 'events'))
  expect(recorded.map((event: any) => event.time)).toEqual(
    simulated.events.map(() => isoTime(START + 2 * MINUTE_MS)),
  )

  await clock.advance(MINUTE_MS)
  const paused = await running.ok(`/zones/${zone.id}`, { method: 'PATCH', json: { paused: true } })
  expect(paused.modified_on).toBe(vendorTime(START + 3 * MINUTE_MS))
  const exported = await running.call(workbench(zone.id, 'export?format=bundle'))
  expect(exported.body.exported_at).toBe(isoTime(START + 3 * MINUTE_MS))
})
