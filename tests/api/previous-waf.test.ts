// The previous managed-rules product's API (docs/vendor-behaviour.md#previous-waf-api) against a
// real service, on zones created with `waf_product: "previous"`: packages (OWASP sensitivity and
// action), groups, rules and their modes, URI-based overrides, the zone's `waf` setting, the
// vendor's error codes, refusal on zones that run managed rulesets and on the Free plan; and page
// rules on every zone. What is set survives a restart of the service on the same data dir.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Init,
  newZone,
  patch,
  post,
  put,
  removeDataDir,
  type Running,
  startService,
} from './harness'

const TRADITIONAL = '1e334934fd7ae32ad705667f8c1057aa'
const OWASP = 'c504870194831cd12c3fc0284f294abb'
const PACKAGE_BLOCK_RULE = '981176'
const UNKNOWN_ID = '0123456789abcdef0123456789abcdef'

/** Group ids the vendor publishes (docs/vendor-behaviour.md#package-ids). */
const OWASP_BAD_ROBOTS = '07d700cf30fda7548be94ff01087d0c4'
const OWASP_GENERIC_ATTACKS = '5461c3844f6b5597986ae41d052a7cbd'
const OWASP_HTTP_POLICY = '9ab3180a92fde4bfb370a6e0a33842d2'
const OWASP_GROUPS = [
  OWASP_BAD_ROBOTS,
  '6293bbf04711b8511fc68dfd85d254b3',
  OWASP_GENERIC_ATTACKS,
  OWASP_HTTP_POLICY,
  '89f0f131c955630147a5e8b6b13f5ca8',
  'bcdccfe389a27a990711d45d4bc67e24',
  'eac6910f74e3b80153bb52ac2fb82cc8',
  '9643591b65fc5d12056969519de4cb7b',
  '6035463b92082256c0c4cf5ce5028a98',
  '40545574c88d71badb13d54240652ad6',
  'c013ec3948431586f65b3d2a1a15c037',
  'a0608e0c654339c108ca9715a7b1fb2c',
  '3d8fb0c18b5a6ba7682c80e94c7937b2',
  '5664cc2f83dd55b71929c062921078aa',
  'a7b84f7c2c7fc5ef46ff02095e6daaec',
  'cfda825dfda411ea218cb70e6c88e82e',
  'd508327aee37c147e03873f79288bb1d',
]
const CLOUDFLARE_SPECIALS = 'f90712123fb02287348dd34c0a282bb9'
const CLOUDFLARE_GROUPS = [
  CLOUDFLARE_SPECIALS,
  'da9d75b083345c63f48e6fde5f617a8b',
  '8df6c9aaddcbdf0eceb047bc50873697',
]

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

// ---------------------------------------------------------------------------------------------
// Helpers

const del: Init = { method: 'DELETE' }

async function createZone(
  plan: 'free' | 'pro' | 'business' | 'enterprise',
  wafProduct: 'previous' | 'managed_rulesets' = 'previous',
  on: Running = running,
): Promise<string> {
  const zone = await newZone(on, { plan, waf_product: wafProduct })
  expect(zone.waf_product).toBe(wafProduct)
  return zone.id
}

const waf = (zone: string, path = '') => `/zones/${zone}/firewall/waf${path}`
const packagePath = (zone: string, pkg: string, path = '') => waf(zone, `/packages/${pkg}${path}`)

interface WafRule {
  id: string
  mode: string
  default_mode?: string
  allowed_modes: string[]
  group: { id: string; name: string }
  package_id: string
  priority: string
  description: string
}

async function allRules(zone: string, pkg: string, query = ''): Promise<WafRule[]> {
  const rules: WafRule[] = []
  for (let page = 1; ; page++) {
    const answer = await running.call(
      `${packagePath(zone, pkg, '/rules')}?per_page=100&page=${page}${query}`,
    )
    expect(answer.status).toBe(200)
    if (answer.body.result.length === 0) return rules
    rules.push(...answer.body.result)
  }
}

/** A traditional deny rule that can block (discovered through the API). */
async function denyRule(zone: string): Promise<WafRule> {
  const rules = await allRules(zone, TRADITIONAL)
  const rule = rules.find((r) => r.allowed_modes.includes('block'))
  expect(rule, 'the traditional package has a deny rule').toBeDefined()
  return rule!
}

/** An anomaly rule of the OWASP package. */
async function anomalyRule(zone: string): Promise<WafRule> {
  const [rule] = (await running.ok(`${packagePath(zone, OWASP, '/rules')}?per_page=5`)) as WafRule[]
  expect(rule, 'the OWASP package has rules').toBeDefined()
  return rule!
}

/** The effective mode a rule has (`default` stands for its default_mode). */
const effectiveMode = (rule: WafRule) => (rule.mode === 'default' ? rule.default_mode : rule.mode)

function pageRuleBody(
  pattern: string,
  actions: { id: string; value?: unknown }[],
  fields: { priority?: number; status?: 'active' | 'disabled' } = {},
) {
  return {
    targets: [{ target: 'url', constraint: { operator: 'matches', value: pattern } }],
    actions,
    ...fields,
  }
}

// ---------------------------------------------------------------------------------------------

