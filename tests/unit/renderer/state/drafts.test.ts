// Drafts kept per zone against a real service: Managed rules' unsaved edits, the Simulator's
// request and the Security events filters come back when the zone is opened again (a reload makes a new state, as here) until
// saved or discarded; edits made on an entry point that has changed since are dropped.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MANAGED_RULESET_IDS } from '@shared/api/rulesets'
import { newZone, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

type Module<T> = T extends () => Promise<infer M> ? M : never
const modules = () =>
  Promise.all([
    import('../../../../src-renderer/src/lib/state/managed-rules.svelte'),
    import('../../../../src-renderer/src/lib/state/simulator.svelte'),
    import('../../../../src-renderer/src/lib/state/zone-choice.svelte'),
    import('../../../../src-renderer/src/lib/state/security-events.svelte'),
  ])

let running: Running
let managed: Module<typeof modules>[0]
let simulator: Module<typeof modules>[1]
let choice: Module<typeof modules>[2]
let events: Module<typeof modules>[3]

beforeAll(async () => {
  running = await startRendererService()
  ;[managed, simulator, choice, events] = await modules()
})
afterAll(() => stopRendererService(running))

const HOST_ONLY = 'http.host eq "draft.example"'

describe('Managed rules drafts', () => {
  it('come back per zone until discarded, with the deployment that was open', async () => {
    const zoneId = (await newZone(running, { name: 'draft.example', plan: 'business' })).id
    const other = (await newZone(running, { name: 'other-draft.example', plan: 'business' })).id
    const first = new managed.ManagedRulesState()
    await first.select(zoneId)
    await first.deploy(MANAGED_RULESET_IDS.general)
    const ruleId = first.openRuleId
    first.setExpression(HOST_ONLY)
    expect(first.dirty).toBe(true)

    const reopened = new managed.ManagedRulesState()
    await reopened.select(zoneId)
    expect(reopened.dirty).toBe(true)
    expect(reopened.openRuleId).toBe(ruleId)
    expect(reopened.openDeployment?.rule.expression).toBe(HOST_ONLY)

    const elsewhere = new managed.ManagedRulesState()
    await elsewhere.select(other)
    expect(elsewhere.dirty).toBe(false)

    reopened.discard()
    const afterDiscard = new managed.ManagedRulesState()
    await afterDiscard.select(zoneId)
    expect(afterDiscard.dirty).toBe(false)
  })

  it('are forgotten once saved, and dropped when the entry point changed since', async () => {
    const zoneId = (await newZone(running, { name: 'stale-draft.example', plan: 'business' })).id
    const editing = new managed.ManagedRulesState()
    await editing.select(zoneId)
    await editing.deploy(MANAGED_RULESET_IDS.general)
    editing.setExpression(HOST_ONLY)
    await editing.save()
    expect(editing.errors).toEqual([])
    const afterSave = new managed.ManagedRulesState()
    await afterSave.select(zoneId)
    expect(afterSave.dirty).toBe(false)

    editing.setExpression('true')
    expect(editing.dirty).toBe(true)
    // a script changes the entry point meanwhile: the draft was made on a version that is gone
    const path = `/zones/${zoneId}/rulesets/phases/http_request_firewall_managed/entrypoint`
    const saved = (await running.call(path)).body.result
    const rules = saved.rules.map(({ id, action, expression, action_parameters }: any) => ({
      id,
      action,
      expression,
      action_parameters,
      enabled: false,
    }))
    expect((await running.call(path, { method: 'PUT', json: { rules } })).status).toBe(200)
    const reopened = new managed.ManagedRulesState()
    await reopened.select(zoneId)
    expect(reopened.dirty).toBe(false)
    expect(reopened.draft[0]).toMatchObject({ expression: HOST_ONLY, enabled: false })
  })
})

describe('Simulator request drafts', () => {
  it('come back for the zone they were written on, and another zone keeps its own', async () => {
    const zoneId = (await newZone(running, { name: 'request.example', plan: 'pro' })).id
    const other = (await newZone(running, { name: 'other-request.example', plan: 'pro' })).id
    const first = new simulator.SimulatorState()
    await choice.openZoneScreen(first, zoneId)
    first.draft.method = 'POST'
    first.draft.url = 'https://request.example/login'
    first.keepRequest()

    const reopened = new simulator.SimulatorState()
    await choice.openZoneScreen(reopened, zoneId)
    expect(reopened.draft.method).toBe('POST')
    expect(reopened.draft.url).toBe('https://request.example/login')

    const elsewhere = new simulator.SimulatorState()
    await choice.openZoneScreen(elsewhere, other)
    expect(elsewhere.draft.method).toBe('GET')
    expect(elsewhere.draft.url).toBe('https://other-request.example/')
  })
})

describe('Security events filters', () => {
  it('come back for the zone they were applied on', async () => {
    const zoneId = (await newZone(running, { name: 'events-draft.example', plan: 'pro' })).id
    const other = (await newZone(running, { name: 'other-events.example', plan: 'pro' })).id
    const first = new events.SecurityEventsState()
    await first.select(zoneId)
    first.host = 'events-draft.example'
    first.range = 'week'
    await first.refresh()

    const reopened = new events.SecurityEventsState()
    await reopened.select(zoneId)
    expect(reopened.host).toBe('events-draft.example')
    expect(reopened.range).toBe('week')
    expect(reopened.errors).toEqual([])

    const elsewhere = new events.SecurityEventsState()
    await elsewhere.select(other)
    expect(elsewhere.host).toBe('')
    expect(elsewhere.range).toBe('day')
  })
})
