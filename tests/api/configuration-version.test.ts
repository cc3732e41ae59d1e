// The configuration version that keys the simulator's compiled zone: every write path moves it
// on (so a simulation after the write compiles again and sees it), and nothing else does (so a
// zone left alone is compiled once).

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACCOUNT } from '../../src-main/zones/registry'
import { FakeClock } from '../unit/objects/fake-clock'
import {
  newZone,
  patch,
  post,
  put,
  removeDataDir,
  simulate,
  startService,
  type Running,
} from './harness'

const SWITCH_MS = 60_000
const clock = new FakeClock(Date.UTC(2026, 0, 1))

let running: Running
beforeAll(async () => {
  running = await startService(undefined, { migrationSwitchMs: SWITCH_MS, clock })
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

const workbench = (path: string) => `${running.origin}/workbench/v1${path}`
const version = (zone: string) => running.service.simulator.configurationVersion(zone)
const customEntrypoint = (owner: string) =>
  `${owner}/rulesets/phases/http_request_firewall_custom/entrypoint`
const blocking = (path: string) => ({
  rules: [{ action: 'block', expression: `http.request.uri.path eq "${path}"` }],
})
/** Adds a firewall rule blocking `path` (the simulator runs firewall rules and the managed phase). */
const block = (zone: string, path: string) =>
  running.ok(
    `/zones/${zone}/firewall/rules`,
    post([{ action: 'block', filter: { expression: `http.request.uri.path eq "${path}"` } }]),
  )
const outcome = async (zone: string, path: string) =>
  (await simulate(running, zone, { method: 'GET', url: `https://example.com${path}` })).outcome

describe('the configuration version', () => {
  it('moves on with a change through each write path', async () => {
    const zone = (await newZone(running, { plan: 'enterprise', waf_product: 'previous' })).id
    const at = `/zones/${zone}`
    const writes: [string, () => Promise<unknown>][] = [
      ['zone entry point', () => running.ok(customEntrypoint(at), put(blocking('/zone')))],
      [
        'account entry point',
        () => running.ok(customEntrypoint(`/accounts/${ACCOUNT.id}`), put(blocking('/account'))),
      ],
      ['filter', () => running.ok(`${at}/filters`, post([{ expression: 'ip.src eq 10.0.0.1' }]))],
      [
        'firewall rule',
        () =>
          running.ok(
            `${at}/firewall/rules`,
            post([{ action: 'block', filter: { expression: 'http.host eq "a.example"' } }]),
          ),
      ],
      [
        'firewall rule quota',
        () => running.ok(workbench(`${at}/firewall/settings`), patch({ rule_quota: 7 })),
      ],
      [
        'page rule',
        () =>
          running.ok(
            `${at}/pagerules`,
            post({
              targets: [{ target: 'url', constraint: { operator: 'matches', value: '*/x/*' } }],
              actions: [{ id: 'waf', value: 'off' }],
              status: 'active',
            }),
          ),
      ],
      ['previous WAF setting', () => running.ok(`${at}/settings/waf`, patch({ value: 'off' }))],
      ['zone settings', () => running.ok(at, patch({ paused: true }))],
      [
        'rename',
        () => running.ok(workbench(`${at}/rename`), post({ name: `renamed-${zone}.example` })),
      ],
      [
        'bundle import',
        async () => {
          const bundle = (await running.call(workbench(`${at}/export?format=bundle`))).body
          await running.ok(workbench('/zones/import'), post({ ...bundle, page_rules: [] }))
        },
      ],
      [
        'migration',
        async () => {
          const config = await running.ok(`${at}/waf_migration/config?phase_two=1`)
          await running.ok(
            `${at}/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=pending&phase_two=1`,
            put(config),
          )
        },
      ],
      ['migration switch-over', () => clock.advance(SWITCH_MS)],
    ]
    for (const [path, write] of writes) {
      const before = await version(zone)
      await write()
      expect(await version(zone), path).not.toBe(before)
    }
    expect((await running.ok(`${at}/waf_migration/status`)).migration_state).toBe('completed')
    await running.ok(customEntrypoint(`/accounts/${ACCOUNT.id}`), put({ rules: [] }))
  })

  it('stays put through reads, simulations, dry runs and refused changes', async () => {
    const zone = (await newZone(running, { plan: 'pro' })).id
    const at = `/zones/${zone}`
    await running.ok(customEntrypoint(at), put(blocking('/blocked')))
    await block(zone, '/blocked')
    const before = await version(zone)
    await running.ok(customEntrypoint(at))
    await running.ok(`${at}/firewall/rules`)
    await running.ok(workbench(`${at}/history`))
    expect(await outcome(zone, '/blocked')).toBe('blocked')
    await running.ok(`${customEntrypoint(at)}?dry_run=true`, put(blocking('/other')))
    await running.refused(customEntrypoint(at), put(blocking('"')), 400)
    await running.refused(`${at}/filters`, post([{ expression: 'not an expression' }]), 400)
    expect(await version(zone)).toBe(before)
  })

  it('after a restore differs from every version before it, and simulations follow it', async () => {
    const zone = (await newZone(running, { plan: 'pro' })).id
    const at = `/zones/${zone}`
    await block(zone, '/first')
    const first = await version(zone)
    const [point] = await running.ok(workbench(`${at}/history`))
    expect(await outcome(zone, '/first')).toBe('blocked')
    await block(zone, '/second')
    const second = await version(zone)
    expect(await outcome(zone, '/second')).toBe('blocked')

    await running.ok(workbench(`${at}/history/restore`), post({ bookmark: point.bookmark }))
    const restored = await version(zone)
    expect([first, second]).not.toContain(restored)
    expect(await outcome(zone, '/first')).toBe('blocked')
    expect(await outcome(zone, '/second')).toBe('passed')

    // The restored file counts on from its own count: the next change is told apart all the same.
    await block(zone, '/third')
    expect([first, second, restored]).not.toContain(await version(zone))
    expect(await outcome(zone, '/third')).toBe('blocked')
  })
})