describe('packages', () => {
  let zone: string
  beforeAll(async () => {
    zone = await createZone('pro')
  })

  it('lists the two packages with their defaults (OWASP: high, challenge)', async () => {
    const answer = await running.call(waf(zone, '/packages'))
    expect(answer.status).toBe(200)
    expect(answer.body.result_info).toMatchObject({
      page: 1,
      per_page: 50,
      count: 2,
      total_count: 2,
      total_pages: 1,
    })
    const byId = Object.fromEntries(answer.body.result.map((p: any) => [p.id, p]))
    expect(byId[TRADITIONAL]).toMatchObject({
      name: 'CloudFlare',
      detection_mode: 'traditional',
      zone_id: zone,
      status: 'active',
    })
    expect(byId[TRADITIONAL].sensitivity).toBeUndefined()
    expect(byId[TRADITIONAL].action_mode).toBeUndefined()
    expect(byId[OWASP]).toMatchObject({
      name: 'OWASP ModSecurity Core Rule Set',
      detection_mode: 'anomaly',
      zone_id: zone,
      status: 'active',
      sensitivity: 'high',
      action_mode: 'challenge',
    })
  })

  it('filters by name and sorts by name in either direction', async () => {
    const named = await running.ok(`${waf(zone, '/packages')}?name=OWASP`)
    expect(named.map((p: any) => p.id)).toEqual([OWASP])
    const none = await running.ok(`${waf(zone, '/packages')}?name=no-such-package`)
    expect(none).toEqual([])

    const asc = (await running.ok(`${waf(zone, '/packages')}?order=name&direction=asc`)).map(
      (p: any) => p.name,
    )
    const desc = (await running.ok(`${waf(zone, '/packages')}?order=name&direction=desc`)).map(
      (p: any) => p.name,
    )
    expect(asc).toEqual([...asc].sort((a, b) => a.localeCompare(b)))
    expect(desc).toEqual([...asc].reverse())
  })

  it('pages with per_page 5..100 and refuses other page sizes', async () => {
    const small = await running.call(`${waf(zone, '/packages')}?per_page=5`)
    expect(small.status).toBe(200)
    expect(small.body.result_info).toMatchObject({ per_page: 5, count: 2, total_count: 2 })
    const past = await running.call(`${waf(zone, '/packages')}?per_page=100&page=2`)
    expect(past.status).toBe(200)
    expect(past.body.result).toEqual([])
    expect(past.body.result_info).toMatchObject({ page: 2, count: 0, total_count: 2 })
    for (const perPage of [4, 101]) {
      await running.refused(`${waf(zone, '/packages')}?per_page=${perPage}`, undefined, 400)
    }
  })

  it('gets one package, and answers 404 7003 for an unknown one', async () => {
    expect(await running.ok(packagePath(zone, OWASP))).toMatchObject({
      id: OWASP,
      sensitivity: 'high',
    })
    expect(await running.ok(packagePath(zone, TRADITIONAL))).toMatchObject({ id: TRADITIONAL })
    const error = await running.refused(packagePath(zone, UNKNOWN_ID), undefined, 404, 7003)
    expect(error.message).toContain(UNKNOWN_ID)
  })

  it("changes the OWASP package's sensitivity and action mode", async () => {
    const edited = await running.ok(packagePath(zone, OWASP), patch({ sensitivity: 'medium' }))
    expect(edited).toMatchObject({ sensitivity: 'medium', action_mode: 'challenge' })
    expect(
      await running.ok(packagePath(zone, OWASP), patch({ action_mode: 'block' })),
    ).toMatchObject({
      sensitivity: 'medium',
      action_mode: 'block',
    })
    expect(
      await running.ok(
        packagePath(zone, OWASP),
        patch({ sensitivity: 'off', action_mode: 'simulate' }),
      ),
    ).toMatchObject({ sensitivity: 'off', action_mode: 'simulate' })
    expect(await running.ok(packagePath(zone, OWASP))).toMatchObject({
      sensitivity: 'off',
      action_mode: 'simulate',
    })
    const listed = await running.ok(waf(zone, '/packages'))
    expect(listed.find((p: any) => p.id === OWASP)).toMatchObject({
      sensitivity: 'off',
      action_mode: 'simulate',
    })
  })

  it('refuses invalid sensitivity or action values with 400 and changes nothing', async () => {
    await running.ok(
      packagePath(zone, OWASP),
      patch({ sensitivity: 'low', action_mode: 'challenge' }),
    )
    for (const body of [
      { sensitivity: 'extreme' },
      { action_mode: 'log' },
      { sensitivity: 'high', action_mode: 'nope' },
    ]) {
      await running.refused(packagePath(zone, OWASP), patch(body), 400)
    }
    expect(await running.ok(packagePath(zone, OWASP))).toMatchObject({
      sensitivity: 'low',
      action_mode: 'challenge',
    })
  })

  it('refuses attributes on the traditional package with 1027 and its exact message', async () => {
    const error = await running.refused(
      packagePath(zone, TRADITIONAL),
      patch({ sensitivity: 'low' }),
      400,
      1027,
    )
    expect(error.message).toBe(
      'Only anomaly WAF packages can have their package attributes updated',
    )
    const pkg = await running.ok(packagePath(zone, TRADITIONAL))
    expect(pkg.sensitivity).toBeUndefined()
  })
})

