// The migration from the previous managed-rules product to managed rulesets
// (docs/vendor-behaviour.md#migration-api) against a real service whose clock the tests move: the
// compatibility check, the generated configuration (sensitivity and action mapping, each legacy
// setting that carries over, what does not, the limits), deploying it (pending on Pro/Business,
// validation on Enterprise), every refusal, irreversibility (restart, history restore), and what
// the simulator runs in each state, with the side-by-side comparison.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../unit/objects/fake-clock'
import {
  CREDENTIALS,
  type Init,
  newZone,
  patch,
  post,
  put,
  removeDataDir,
  type Running,
  simulate,
  startService,
} from './harness'

const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const OWASP_RULESET = '4814384a9e5d4991b9815dcfc25d2f1f'
const ANOMALY_RULE = '6179ae15870a4bb7b2d480d4843b323c'
const EXPOSED_CREDENTIALS = 'c2e184081120413c86c3ab7e14069605'
const TRADITIONAL = '1e334934fd7ae32ad705667f8c1057aa'
const OWASP_PACKAGE = 'c504870194831cd12c3fc0284f294abb'
const OWASP_GENERIC_ATTACKS = '5461c3844f6b5597986ae41d052a7cbd'
const CLOUDFLARE_SPECIALS = 'f90712123fb02287348dd34c0a282bb9'
const MANAGED_PHASE = 'http_request_firewall_managed'
/** The switch-over of these tests, two minutes as by default: the tests move the clock past it. */
const SWITCH_MS = 2 * 60_000
/** The clock of every service these tests start: a switch-over comes when a test moves it. */
const clock = new FakeClock(Date.UTC(2026, 0, 1))

