// The Firewall rules and Managed rules screens' state against a real service: each change goes to
// the API and reloads what the service holds; a refusal keeps the API's messages (the reload
// still shows what a refused change did do) and unsaved edits stay until saved or discarded.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MANAGED_RULESET_IDS } from '@shared/api/rulesets'
import { newZone, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

type Module<T> = T extends () => Promise<infer M> ? M : never
const modules = () =>
  Promise.all([
    import('../../../../src-renderer/src/lib/state/firewall-rules.svelte'),
    import('../../../../src-renderer/src/lib/state/managed-rules.svelte'),
  ])

let running: Running
let firewall: Module<typeof modules>[0]
let managed: Module<typeof modules>[1]

beforeAll(async () => {
  running = await startRendererService()
  ;[firewall, managed] = await modules()
})
afterAll(() => stopRendererService(running))

describe('FirewallRulesState', () => {
  it('creates, reorders, pauses and deletes a rule with its filter', async () => {
    const zoneId = (await newZone(running, { name: 'firewall.example', plan: 'pro' })).id
    const state = new firewall.FirewallRulesState()
    await state.select(zoneId)
    expect(state.rules).toEqual([])
    const filter = (address: string) => ({ expression: `ip.src eq ${address}` })
    const first = { action: 'block' as const, description: 'one', filter: filter('192.0.2.1') }
    expect(await state.createRule(first)).toBe(true)
    const second = { action: 'allow' as const, description: 'two', filter: filter('192.0.2.2') }
    expect(await state.createRule(second)).toBe(true)
    const [one, two] = state.rules
    expect(await state.setPriority(two!, 1)).toBe(true)
    expect(state.rules.map((rule) => rule.description)).toEqual(['two', 'one'])
    expect(await state.setPaused(one!, true)).toBe(true)
    expect(state.rules.find((rule) => rule.id === one!.id)?.paused).toBe(true)
    expect(await state.deleteRule(one!, true)).toBe(true)
    expect(await state.deleteRule(two!, true)).toBe(true)
    expect(state.rules).toEqual([])
    expect(state.filters).toEqual([])
    expect(state.errors).toEqual([])
  })

  it("keeps the API's refusal of a rule over the quota, and shows the filter it still made", async () => {
    const zoneId = (await newZone(running, { name: 'quota.example', plan: 'pro' })).id
    const state = new firewall.FirewallRulesState()
    await state.select(zoneId)
    expect(await state.setQuota(0)).toBe(true)
    expect(state.settings?.rule_quota).toBe(0)
    const rule = { action: 'block' as const, filter: { expression: 'http.host eq "a.example"' } }
    expect(await state.createRule(rule)).toBe(false)
    expect(state.errors[0]?.code).toBeGreaterThan(0)
    expect(state.rules).toEqual([])
    expect(state.filters.map((each) => each.expression)).toEqual(['http.host eq "a.example"'])
  })

  it('keeps the pointer of an expression the API cannot parse', async () => {
    const zoneId = (await newZone(running, { name: 'syntax.example' })).id
    const state = new firewall.FirewallRulesState()
    await state.select(zoneId)
    expect(await state.createFilter({ expression: 'ip.src eq' })).toBe(false)
    expect(state.errors[0]?.source?.pointer).toMatch(/expression/)
    expect(state.filters).toEqual([])
  })
})

describe('ManagedRulesState', () => {
  it('deploys a managed ruleset, keeps edits until saved, and removes it', async () => {
    const zoneId = (await newZone(running, { name: 'managed.example', plan: 'business' })).id
    const state = new managed.ManagedRulesState()
    await state.select(zoneId)
    expect(state.entrypoint).toBeNull()
    expect(state.catalog.map((ruleset) => ruleset.id)).toContain(MANAGED_RULESET_IDS.general)
    await state.deploy(MANAGED_RULESET_IDS.general)
    expect(state.isDeployed(MANAGED_RULESET_IDS.general)).toBe(true)
    expect(state.openDeployment?.parameters.id).toBe(MANAGED_RULESET_IDS.general)
    expect(state.rulesets[MANAGED_RULESET_IDS.general]?.rules.length).toBeGreaterThan(0)
    const deployedVersion = state.entrypoint?.version

    state.setExpression('http.host eq "managed.example"')
    expect(state.dirty).toBe(true)
    state.discard()
    expect(state.dirty).toBe(false)

    state.setExpression('http.host eq "managed.example"')
    await state.save()
    expect(state.dirty).toBe(false)
    expect(state.savedVersion).not.toBe(deployedVersion)
    expect(state.entrypoint?.rules[0]?.expression).toBe('http.host eq "managed.example"')

    await state.removeDeployment(state.entrypoint!.rules[0]!.id)
    expect(state.isDeployed(MANAGED_RULESET_IDS.general)).toBe(false)
    expect(state.errors).toEqual([])
  })

  it("keeps the API's refusal of a save, and the edits with it", async () => {
    const zoneId = (await newZone(running, { name: 'refused-managed.example', plan: 'business' }))
      .id
    const state = new managed.ManagedRulesState()
    await state.select(zoneId)
    await state.deploy(MANAGED_RULESET_IDS.general)
    state.setExpression('http.host eq')
    await state.save()
    expect(state.errors[0]?.code).toBeGreaterThan(0)
    expect(state.errors[0]?.source?.pointer).toMatch(/^\/rules\/0\/expression/)
    expect(state.dirty).toBe(true)
    expect(state.savedVersion).toBeNull()
  })
})