describe('groups', () => {
  let zone: string
  beforeAll(async () => {
    zone = await createZone('business')
  })

  it("lists each package's groups, with the vendor's group ids", async () => {
    const owasp = await running.call(packagePath(zone, OWASP, '/groups'))
    expect(owasp.status).toBe(200)
    const owaspIds = owasp.body.result.map((g: any) => g.id)
    expect(owaspIds).toEqual(expect.arrayContaining(OWASP_GROUPS))
    expect(owasp.body.result_info.total_count).toBe(owaspIds.length)
    const cloudflareIds = (
      await running.ok(`${packagePath(zone, TRADITIONAL, '/groups')}?per_page=100`)
    ).map((g: any) => g.id)
    expect(cloudflareIds).toEqual(expect.arrayContaining(CLOUDFLARE_GROUPS))
    expect(cloudflareIds).not.toContain(OWASP_BAD_ROBOTS)

    for (const group of owasp.body.result) {
      expect(group).toMatchObject({
        package_id: OWASP,
        allowed_modes: ['on', 'off'],
        modified_rules_count: 0,
      })
      expect(['on', 'off']).toContain(group.mode)
      expect(group.id).toMatch(/^[0-9a-f]{32}$/)
      expect(group.rules_count).toBeGreaterThanOrEqual(0)
    }
  })

  it('sorts by rules_count', async () => {
    const counts = (
      await running.ok(`${packagePath(zone, OWASP, '/groups')}?order=rules_count&direction=desc`)
    ).map((g: any) => g.rules_count)
    expect(counts).toEqual([...counts].sort((a, b) => b - a))
  })

  it('filters by mode, the two modes adding up to the whole list', async () => {
    const all = await running.ok(`${packagePath(zone, TRADITIONAL, '/groups')}?per_page=100`)
    const on = await running.ok(`${packagePath(zone, TRADITIONAL, '/groups')}?per_page=100&mode=on`)
    const off = await running.ok(
      `${packagePath(zone, TRADITIONAL, '/groups')}?per_page=100&mode=off`,
    )
    expect(on.every((g: any) => g.mode === 'on')).toBe(true)
    expect(off.every((g: any) => g.mode === 'off')).toBe(true)
    expect(on.length + off.length).toBe(all.length)
  })

  it("gets a group, switches its mode, and counts the rules' totals", async () => {
    const group = await running.ok(packagePath(zone, TRADITIONAL, `/groups/${CLOUDFLARE_SPECIALS}`))
    expect(group).toMatchObject({ id: CLOUDFLARE_SPECIALS, package_id: TRADITIONAL })
    const rules = await allRules(zone, TRADITIONAL, `&group_id=${CLOUDFLARE_SPECIALS}`)
    expect(rules.length).toBe(group.rules_count)

    const other = group.mode === 'on' ? 'off' : 'on'
    expect(
      await running.ok(
        packagePath(zone, TRADITIONAL, `/groups/${CLOUDFLARE_SPECIALS}`),
        patch({ mode: other }),
      ),
    ).toMatchObject({ id: CLOUDFLARE_SPECIALS, mode: other })
    const filtered = await running.ok(`${packagePath(zone, TRADITIONAL, '/groups')}?mode=${other}`)
    expect(filtered.map((g: any) => g.id)).toContain(CLOUDFLARE_SPECIALS)
    expect(
      (await running.ok(packagePath(zone, TRADITIONAL, `/groups/${CLOUDFLARE_SPECIALS}`))).mode,
    ).toBe(other)
    await running.ok(
      packagePath(zone, TRADITIONAL, `/groups/${CLOUDFLARE_SPECIALS}`),
      patch({ mode: group.mode }),
    )
    expect(
      (await running.ok(packagePath(zone, TRADITIONAL, `/groups/${CLOUDFLARE_SPECIALS}`))).mode,
    ).toBe(group.mode)
  })

  it('refuses a mode other than on/off, changing nothing', async () => {
    const before = await running.ok(packagePath(zone, OWASP, `/groups/${OWASP_GENERIC_ATTACKS}`))
    await running.refused(
      packagePath(zone, OWASP, `/groups/${OWASP_GENERIC_ATTACKS}`),
      patch({ mode: 'block' }),
      400,
    )
    expect(await running.ok(packagePath(zone, OWASP, `/groups/${OWASP_GENERIC_ATTACKS}`))).toEqual(
      before,
    )
  })

  it("counts a group's modified rules", async () => {
    const rule = await denyRule(zone)
    const path = packagePath(zone, TRADITIONAL, `/groups/${rule.group.id}`)
    const before = (await running.ok(path)).modified_rules_count
    const other = effectiveMode(rule) === 'simulate' ? 'challenge' : 'simulate'
    await running.ok(packagePath(zone, TRADITIONAL, `/rules/${rule.id}`), patch({ mode: other }))
    expect((await running.ok(path)).modified_rules_count).toBe(before + 1)
    await running.ok(
      packagePath(zone, TRADITIONAL, `/rules/${rule.id}`),
      patch({ mode: 'default' }),
    )
    expect((await running.ok(path)).modified_rules_count).toBe(before)
  })

  it('answers 404 7003 for an unknown group or a group of the other package', async () => {
    await running.refused(packagePath(zone, OWASP, `/groups/${UNKNOWN_ID}`), undefined, 404, 7003)
    await running.refused(
      packagePath(zone, TRADITIONAL, `/groups/${OWASP_BAD_ROBOTS}`),
      undefined,
      404,
      7003,
    )
    await running.refused(
      packagePath(zone, OWASP, `/groups/${UNKNOWN_ID}`),
      patch({ mode: 'off' }),
      404,
      7003,
    )
    await running.refused(packagePath(zone, UNKNOWN_ID, '/groups'), undefined, 404, 7003)
  })
})