let running: Running
beforeAll(async () => {
  running = await startService(undefined, { migrationSwitchMs: SWITCH_MS, clock })
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

// ---------------------------------------------------------------------------------------------
// Helpers

type Plan = 'pro' | 'business' | 'enterprise'

async function createZone(
  plan: Plan,
  wafProduct: 'previous' | 'managed_rulesets' = 'previous',
  on: Running = running,
): Promise<{ id: string; name: string }> {
  return newZone(on, { plan, waf_product: wafProduct })
}

const workbench = (zone: string, path: string, on: Running = running) =>
  `${on.origin}/workbench/v1/zones/${zone}/${path}`
const entrypointPath = (zone: string) =>
  `/zones/${zone}/rulesets/phases/${MANAGED_PHASE}/entrypoint`

const check = (zone: string, on: Running = running) =>
  on.ok(`/zones/${zone}/waf_migration/check?phase_two=1`, undefined)
const config = (zone: string) => running.ok(`/zones/${zone}/waf_migration/config?phase_two=1`)
const status = (zone: string, on: Running = running) =>
  on.ok(`/zones/${zone}/waf_migration/status`, undefined)
const preview = (zone: string) => running.ok(workbench(zone, 'waf_migration/preview'))

const deployPath = (zone: string, mode: string, extra = '') =>
  `${entrypointPath(zone)}?waf_migration=${mode}&phase_two=1${extra}`

/** Deploys the generated configuration with `waf_migration=mode`; the ruleset answered. */
async function deploy(zone: string, mode: string, on: Running = running): Promise<any> {
  const body = await on.ok(`/zones/${zone}/waf_migration/config?phase_two=1`, undefined)
  return on.ok(deployPath(zone, mode), put(body))
}

/**
 * Moves the clock `ms` on (past the switch-over by default): the zone's alarm completes its
 * pending migration. Answers the migration's status, which must then be `completed`.
 */
async function switchOver(zone: string, on: Running = running, ms = SWITCH_MS): Promise<any> {
  await clock.advance(ms)
  const current = await status(zone, on)
  expect(current.migration_state).toBe('completed')
  return current
}

async function hasNoEntrypoint(zone: string): Promise<void> {
  const answer = await running.call(entrypointPath(zone))
  expect(answer.status).toBe(404)
}

/** The config's execute rule deploying `rulesetId`. */
function deployment(cfg: { rules: any[] }, rulesetId: string): any {
  const rule = cfg.rules.find(
    (r) => r.action === 'execute' && r.action_parameters?.id === rulesetId,
  )
  expect(rule, `an execute rule for ${rulesetId}`).toBeDefined()
  return rule
}

const skips = (cfg: { rules: any[] }) => cfg.rules.filter((r) => r.action === 'skip')

const disabledCategories = (rule: any): string[] =>
  (rule.action_parameters.overrides?.categories ?? [])
    .filter((c: any) => c.enabled === false)
    .map((c: any) => c.category)
    .sort()

const anomalyOverride = (rule: any) =>
  rule.action_parameters.overrides?.rules?.find((r: any) => r.id === ANOMALY_RULE)

async function setOwasp(zone: string, edit: Record<string, string>): Promise<void> {
  await running.ok(`/zones/${zone}/firewall/waf/packages/${OWASP_PACKAGE}`, patch(edit))
}

async function firewallRules(zone: string, rules: unknown[]): Promise<any[]> {
  return running.ok(`/zones/${zone}/firewall/rules`, post(rules))
}

function pageRuleBody(
  pattern: string,
  actions: { id: string; value?: unknown }[],
  priority: number,
  status: 'active' | 'disabled' = 'active',
) {
  return {
    targets: [{ target: 'url', constraint: { operator: 'matches', value: pattern } }],
    actions,
    priority,
    status,
  }
}

async function createOverride(zone: string): Promise<string> {
  const created = await running.ok(
    `/zones/${zone}/firewall/waf/overrides`,
    post({ urls: ['shop.example.com/*'], groups: { [OWASP_GENERIC_ATTACKS]: 'disable' } }),
  )
  return created.id
}

const sqli = (host: string, path = '/products') => ({
  method: 'GET',
  url: `https://${host}${path}?id=1' UNION SELECT username,password FROM users--`,
  ip: '198.51.100.7',
})

/** Every group of both packages switched off: the previous product then lets everything pass. */
async function switchAllGroupsOff(zone: string): Promise<void> {
  for (const pkg of [TRADITIONAL, OWASP_PACKAGE]) {
    const groups = await running.ok(
      `/zones/${zone}/firewall/waf/packages/${pkg}/groups?per_page=100`,
    )
    for (const group of groups) {
      await running.ok(
        `/zones/${zone}/firewall/waf/packages/${pkg}/groups/${group.id}`,
        patch({ mode: 'off' }),
      )
    }
  }
}

/** Previous-product routes, one per kind, with a valid request each. */
function previousRoutes(zone: string): [string, Init][] {
  const waf = `/zones/${zone}/firewall/waf`
  return [
    [`${waf}/packages`, undefined],
    [`${waf}/packages/${OWASP_PACKAGE}`, undefined],
    [`${waf}/packages/${OWASP_PACKAGE}`, patch({ sensitivity: 'low' })],
    [`${waf}/packages/${TRADITIONAL}/groups`, undefined],
    [`${waf}/packages/${TRADITIONAL}/groups/${CLOUDFLARE_SPECIALS}`, patch({ mode: 'off' })],
    [`${waf}/packages/${TRADITIONAL}/rules`, undefined],
    [`${waf}/overrides`, undefined],
    [
      `${waf}/overrides`,
      post({ urls: ['a.example.com/*'], groups: { [CLOUDFLARE_SPECIALS]: 'disable' } }),
    ],
    [`/zones/${zone}/settings/waf`, undefined],
    [`/zones/${zone}/settings/waf`, patch({ value: 'off' })],
  ]
}

async function expectPreviousProductGone(zone: string, on: Running = running): Promise<void> {
  for (const [path, init] of previousRoutes(zone)) {
    await on.refused(path, init, 400, 10400)
  }
}

// ---------------------------------------------------------------------------------------------

describe('compatibility check', () => {
  it('says a new previous-product zone can migrate, from state start', async () => {
    const zone = await createZone('pro')
    expect(await check(zone.id)).toEqual({
      compatible: true,
      migration_state: 'start',
      reasons: [],
    })
    expect(await status(zone.id)).toMatchObject({
      migration_state: 'start',
      old_waf_status: 'enabled',
      new_waf_status: 'disabled',
      created: null,
      switch_at: null,
    })
  })

  it('says no while a URI-based override exists, and yes once it is deleted', async () => {
    const zone = await createZone('business')
    const override = await createOverride(zone.id)
    const blocked = await check(zone.id)
    expect(blocked).toMatchObject({ compatible: false, migration_state: 'start' })
    expect(blocked.reasons.join(' ')).toMatch(/URI-based/)
    expect(
      await running.ok(`/zones/${zone.id}/firewall/waf/overrides/${override}`, {
        method: 'DELETE',
      }),
    ).toEqual({ id: override })
    expect(await check(zone.id)).toEqual({
      compatible: true,
      migration_state: 'start',
      reasons: [],
    })
  })

  it('says no for a zone created on managed rulesets', async () => {
    const zone = await createZone('pro', 'managed_rulesets')
    expect(await check(zone.id)).toMatchObject({ compatible: false, migration_state: 'completed' })
  })
})

describe('the generated configuration', () => {
  it('has the vendor shape: name default, empty id/version/ref on every rule', async () => {
    const zone = await createZone('pro')
    await firewallRules(zone.id, [
      {
        filter: { expression: 'http.request.uri.path eq "/healthz"' },
        action: 'bypass',
        products: ['waf'],
      },
    ])
    await running.ok(
      `/zones/${zone.id}/pagerules`,
      post(pageRuleBody('*example.com/admin/*', [{ id: 'disable_security' }], 1)),
    )
    const cfg = await config(zone.id)
    expect(cfg.name).toBe('default')
    expect(cfg.rules.length).toBeGreaterThanOrEqual(4)
    for (const rule of cfg.rules) expect(rule).toMatchObject({ id: '', version: '', ref: '' })
    expect(deployment(cfg, GENERAL)).toMatchObject({ expression: 'true', enabled: true })
    // skip rules come before the deployments they skip
    const lastSkip = cfg.rules.map((r: any) => r.action).lastIndexOf('skip')
    const firstExecute = cfg.rules.map((r: any) => r.action).indexOf('execute')
    expect(lastSkip).toBeLessThan(firstExecute)
  })

  describe('sensitivity mapping', () => {
    const rows = [
      ['high', ['paranoia-level-3', 'paranoia-level-4'], 40],
      ['medium', ['paranoia-level-2', 'paranoia-level-3', 'paranoia-level-4'], 25],
      ['low', ['paranoia-level-2', 'paranoia-level-3', 'paranoia-level-4'], 40],
    ] as const
    for (const [sensitivity, disabled, threshold] of rows) {
      it(`${sensitivity} → PL${disabled.length === 2 ? 2 : 1}, threshold ${threshold}`, async () => {
        const zone = await createZone('pro')
        await setOwasp(zone.id, { sensitivity })
        const owasp = deployment(await config(zone.id), OWASP_RULESET)
        expect(owasp.enabled).toBe(true)
        expect(disabledCategories(owasp)).toEqual([...disabled])
        expect(anomalyOverride(owasp)).toMatchObject({ score_threshold: threshold })
        expect((await preview(zone.id)).owasp).toMatchObject({
          sensitivity,
          paranoia_level: disabled.length === 2 ? 2 : 1,
          score_threshold: threshold,
        })
      })
    }

    it('the untouched default (high) → PL2, threshold 40', async () => {
      const zone = await createZone('business')
      const owasp = deployment(await config(zone.id), OWASP_RULESET)
      expect(disabledCategories(owasp)).toEqual(['paranoia-level-3', 'paranoia-level-4'])
      expect(anomalyOverride(owasp)).toMatchObject({ score_threshold: 40, action: 'challenge' })
    })

    it('off → the OWASP execute rule is there, disabled', async () => {
      const zone = await createZone('pro')
      await setOwasp(zone.id, { sensitivity: 'off' })
      const cfg = await config(zone.id)
      expect(deployment(cfg, OWASP_RULESET).enabled).toBe(false)
      expect(deployment(cfg, GENERAL).enabled).toBe(true)
      expect((await preview(zone.id)).owasp).toMatchObject({ paranoia_level: null })
    })
  })

  describe('action mapping', () => {
    for (const [actionMode, action] of [
      ['simulate', 'log'],
      ['block', 'block'],
      ['challenge', 'challenge'],
    ] as const) {
      it(`${actionMode} → ${action}`, async () => {
        const zone = await createZone('pro')
        await setOwasp(zone.id, { action_mode: actionMode })
        const owasp = deployment(await config(zone.id), OWASP_RULESET)
        expect(anomalyOverride(owasp)).toMatchObject({ action })
      })
    }
  })

  describe('legacy settings that carry over', () => {
    it('a Bypass > WAF firewall rule → a skip rule (ruleset current) with its expression', async () => {
      const zone = await createZone('pro')
      const expression = 'http.request.uri.path eq "/healthz" and ip.src in {192.0.2.0/24}'
      await firewallRules(zone.id, [
        { filter: { expression }, action: 'bypass', products: ['waf'], description: 'health' },
        {
          filter: { expression: 'http.request.uri.path eq "/paused"' },
          action: 'bypass',
          products: ['waf'],
          paused: true,
        },
        {
          filter: { expression: 'http.request.uri.path eq "/ratelimit"' },
          action: 'bypass',
          products: ['rateLimit'],
        },
        { filter: { expression: 'http.request.uri.path eq "/blocked"' }, action: 'block' },
      ])
      const found = skips(await config(zone.id))
      expect(found).toHaveLength(1)
      expect(found[0]).toMatchObject({
        action: 'skip',
        expression,
        enabled: true,
        action_parameters: { ruleset: 'current' },
      })
    })

    it('Disable Security and WAF Off page rules → skip rules for their URL pattern, excluding page rules of higher priority', async () => {
      const zone = await createZone('business')
      await running.ok(
        `/zones/${zone.id}/pagerules`,
        post(pageRuleBody('*example.com/admin/*', [{ id: 'disable_security' }], 2)),
      )
      await running.ok(
        `/zones/${zone.id}/pagerules`,
        post(pageRuleBody('example.com/legacy/*', [{ id: 'waf', value: 'off' }], 1)),
      )
      await running.ok(
        `/zones/${zone.id}/pagerules`,
        post(pageRuleBody('example.com/old/*', [{ id: 'disable_security' }], 3, 'disabled')),
      )
      const found = skips(await config(zone.id))
      expect(found).toHaveLength(2)
      for (const rule of found) {
        expect(rule).toMatchObject({ action_parameters: { ruleset: 'current' }, enabled: true })
      }
      const admin = found.find((r: any) => r.expression.includes('example.com/admin/'))
      const legacy = found.find((r: any) => r.expression.includes('example.com/legacy/'))
      expect(admin, 'a skip rule for the Disable Security page rule').toBeDefined()
      expect(legacy, 'a skip rule for the WAF Off page rule').toBeDefined()
      expect(admin.expression).not.toContain('legacy')
      // the WAF Off rule applies only where the higher-priority Disable Security rule does not
      expect(legacy.expression).toMatch(/not[\s(]+[^)]*example\.com\/admin\//)
      expect(found.some((r: any) => r.expression.includes('/old/'))).toBe(false)
    })

    it("with the zone's WAF off and a WAF On page rule → the deployments scoped to it", async () => {
      const zone = await createZone('pro')
      await running.ok(`/zones/${zone.id}/settings/waf`, patch({ value: 'off' }))
      await running.ok(
        `/zones/${zone.id}/pagerules`,
        post(pageRuleBody('*example.com/shop/*', [{ id: 'waf', value: 'on' }], 1)),
      )
      const cfg = await config(zone.id)
      for (const id of [GENERAL, OWASP_RULESET]) {
        const rule = deployment(cfg, id)
        expect(rule.enabled).toBe(true)
        expect(rule.expression).not.toBe('true')
        expect(rule.expression).toContain('example.com/shop/')
      }
    })

    it("with the zone's WAF off and no WAF On page rule → the deployments disabled", async () => {
      const zone = await createZone('pro')
      await running.ok(`/zones/${zone.id}/settings/waf`, patch({ value: 'off' }))
      const cfg = await config(zone.id)
      expect(deployment(cfg, GENERAL).enabled).toBe(false)
      expect(deployment(cfg, OWASP_RULESET).enabled).toBe(false)
    })
  })

  it('leaves out group and rule modes, listing them in the preview as not migrated', async () => {
    const zone = await createZone('pro')
    const rules = await running.ok(
      `/zones/${zone.id}/firewall/waf/packages/${TRADITIONAL}/rules?per_page=100`,
    )
    const rule = rules.find((r: any) => r.allowed_modes.includes('block'))
    await running.ok(
      `/zones/${zone.id}/firewall/waf/packages/${TRADITIONAL}/rules/${rule.id}`,
      patch({ mode: 'disable' }),
    )
    const group = await running.ok(
      `/zones/${zone.id}/firewall/waf/packages/${OWASP_PACKAGE}/groups/${OWASP_GENERIC_ATTACKS}`,
    )
    const flipped = group.mode === 'on' ? 'off' : 'on'
    await running.ok(
      `/zones/${zone.id}/firewall/waf/packages/${OWASP_PACKAGE}/groups/${OWASP_GENERIC_ATTACKS}`,
      patch({ mode: flipped }),
    )

    const cfg = await config(zone.id)
    const text = JSON.stringify(cfg)
    expect(text).not.toContain(OWASP_GENERIC_ATTACKS)
    expect(text).not.toContain(`"${rule.id}"`)
    expect(cfg).toEqual(await config((await createZone('pro')).id))

    const notMigrated = (await preview(zone.id)).not_migrated
    expect(notMigrated).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'rule_mode',
          package_id: TRADITIONAL,
          id: rule.id,
          mode: 'disable',
        }),
        expect.objectContaining({
          kind: 'group_mode',
          package_id: OWASP_PACKAGE,
          id: OWASP_GENERIC_ATTACKS,
          mode: flipped,
          default_mode: group.mode,
        }),
      ]),
    )
    expect(notMigrated).toHaveLength(2)
  })

  it('refuses more than 200 firewall rules to migrate with 10302', async () => {
    const zone = await createZone('enterprise')
    expect(
      await running.ok(workbench(zone.id, 'firewall/settings'), patch({ rule_quota: 1000 })),
    ).toMatchObject({ rule_quota: 1000 })
    const bypass = (index: number) => ({
      filter: { expression: `http.request.uri.path eq "/bypass/${index}"` },
      action: 'bypass',
      products: ['waf'],
    })
    const created = await firewallRules(
      zone.id,
      Array.from({ length: 200 }, (_, index) => bypass(index)),
    )
    expect(created).toHaveLength(200)
    expect(skips(await config(zone.id))).toHaveLength(200)

    await firewallRules(zone.id, [bypass(200)])
    await running.refused(
      `/zones/${zone.id}/waf_migration/config?phase_two=1`,
      undefined,
      400,
      10302,
    )
    expect((await preview(zone.id)).config_error).toMatchObject({ code: 10302 })
  })

  it('refuses a firewall rule expression over 4 KB with 10303, also when deploying', async () => {
    const zone = await createZone('pro')
    // 2,100 two-byte characters: under 4,096 characters, over 4 KB
    const expression = `http.request.uri.path eq "/${'é'.repeat(2100)}"`
    expect(Buffer.byteLength(expression)).toBeGreaterThan(4096)
    await firewallRules(zone.id, [{ filter: { expression }, action: 'bypass', products: ['waf'] }])
    await running.refused(
      `/zones/${zone.id}/waf_migration/config?phase_two=1`,
      undefined,
      400,
      10303,
    )

    const body = {
      name: 'default',
      rules: [{ action: 'execute', expression: 'true', action_parameters: { id: GENERAL } }],
    }
    await running.refused(deployPath(zone.id, 'pending'), put(body), 400, 10303)
    expect((await status(zone.id)).migration_state).toBe('start')
    await hasNoEntrypoint(zone.id)
  })
})

