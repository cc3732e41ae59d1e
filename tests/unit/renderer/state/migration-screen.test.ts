// The Migration screen's state against a real service: the wizard opens on a zone still on the
// previous product, its settings are edited through the API, the eligibility check and the
// generated configuration are fetched, the side-by-side replay adds up, and a cut-over needs the
// zone's name typed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, patch, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

type Module<T> = T extends () => Promise<infer M> ? M : never
const modules = () =>
  Promise.all([
    import('../../../../src-renderer/src/features/migration/migration.svelte'),
    import('../../../../src-renderer/src/lib/state/zone-choice.svelte'),
    import('../../../../src-renderer/src/features/migration/legacy-settings.svelte'),
    import('../../../../src-renderer/src/features/migration/migration-view'),
  ])

let running: Running
let migration: Module<typeof modules>[0]
let choice: Module<typeof modules>[1]
let legacy: Module<typeof modules>[2]
let view: Module<typeof modules>[3]

beforeAll(async () => {
  running = await startRendererService()
  ;[migration, choice, legacy, view] = await modules()
  await newZone(running, { name: 'legacy.example', plan: 'business', waf_product: 'previous' })
})
afterAll(() => stopRendererService(running))

describe('MigrationWizard', () => {
  it('opens on the settings of a zone on the previous product, and edits them', async () => {
    const wizard = new migration.MigrationWizard()
    await choice.openZoneScreen(wizard)
    expect(wizard.step).toBe('settings')
    expect(wizard.state).not.toBe('completed')
    expect(wizard.settings.packages.length).toBeGreaterThan(0)
    const before = wizard.settings.wafSetting?.value
    const other = before === 'on' ? 'off' : 'on'
    expect(await wizard.settings.setWaf(other)).toBe(true)
    expect(wizard.settings.wafSetting?.value).toBe(other)
    expect(await wizard.settings.setWaf(before ?? 'on')).toBe(true)
  })

  it('checks eligibility, previews the configuration and compares traffic side by side', async () => {
    const wizard = new migration.MigrationWizard()
    await choice.openZoneScreen(wizard)
    await wizard.open('eligibility')
    expect(wizard.check?.compatible).toBe(true)
    await wizard.open('review')
    expect(wizard.preview?.config).not.toBeNull()
    wizard.comparison.pasted = ['/', '/wp-login.php']
      .map((path) => JSON.stringify({ method: 'GET', url: `https://legacy.example${path}` }))
      .join('\n')
    await wizard.comparison.run(wizard.choice.zoneId!)
    expect(wizard.comparison.errors).toEqual([])
    expect(wizard.comparison.result?.requests).toBe(2)
    expect(wizard.comparison.result?.new_configuration).toBe('generated')
  })

  it('cuts over only once the zone is named', async () => {
    const wizard = new migration.MigrationWizard()
    await choice.openZoneScreen(wizard)
    await wizard.open('cutover')
    wizard.confirmation = 'another.example'
    expect(wizard.confirmed).toBe(false)
    await wizard.cutOver()
    expect(wizard.state).not.toBe('pending')
    wizard.confirmation = 'legacy.example'
    expect(wizard.confirmed).toBe(true)
    await wizard.cutOver()
    wizard.stopPolling()
    expect(wizard.errors).toEqual([])
    expect(wizard.state).toBe('pending')
  })
})

describe('LegacySettingsState', () => {
  it('switches a group and a rule, and adds and deletes an override and a page rule', async () => {
    const zoneId = (
      await newZone(running, {
        name: 'settings.example',
        plan: 'business',
        waf_product: 'previous',
      })
    ).id
    const settings = new legacy.LegacySettingsState()
    await settings.load(zoneId)
    const [pkg] = settings.packages
    const group = settings.groups[pkg!.id]!.find((each) => each.mode === 'on')!
    expect(await settings.setGroupMode(group, 'off')).toBe(true)
    expect(settings.groups[pkg!.id]!.find((each) => each.id === group.id)?.mode).toBe('off')
    await settings.showRules(group)
    expect(settings.openGroup?.group.id).toBe(group.id)
    const rule = settings.openGroup!.rules[0]!
    const mode = rule.allowed_modes.find((each) => each !== rule.mode)!
    expect(await settings.setRuleMode(rule, mode)).toBe(true)

    const override = {
      urls: ['settings.example/admin/*'],
      groups: { [group.id]: 'block' as const },
    }
    expect(await settings.createOverride(override)).toBe(true)
    expect(settings.overrides.map((each) => each.urls)).toEqual([override.urls])
    expect(await settings.deleteOverride(settings.overrides[0]!)).toBe(true)
    expect(settings.overrides).toEqual([])

    expect(await settings.createPageRule(view.pageRuleBody('*settings.example/*', 'waf_off'))).toBe(
      true,
    )
    expect(settings.pageRules).toHaveLength(1)
    expect(await settings.deletePageRule(settings.pageRules[0]!)).toBe(true)
    expect(settings.pageRules).toEqual([])
    expect(settings.errors).toEqual([])
  })

  it("keeps the API's refusal of an override without URLs", async () => {
    const zoneId = (
      await newZone(running, {
        name: 'refused-settings.example',
        plan: 'pro',
        waf_product: 'previous',
      })
    ).id
    const settings = new legacy.LegacySettingsState()
    await settings.load(zoneId)
    expect(await settings.createOverride({ urls: [] })).toBe(false)
    expect(settings.errors[0]?.code).toBeGreaterThan(0)
    expect(settings.overrides).toEqual([])
  })
})

// Last: it leaves its own zone as the one the screens open.
describe('ComparisonState', () => {
  it('lists a compare job’s requests from its file, differences first', async () => {
    // Every group of the previous packages off: the previous product passes what the generated
    // configuration (which does not carry group modes) blocks.
    const zone = await newZone(running, { plan: 'business', waf_product: 'previous' })
    const base = `/zones/${zone.id}/firewall/waf/packages`
    for (const pkg of await running.ok(base)) {
      for (const group of await running.ok(`${base}/${pkg.id}/groups?per_page=100`)) {
        await running.ok(`${base}/${pkg.id}/groups/${group.id}`, patch({ mode: 'off' }))
      }
    }
    const wizard = new migration.MigrationWizard()
    await wizard.select(zone.id)
    const attack = '/?id=1%27%20UNION%20SELECT%20password%20FROM%20users--'
    wizard.comparison.pasted = ['/', attack, '/about', attack]
      .map((path) => JSON.stringify({ method: 'GET', url: `https://${zone.name}${path}` }))
      .join('\n')
    await wizard.comparison.run(zone.id)
    await wizard.comparison.readRequests()
    const requests = wizard.comparison.requests ?? []
    expect(requests.map((request) => [request.index, request.differs])).toEqual([
      [1, true],
      [3, true],
      [0, false],
      [2, false],
    ])
    expect(wizard.comparison.result?.results).toEqual(requests)
    expect(wizard.comparison.result?.differences).toBe(2)
    wizard.comparison.stop()
  })
})