describe('rules', () => {
  let zone: string
  beforeAll(async () => {
    zone = await createZone('enterprise')
  })

  it('lists rules with their group, modes and allowed modes', async () => {
    const traditional = await allRules(zone, TRADITIONAL)
    expect(traditional.length).toBeGreaterThan(0)
    for (const rule of traditional) {
      expect(rule.package_id).toBe(TRADITIONAL)
      expect(rule.group.id).toMatch(/^[0-9a-f]{32}$/)
      expect(rule.group.name).not.toBe('')
      if (rule.allowed_modes.includes('block')) {
        expect(rule.allowed_modes).toEqual(
          expect.arrayContaining(['default', 'disable', 'simulate', 'block', 'challenge']),
        )
        expect(rule.mode).toBe('default')
        expect(['disable', 'simulate', 'block', 'challenge']).toContain(rule.default_mode)
      } else {
        expect(rule.allowed_modes).toEqual(['on', 'off'])
      }
    }
    const owasp = await allRules(zone, OWASP)
    expect(owasp.length).toBeGreaterThan(0)
    const owaspGroups = (
      await running.ok(`${packagePath(zone, OWASP, '/groups')}?per_page=100`)
    ).map((g: any) => g.id)
    for (const rule of owasp) {
      expect(rule.package_id).toBe(OWASP)
      expect(rule.allowed_modes).toEqual(['on', 'off'])
      expect(owaspGroups).toContain(rule.group.id)
    }
    // 981176 is where the package logs its anomaly verdicts, not a rule
    expect(owasp.map((r) => r.id)).not.toContain(PACKAGE_BLOCK_RULE)
    await running.refused(
      packagePath(zone, OWASP, `/rules/${PACKAGE_BLOCK_RULE}`),
      undefined,
      404,
      7003,
    )

    // the groups' rules_count add up to the package's rules
    const groups = await running.ok(`${packagePath(zone, TRADITIONAL, '/groups')}?per_page=100`)
    expect(groups.reduce((sum: number, g: any) => sum + g.rules_count, 0)).toBe(traditional.length)
  })

  it('filters by group_id', async () => {
    const rules = await allRules(zone, OWASP, `&group_id=${OWASP_GENERIC_ATTACKS}`)
    const group = await running.ok(packagePath(zone, OWASP, `/groups/${OWASP_GENERIC_ATTACKS}`))
    expect(rules.length).toBe(group.rules_count)
    expect(rules.every((r) => r.group.id === OWASP_GENERIC_ATTACKS)).toBe(true)
  })

  it('filters by mode (DIS, CHL, BLK, SIM), following changes', async () => {
    const rule = await denyRule(zone)
    const codes = { DIS: 'disable', CHL: 'challenge', BLK: 'block', SIM: 'simulate' } as const
    for (const [code, mode] of Object.entries(codes)) {
      await running.ok(packagePath(zone, TRADITIONAL, `/rules/${rule.id}`), patch({ mode }))
      for (const [otherCode, otherMode] of Object.entries(codes)) {
        const listed = await allRules(zone, TRADITIONAL, `&mode=${otherCode}`)
        expect(listed.every((r) => effectiveMode(r) === otherMode)).toBe(true)
        expect(listed.map((r) => r.id).includes(rule.id)).toBe(otherCode === code)
      }
    }
    await running.ok(
      packagePath(zone, TRADITIONAL, `/rules/${rule.id}`),
      patch({ mode: 'default' }),
    )
    await running.refused(`${packagePath(zone, TRADITIONAL, '/rules')}?mode=XYZ`, undefined, 400)
  })

  it('gets a rule and changes its mode within its allowed modes', async () => {
    const rule = await denyRule(zone)
    expect(await running.ok(packagePath(zone, TRADITIONAL, `/rules/${rule.id}`))).toEqual(rule)
    const changed = await running.ok(
      packagePath(zone, TRADITIONAL, `/rules/${rule.id}`),
      patch({ mode: 'challenge' }),
    )
    expect(changed).toMatchObject({
      id: rule.id,
      mode: 'challenge',
      default_mode: rule.default_mode,
    })
    expect((await running.ok(packagePath(zone, TRADITIONAL, `/rules/${rule.id}`))).mode).toBe(
      'challenge',
    )

    const anomaly = await anomalyRule(zone)
    const flipped = anomaly.mode === 'on' ? 'off' : 'on'
    expect(
      await running.ok(packagePath(zone, OWASP, `/rules/${anomaly.id}`), patch({ mode: flipped })),
    ).toMatchObject({ mode: flipped })
  })

  it('refuses a mode outside allowed_modes with 10404 and changes nothing', async () => {
    const rule = await denyRule(zone)
    const anomaly = await anomalyRule(zone)
    const cases: [WafRule, unknown][] = [
      [rule, { mode: 'on' }],
      [rule, { mode: 'explode' }],
      [rule, {}],
      [anomaly, { mode: 'block' }],
      [anomaly, { mode: 'default' }],
    ]
    for (const [target, body] of cases) {
      const path = packagePath(zone, target.package_id, `/rules/${target.id}`)
      const before = await running.ok(path)
      const error = await running.refused(path, patch(body), 400, 10404)
      expect(error.message).toBe('Invalid or missing WAF Rule mode')
      expect(await running.ok(path)).toEqual(before)
    }
  })

  it('sorts by priority or group_id', async () => {
    const byPriority = (await allRules(zone, TRADITIONAL, '&order=priority&direction=desc')).map(
      (r) => Number(r.priority),
    )
    expect(byPriority).toEqual([...byPriority].sort((a, b) => b - a))
    const byGroup = (await allRules(zone, OWASP, '&order=group_id&direction=asc')).map(
      (r) => r.group.id,
    )
    expect(byGroup).toEqual([...byGroup].sort())
  })

  it('pages rules with per_page 5..100', async () => {
    const page = await running.call(`${packagePath(zone, OWASP, '/rules')}?per_page=5&page=2`)
    expect(page.status).toBe(200)
    expect(page.body.result).toHaveLength(5)
    expect(page.body.result_info).toMatchObject({ page: 2, per_page: 5, count: 5 })
    const all = await allRules(zone, OWASP)
    expect(page.body.result_info.total_count).toBe(all.length)
    expect(page.body.result.map((r: WafRule) => r.id)).toEqual(all.slice(5, 10).map((r) => r.id))
    for (const perPage of [4, 101]) {
      await running.refused(
        `${packagePath(zone, OWASP, '/rules')}?per_page=${perPage}`,
        undefined,
        400,
      )
      await running.refused(
        `${packagePath(zone, OWASP, '/groups')}?per_page=${perPage}`,
        undefined,
        400,
      )
      await running.refused(`${waf(zone, '/overrides')}?per_page=${perPage}`, undefined, 400)
    }
  })

  it('answers 404 7003 for an unknown rule, or a rule under the other package', async () => {
    await running.refused(
      packagePath(zone, TRADITIONAL, '/rules/no-such-rule'),
      undefined,
      404,
      7003,
    )
    await running.refused(
      packagePath(zone, TRADITIONAL, '/rules/no-such-rule'),
      patch({ mode: 'block' }),
      404,
      7003,
    )
    const anomaly = await anomalyRule(zone)
    await running.refused(
      packagePath(zone, TRADITIONAL, `/rules/${anomaly.id}`),
      undefined,
      404,
      7003,
    )
  })
})

