// The engine's run of the previous managed-rules product (src-main/engine/previous.ts) on small
// fixture configurations built here: traditional deny and allow rules and their modes, groups,
// the OWASP package's anomaly scoring per sensitivity (AJAX thresholds too) and action mode, the
// zone's `waf` setting and the page rule that applies, URI-based overrides, and how the previous
// product sits after the firewall rules and the managed phase. Page rules and overrides are also
// run through engine-input (the zone's settings as the engine takes them).
import { describe, expect, it } from 'vitest'
import { requestContext, type RequestDescription } from '@shared/expression'
import type { PageRule, WafOverride } from '@shared/api/waf'
import {
  compileZone,
  type Decision,
  type EngineFirewallRule,
  type EnginePageRule,
  type EnginePreviousWaf,
  type EngineRule,
  type EngineRuleset,
  type EngineWafOverride,
  type EngineWafPackage,
  type EngineWafRule,
  type TraceNode,
} from '../../../src-main/engine'
import { LegacyCatalog, type LegacyRule } from '../../../src-main/zones/previous-waf/catalog'
import { enginePreviousWaf } from '../../../src-main/zones/previous-waf/engine-input'
import type { MigrationSnapshot } from '../../../src-main/zones/previous-waf/migration'
import { DEFAULT_SETTINGS } from '../../../src-main/zones/previous-waf/store'
import { pageRuleExpression } from '../../../src-main/zones/page-rules/page-rules'

const TRADITIONAL = '1e334934fd7ae32ad705667f8c1057aa'
const OWASP_PACKAGE = 'c504870194831cd12c3fc0284f294abb'
const PACKAGE_BLOCK_RULE = '981176'
const SPECIALS = 'f90712123fb02287348dd34c0a282bb9'
const MISC = 'da9d75b083345c63f48e6fde5f617a8b'
const OWASP_GROUP = '5461c3844f6b5597986ae41d052a7cbd'

// ---------------------------------------------------------------------------------------------
// Fixture builders

const pathContains = (text: string) => `http.request.uri.path contains "${text}"`

function deny(id: string, expression: string, fields: Partial<EngineWafRule> = {}): EngineWafRule {
  return {
    id,
    description: `deny rule ${id}`,
    group_id: SPECIALS,
    kind: 'deny',
    mode: 'default',
    default_mode: 'block',
    expression,
    ...fields,
  }
}

function allow(id: string, expression: string, fields: Partial<EngineWafRule> = {}): EngineWafRule {
  return {
    id,
    description: `allow rule ${id}`,
    group_id: MISC,
    kind: 'allow',
    mode: 'on',
    default_mode: 'on',
    expression,
    ...fields,
  }
}

function traditional(
  rules: EngineWafRule[],
  groups: Partial<Record<string, 'on' | 'off'>> = {},
): EngineWafPackage {
  return {
    id: TRADITIONAL,
    name: 'CloudFlare',
    detection_mode: 'traditional',
    groups: [
      { id: SPECIALS, name: 'Cloudflare Specials', mode: groups[SPECIALS] ?? 'on' },
      { id: MISC, name: 'Cloudflare Miscellaneous', mode: groups[MISC] ?? 'on' },
    ],
    rules,
  }
}

/** Anomaly rules `s1`…`s24`, each adding 5 when the query holds `-N-` (see scoreQuery). */
const SCORING_RULES: EngineWafRule[] = Array.from({ length: 24 }, (_, index) => ({
  id: `s${index + 1}`,
  description: `anomaly rule ${index + 1}`,
  group_id: OWASP_GROUP,
  kind: 'anomaly',
  mode: 'on',
  default_mode: 'on',
  score: 5,
  expression: `http.request.uri.query contains "-${index + 1}-"`,
}))

/** A query that makes the first `total / 5` scoring rules match. */
const scoreQuery = (total: number) =>
  Array.from({ length: total / 5 }, (_, index) => `-${index + 1}-`).join('')

function owasp(
  sensitivity: EngineWafPackage['sensitivity'] = 'high',
  action_mode: EngineWafPackage['action_mode'] = 'challenge',
  rules: EngineWafRule[] = SCORING_RULES,
): EngineWafPackage {
  return {
    id: OWASP_PACKAGE,
    name: 'OWASP ModSecurity Core Rule Set',
    detection_mode: 'anomaly',
    sensitivity,
    action_mode,
    groups: [{ id: OWASP_GROUP, name: 'OWASP Generic Attacks', mode: 'on' }],
    rules,
  }
}

