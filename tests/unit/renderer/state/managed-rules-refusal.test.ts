// A refused save of Managed rules against a real service: the API's messages that point into the
// open deployment are placed at the field they name (the payload logging key, the expression), the
// rest are left for the screen, and the deployment as saved, the values in force, is at hand
// beside the edits, which are kept.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MANAGED_RULESET_IDS } from '@shared/api/rulesets'
import { newZone, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

let running: Running
let managed: typeof import('../../../../src-renderer/src/lib/state/managed-rules.svelte')

beforeAll(async () => {
  running = await startRendererService()
  managed = await import('../../../../src-renderer/src/lib/state/managed-rules.svelte')
})
afterAll(() => stopRendererService(running))

describe('ManagedRulesState refused save', () => {
  it('places the refusal at the field it names and keeps the values in force at hand', async () => {
    const zoneId = (await newZone(running, { name: 'refused.example', plan: 'business' })).id
    const state = new managed.ManagedRulesState()
    await state.select(zoneId)
    await state.deploy(MANAGED_RULESET_IDS.exposedCredentials)
    await state.deploy(MANAGED_RULESET_IDS.general)
    expect(state.draft).toHaveLength(2)
    // the second deployment, so that the pointers name rule 1
    expect(state.openDeployment?.parameters.id).toBe(MANAGED_RULESET_IDS.general)

    state.setPublicKey('not-a-key')
    expect(await state.save()).toBe(false)
    const { byField, rest } = state.placedErrors
    expect(byField.publicKey?.map((error) => error.source?.pointer)).toEqual([
      '/rules/1/action_parameters/matched_data/public_key',
    ])
    expect(rest).toEqual([])
    expect(state.dirty).toBe(true)
    expect(state.openDeployment?.parameters.matched_data?.public_key).toBe('not-a-key')
    expect(state.deploymentInForce?.parameters.matched_data).toBeUndefined()

    // Another deployment open: the refusal names none of its fields, so the screen shows it.
    await state.open(state.draft[0]!.id)
    expect(state.placedErrors.byField).toEqual({})
    expect(state.placedErrors.rest).toHaveLength(1)

    await state.open(state.draft[1]!.id)
    state.setPublicKey('')
    expect(await state.save()).toBe(true)
    expect(state.placedErrors).toEqual({ byField: {}, rest: [] })
  })
})