describe('URI-based overrides', () => {
  let zone: string
  let rule: WafRule
  beforeAll(async () => {
    zone = await createZone('pro')
    rule = await denyRule(zone)
  })

  it('creates, lists, gets, replaces and deletes an override', async () => {
    const created = await running.ok(
      waf(zone, '/overrides'),
      post({
        urls: ['shop.example.com/*'],
        rules: { [rule.id]: 'disable' },
        description: 'Checkout posts card data',
      }),
    )
    expect(created).toMatchObject({
      urls: ['shop.example.com/*'],
      rules: { [rule.id]: 'disable' },
      groups: {},
      description: 'Checkout posts card data',
      paused: false,
    })
    expect(created.id).toMatch(/^[0-9a-f]{32}$/)
    expect(typeof created.priority).toBe('number')

    const list = await running.call(waf(zone, '/overrides'))
    expect(list.status).toBe(200)
    expect(list.body.result).toEqual([created])
    expect(list.body.result_info).toMatchObject({ per_page: 50, total_count: 1 })
    expect(await running.ok(waf(zone, `/overrides/${created.id}`))).toEqual(created)

    const replaced = await running.ok(
      waf(zone, `/overrides/${created.id}`),
      put({
        id: created.id,
        urls: ['shop.example.com/checkout/*', 'www.shop.example.com/checkout/*'],
        rules: { [rule.id]: 'simulate' },
        groups: { [CLOUDFLARE_SPECIALS]: 'default' },
        rewrite_action: { block: 'challenge' },
        priority: 5,
        paused: true,
      }),
    )
    expect(replaced).toMatchObject({
      id: created.id,
      urls: ['shop.example.com/checkout/*', 'www.shop.example.com/checkout/*'],
      rules: { [rule.id]: 'simulate' },
      groups: { [CLOUDFLARE_SPECIALS]: 'default' },
      rewrite_action: { block: 'challenge' },
      priority: 5,
      paused: true,
    })
    expect(await running.ok(waf(zone, `/overrides/${created.id}`))).toEqual(replaced)

    expect(await running.ok(waf(zone, `/overrides/${created.id}`), del)).toEqual({ id: created.id })
    await running.refused(waf(zone, `/overrides/${created.id}`), undefined, 404, 7003)
    await running.refused(waf(zone, `/overrides/${created.id}`), del, 404, 7003)
    expect(await running.ok(waf(zone, '/overrides'))).toEqual([])
  })

  it('creates an override of groups only', async () => {
    const created = await running.ok(
      waf(zone, '/overrides'),
      post({ urls: ['*.example.com/legacy/*'], groups: { [OWASP_BAD_ROBOTS]: 'disable' } }),
    )
    expect(created).toMatchObject({ rules: {}, groups: { [OWASP_BAD_ROBOTS]: 'disable' } })
    await running.ok(waf(zone, `/overrides/${created.id}`), del)
  })

  it('creates an override of its URLs only, as the SDK sends it, and replaces it with rules: {}', async () => {
    const created = await running.ok(waf(zone, '/overrides'), post({ urls: ['a.example.com/*'] }))
    expect(created).toMatchObject({ urls: ['a.example.com/*'], rules: {}, groups: {} })
    expect(await running.ok(waf(zone, `/overrides/${created.id}`))).toEqual(created)
    const replaced = await running.ok(
      waf(zone, `/overrides/${created.id}`),
      put({ id: created.id, urls: ['b.example.com/*'], rules: {}, rewrite_action: {} }),
    )
    expect(replaced).toMatchObject({ urls: ['b.example.com/*'], rules: {}, groups: {} })
    expect(await running.ok(waf(zone, `/overrides/${created.id}`))).toEqual(replaced)
    await running.ok(waf(zone, `/overrides/${created.id}`), del)
  })

  it('refuses bad bodies with 10405 and creates nothing', async () => {
    const bodies = [
      { urls: ['shop.example.com/*'], rules: { 'no-such-rule': 'block' } },
      { urls: ['https://shop.example.com/*'], rules: { [rule.id]: 'block' } },
      { urls: ['shop.example.com/*'], groups: { [UNKNOWN_ID]: 'disable' } },
    ]
    for (const body of bodies)
      await running.refused(waf(zone, '/overrides'), post(body), 400, 10405)
    expect(await running.ok(waf(zone, '/overrides'))).toEqual([])
  })

  it('refuses a bad replacement with 10405 and keeps the override as it was', async () => {
    const created = await running.ok(
      waf(zone, '/overrides'),
      post({ urls: ['shop.example.com/*'], rules: { [rule.id]: 'disable' } }),
    )
    await running.refused(
      waf(zone, `/overrides/${created.id}`),
      put({
        id: created.id,
        urls: ['http://shop.example.com/*'],
        rules: { [rule.id]: 'block' },
        rewrite_action: {},
      }),
      400,
      10405,
    )
    expect(await running.ok(waf(zone, `/overrides/${created.id}`))).toEqual(created)
    await running.ok(waf(zone, `/overrides/${created.id}`), del)
  })

  it('answers 404 7003 for an unknown override', async () => {
    await running.refused(waf(zone, `/overrides/${UNKNOWN_ID}`), undefined, 404, 7003)
    await running.refused(
      waf(zone, `/overrides/${UNKNOWN_ID}`),
      put({
        id: UNKNOWN_ID,
        urls: ['a.example.com/*'],
        rules: { [rule.id]: 'block' },
        rewrite_action: {},
      }),
      404,
      7003,
    )
  })
})