function previousWaf(fields: Partial<EnginePreviousWaf> = {}): EnginePreviousWaf {
  return { enabled: true, pageRules: [], overrides: [], packages: [], ...fields }
}

function pageRule(id: string, pattern: string, effect?: EnginePageRule['effect']): EnginePageRule {
  return {
    id,
    pattern,
    expression: pageRuleExpression(pattern),
    ...(effect === undefined ? {} : { effect }),
  }
}

function override(id: string, urls: string[], fields: Partial<EngineWafOverride> = {}) {
  return {
    id,
    description: `override ${id}`,
    expression: urls.map((url) => pageRuleExpression(url)).join(' or '),
    rules: {},
    groups: {},
    rewrite_action: {},
    ...fields,
  } satisfies EngineWafOverride
}

function rulesetRule(id: string, fields: Partial<EngineRule> = {}): EngineRule {
  return {
    id,
    version: '1',
    ref: id,
    action: 'block',
    expression: 'true',
    description: `rule ${id}`,
    enabled: true,
    last_updated: '2025-01-01T00:00:00Z',
    ...fields,
  }
}

function ruleset(id: string, rules: EngineRule[], kind: EngineRuleset['kind']): EngineRuleset {
  return {
    id,
    name: id,
    description: '',
    kind,
    phase: 'http_request_firewall_managed',
    version: '1',
    last_updated: '2025-01-01T00:00:00Z',
    rules,
  }
}

function firewallRule(
  id: string,
  action: EngineFirewallRule['action'],
  products?: EngineFirewallRule['products'],
): EngineFirewallRule {
  return {
    id,
    action,
    priority: 1,
    paused: false,
    ...(products ? { products } : {}),
    filter: { id: `filter-${id}`, expression: 'true', paused: false },
  }
}

// Custom rulesets the managed phase may run: every rule of BLOCKER blocks, of LOGGER logs.
const BLOCKER = 'b'.repeat(32)
const LOGGER = 'c'.repeat(32)
const customRulesets = new Map([
  [BLOCKER, ruleset(BLOCKER, [rulesetRule('blocker-1', { action: 'block' })], 'custom')],
  [LOGGER, ruleset(LOGGER, [rulesetRule('logger-1', { action: 'log' })], 'custom')],
])
const executing = (target: string) =>
  ruleset(
    'zone-ep',
    [rulesetRule('run', { action: 'execute', action_parameters: { id: target } })],
    'zone',
  )

interface Setup {
  waf: EnginePreviousWaf
  managedRulesets?: boolean
  zoneEntrypoint?: EngineRuleset
  firewall?: EngineFirewallRule[]
}

function evaluate(setup: Setup, request: RequestDescription): Decision {
  const zone = compileZone({
    firewallRules: setup.firewall ?? [],
    managedRulesets: setup.managedRulesets ?? false,
    previousWaf: setup.waf,
    ...(setup.zoneEntrypoint ? { zoneEntrypoint: setup.zoneEntrypoint } : {}),
    resolveRuleset: (id) => customRulesets.get(id),
  })
  return zone.evaluate(requestContext(request), { credentials: () => undefined, trace: true })
}

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'

function get(url: string, headers: Record<string, string> = {}): RequestDescription {
  return { method: 'GET', url, headers: { 'user-agent': BROWSER, ...headers }, ip: '198.51.100.20' }
}

/** [rule id, action] of every event, in order. */
const fired = (decision: Decision) => decision.events.map((e) => [e.rule_id, e.action])

function packageNode(decision: Decision, id: string): TraceNode {
  const node = decision.trace.find((n) => n.kind === 'waf_package' && n.rule_id === id)
  if (!node) throw new Error(`no trace node for package ${id}`)
  return node
}

function ruleNode(decision: Decision, packageId: string, ruleId: string): TraceNode {
  const node = packageNode(decision, packageId).children?.find((n) => n.rule_id === ruleId)
  if (!node) throw new Error(`no trace node for rule ${ruleId} of ${packageId}`)
  return node
}

