// The state classes of the zone-wide screens (Zones, the zone every screen works on, History,
// Objects) against a real service: each change goes through the API as a script's would, and a
// refusal keeps the API's code and pointer and changes nothing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ZoneCreate } from '@shared/api/zones'
import { newZone, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

type Module<T> = T extends () => Promise<infer M> ? M : never
const modules = () =>
  Promise.all([
    import('../../../../src-renderer/src/lib/state/zones.svelte'),
    import('../../../../src-renderer/src/lib/state/zone-choice.svelte'),
    import('../../../../src-renderer/src/lib/state/history.svelte'),
    import('../../../../src-renderer/src/lib/state/objects.svelte'),
  ])

let running: Running
let zones: Module<typeof modules>[0]
let choice: Module<typeof modules>[1]
let history: Module<typeof modules>[2]
let objects: Module<typeof modules>[3]

beforeAll(async () => {
  running = await startRendererService()
  ;[zones, choice, history, objects] = await modules()
})
afterAll(() => stopRendererService(running))

describe('ZonesState', () => {
  it('creates, renames, re-plans and deletes a zone, listing what the service holds', async () => {
    const state = new zones.ZonesState()
    await state.load()
    expect(state.zones).toEqual([])
    expect(await state.create({ name: 'state.example', plan: 'pro' })).toBe(true)
    const [zone] = state.zones
    expect(zone).toMatchObject({ name: 'state.example', plan: { legacy_id: 'pro' } })
    expect(await state.rename(zone!.id, 'renamed.example')).toBe(true)
    expect(await state.setPlan(zone!.id, 'enterprise')).toBe(true)
    expect(state.zones).toMatchObject([
      { name: 'renamed.example', plan: { legacy_id: 'enterprise' } },
    ])
    expect(await state.remove(zone!.id)).toBe(true)
    expect(state.zones).toEqual([])
    expect(state.errors).toEqual([])
  })

  it("keeps the API's code and pointer for a refusal, and the list as it was", async () => {
    const state = new zones.ZonesState()
    const bad = { name: 'refused.example', plan: 'platinum' } as unknown as ZoneCreate
    expect(await state.create(bad)).toBe(false)
    expect(state.errors[0]).toMatchObject({ code: 1001 })
    expect(state.errors[0]?.source?.pointer).toMatch(/^\/plan/)
    await state.load()
    expect(state.zones.map((zone) => zone.name)).not.toContain('refused.example')
  })
})

describe('ZoneChoice and openZoneScreen', () => {
  it('opens the first zone, then on every screen the zone chosen last', async () => {
    const first = (await newZone(running, { name: 'a-first.example' })).id
    const second = (await newZone(running, { name: 'b-second.example' })).id
    const selected: string[] = []
    const screen = {
      choice: new choice.ZoneChoice(),
      errors: [],
      select: (zoneId: string) => {
        selected.push(zoneId)
        screen.choice.choose(zoneId)
      },
    }
    await choice.openZoneScreen(screen)
    expect(selected).toEqual([first])
    expect(screen.choice.zone?.name).toBe('a-first.example')
    screen.choice.choose(second)
    const another = new choice.ZoneChoice()
    await another.open()
    expect(another.zoneId).toBe(second)
    expect(another.loaded).toBe(true)
  })
})

describe('HistoryState', () => {
  it('lists the points, restores an earlier one and undoes the restore', async () => {
    const zoneId = (await newZone(running, { name: 'before.example' })).id
    await running.call(`${running.origin}/workbench/v1/zones/${zoneId}/rename`, {
      method: 'POST',
      json: { name: 'after.example' },
    })
    const state = new history.HistoryState()
    await state.select(zoneId)
    await state.choice.load()
    const [current, earlier] = state.points
    expect(current?.note).toMatch(/after\.example/)
    await state.restore(earlier!)
    expect(state.choice.zone?.name).toBe('before.example')
    expect(state.lastRestore).toMatchObject({ time: earlier!.time })
    await state.undo()
    expect(state.lastRestore).toBeNull()
    expect(state.choice.zone?.name).toBe('after.example')
    expect(state.errors).toEqual([])
  })

  it("keeps the API's refusal of a bookmark that is not the zone's", async () => {
    const zoneId = (await newZone(running, { name: 'foreign.example' })).id
    const state = new history.HistoryState()
    await state.select(zoneId)
    await state.restore({ bookmark: 'not-a-bookmark', time: '', note: null })
    expect(state.errors[0]?.code).toBeGreaterThan(0)
    expect(state.lastRestore).toBeNull()
  })
})

describe('ObjectsState', () => {
  it("lists the objects, reads one's tables and keys, and runs read-only SQL", async () => {
    const state = new objects.ObjectsState()
    await state.load()
    expect(state.objects.map((object) => object.namespace)).toContain('zone')
    const zoneObject = state.objects.find((object) => object.namespace === 'zone')!
    await state.select(zoneObject)
    expect(state.details?.tables.length).toBeGreaterThan(0)
    state.query = 'SELECT count(*) AS n FROM sqlite_master'
    await state.run()
    expect(state.result?.columns).toEqual(['n'])
    state.query = 'DELETE FROM sqlite_master'
    await state.run()
    expect(state.result).toBeNull()
    expect(state.errors[0]?.message).toMatch(/read-only/i)
  })
})

describe('ZonesState with many zones', () => {
  it('lists more zones than one page of the Zones API holds', async () => {
    for (let index = 0; index < 51; index++) await newZone(running, { name: `z${index}.example` })
    const state = new zones.ZonesState()
    await state.load()
    expect(state.zones.filter((zone) => /^z\d+\.example$/.test(zone.name))).toHaveLength(51)
  })
})