describe("the zone's waf setting", () => {
  it('reads and switches the setting', async () => {
    const zone = await createZone('pro')
    const path = `/zones/${zone}/settings/waf`
    expect(await running.ok(path)).toEqual({
      id: 'waf',
      value: 'on',
      editable: true,
      modified_on: null,
    })
    const off = await running.ok(path, patch({ value: 'off' }))
    expect(off).toMatchObject({ id: 'waf', value: 'off', editable: true })
    expect(typeof off.modified_on).toBe('string')
    expect(await running.ok(path)).toEqual(off)
    await running.refused(path, patch({ value: 'maybe' }), 400)
    expect((await running.ok(path)).value).toBe('off')
    expect((await running.ok(path, patch({ value: 'on' }))).value).toBe('on')
  })
})

describe('zones that do not run the previous product', () => {
  it('answers every previous-product route with 400 10400 on a managed-rulesets zone', async () => {
    const zone = await createZone('enterprise', 'managed_rulesets')
    const routes: [string, Init][] = [
      [waf(zone, '/packages'), undefined],
      [packagePath(zone, OWASP), undefined],
      [packagePath(zone, OWASP), patch({ sensitivity: 'low' })],
      [packagePath(zone, OWASP, '/groups'), undefined],
      [packagePath(zone, OWASP, `/groups/${OWASP_BAD_ROBOTS}`), undefined],
      [packagePath(zone, OWASP, `/groups/${OWASP_BAD_ROBOTS}`), patch({ mode: 'off' })],
      [packagePath(zone, TRADITIONAL, '/rules'), undefined],
      [packagePath(zone, TRADITIONAL, '/rules/100000'), undefined],
      [packagePath(zone, TRADITIONAL, '/rules/100000'), patch({ mode: 'block' })],
      [waf(zone, '/overrides'), undefined],
      [
        waf(zone, '/overrides'),
        post({ urls: ['a.example.com/*'], groups: { [OWASP_BAD_ROBOTS]: 'disable' } }),
      ],
      [waf(zone, `/overrides/${UNKNOWN_ID}`), undefined],
      [
        waf(zone, `/overrides/${UNKNOWN_ID}`),
        put({ id: UNKNOWN_ID, urls: ['a.example.com/*'], rules: {}, rewrite_action: {} }),
      ],
      [waf(zone, `/overrides/${UNKNOWN_ID}`), del],
      [`/zones/${zone}/settings/waf`, undefined],
      [`/zones/${zone}/settings/waf`, patch({ value: 'off' })],
    ]
    for (const [path, init] of routes) {
      const error = await running.refused(path, init, 400, 10400)
      expect(error.message).toMatch(/managed rulesets/i)
      expect(error.message).toMatch(/rulesets/)
    }
  })

  it('refuses a previous-product zone on the Free plan', async () => {
    const name = 'free-legacy.example'
    await running.refused('/zones', post({ name, plan: 'free', waf_product: 'previous' }), 400)
    expect(await running.ok(`/zones?name=${name}`)).toEqual([])
  })

  it('refuses to move a previous-product zone to the Free plan', async () => {
    const zone = await createZone('pro')
    await running.refused(`/zones/${zone}`, patch({ plan: 'free' }), 400)
    expect((await running.ok(`/zones/${zone}`)).plan.legacy_id).toBe('pro')
    expect((await running.ok(`/zones/${zone}`, patch({ plan: 'business' }))).plan.legacy_id).toBe(
      'business',
    )
    // a zone on managed rulesets may go to Free
    const modern = await createZone('pro', 'managed_rulesets')
    expect((await running.ok(`/zones/${modern}`, patch({ plan: 'free' }))).plan.legacy_id).toBe(
      'free',
    )
  })
})

