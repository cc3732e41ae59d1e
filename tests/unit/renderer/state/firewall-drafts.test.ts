// The Firewall rules screen's drafts against a real service: what its forms hold comes back when
// the zone is opened again (a reload makes a new state, as here) until saved or discarded; an
// editor counts as unsaved only while its edit differs from the record, and one whose record is
// gone is not reopened.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

type Module<T> = T extends () => Promise<infer M> ? M : never
const modules = () =>
  import('../../../../src-renderer/src/features/firewall/firewall-screen.svelte')

let running: Running
let screen: Module<typeof modules>

beforeAll(async () => {
  running = await startRendererService()
  screen = await modules()
})
afterAll(() => stopRendererService(running))

async function zoneWithRule(name: string): Promise<string> {
  const zoneId = (await newZone(running, { name })).id
  await running.ok(`/zones/${zoneId}/firewall/rules`, {
    method: 'POST',
    json: [{ filter: { expression: 'ip.src eq 192.0.2.1' }, action: 'block', description: 'One' }],
  })
  return zoneId
}

/** The screen's state opened on the zone, as the screen opens it. */
async function opened(zoneId: string) {
  const state = new screen.FirewallScreenState()
  await state.select(zoneId)
  return state
}

describe('Firewall rules drafts', () => {
  it('come back per zone until discarded, with the editors that were open', async () => {
    const zoneId = await zoneWithRule('firewall-draft.example')
    const other = await zoneWithRule('other-firewall-draft.example')
    const first = await opened(zoneId)
    expect(first.dirty).toBe(false)
    first.drafts.newRule.expression = 'http.request.uri.path eq "/later"'
    first.drafts.newFilter.description = 'Kept'
    const [rule] = first.rules
    const [filter] = first.filters
    first.drafts.openRule(rule!)
    first.drafts.rule!.action = 'challenge'
    first.drafts.openFilter(filter!)
    first.drafts.keep()
    expect(first.dirty).toBe(true)

    const reopened = await opened(zoneId)
    expect(reopened.dirty).toBe(true)
    expect(reopened.drafts.newRule.expression).toBe('http.request.uri.path eq "/later"')
    expect(reopened.drafts.newFilter.description).toBe('Kept')
    expect(reopened.drafts.rule).toMatchObject({ id: rule!.id, action: 'challenge' })
    expect(reopened.drafts.filter?.id).toBe(filter!.id)

    const elsewhere = await opened(other)
    expect(elsewhere.dirty).toBe(false)
    expect(elsewhere.drafts.rule).toBeNull()

    reopened.discard()
    reopened.drafts.keep()
    const afterDiscard = await opened(zoneId)
    expect(afterDiscard.dirty).toBe(false)
    expect(afterDiscard.drafts.newRule.expression).toBe('')
    expect(afterDiscard.drafts.filter).toBeNull()
  })

  it('count an open editor only while its edit differs, and drop it once its record is gone', async () => {
    const zoneId = await zoneWithRule('gone-firewall-draft.example')
    const state = await opened(zoneId)
    const [rule] = state.rules
    state.drafts.openRule(rule!)
    expect(state.dirty).toBe(false)
    state.drafts.rule!.description = 'Two'
    expect(state.dirty).toBe(true)
    state.drafts.keep()

    // a script deletes the rule meanwhile: its editor does not come back
    await running.ok(`/zones/${zoneId}/firewall/rules/${rule!.id}`, { method: 'DELETE' })
    const reopened = await opened(zoneId)
    expect(reopened.drafts.rule).toBeNull()
    expect(reopened.dirty).toBe(false)
  })

  it('empty the form of a rule or filter once it is created, and keep it when refused', async () => {
    const zoneId = (await newZone(running, { name: 'created-firewall-draft.example' })).id
    const state = await opened(zoneId)
    state.drafts.newFilter.expression = 'ip.src in {1.2.3'
    expect(await state.createFilter({ expression: state.drafts.newFilter.expression })).toBe(false)
    expect(state.drafts.newFilter.expression).toBe('ip.src in {1.2.3')

    state.drafts.newRule.expression = 'ip.src eq 192.0.2.7'
    state.drafts.newRule.description = 'Seven'
    const created = await state.createRule({
      filter: { expression: 'ip.src eq 192.0.2.7' },
      action: 'block',
      description: 'Seven',
    })
    expect(created).toBe(true)
    expect(state.drafts.newRule.expression).toBe('')
    expect(state.rules.map((rule) => rule.description)).toEqual(['Seven'])
  })
})