// ---------------------------------------------------------------------------------------------

describe('traditional deny rules and their modes', () => {
  const waf = previousWaf({
    packages: [
      traditional([
        deny('100001', pathContains('/block')),
        deny('100002', pathContains('/challenge'), { default_mode: 'challenge' }),
        deny('100003', pathContains('/sim'), { default_mode: 'simulate' }),
        deny('100004', pathContains('/off'), { default_mode: 'disable' }),
        deny('100005', pathContains('/set'), { mode: 'block', default_mode: 'simulate' }),
        deny('100006', pathContains('/zoneoff'), { mode: 'disable' }),
      ]),
    ],
  })

  it('blocks with a rule in block mode (default → its default_mode), as a waf event', () => {
    const decision = evaluate({ waf }, get('https://example.com/block'))
    expect(decision).toMatchObject({ outcome: 'blocked', action: 'block' })
    expect(decision.events).toEqual([
      expect.objectContaining({
        rule_id: '100001',
        action: 'block',
        source: 'waf',
        ruleset_id: TRADITIONAL,
      }),
    ])
    expect(ruleNode(decision, TRADITIONAL, '100001')).toMatchObject({
      kind: 'waf_rule',
      action: 'block',
      evaluated: true,
      matched: true,
    })
  })

  it('challenges with a rule in challenge mode', () => {
    const decision = evaluate({ waf }, get('https://example.com/challenge'))
    expect(decision).toMatchObject({
      outcome: 'challenged',
      action: 'challenge',
      challenge: 'challenge',
    })
    expect(fired(decision)).toEqual([['100002', 'challenge']])
  })

  it('ends evaluation at the first terminating rule: later rules are not evaluated', () => {
    const decision = evaluate({ waf }, get('https://example.com/block/challenge'))
    expect(fired(decision)).toEqual([['100001', 'block']])
    expect(ruleNode(decision, TRADITIONAL, '100002')).toMatchObject({
      evaluated: false,
      not_evaluated: 'stopped',
    })
  })

  it('only logs in simulate mode and goes on to the next rules', () => {
    const logged = evaluate({ waf }, get('https://example.com/sim'))
    expect(logged).toMatchObject({ outcome: 'passed', action: null })
    expect(fired(logged)).toEqual([['100003', 'simulate']])

    // a simulated rule does not end evaluation: a later rule still blocks
    const simFirst = evaluate(
      {
        waf: previousWaf({
          packages: [
            traditional([
              deny('100003', pathContains('/sim'), { default_mode: 'simulate' }),
              deny('100001', pathContains('/block')),
            ]),
          ],
        }),
      },
      get('https://example.com/sim/block'),
    )
    expect(fired(simFirst)).toEqual([
      ['100003', 'simulate'],
      ['100001', 'block'],
    ])
    expect(simFirst.outcome).toBe('blocked')
  })

  it('skips a disabled rule (its default, or set so by the zone) without evaluating it', () => {
    for (const [path, id] of [
      ['/off', '100004'],
      ['/zoneoff', '100006'],
    ] as const) {
      const decision = evaluate({ waf }, get(`https://example.com${path}`))
      expect(decision.outcome).toBe('passed')
      expect(decision.events).toEqual([])
      expect(ruleNode(decision, TRADITIONAL, id)).toMatchObject({
        evaluated: false,
        not_evaluated: 'disabled',
      })
    }
  })

  it("uses the zone's mode over the rule's default_mode", () => {
    const decision = evaluate({ waf }, get('https://example.com/set'))
    expect(decision.outcome).toBe('blocked')
    expect(fired(decision)).toEqual([['100005', 'block']])
  })
})