describe('deploying the migration', () => {
  for (const [plan, mode] of [
    ['pro', 'pending'],
    ['business', '1'],
  ] as const) {
    it(`${plan}: waf_migration=${mode} → pending (both on), then completed (old off)`, async () => {
      const zone = await createZone(plan)
      const cfg = await config(zone.id)
      const deployed = await running.ok(deployPath(zone.id, mode), put(cfg))
      expect(deployed).toMatchObject({ phase: MANAGED_PHASE, kind: 'zone' })
      expect(deployed.rules).toHaveLength(cfg.rules.length)
      for (const rule of deployed.rules) expect(rule.id).toMatch(/^[0-9a-f]{32}$/)

      const pending = await status(zone.id)
      expect(pending).toMatchObject({
        migration_state: 'pending',
        new_waf_status: 'enabled',
        old_waf_status: 'enabled',
        source: 'api',
      })
      expect(typeof pending.switch_at).toBe('string')
      expect(typeof pending.created).toBe('string')
      expect(await check(zone.id)).toMatchObject({ compatible: false, migration_state: 'pending' })

      const completed = await switchOver(zone.id)
      expect(completed).toMatchObject({
        old_waf_status: 'disabled',
        new_waf_status: 'enabled',
        switch_at: null,
        created: pending.created,
      })
      expect((await running.ok(`/zones/${zone.id}`)).waf_product).toBe('managed_rulesets')

      const entrypoint = await running.ok(entrypointPath(zone.id))
      expect(entrypoint.rules).toHaveLength(cfg.rules.length)
      cfg.rules.forEach((rule: any, index: number) => {
        const live = entrypoint.rules[index]
        expect(live).toMatchObject({
          action: rule.action,
          expression: rule.expression,
          enabled: rule.enabled,
        })
        if (rule.action === 'execute') {
          expect(live.action_parameters.id).toBe(rule.action_parameters.id)
          expect(live.action_parameters.overrides).toEqual(rule.action_parameters.overrides)
        } else {
          expect(live.action_parameters).toEqual(rule.action_parameters)
        }
      })
    })
  }

  for (const plan of ['pro', 'business'] as const) {
    it(`${plan}: refuses validation mode (validation, 2) with 10304, changing nothing`, async () => {
      const zone = await createZone(plan)
      const cfg = await config(zone.id)
      for (const mode of ['validation', '2']) {
        await running.refused(deployPath(zone.id, mode), put(cfg), 400, 10304)
      }
      expect((await status(zone.id)).migration_state).toBe('start')
      await hasNoEntrypoint(zone.id)
    })
  }

  for (const mode of ['validation', '2']) {
    it(`enterprise: waf_migration=${mode} → validation (both on), left with pending → completed`, async () => {
      const zone = await createZone('enterprise')
      await deploy(zone.id, mode)
      expect(await status(zone.id)).toMatchObject({
        migration_state: 'validation',
        old_waf_status: 'enabled',
        new_waf_status: 'enabled',
        switch_at: null,
        source: 'api',
      })
      expect((await running.ok(`/zones/${zone.id}`)).waf_product).toBe('previous')
      expect((await check(zone.id)).migration_state).toBe('validation')
      // the previous product's API still answers in validation mode
      await running.ok(`/zones/${zone.id}/firewall/waf/packages`)

      await deploy(zone.id, 'pending')
      expect((await status(zone.id)).migration_state).toBe('pending')
      await switchOver(zone.id)
      expect((await running.ok(`/zones/${zone.id}`)).waf_product).toBe('managed_rulesets')
    })
  }

  it('refuses waf_migration while pending and after completion with 10305', async () => {
    const zone = await createZone('enterprise')
    const cfg = await config(zone.id)
    await running.ok(deployPath(zone.id, 'pending'), put(cfg))
    for (const mode of ['pending', '1', 'validation', '2']) {
      await running.refused(deployPath(zone.id, mode), put(cfg), 400, 10305)
    }
    await switchOver(zone.id)
    for (const mode of ['pending', '1', 'validation', '2']) {
      await running.refused(deployPath(zone.id, mode), put(cfg), 400, 10305)
    }
  })

  it('refuses waf_migration on a zone created on managed rulesets with 10306', async () => {
    const zone = await createZone('enterprise', 'managed_rulesets')
    const body = {
      rules: [{ action: 'execute', expression: 'true', action_parameters: { id: GENERAL } }],
    }
    for (const mode of ['pending', 'validation']) {
      await running.refused(deployPath(zone.id, mode), put(body), 400, 10306)
    }
    await hasNoEntrypoint(zone.id)
    await running.refused(`/zones/${zone.id}/waf_migration/config?phase_two=1`, {}, 400, 10306)
  })

  it('refuses an invalid waf_migration value with 400', async () => {
    const zone = await createZone('enterprise')
    const cfg = await config(zone.id)
    for (const mode of ['later', '3', '']) {
      await running.refused(deployPath(zone.id, mode), put(cfg), 400)
    }
    expect((await status(zone.id)).migration_state).toBe('start')
    await hasNoEntrypoint(zone.id)
  })

  it('refuses an incompatible zone with 10301, changing nothing', async () => {
    const zone = await createZone('enterprise')
    const override = await createOverride(zone.id)
    const cfg = await config(zone.id)
    for (const mode of ['pending', 'validation']) {
      const error = await running.refused(deployPath(zone.id, mode), put(cfg), 400, 10301)
      expect(error.message).toMatch(/URI-based/)
    }
    expect((await status(zone.id)).migration_state).toBe('start')
    await hasNoEntrypoint(zone.id)
    expect(
      (await running.ok(`/zones/${zone.id}/firewall/waf/overrides`)).map((o: any) => o.id),
    ).toEqual([override])
  })

  it('changes nothing with dry_run=true', async () => {
    const zone = await createZone('enterprise')
    const cfg = await config(zone.id)
    for (const mode of ['pending', 'validation']) {
      const answer = await running.call(deployPath(zone.id, mode, '&dry_run=true'), put(cfg))
      expect(answer.status).toBe(200)
      expect(answer.body.success).toBe(true)
    }
    expect(await status(zone.id)).toMatchObject({ migration_state: 'start', created: null })
    await hasNoEntrypoint(zone.id)
    expect((await running.ok(`/zones/${zone.id}`)).waf_product).toBe('previous')
    // a dry run is checked in full
    const pro = await createZone('pro')
    await running.refused(
      deployPath(pro.id, 'validation', '&dry_run=true'),
      put(await config(pro.id)),
      400,
      10304,
    )
  })

  it('refuses managed deployments without waf_migration before the migration (20132), not custom rules', async () => {
    const zone = await createZone('enterprise')
    const custom = { action: 'log', expression: 'http.request.uri.path eq "/probe"' }
    const managed = { action: 'execute', expression: 'true', action_parameters: { id: GENERAL } }

    const error = await running.refused(
      entrypointPath(zone.id),
      put({ rules: [custom, managed] }),
      400,
      20132,
    )
    expect(error.source?.pointer).toBe('/rules/1/action_parameters/id')
    await hasNoEntrypoint(zone.id)

    const entrypoint = await running.ok(entrypointPath(zone.id), put({ rules: [custom] }))
    expect(entrypoint.rules).toHaveLength(1)
    const added = await running.refused(
      `/zones/${zone.id}/rulesets/${entrypoint.id}/rules`,
      post(managed),
      400,
      20132,
    )
    expect(added.source?.pointer).toBe('/action_parameters/id')
    expect((await running.ok(entrypointPath(zone.id))).rules).toHaveLength(1)
    expect((await status(zone.id)).migration_state).toBe('start')

    // once migrated, the Rulesets API deploys managed rulesets as usual
    await deploy(zone.id, 'pending')
    await switchOver(zone.id)
    const migrated = await running.ok(entrypointPath(zone.id))
    const withCredentialsCheck = await running.ok(
      `/zones/${zone.id}/rulesets/${migrated.id}/rules`,
      post({
        action: 'execute',
        expression: 'true',
        action_parameters: { id: EXPOSED_CREDENTIALS },
      }),
    )
    expect(withCredentialsCheck.rules).toHaveLength(migrated.rules.length + 1)
  })
})