describe('page rules', () => {
  const pageRules = (zone: string, path = '') => `/zones/${zone}/pagerules${path}`

  it('creates, gets, replaces, edits and deletes a page rule', async () => {
    const zone = await createZone('pro')
    const created = await running.ok(
      pageRules(zone),
      post(
        pageRuleBody('*example.com/admin/*', [{ id: 'disable_security' }], {
          priority: 2,
          status: 'active',
        }),
      ),
    )
    expect(created).toMatchObject({
      targets: [
        { target: 'url', constraint: { operator: 'matches', value: '*example.com/admin/*' } },
      ],
      actions: [{ id: 'disable_security' }],
      priority: 2,
      status: 'active',
    })
    expect(created.id).toMatch(/^[0-9a-f]{32}$/)
    expect(typeof created.created_on).toBe('string')
    expect(typeof created.modified_on).toBe('string')
    expect(await running.ok(pageRules(zone, `/${created.id}`))).toEqual(created)

    // PUT replaces targets and actions; priority and status stay unless given
    const replaced = await running.ok(
      pageRules(zone, `/${created.id}`),
      put(pageRuleBody('example.com/legacy/*', [{ id: 'waf', value: 'off' }])),
    )
    expect(replaced).toMatchObject({
      id: created.id,
      targets: [{ constraint: { value: 'example.com/legacy/*' } }],
      actions: [{ id: 'waf', value: 'off' }],
      priority: 2,
      status: 'active',
      created_on: created.created_on,
    })
    const reprioritized = await running.ok(
      pageRules(zone, `/${created.id}`),
      put(
        pageRuleBody('example.com/legacy/*', [{ id: 'waf', value: 'on' }], {
          priority: 7,
          status: 'disabled',
        }),
      ),
    )
    expect(reprioritized).toMatchObject({ priority: 7, status: 'disabled' })

    // PATCH changes only what it names
    const edited = await running.ok(pageRules(zone, `/${created.id}`), patch({ status: 'active' }))
    expect(edited).toMatchObject({
      status: 'active',
      priority: 7,
      actions: [{ id: 'waf', value: 'on' }],
      targets: [{ constraint: { value: 'example.com/legacy/*' } }],
    })
    expect(await running.ok(pageRules(zone, `/${created.id}`))).toEqual(edited)

    expect(await running.ok(pageRules(zone, `/${created.id}`), del)).toEqual({ id: created.id })
    await running.refused(pageRules(zone, `/${created.id}`), undefined, 404)
    expect(await running.ok(pageRules(zone))).toEqual([])
  })

  it('keeps actions that do not concern the WAF as given', async () => {
    const zone = await createZone('pro', 'managed_rulesets')
    const created = await running.ok(
      pageRules(zone),
      post(
        pageRuleBody('*example.com/static/*', [
          { id: 'cache_level', value: 'cache_everything' },
          { id: 'browser_cache_ttl', value: 14400 },
        ]),
      ),
    )
    expect(created.actions).toEqual([
      { id: 'cache_level', value: 'cache_everything' },
      { id: 'browser_cache_ttl', value: 14400 },
    ])
    // the vendor's defaults
    expect(created).toMatchObject({ priority: 1, status: 'disabled' })
  })

  it('lists by priority (highest first unless asked), filtered by status', async () => {
    const zone = await createZone('business')
    const make = (path: string, priority: number, status: 'active' | 'disabled') =>
      running.ok(
        pageRules(zone),
        post(
          pageRuleBody(`example.com/${path}/*`, [{ id: 'waf', value: 'on' }], { priority, status }),
        ),
      )
    const one = await make('one', 1, 'active')
    const three = await make('three', 3, 'disabled')
    const two = await make('two', 2, 'active')
    const ids = (rules: any[]) => rules.map((r) => r.id)

    expect(ids(await running.ok(pageRules(zone)))).toEqual([three.id, two.id, one.id])
    expect(ids(await running.ok(`${pageRules(zone)}?order=priority&direction=asc`))).toEqual([
      one.id,
      two.id,
      three.id,
    ])
    expect(ids(await running.ok(`${pageRules(zone)}?status=active`))).toEqual([two.id, one.id])
    expect(ids(await running.ok(`${pageRules(zone)}?status=disabled`))).toEqual([three.id])
    const byStatus = await running.ok(`${pageRules(zone)}?order=status&direction=asc`)
    expect(byStatus.map((r: any) => r.status)).toEqual(['active', 'active', 'disabled'])
  })

  it("keeps to the plan's quota: Free allows 3, the 4th is refused", async () => {
    const zone = await createZone('free', 'managed_rulesets')
    for (let index = 1; index <= 3; index++) {
      await running.ok(
        pageRules(zone),
        post(pageRuleBody(`example.com/p${index}/*`, [{ id: 'disable_security' }])),
      )
    }
    await running.refused(
      pageRules(zone),
      post(pageRuleBody('example.com/p4/*', [{ id: 'disable_security' }])),
      400,
    )
    expect((await running.ok(pageRules(zone))).length).toBe(3)

    const pro = await createZone('pro')
    for (let index = 1; index <= 4; index++) {
      await running.ok(
        pageRules(pro),
        post(pageRuleBody(`example.com/p${index}/*`, [{ id: 'disable_security' }])),
      )
    }
    expect((await running.ok(pageRules(pro))).length).toBe(4)
  })

  it('refuses invalid WAF actions with 1004, creating or changing nothing', async () => {
    const zone = await createZone('pro')
    const invalid = [
      [{ id: 'waf', value: 'maybe' }],
      [{ id: 'waf' }],
      [{ id: 'disable_security', value: 'on' }],
      [{ id: 'disable_security' }, { id: 'waf', value: 'off' }],
    ]
    for (const actions of invalid) {
      await running.refused(
        pageRules(zone),
        post(pageRuleBody('example.com/x/*', actions)),
        400,
        1004,
      )
    }
    expect(await running.ok(pageRules(zone))).toEqual([])

    const created = await running.ok(
      pageRules(zone),
      post(pageRuleBody('example.com/x/*', [{ id: 'waf', value: 'off' }], { status: 'active' })),
    )
    for (const actions of invalid) {
      await running.refused(pageRules(zone, `/${created.id}`), patch({ actions }), 400, 1004)
      await running.refused(
        pageRules(zone, `/${created.id}`),
        put(pageRuleBody('example.com/x/*', actions)),
        400,
        1004,
      )
    }
    expect(await running.ok(pageRules(zone, `/${created.id}`))).toEqual(created)
  })

  it('answers 404 for an unknown page rule', async () => {
    const zone = await createZone('pro')
    await running.refused(pageRules(zone, `/${UNKNOWN_ID}`), undefined, 404)
    await running.refused(pageRules(zone, `/${UNKNOWN_ID}`), patch({ status: 'active' }), 404)
    await running.refused(
      pageRules(zone, `/${UNKNOWN_ID}`),
      put(pageRuleBody('example.com/*', [{ id: 'disable_security' }])),
      404,
    )
    await running.refused(pageRules(zone, `/${UNKNOWN_ID}`), del, 404)
  })

  it('lists the settings a page rule can apply, the two the WAF reads among them', async () => {
    const zone = await createZone('pro')
    const settings = await running.ok(pageRules(zone, '/settings'))
    expect(settings.find((s: any) => s.id === 'disable_security')).toEqual({
      id: 'disable_security',
      properties: [],
    })
    expect(settings.find((s: any) => s.id === 'waf')).toEqual({
      id: 'waf',
      properties: [{ type: 'toggle', name: 'value' }],
    })
    expect(settings.find((s: any) => s.id === 'forwarding_url').properties[0]).toMatchObject({
      name: 'status_code',
      choices: [301, 302],
    })
    for (const setting of settings) expect(Array.isArray(setting.properties)).toBe(true)
    expect(new Set(settings.map((s: any) => s.id)).size).toBe(settings.length)
    const onManagedRulesets = await createZone('free', 'managed_rulesets')
    expect(await running.ok(pageRules(onManagedRulesets, '/settings'))).toEqual(settings)
    await running.refused(pageRules(UNKNOWN_ID, '/settings'), undefined, 404, 7003)
  })
})