describe('groups and allow rules', () => {
  it('does not run the rules of a group that is off', () => {
    const waf = previousWaf({
      packages: [
        traditional(
          [
            deny('100001', pathContains('/x')),
            deny('100010', pathContains('/x'), { group_id: MISC }),
          ],
          { [SPECIALS]: 'off' },
        ),
      ],
    })
    const decision = evaluate({ waf }, get('https://example.com/x'))
    expect(fired(decision)).toEqual([['100010', 'block']])
    expect(ruleNode(decision, TRADITIONAL, '100001')).toMatchObject({
      evaluated: false,
      not_evaluated: 'disabled',
    })
  })

  it('lets a request an allow rule matches past the rest of the WAF (both packages)', () => {
    const waf = previousWaf({
      packages: [
        traditional([allow('100099', pathContains('/trusted')), deny('100001', pathContains('/'))]),
        owasp('high', 'block'),
      ],
    })
    const allowed = evaluate({ waf }, get(`https://example.com/trusted?q=${scoreQuery(60)}`))
    expect(allowed).toMatchObject({ outcome: 'passed', action: null, events: [] })
    expect(packageNode(allowed, TRADITIONAL).children!.map((n) => n.rule_id)).not.toContain(
      '100001',
    )
    expect(
      allowed.trace.some(
        (n) => n.kind === 'waf_package' && n.rule_id === OWASP_PACKAGE && n.evaluated,
      ),
    ).toBe(false)

    // the same request without the allow rule's match is blocked by the next rule
    const blocked = evaluate({ waf }, get(`https://example.com/other?q=${scoreQuery(60)}`))
    expect(fired(blocked)).toEqual([['100001', 'block']])
  })

  it('does not let an allow rule that is off allow anything', () => {
    const waf = previousWaf({
      packages: [
        traditional([
          allow('100099', pathContains('/trusted'), { mode: 'off' }),
          deny('100001', pathContains('/')),
        ]),
      ],
    })
    expect(evaluate({ waf }, get('https://example.com/trusted')).outcome).toBe('blocked')
  })
})

describe('OWASP anomaly scoring', () => {
  const thresholds = [
    ['high', 25, 65],
    ['medium', 40, 80],
    ['low', 60, 120],
  ] as const

  for (const [sensitivity, normal, ajax] of thresholds) {
    it(`${sensitivity}: acts from ${normal} (${ajax} for AJAX requests), not below`, () => {
      const waf = previousWaf({ packages: [owasp(sensitivity, 'block')] })
      const run = (total: number, headers: Record<string, string> = {}) =>
        evaluate({ waf }, get(`https://example.com/?q=${scoreQuery(total)}`, headers))
      const xhr = { 'X-Requested-With': 'XMLHttpRequest' }

      const below = run(normal - 5)
      expect(below.outcome).toBe('passed')
      expect(ruleNode(below, OWASP_PACKAGE, PACKAGE_BLOCK_RULE)).toMatchObject({
        matched: false,
        total_score: normal - 5,
        score_threshold: normal,
      })

      const reached = run(normal)
      expect(reached).toMatchObject({ outcome: 'blocked', action: 'block' })
      expect(reached.events).toEqual([
        expect.objectContaining({
          rule_id: PACKAGE_BLOCK_RULE,
          action: 'block',
          source: 'waf',
          ruleset_id: OWASP_PACKAGE,
          score: normal,
        }),
      ])

      expect(run(normal, xhr).outcome).toBe('passed')
      expect(run(ajax - 5, xhr).outcome).toBe('passed')
      const ajaxReached = run(ajax, xhr)
      expect(ajaxReached.outcome).toBe('blocked')
      expect(ruleNode(ajaxReached, OWASP_PACKAGE, PACKAGE_BLOCK_RULE)).toMatchObject({
        matched: true,
        total_score: ajax,
        score_threshold: ajax,
      })
    })
  }

  it('shows each matching rule’s contribution in the trace', () => {
    const decision = evaluate(
      { waf: previousWaf({ packages: [owasp('high', 'block')] }) },
      get(`https://example.com/?q=${scoreQuery(10)}`),
    )
    expect(ruleNode(decision, OWASP_PACKAGE, 's1')).toMatchObject({ matched: true, score: 5 })
    expect(ruleNode(decision, OWASP_PACKAGE, 's3')).toMatchObject({ matched: false })
  })

  it('does not count an anomaly rule that is off', () => {
    const rules = SCORING_RULES.map((rule) => (rule.id === 's1' ? { ...rule, mode: 'off' } : rule))
    const decision = evaluate(
      { waf: previousWaf({ packages: [owasp('high', 'block', rules)] }) },
      get(`https://example.com/?q=${scoreQuery(25)}`),
    )
    expect(decision.outcome).toBe('passed')
    expect(ruleNode(decision, OWASP_PACKAGE, PACKAGE_BLOCK_RULE).total_score).toBe(20)
  })

  it('does not run the package at sensitivity off', () => {
    const decision = evaluate(
      { waf: previousWaf({ packages: [owasp('off', 'block')] }) },
      get(`https://example.com/?q=${scoreQuery(120)}`),
    )
    expect(decision).toMatchObject({ outcome: 'passed', events: [] })
    expect(packageNode(decision, OWASP_PACKAGE)).toMatchObject({
      evaluated: false,
      not_evaluated: 'disabled',
    })
  })

  it('action mode simulate logs rule 981176 and lets the request pass', () => {
    const decision = evaluate(
      { waf: previousWaf({ packages: [owasp('high', 'simulate')] }) },
      get(`https://example.com/?q=${scoreQuery(30)}`),
    )
    expect(decision).toMatchObject({ outcome: 'passed', action: null })
    expect(fired(decision)).toEqual([[PACKAGE_BLOCK_RULE, 'simulate']])
    expect(decision.events[0]).toMatchObject({ source: 'waf', score: 30 })
  })

  it('action mode challenge challenges, block blocks', () => {
    const request = get(`https://example.com/?q=${scoreQuery(25)}`)
    expect(
      evaluate({ waf: previousWaf({ packages: [owasp('high', 'challenge')] }) }, request),
    ).toMatchObject({ outcome: 'challenged', action: 'challenge', challenge: 'challenge' })
    expect(
      evaluate({ waf: previousWaf({ packages: [owasp('high', 'block')] }) }, request),
    ).toMatchObject({ outcome: 'blocked', action: 'block' })
  })

  it('does not score a request the traditional package already blocked', () => {
    const decision = evaluate(
      {
        waf: previousWaf({
          packages: [traditional([deny('100001', pathContains('/x'))]), owasp('high', 'block')],
        }),
      },
      get(`https://example.com/x?q=${scoreQuery(30)}`),
    )
    expect(fired(decision)).toEqual([['100001', 'block']])
    expect(packageNode(decision, OWASP_PACKAGE)).toMatchObject({
      evaluated: false,
      not_evaluated: 'stopped',
    })
  })
})