describe('irreversibility', () => {
  it('refuses every previous-product route with 10400 once completed', async () => {
    const zone = await createZone('pro')
    await deploy(zone.id, 'pending')
    // still there while the switch-over runs
    await running.ok(`/zones/${zone.id}/firewall/waf/packages`)
    await switchOver(zone.id)
    await expectPreviousProductGone(zone.id)
    const error = await running.refused(
      `/zones/${zone.id}/firewall/waf/packages`,
      undefined,
      400,
      10400,
    )
    expect(error.message).toMatch(/rulesets/i)
    expect(await check(zone.id)).toMatchObject({ compatible: false, migration_state: 'completed' })
  })

  it('stays completed across a restart of the service', async () => {
    let service = await startService(undefined, { migrationSwitchMs: SWITCH_MS, clock })
    const { dataDir } = service
    try {
      const zone = await createZone('business', 'previous', service)
      await deploy(zone.id, 'pending', service)
      await switchOver(zone.id, service)
      await service.stop()
      service = await startService(dataDir, { migrationSwitchMs: SWITCH_MS, clock })
      expect(await status(zone.id, service)).toMatchObject({
        migration_state: 'completed',
        old_waf_status: 'disabled',
        new_waf_status: 'enabled',
      })
      expect((await service.ok(`/zones/${zone.id}`, undefined)).waf_product).toBe(
        'managed_rulesets',
      )
      await expectPreviousProductGone(zone.id, service)
    } finally {
      await service.stop()
      removeDataDir(dataDir)
    }
  })

  it('completes on start a pending migration whose switch time passed while stopped', async () => {
    let service = await startService(undefined, { migrationSwitchMs: SWITCH_MS, clock })
    const { dataDir } = service
    try {
      const zone = await createZone('pro', 'previous', service)
      await deploy(zone.id, 'pending', service)
      const pending = await status(zone.id, service)
      expect(pending.migration_state).toBe('pending')
      await service.stop()

      // the switch-over time passes with the service stopped
      await clock.advance(Date.parse(pending.switch_at) - clock.now())

      service = await startService(dataDir, { migrationSwitchMs: 60_000, clock })
      // the alarm is due at start: it runs without the clock moving on
      await switchOver(zone.id, service, 0)
      expect((await service.ok(`/zones/${zone.id}`, undefined)).waf_product).toBe(
        'managed_rulesets',
      )
      await expectPreviousProductGone(zone.id, service)
    } finally {
      await service.stop()
      removeDataDir(dataDir)
    }
  })

  it("refuses to restore the zone's history to before the migration; later points restore", async () => {
    const zone = await createZone('pro')
    await setOwasp(zone.id, { sensitivity: 'medium' })
    const history = () => running.ok(workbench(zone.id, 'history'))
    const beforeMigration = (await history())[0].bookmark
    await deploy(zone.id, 'pending')
    await switchOver(zone.id)

    const error = await running.refused(
      workbench(zone.id, 'history/restore'),
      post({ bookmark: beforeMigration }),
      400,
    )
    expect(error.message).toMatch(/migration/i)
    expect(await status(zone.id)).toMatchObject({ migration_state: 'completed' })
    expect((await running.ok(`/zones/${zone.id}`)).waf_product).toBe('managed_rulesets')
    await expectPreviousProductGone(zone.id)

    // a point after the migration can be restored
    const afterMigration = (await history())[0].bookmark
    await running.ok(
      `/zones/${zone.id}/pagerules`,
      post(pageRuleBody('example.com/a/*', [{ id: 'disable_security' }], 1)),
    )
    await running.ok(workbench(zone.id, 'history/restore'), post({ bookmark: afterMigration }))
    expect(await running.ok(`/zones/${zone.id}/pagerules`)).toEqual([])
    expect(await status(zone.id)).toMatchObject({ migration_state: 'completed' })
  })
})