describe('across a restart of the service', () => {
  it('keeps every setting of the previous product and the page rules', async () => {
    let service = await startService()
    const { dataDir } = service
    try {
      const zone = await createZone('pro', 'previous', service)
      const rules = (await service.ok(
        `${packagePath(zone, TRADITIONAL, '/rules')}?per_page=100`,
        undefined,
      )) as WafRule[]
      const rule = rules.find((r) => r.allowed_modes.includes('block'))!
      await service.ok(
        packagePath(zone, OWASP),
        patch({ sensitivity: 'low', action_mode: 'block' }),
      )
      await service.ok(
        packagePath(zone, OWASP, `/groups/${OWASP_HTTP_POLICY}`),
        patch({ mode: 'off' }),
      )
      await service.ok(
        packagePath(zone, TRADITIONAL, `/rules/${rule.id}`),
        patch({ mode: 'simulate' }),
      )
      const override = await service.ok(
        waf(zone, '/overrides'),
        post({ urls: ['shop.example.com/*'], rules: { [rule.id]: 'disable' }, priority: 3 }),
      )
      const setting = await service.ok(`/zones/${zone}/settings/waf`, patch({ value: 'off' }))
      const pageRule = await service.ok(
        `/zones/${zone}/pagerules`,
        post(
          pageRuleBody('*example.com/shop/*', [{ id: 'waf', value: 'on' }], {
            status: 'active',
            priority: 4,
          }),
        ),
      )

      await service.stop()
      service = await startService(dataDir)

      expect(await service.ok(packagePath(zone, OWASP), undefined)).toMatchObject({
        sensitivity: 'low',
        action_mode: 'block',
      })
      expect(
        (await service.ok(packagePath(zone, OWASP, `/groups/${OWASP_HTTP_POLICY}`), undefined))
          .mode,
      ).toBe('off')
      expect(
        (await service.ok(packagePath(zone, TRADITIONAL, `/rules/${rule.id}`), undefined)).mode,
      ).toBe('simulate')
      expect(await service.ok(waf(zone, '/overrides'), undefined)).toEqual([override])
      expect(await service.ok(`/zones/${zone}/settings/waf`, undefined)).toEqual(setting)
      expect(await service.ok(`/zones/${zone}/pagerules`, undefined)).toEqual([pageRule])
      expect((await service.ok(`/zones/${zone}`, undefined)).waf_product).toBe('previous')
    } finally {
      await service.stop()
      removeDataDir(dataDir)
    }
  })
})