describe("the zone's waf setting and page rules", () => {
  const packages = [traditional([deny('100001', pathContains('/'))])]

  it('runs nothing with the zone’s WAF off', () => {
    const decision = evaluate(
      { waf: previousWaf({ enabled: false, packages }) },
      get('https://example.com/a'),
    )
    expect(decision).toMatchObject({ outcome: 'passed', events: [] })
    expect(packageNode(decision, TRADITIONAL)).toMatchObject({
      evaluated: false,
      not_evaluated: 'disabled',
    })
  })

  it('runs with the zone’s WAF off where a WAF On page rule matches (and only there)', () => {
    const waf = previousWaf({
      enabled: false,
      packages,
      pageRules: [pageRule('pr-on', '*example.com/shop/*', 'waf_on')],
    })
    const inShop = evaluate({ waf }, get('https://example.com/shop/cart'))
    expect(inShop.outcome).toBe('blocked')
    expect(inShop.trace.find((n) => n.kind === 'page_rule')).toMatchObject({
      rule_id: 'pr-on',
      action: 'waf_on',
      matched: true,
    })
    expect(evaluate({ waf }, get('https://example.com/blog/post')).outcome).toBe('passed')
  })

  for (const effect of ['disable_security', 'waf_off'] as const) {
    it(`does not run where a ${effect} page rule matches`, () => {
      const waf = previousWaf({
        packages,
        pageRules: [pageRule('pr', 'example.com/admin/*', effect)],
      })
      const admin = evaluate({ waf }, get('https://example.com/admin/users'))
      expect(admin).toMatchObject({ outcome: 'passed', events: [] })
      expect(admin.trace.find((n) => n.kind === 'page_rule')).toMatchObject({
        rule_id: 'pr',
        action: effect,
      })
      expect(packageNode(admin, TRADITIONAL).not_evaluated).toBe('disabled')
      // http:// too: the pattern has no scheme
      expect(evaluate({ waf }, get('http://example.com/admin/users')).outcome).toBe('passed')
      expect(evaluate({ waf }, get('https://example.com/public')).outcome).toBe('blocked')
    })
  }

  it('applies only the page rule of highest precedence that matches', () => {
    const on = pageRule('pr-on', '*example.com/admin/public/*', 'waf_on')
    const off = pageRule('pr-off', '*example.com/admin/*', 'disable_security')
    const cache = pageRule('pr-cache', '*example.com/*')
    const url = 'https://example.com/admin/public/x'

    const onFirst = evaluate({ waf: previousWaf({ packages, pageRules: [on, off] }) }, get(url))
    expect(onFirst.outcome).toBe('blocked')
    expect(onFirst.trace.filter((n) => n.kind === 'page_rule').map((n) => n.rule_id)).toEqual([
      'pr-on',
    ])

    const offFirst = evaluate({ waf: previousWaf({ packages, pageRules: [off, on] }) }, get(url))
    expect(offFirst.outcome).toBe('passed')

    // a page rule without a WAF action still is the one that applies: the zone's setting holds
    const cacheFirst = evaluate(
      { waf: previousWaf({ packages, pageRules: [cache, off] }) },
      get(url),
    )
    expect(cacheFirst.outcome).toBe('blocked')
    expect(cacheFirst.trace.find((n) => n.kind === 'page_rule')?.rule_id).toBe('pr-cache')
  })
})