describe('while the switch-over is pending', () => {
  // A switch-over long enough that it cannot complete during these tests.
  let slow: Running
  beforeAll(async () => {
    slow = await startService(undefined, { migrationSwitchMs: 10 * 60_000, clock })
  })
  afterAll(async () => {
    await slow.stop()
    removeDataDir(slow.dataDir)
  })

  it('runs managed rulesets first, then the previous product', async () => {
    const zone = await createZone('pro', 'previous', slow)
    await deploy(zone.id, 'pending', slow)
    const result = await simulate(slow, zone.id, sqli(zone.name))
    expect(result.outcome).toBe('blocked')
    const kinds: string[] = result.trace.map((n: any) => n.kind)
    expect(kinds).toContain('entrypoint_rule')
    expect(kinds.lastIndexOf('entrypoint_rule')).toBeLessThan(kinds.indexOf('waf_package'))
    // the managed rulesets blocked: the previous product did not get to run
    const packages = result.trace.filter((n: any) => n.kind === 'waf_package')
    expect(packages.map((n: any) => n.not_evaluated)).toEqual(['stopped', 'stopped'])
    expect(result.events.every((e: any) => e.source === 'firewallManaged')).toBe(true)
  })

  it('stays pending across a restart, with the same switch time', async () => {
    const zone = await createZone('business', 'previous', slow)
    await deploy(zone.id, 'pending', slow)
    const before = await status(zone.id, slow)
    const { dataDir } = slow
    await slow.stop()
    slow = await startService(dataDir, { migrationSwitchMs: 10 * 60_000, clock })
    expect(await status(zone.id, slow)).toEqual(before)
    await slow.ok(`/zones/${zone.id}/firewall/waf/packages`, undefined)
  })

  it("refuses to restore the zone's history to before the migration began", async () => {
    const zone = await createZone('pro', 'previous', slow)
    const history = await slow.ok(workbench(zone.id, 'history', slow), undefined)
    await deploy(zone.id, 'pending', slow)
    await slow.refused(
      workbench(zone.id, 'history/restore', slow),
      post({ bookmark: history[0].bookmark }),
      400,
      undefined,
    )
    expect((await status(zone.id, slow)).migration_state).toBe('pending')
    expect((await slow.ok(entrypointPath(zone.id), undefined)).rules.length).toBeGreaterThan(0)
  })
})

