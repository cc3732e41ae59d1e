// A create form's refusal placed at its fields, against a real service: the API's messages whose
// source.pointer names a field of the form that sent the request are kept by that field, and the
// screen shows only the others.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { placeErrors } from '../../../../src-renderer/src/lib/field-errors'
import { newZone, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

let running: Running
let firewall: typeof import('../../../../src-renderer/src/lib/state/firewall-rules.svelte')

beforeAll(async () => {
  running = await startRendererService()
  firewall = await import('../../../../src-renderer/src/lib/state/firewall-rules.svelte')
})
afterAll(() => stopRendererService(running))

describe('placeErrors', () => {
  it('gives each message to the field whose pointer names the most of its own', () => {
    const at = (pointer?: string) => ({
      code: 1,
      message: pointer ?? 'none',
      ...(pointer ? { source: { pointer } } : {}),
    })
    const { byField, rest } = placeErrors(
      [at('/0/filter/expression'), at('/0/filter/id'), at('/0/actions'), at()],
      { expression: '/0/filter/expression', filter: '/0/filter', action: '/0/action' },
    )
    expect(byField.expression?.map((e) => e.message)).toEqual(['/0/filter/expression'])
    expect(byField.filter?.map((e) => e.message)).toEqual(['/0/filter/id'])
    expect(byField.action).toBeUndefined()
    expect(rest.map((e) => e.message)).toEqual(['/0/actions', 'none'])
  })
})

describe('FirewallRulesState', () => {
  it("keeps a refusal of the rule form's expression and action at those fields", async () => {
    const zoneId = (await newZone(running, { name: 'fields.example', plan: 'business' })).id
    const state = new firewall.FirewallRulesState()
    await state.select(zoneId)
    const expression = 'http.host eq "fields.example"'
    expect(await state.createFilter({ expression })).toBe(true)

    expect(await state.createRule({ action: 'log', filter: { expression } })).toBe(false)
    expect(state.ruleErrors.expression?.[0]?.message).toBe(
      'config duplicates an already existing config',
    )
    expect(state.ruleErrors.action?.[0]?.message).toMatch(/Enterprise plan only/)
    expect(state.screenErrors).toEqual([])

    expect(await state.createFilter({ expression })).toBe(false)
    expect(state.ruleErrors).toEqual({})
    expect(state.filterErrors.expression?.[0]?.source?.pointer).toBe('/0/expression')
  })
})