describe('URI-based overrides', () => {
  const rules = [
    deny('100001', pathContains('/x')),
    deny('100002', pathContains('/x'), { default_mode: 'challenge', group_id: MISC }),
  ]
  const run = (overrides: EngineWafOverride[], url = 'https://shop.example.com/x') =>
    evaluate({ waf: previousWaf({ packages: [traditional(rules)], overrides }) }, get(url))

  it('disables a rule for the URLs it matches, and shows it applied', () => {
    const decision = run([
      override('o1', ['shop.example.com/*'], { rules: { '100001': 'disable' } }),
    ])
    expect(fired(decision)).toEqual([['100002', 'challenge']])
    expect(decision.trace.find((n) => n.kind === 'waf_override')).toMatchObject({
      rule_id: 'o1',
      matched: true,
    })
    // elsewhere the override does not apply
    const elsewhere = run(
      [override('o1', ['shop.example.com/*'], { rules: { '100001': 'disable' } })],
      'https://blog.example.com/x',
    )
    expect(fired(elsewhere)).toEqual([['100001', 'block']])
    expect(elsewhere.trace.some((n) => n.kind === 'waf_override')).toBe(false)
  })

  it('disables a whole group', () => {
    const decision = run([
      override('o1', ['shop.example.com/*'], { groups: { [SPECIALS]: 'disable' } }),
    ])
    expect(fired(decision)).toEqual([['100002', 'challenge']])
  })

  it("gives a rule's entry precedence over its group's; default stands for the rule's own mode", () => {
    const decision = run([
      override('o1', ['shop.example.com/*'], {
        groups: { [SPECIALS]: 'disable' },
        rules: { '100001': 'default' },
      }),
    ])
    expect(fired(decision)).toEqual([['100001', 'block']])

    const simulated = run([
      override('o1', ['shop.example.com/*'], {
        groups: { [SPECIALS]: 'block' },
        rules: { '100001': 'simulate' },
      }),
    ])
    expect(fired(simulated)).toEqual([
      ['100001', 'simulate'],
      ['100002', 'challenge'],
    ])
  })

  it('maps the resulting action through rewrite_action', () => {
    const decision = run([
      override('o1', ['shop.example.com/*'], {
        rules: { '100002': 'disable' },
        rewrite_action: { block: 'simulate' },
      }),
    ])
    expect(decision.outcome).toBe('passed')
    expect(fired(decision)).toEqual([['100001', 'simulate']])

    const challenged = run([
      override('o1', ['shop.example.com/*'], {
        rules: { '100002': 'disable' },
        rewrite_action: { block: 'challenge' },
      }),
    ])
    expect(challenged).toMatchObject({ outcome: 'challenged', action: 'challenge' })
  })

  it('changes no decision with an override that has no rules, groups or rewrite_action', () => {
    const none = run([])
    const empty = run([override('o1', ['shop.example.com/*'])])
    expect(empty.outcome).toBe(none.outcome)
    expect(fired(empty)).toEqual(fired(none))
    expect(fired(empty)).toEqual([['100001', 'block']])
    expect(empty.trace.find((n) => n.kind === 'waf_override')).toMatchObject({
      rule_id: 'o1',
      effect: expect.stringContaining('changes no rule or group mode'),
    })
  })

  it('applies only the first override that matches (the one that wins)', () => {
    const decision = run([
      override('first', ['shop.example.com/*'], { rules: { '100001': 'disable' } }),
      override('second', ['*example.com/*'], { rules: { '100002': 'disable' } }),
    ])
    expect(fired(decision)).toEqual([['100002', 'challenge']])
    expect(decision.trace.filter((n) => n.kind === 'waf_override').map((n) => n.rule_id)).toEqual([
      'first',
    ])
  })
})