describe('the simulator in each state', () => {
  it('before the migration: only the previous product acts (events from waf)', async () => {
    const zone = await createZone('pro')
    const result = await simulate(running, zone.id, sqli(zone.name))
    expect(result.outcome).not.toBe('passed')
    expect(result.events.length).toBeGreaterThan(0)
    expect(result.events.every((e: any) => e.source === 'waf')).toBe(true)
    const packages = result.trace.filter((n: any) => n.kind === 'waf_package')
    expect(packages.map((n: any) => n.rule_id)).toEqual(
      expect.arrayContaining([TRADITIONAL, OWASP_PACKAGE]),
    )
    expect(result.trace.some((n: any) => n.kind === 'entrypoint_rule')).toBe(false)
  })

  it('shows the page rule and the override that apply', async () => {
    const zone = await createZone('pro')
    const pageRule = await running.ok(
      `/zones/${zone.id}/pagerules`,
      post(pageRuleBody(`*${zone.name}/admin/*`, [{ id: 'disable_security' }], 1)),
    )
    const admin = await simulate(running, zone.id, sqli(zone.name, '/admin/users'))
    expect(admin.outcome).toBe('passed')
    expect(admin.events).toEqual([])
    expect(admin.trace.find((n: any) => n.kind === 'page_rule')).toMatchObject({
      rule_id: pageRule.id,
    })
    expect(
      admin.trace.filter((n: any) => n.kind === 'waf_package').every((n: any) => !n.evaluated),
    ).toBe(true)

    const override = await running.ok(
      `/zones/${zone.id}/firewall/waf/overrides`,
      post({ urls: [`${zone.name}/special/*`], groups: { [CLOUDFLARE_SPECIALS]: 'default' } }),
    )
    const special = await simulate(running, zone.id, sqli(zone.name, '/special/x'))
    expect(special.trace.find((n: any) => n.kind === 'waf_override')).toMatchObject({
      rule_id: override.id,
    })
    const elsewhere = await simulate(running, zone.id, sqli(zone.name, '/products'))
    expect(elsewhere.trace.some((n: any) => n.kind === 'waf_override')).toBe(false)
    expect(elsewhere.trace.some((n: any) => n.kind === 'page_rule')).toBe(false)
  })

  it('in validation mode: managed rulesets first, then the previous product; events from both', async () => {
    const zone = await createZone('enterprise')
    await setOwasp(zone.id, { action_mode: 'simulate' })
    const cfg = await config(zone.id)
    // the managed rulesets only log, so that the previous product runs after them
    for (const rule of cfg.rules) {
      if (rule.action_parameters?.id === GENERAL) {
        rule.action_parameters.overrides = { ...rule.action_parameters.overrides, action: 'log' }
      }
    }
    await running.ok(deployPath(zone.id, 'validation'), put(cfg))

    const result = await simulate(running, zone.id, sqli(zone.name))
    const kinds: string[] = result.trace.map((n: any) => n.kind)
    expect(kinds).toContain('entrypoint_rule')
    expect(kinds).toContain('waf_package')
    expect(kinds.lastIndexOf('entrypoint_rule')).toBeLessThan(kinds.indexOf('waf_package'))
    const sources = new Set(result.events.map((e: any) => e.source))
    expect(sources).toEqual(new Set(['firewallManaged', 'waf']))
  })

  it('after completion: only managed rulesets', async () => {
    const zone = await createZone('pro')
    await deploy(zone.id, 'pending')
    await switchOver(zone.id)
    const result = await simulate(running, zone.id, sqli(zone.name))
    expect(result.outcome).toBe('blocked')
    expect(result.events.length).toBeGreaterThan(0)
    expect(result.events.every((e: any) => e.source === 'firewallManaged')).toBe(true)
    expect(result.trace.some((n: any) => n.kind.startsWith('waf_'))).toBe(false)
  })
})

