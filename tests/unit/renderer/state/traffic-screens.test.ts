// The Simulator, Replay, Security events and Export screens' state against a real service: a
// composed request runs through the zone and leaves its event, saved samples run as a suite, a
// traffic file replays chunk by chunk, and the zone is exported in each format.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

type Module<T> = T extends () => Promise<infer M> ? M : never
const modules = () =>
  Promise.all([
    import('../../../../src-renderer/src/lib/state/simulator.svelte'),
    import('../../../../src-renderer/src/lib/state/replay.svelte'),
    import('../../../../src-renderer/src/lib/state/security-events.svelte'),
    import('../../../../src-renderer/src/lib/state/export.svelte'),
    import('../../../../src-renderer/src/lib/state/zone-choice.svelte'),
  ])

let running: Running
let simulator: Module<typeof modules>[0]
let replay: Module<typeof modules>[1]
let events: Module<typeof modules>[2]
let exporter: Module<typeof modules>[3]
let open: Module<typeof modules>[4]['openZoneScreen']
let zoneId: string

beforeAll(async () => {
  running = await startRendererService()
  let choice: Module<typeof modules>[4]
  ;[simulator, replay, events, exporter, choice] = await modules()
  open = choice.openZoneScreen
  zoneId = (await newZone(running, { name: 'traffic.example', plan: 'business' })).id
  const rule = {
    action: 'block',
    description: 'no admin',
    filter: { expression: 'http.request.uri.path eq "/admin"' },
  }
  await running.call(`/zones/${zoneId}/firewall/rules`, { method: 'POST', json: [rule] })
})
afterAll(() => stopRendererService(running))

describe('SimulatorState', () => {
  it('runs the composed request, keeps it as a sample and runs the samples as a suite', async () => {
    const state = new simulator.SimulatorState()
    await open(state)
    expect(state.draft.url).toBe('https://traffic.example/')
    state.draft.url = 'https://traffic.example/admin'
    await state.run()
    expect(state.result?.outcome).toBe('blocked')
    expect(await state.saveSample('admin is blocked', 'blocked')).toBe(true)
    state.draft.url = 'https://traffic.example/'
    expect(await state.saveSample('home is blocked too', 'blocked')).toBe(true)
    await state.runSuite()
    expect(state.suite.map((row) => row.actual?.outcome)).toEqual(['blocked', 'passed'])
    state.openSample(state.samples[0]!)
    expect(state.draft.url).toBe('https://traffic.example/admin')
    await state.removeSample(state.samples[1]!.id)
    expect(state.samples.map((sample) => sample.name)).toEqual(['admin is blocked'])
  })

  it("keeps the API's refusal of a request it cannot run", async () => {
    const state = new simulator.SimulatorState()
    await open(state)
    state.draft.method = ''
    await state.run()
    expect(state.result).toBeNull()
    expect(state.errors[0]?.code).toBeGreaterThan(0)
  })
})

describe('SecurityEventsState', () => {
  it("lists the events a recorded simulation left, and the log's caps", async () => {
    const state = new events.SecurityEventsState()
    await open(state)
    expect(state.events.map((event) => event.action)).toContain('block')
    expect(state.log).not.toBeNull()
    state.action = 'challenge'
    await state.refresh()
    expect(state.events).toEqual([])
    expect(await state.setLimits({ max_events: 10 })).toBe(true)
    expect(state.log?.max_events).toBe(10)
  })
})

describe('ReplayState', () => {
  it('replays a traffic file chunk by chunk and adds up the outcomes', async () => {
    const state = new replay.ReplayState()
    await open(state)
    const requests = ['/admin', '/', '/admin'].map((path) =>
      JSON.stringify({ method: 'GET', url: `https://traffic.example${path}` }),
    )
    state.chooseFile(new File([requests.join('\n')], 'traffic.ndjson'))
    await state.run()
    expect(state.errors).toEqual([])
    expect(state.progress).toEqual({ done: 3, total: 3 })
    expect(state.result?.requests).toBe(3)
    expect(state.result?.outcomes.blocked).toBe(2)
  })

  it('stops between chunks when asked, keeping what ran', async () => {
    const state = new replay.ReplayState()
    await open(state)
    const line = JSON.stringify({ method: 'GET', url: 'https://traffic.example/' })
    state.chooseFile(new File([Array(3000).fill(line).join('\n')], 'many.ndjson'))
    const running = state.run()
    state.stop()
    await running
    expect(state.stopped).toBe(true)
    expect(state.progress.done).toBeLessThan(3000)
    expect(state.result?.requests).toBe(state.progress.done)
    expect(state.noRequests).toBe(false)
  })

  it('says a file without requests holds none, and refuses one that is not traffic', async () => {
    const state = new replay.ReplayState()
    await open(state)
    state.chooseFile(new File([''], 'empty.ndjson'))
    await state.run()
    expect(state.noRequests).toBe(true)
    state.chooseFile(new File(['{"method": 7}'], 'wrong.ndjson'))
    await state.run()
    expect(state.errors[0]?.message).not.toBe('')
    expect(state.noRequests).toBe(false)
  })
})

describe('ExportState', () => {
  it('previews the zone in each format and names the file after it', async () => {
    const state = new exporter.ExportState()
    await open(state)
    expect(state.fileName).toBe('traffic.example.zone-workbench.json')
    expect(JSON.parse(state.text ?? '').zone.name).toBe('traffic.example')
    expect(state.formats.map((format) => format.value)).not.toContain('terraform-v3')
    await state.chooseFormat('curl')
    expect(state.fileName).toBe('traffic.example.sh')
    expect(state.text).toMatch(/^#!/)
  })

  it("keeps the bridge's refusal to save where the shell has no save dialog", async () => {
    const state = new exporter.ExportState()
    await open(state)
    await state.save()
    expect(state.errors[0]).toMatchObject({ code: 1001 })
    expect(state.errors[0]?.message).toMatch(/no save dialog/)
  })
})