describe("the zone's settings as the engine takes them (engine-input)", () => {
  const catalogRules: LegacyRule[] = [
    {
      id: '100001',
      package_id: TRADITIONAL,
      group_id: SPECIALS,
      description: 'blocks /x',
      priority: '1',
      kind: 'deny',
      default_mode: 'block',
      expression: pathContains('/x'),
    },
    {
      id: '100002',
      package_id: TRADITIONAL,
      group_id: MISC,
      description: 'challenges /x',
      priority: '2',
      kind: 'deny',
      default_mode: 'challenge',
      expression: pathContains('/x'),
    },
  ]
  const catalog = new LegacyCatalog({
    version: '1',
    packages: [
      { id: TRADITIONAL, name: 'CloudFlare', description: '', detection_mode: 'traditional' },
    ],
    groups: [
      { id: SPECIALS, package_id: TRADITIONAL, name: 'Specials', description: null, mode: 'on' },
      { id: MISC, package_id: TRADITIONAL, name: 'Misc', description: null, mode: 'on' },
    ],
    rules: catalogRules,
  })

  function snapshot(fields: Partial<MigrationSnapshot> = {}): MigrationSnapshot {
    return {
      record: {
        id: 'z'.repeat(32),
        name: 'example.com',
        type: 'full',
        plan: 'pro',
        waf_product: 'previous',
        paused: false,
        created_on: '2025-01-01T00:00:00.000000Z',
        modified_on: '2025-01-01T00:00:00.000000Z',
      },
      settings: DEFAULT_SETTINGS,
      overrides: [],
      firewallRules: [],
      pageRules: [],
      groupModes: new Map(),
      ruleModes: new Map(),
      ...fields,
    }
  }

  function wafOverride(id: string, fields: Partial<WafOverride> = {}): WafOverride {
    return {
      id,
      description: null,
      urls: ['example.com/x*'],
      rules: {},
      groups: {},
      rewrite_action: {},
      priority: 1,
      paused: false,
      ...fields,
    }
  }

  function storedPageRule(
    id: string,
    pattern: string,
    priority: number,
    actions: PageRule['actions'],
    status: PageRule['status'] = 'active',
  ): PageRule {
    return {
      id,
      targets: [{ target: 'url', constraint: { operator: 'matches', value: pattern } }],
      actions,
      priority,
      status,
      created_on: '2025-01-01T00:00:00.000000Z',
      modified_on: '2025-01-01T00:00:00.000000Z',
    }
  }

  const run = (fields: Partial<MigrationSnapshot>, url = 'https://example.com/x') =>
    evaluate({ waf: enginePreviousWaf(snapshot(fields), catalog) }, get(url))

  it('ignores paused overrides', () => {
    const disabling = { rules: { '100001': 'disable' as const } }
    expect(fired(run({ overrides: [wafOverride('o1', { ...disabling, paused: true })] }))).toEqual([
      ['100001', 'block'],
    ])
    expect(fired(run({ overrides: [wafOverride('o1', disabling)] }))).toEqual([
      ['100002', 'challenge'],
    ])
  })

  it('lets the override with the lowest priority number win', () => {
    const overrides = [
      wafOverride('later', { priority: 5, rules: { '100001': 'disable' } }),
      wafOverride('wins', { priority: -3, rules: { '100002': 'simulate', '100001': 'simulate' } }),
    ]
    expect(fired(run({ overrides }))).toEqual([
      ['100001', 'simulate'],
      ['100002', 'simulate'],
    ])
  })

  it('applies the highest-priority active page rule only; disabled ones do not count', () => {
    const off = storedPageRule('off', '*example.com/x*', 1, [{ id: 'disable_security' }])
    const on = storedPageRule('on', 'example.com/*', 2, [{ id: 'waf', value: 'on' }])
    const settings = { ...DEFAULT_SETTINGS, waf: 'off' as const }
    expect(run({ settings, pageRules: [off, on] }).outcome).toBe('blocked')
    expect(run({ settings, pageRules: [{ ...on, priority: 0 }, off] }).outcome).toBe('passed')
    expect(run({ settings, pageRules: [off, { ...on, status: 'disabled' }] }).outcome).toBe(
      'passed',
    )
    expect(run({ settings, pageRules: [{ ...off, status: 'disabled' }, on] }).outcome).toBe(
      'blocked',
    )
  })

  it("carries the zone's group and rule modes", () => {
    expect(
      fired(run({ groupModes: new Map([[TRADITIONAL, new Map([[SPECIALS, 'off']])]]) })),
    ).toEqual([['100002', 'challenge']])
    expect(
      fired(run({ ruleModes: new Map([[TRADITIONAL, new Map([['100001', 'simulate']])]]) })),
    ).toEqual([
      ['100001', 'simulate'],
      ['100002', 'challenge'],
    ])
  })
})