describe('side-by-side comparison', () => {
  const traffic = (host: string) => [
    { method: 'GET', url: `https://${host}/` },
    sqli(host),
    { method: 'GET', url: `https://${host}/about` },
    sqli(host, '/search'),
  ]
  const ndjson = (lines: unknown[]) => lines.map((line) => JSON.stringify(line)).join('\n')
  const compare = (zone: string, body: string, query = '') =>
    fetch(`${workbench(zone, 'waf_migration/compare')}${query}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${CREDENTIALS.apiToken}`,
        'content-type': 'application/x-ndjson',
      },
      body,
    })

  function expectConsistent(result: any, requests: number): void {
    expect(result.requests).toBe(requests)
    expect(result.results).toHaveLength(requests)
    const sum = (counts: Record<string, number>) =>
      Object.values(counts).reduce((total, n) => total + n, 0)
    expect(sum(result.outcomes.previous)).toBe(requests)
    expect(sum(result.outcomes.new)).toBe(requests)
    const cells = Object.values(result.matrix).reduce(
      (total: number, row: any) => total + sum(row),
      0,
    )
    expect(cells).toBe(requests)
    const differing = result.results.filter((r: any) => r.differs)
    expect(result.differences).toBe(differing.length)
    // differences first, each group in request order
    const flags = result.results.map((r: any) => r.differs)
    expect(flags).toEqual([...flags].sort((a, b) => Number(b) - Number(a)))
    const indexes = (rows: any[]) => rows.map((r) => r.index)
    const rest = result.results.filter((r: any) => !r.differs)
    expect(indexes(differing)).toEqual([...indexes(differing)].sort((a, b) => a - b))
    expect(indexes(rest)).toEqual([...indexes(rest)].sort((a, b) => a - b))
    for (const row of result.results) {
      expect(row.differs).toBe(
        row.previous.outcome !== row.new.outcome || row.previous.action !== row.new.action,
      )
      expect(result.matrix[row.previous.outcome][row.new.outcome]).toBeGreaterThan(0)
    }
  }

  it('before the migration: previous product vs the generated configuration', async () => {
    const zone = await createZone('pro')
    // the previous product lets everything pass; the generated configuration does not carry
    // group modes, so the attacks are blocked by managed rulesets
    await switchAllGroupsOff(zone.id)
    const answer = await compare(zone.id, ndjson(traffic(zone.name)))
    expect(answer.status).toBe(200)
    const result = (await answer.json()).result
    expectConsistent(result, 4)
    expect(result.new_configuration).toBe('generated')
    expect(result.outcomes.previous).toMatchObject({ passed: 4 })
    expect(result.differences).toBe(2)
    expect(result.matrix.passed.blocked).toBe(2)
    expect(result.results.slice(0, 2).map((r: any) => r.index)).toEqual([1, 3])
    expect(result.results[0]).toMatchObject({
      method: 'GET',
      url: sqli(zone.name).url,
      differs: true,
      previous: { outcome: 'passed', action: null, rules: [] },
      new: { outcome: 'blocked', action: 'block' },
    })
    expect(result.results[0].new.rules.length).toBeGreaterThan(0)
    // nothing changed: still on the previous product, no entry point
    expect((await status(zone.id)).migration_state).toBe('start')
    await hasNoEntrypoint(zone.id)
  })

  it('agrees with the previous product where page rules and bypass rules apply', async () => {
    const zone = await createZone('business')
    await firewallRules(zone.id, [
      {
        filter: { expression: 'http.request.uri.path eq "/healthz"' },
        action: 'bypass',
        products: ['waf'],
      },
    ])
    await running.ok(
      `/zones/${zone.id}/pagerules`,
      post(pageRuleBody(`*${zone.name}/admin/*`, [{ id: 'disable_security' }], 2)),
    )
    await running.ok(
      `/zones/${zone.id}/pagerules`,
      post(pageRuleBody(`${zone.name}/legacy/*`, [{ id: 'waf', value: 'off' }], 1)),
    )
    const paths = ['/admin/users', '/legacy/page', '/healthz', '/products']
    const answer = await compare(zone.id, ndjson(paths.map((path) => sqli(zone.name, path))))
    expect(answer.status).toBe(200)
    const result = (await answer.json()).result
    expectConsistent(result, 4)
    const outcomes = (side: 'previous' | 'new') =>
      [...result.results]
        .sort((a: any, b: any) => a.index - b.index)
        .map((r: any) => r[side].outcome)
    expect(outcomes('previous')).toEqual(['passed', 'passed', 'passed', 'blocked'])
    expect(outcomes('new')).toEqual(['passed', 'passed', 'passed', 'blocked'])
  })

  it("agrees with the previous product when the zone's WAF is off but for a WAF On page rule", async () => {
    const zone = await createZone('pro')
    await running.ok(`/zones/${zone.id}/settings/waf`, patch({ value: 'off' }))
    await running.ok(
      `/zones/${zone.id}/pagerules`,
      post(pageRuleBody(`*${zone.name}/shop/*`, [{ id: 'waf', value: 'on' }], 1)),
    )
    const answer = await compare(
      zone.id,
      ndjson([sqli(zone.name, '/shop/cart'), sqli(zone.name, '/blog/post')]),
    )
    const result = (await answer.json()).result
    expectConsistent(result, 2)
    const [shop, blog] = [...result.results].sort((a: any, b: any) => a.index - b.index)
    expect([shop.previous.outcome, shop.new.outcome]).toEqual(['blocked', 'blocked'])
    expect([blog.previous.outcome, blog.new.outcome]).toEqual(['passed', 'passed'])
  })

  it('streams progress lines and then the envelope with ?stream=true', async () => {
    const zone = await createZone('business')
    const answer = await compare(zone.id, ndjson(traffic(zone.name)), '?stream=true')
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toContain('application/x-ndjson')
    const lines = (await answer.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    const last = lines.at(-1)
    expect(last.success).toBe(true)
    expectConsistent(last.result, 4)
    const progress = lines.slice(0, -1)
    expect(progress.length).toBeGreaterThan(0)
    expect(progress.at(-1)).toEqual({ progress: { done: 4, total: 4 } })
  })

  it('takes a HAR file too', async () => {
    const zone = await createZone('pro')
    const har = {
      log: {
        entries: traffic(zone.name).map((request) => ({
          request: { method: request.method, url: request.url, headers: [] },
        })),
      },
    }
    const answer = await running.call(workbench(zone.id, 'waf_migration/compare'), post(har))
    expect(answer.status).toBe(200)
    expectConsistent(answer.body.result, 4)
  })

  it('in validation mode: the deployed entry point', async () => {
    const zone = await createZone('enterprise')
    await deploy(zone.id, 'validation')
    const answer = await compare(zone.id, ndjson(traffic(zone.name)))
    expect(answer.status).toBe(200)
    const result = (await answer.json()).result
    expectConsistent(result, 4)
    expect(result.new_configuration).toBe('entrypoint')
  })

  it('refuses a zone created on managed rulesets with 400', async () => {
    const zone = await createZone('pro', 'managed_rulesets')
    const answer = await compare(zone.id, ndjson(traffic(zone.name)))
    expect(answer.status).toBe(400)
    expect((await answer.json()).success).toBe(false)
  })
})