describe('the previous product with the managed phase and firewall rules', () => {
  const waf = previousWaf({
    packages: [traditional([deny('100001', pathContains('/x'))]), owasp('high', 'block')],
  })

  it('runs the managed phase first: a block there stops the previous product', () => {
    const decision = evaluate(
      { waf, managedRulesets: true, zoneEntrypoint: executing(BLOCKER) },
      get('https://example.com/x'),
    )
    expect(decision).toMatchObject({ outcome: 'blocked', action: 'block' })
    expect(decision.events.map((e) => [e.rule_id, e.source])).toEqual([
      ['blocker-1', 'firewallManaged'],
    ])
    for (const id of [TRADITIONAL, OWASP_PACKAGE]) {
      expect(packageNode(decision, id)).toMatchObject({
        evaluated: false,
        not_evaluated: 'stopped',
      })
    }
  })

  it('runs the previous product after a managed phase that lets the request on', () => {
    const decision = evaluate(
      { waf, managedRulesets: true, zoneEntrypoint: executing(LOGGER) },
      get('https://example.com/x'),
    )
    expect(decision.events.map((e) => [e.rule_id, e.source])).toEqual([
      ['logger-1', 'firewallManaged'],
      ['100001', 'waf'],
    ])
    const kinds = decision.trace.map((n) => n.kind)
    expect(kinds.indexOf('entrypoint_rule')).toBeLessThan(kinds.indexOf('waf_package'))
  })

  it('does not run the entry point with managedRulesets false', () => {
    const decision = evaluate(
      { waf, managedRulesets: false, zoneEntrypoint: executing(BLOCKER) },
      get('https://example.com/x'),
    )
    expect(fired(decision)).toEqual([['100001', 'block']])
    expect(decision.trace.some((n) => n.kind === 'entrypoint_rule')).toBe(false)
  })

  it('skips both products for a firewall rule that bypasses the WAF', () => {
    const decision = evaluate(
      {
        waf,
        managedRulesets: true,
        zoneEntrypoint: executing(BLOCKER),
        firewall: [firewallRule('fw-bypass', 'bypass', ['waf'])],
      },
      get(`https://example.com/x?q=${scoreQuery(60)}`),
    )
    expect(decision.outcome).toBe('passed')
    expect(decision.events.every((e) => e.source === 'firewallRules')).toBe(true)
    expect(decision.trace.some((n) => n.kind === 'waf_package' && n.evaluated)).toBe(false)
    expect(decision.trace.some((n) => n.kind === 'entrypoint_rule' && n.evaluated)).toBe(false)
  })

  it('does not run after a firewall rule that blocks', () => {
    const decision = evaluate(
      { waf, firewall: [firewallRule('fw-block', 'block')] },
      get('https://example.com/x'),
    )
    expect(fired(decision)).toEqual([['fw-block', 'block']])
    expect(packageNode(decision, TRADITIONAL).not_evaluated).toBe('stopped')
  })
})
