// The ruleset engine (src-main/engine) on small inline rulesets and on the real managed catalog:
// rule order and disabled rules, execute with overrides (through the engine,
// docs/vendor-behaviour.md#override-resolution-examples), the execute rule's own expression, skip
// (`ruleset: current`, `rulesets`, `rules`, only later rules), terminating and non-terminating
// actions, OWASP anomaly scoring (trace contributions, thresholds per deployment, paranoia levels),
// the exposed-credentials check on the login corpus, the previous product's firewall rules, the
// worked entry point of docs/vendor-behaviour.md#worked-zone-entry-point,
// and what the trace shows.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Overrides } from '@shared/api/rulesets'
import { requestContext, type RequestDescription } from '@shared/expression'
import {
  compileZone,
  type CompiledZone,
  type CredentialLookup,
  type Decision,
  type EngineFirewallRule,
  type EngineRule,
  type EngineRuleset,
  type TraceNode,
} from '../../../src-main/engine'
import { ManagedCatalog, readCatalogFiles } from '../../../src-main/zones/rulesets/catalog'
import { describeRequest, readCorpus } from '../crs/corpus'

const ROOT = resolve(import.meta.dirname, '../../..')
const catalog = new ManagedCatalog(readCatalogFiles(resolve(ROOT, 'resources')))

const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
const ECC = 'c2e184081120413c86c3ab7e14069605'
const ANOMALY = '6179ae15870a4bb7b2d480d4843b323c'
const ECC_SPOOF = '64fea87e8e305182d8da13fd950bdd58'
const ECC_WORDPRESS = '073e117b291daa98759c3249e7b52072'
const ECC_GENERIC_FORM = 'd638482911d6b426c94a475a2a0ad5af'
const ECC_GENERIC_JSON_EMAIL = '260e41de7ada1002c062d1f7d2edf8e8'
/** General ruleset: WordPress user enumeration via the REST API (log, disabled by default). */
const WP_USER_ENUM = 'ed46f5e444cc21284116c06d77cc7d89'

// ---------------------------------------------------------------------------------------------
// Fixture builders

function rule(id: string, fields: Partial<EngineRule> = {}): EngineRule {
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

function ruleset(
  id: string,
  rules: EngineRule[],
  kind: EngineRuleset['kind'] = 'managed',
): EngineRuleset {
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

function execute(
  id: string,
  target: string,
  overrides?: Overrides,
  fields: Partial<EngineRule> = {},
): EngineRule {
  return rule(id, {
    action: 'execute',
    action_parameters: { id: target, version: 'latest', ...(overrides ? { overrides } : {}) },
    ...fields,
  })
}

function skip(
  id: string,
  parameters: Record<string, unknown>,
  fields: Partial<EngineRule> = {},
): EngineRule {
  return rule(id, { action: 'skip', action_parameters: parameters, ...fields })
}

function firewallRule(
  id: string,
  action: EngineFirewallRule['action'],
  priority: number | null,
  fields: {
    expression?: string
    paused?: boolean
    filterPaused?: boolean
    products?: EngineFirewallRule['products']
  } = {},
): EngineFirewallRule {
  return {
    id,
    action,
    priority,
    paused: fields.paused ?? false,
    description: `firewall rule ${id}`,
    ...(fields.products ? { products: fields.products } : {}),
    filter: {
      id: `filter-${id}`,
      expression: fields.expression ?? 'true',
      paused: fields.filterPaused ?? false,
    },
  }
}

interface Setup {
  account?: EngineRule[]
  zone?: EngineRule[]
  /** rulesets execute rules may name besides the catalog's */
  rulesets?: EngineRuleset[]
  firewall?: EngineFirewallRule[]
}

function build(setup: Setup): CompiledZone {
  const own = new Map((setup.rulesets ?? []).map((rs) => [rs.id, rs]))
  return compileZone({
    ...(setup.account ? { accountEntrypoint: ruleset('account-ep', setup.account, 'root') } : {}),
    ...(setup.zone ? { zoneEntrypoint: ruleset('zone-ep', setup.zone, 'zone') } : {}),
    firewallRules: setup.firewall ?? [],
    resolveRuleset: (id, version) => own.get(id) ?? catalog.resolve(id, version),
  })
}

/** The leaked-credential database of these tests: a few `username:password` pairs. */
const leaked = new Set(['admin:hunter2', 'jane@example.com:Winter2024!'])
const credentials: CredentialLookup = (username, password) =>
  leaked.has(`${username}:${password}`) ? 'pair' : undefined

function run(zone: CompiledZone | Setup, request: RequestDescription, trace = true): Decision {
  const compiled = 'evaluate' in zone ? zone : build(zone)
  return compiled.evaluate(requestContext(request), { credentials, trace })
}

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'

function get(url: string, headers: Record<string, string> = {}, ip = '198.51.100.20') {
  return {
    method: 'GET',
    url,
    headers: { 'user-agent': BROWSER, accept: 'text/html', ...headers },
    ip,
  } satisfies RequestDescription
}

function post(
  url: string,
  body: string,
  contentType = 'application/x-www-form-urlencoded',
  headers: Record<string, string> = {},
  ip = '198.51.100.20',
) {
  return {
    method: 'POST',
    url,
    headers: {
      'user-agent': BROWSER,
      accept: 'text/html',
      'content-type': contentType,
      ...headers,
    },
    body,
    ip,
  } satisfies RequestDescription
}

/** [rule id, action] of every event, in order. */
const fired = (decision: Decision) => decision.events.map((e) => [e.rule_id, e.action])

function entry(decision: Decision, id: string): TraceNode {
  const node = decision.trace.find((n) => n.rule_id === id)
  if (!node) throw new Error(`no trace node for ${id}`)
  return node
}

function child(decision: Decision, entryId: string, ruleId: string): TraceNode {
  const node = entry(decision, entryId).children?.find((n) => n.rule_id === ruleId)
  if (!node) throw new Error(`no trace node for ${ruleId} under ${entryId}`)
  return node
}

// Small custom rulesets: every rule of BLOCKER blocks everything, LOGGER logs everything.
const BLOCKER = 'b'.repeat(32)
const LOGGER = 'c'.repeat(32)
const blocker = ruleset(BLOCKER, [rule('blocker-1', { action: 'block' })])
const logger = ruleset(LOGGER, [rule('logger-1', { action: 'log' })])

// ---------------------------------------------------------------------------------------------

describe('rules run in order; disabled rules are not evaluated', () => {
  const SEQ = '1'.repeat(32)
  const seq = ruleset(SEQ, [
    rule('a', { action: 'log' }),
    rule('b', { action: 'log', expression: 'http.request.uri.path eq "/x"' }),
    rule('off', { action: 'block', enabled: false }),
    rule('c', { action: 'log' }),
  ])
  const zone = build({ zone: [execute('run', SEQ)], rulesets: [seq] })

  it('records the matching rules in list order and goes past rules that do not match', () => {
    const onX = run(zone, get('https://example.com/x'))
    expect(fired(onX)).toEqual([
      ['a', 'log'],
      ['b', 'log'],
      ['c', 'log'],
    ])
    expect(entry(onX, 'run').children!.map((n) => n.rule_id)).toEqual(['a', 'b', 'off', 'c'])

    const onY = run(zone, get('https://example.com/y'))
    expect(fired(onY)).toEqual([
      ['a', 'log'],
      ['c', 'log'],
    ])
    expect(child(onY, 'run', 'b')).toMatchObject({ evaluated: true, matched: false })
  })

  it('does not evaluate a disabled rule, even one that would match and block', () => {
    const decision = run(zone, get('https://example.com/x'))
    expect(decision.outcome).toBe('passed')
    const off = child(decision, 'run', 'off')
    expect(off).toMatchObject({ evaluated: false, not_evaluated: 'disabled' })
    expect(off.matched).toBeUndefined()
  })

  it('does not run a disabled execute rule of the entry point', () => {
    const decision = run(
      { zone: [execute('run', BLOCKER, undefined, { enabled: false })], rulesets: [blocker] },
      get('https://example.com/'),
    )
    expect(decision.outcome).toBe('passed')
    expect(decision.events).toEqual([])
    expect(entry(decision, 'run')).toMatchObject({ evaluated: false, not_evaluated: 'disabled' })
    expect(entry(decision, 'run').children).toBeUndefined()
  })
})

describe('execute with overrides, resolved per property (override resolution examples)', () => {
  // Managed rules (defaults), all matching every request:
  // R1 {wordpress, block, on}; R2 {wordpress php, log, off}; R3 {php, block, on}; R4 {block, off}
  const APPX_C = 'a'.repeat(32)
  const appendixC = ruleset(APPX_C, [
    rule('R1', { categories: ['wordpress'], action: 'block', enabled: true }),
    rule('R2', { categories: ['wordpress', 'php'], action: 'log', enabled: false }),
    rule('R3', { categories: ['php'], action: 'block', enabled: true }),
    rule('R4', { categories: [], action: 'block', enabled: false }),
  ])
  const IDS = ['R1', 'R2', 'R3', 'R4'] as const

  // The reference's table, verbatim: overrides | R1 | R2 | R3 | R4
  const table: [string, Overrides | undefined, string, string, string, string][] = [
    ['none', undefined, 'block/on', 'log/off', 'block/on', 'block/off'],
    ['{action:"log"}', { action: 'log' }, 'log/on', 'log/off', 'log/on', 'log/off'],
    [
      '{enabled:false, categories:[{category:"wordpress", action:"log", enabled:true}]}',
      { enabled: false, categories: [{ category: 'wordpress', action: 'log', enabled: true }] },
      'log/on',
      'log/on',
      'block/off',
      'block/off',
    ],
    [
      '{categories:[{category:"wordpress",action:"log"},{category:"php",action:"managed_challenge"}]}',
      {
        categories: [
          { category: 'wordpress', action: 'log' },
          { category: 'php', action: 'managed_challenge' },
        ],
      },
      'log/on',
      'managed_challenge/off',
      'managed_challenge/on',
      'block/off',
    ],
    ['{enabled:true}', { enabled: true }, 'block/on', 'log/on', 'block/on', 'block/on'],
    [
      '{action:"log", rules:[{id:"R3", action:"block", enabled:false}]}',
      { action: 'log', rules: [{ id: 'R3', action: 'block', enabled: false }] },
      'log/on',
      'log/off',
      'block/off',
      'log/off',
    ],
  ]

  const outcomeOf = (action: string) =>
    action === 'log' ? 'passed' : action === 'block' ? 'blocked' : 'challenged'

  describe.each(table)('overrides %s', (_label, overrides, ...cells) => {
    it.each(IDS.map((id, i) => [id, cells[i]!] as const))('%s is %s', (id, cell) => {
      const [action, state] = cell.split('/') as [string, 'on' | 'off']
      // Only the rule under test may act: an exception before the execute skips the other three
      // (its own event hidden), so a terminating action of one rule cannot hide the next.
      const others = IDS.filter((other) => other !== id)
      const decision = run(
        {
          zone: [
            skip('only', { rules: { [APPX_C]: others } }, { logging: { enabled: false } }),
            execute('deploy', APPX_C, overrides),
          ],
          rulesets: [appendixC],
        },
        get('https://example.com/anything'),
      )
      const node = child(decision, 'deploy', id)
      expect(node.action).toBe(action)
      if (state === 'on') {
        expect(node).toMatchObject({ evaluated: true, matched: true })
        expect(fired(decision)).toEqual([[id, action]])
        expect(decision.outcome).toBe(outcomeOf(action))
      } else {
        expect(node).toMatchObject({ evaluated: false, not_evaluated: 'disabled' })
        expect(decision.events).toEqual([])
        expect(decision.outcome).toBe('passed')
      }
    })
  })

  it('shows in the trace which level of override decided each property', () => {
    const zoneFor = (overrides: Overrides) =>
      build({ zone: [execute('deploy', APPX_C, overrides)], rulesets: [appendixC] })
    const tagged = run(
      zoneFor({
        enabled: false,
        categories: [{ category: 'wordpress', action: 'log', enabled: true }],
      }),
      get('https://example.com/'),
    )
    expect(child(tagged, 'deploy', 'R1').from).toEqual({ action: 'category', enabled: 'category' })
    expect(child(tagged, 'deploy', 'R3').from).toEqual({ action: 'default', enabled: 'ruleset' })

    const named = run(
      zoneFor({ action: 'log', rules: [{ id: 'R3', action: 'block', enabled: false }] }),
      get('https://example.com/'),
    )
    expect(child(named, 'deploy', 'R1').from).toEqual({ action: 'ruleset', enabled: 'default' })
    expect(child(named, 'deploy', 'R3').from).toEqual({ action: 'rule', enabled: 'rule' })
    // R1 logs; R3, disabled by its rule override, does not act
    expect(fired(named)).toEqual([['R1', 'log']])
  })

  it('lets a category override enable and arm a general managed rule that is off by default', () => {
    const request = get('https://blog.example.org/wp-json/wp/v2/users')
    expect(run({ zone: [execute('cmr', GENERAL)] }, request).outcome).toBe('passed')
    const armed = run(
      {
        zone: [
          execute('cmr', GENERAL, {
            categories: [{ category: 'wordpress', action: 'block', enabled: true }],
          }),
        ],
      },
      request,
    )
    expect(armed.outcome).toBe('blocked')
    expect(fired(armed)).toEqual([[WP_USER_ENUM, 'block']])
    expect(child(armed, 'cmr', WP_USER_ENUM).from).toEqual({
      action: 'category',
      enabled: 'category',
    })
  })
})

describe("the execute rule's own expression scopes the executed ruleset", () => {
  const zone = build({
    zone: [execute('shop', BLOCKER, undefined, { expression: 'http.host eq "shop.example.com"' })],
    rulesets: [blocker],
  })

  it('runs the ruleset for requests the expression matches', () => {
    const decision = run(zone, get('https://shop.example.com/cart'))
    expect(decision.outcome).toBe('blocked')
    expect(fired(decision)).toEqual([['blocker-1', 'block']])
  })

  it('does not run it for other requests: none of its rules is considered', () => {
    const decision = run(zone, get('https://blog.example.org/cart'))
    expect(decision.outcome).toBe('passed')
    expect(decision.events).toEqual([])
    expect(entry(decision, 'shop')).toMatchObject({ evaluated: true, matched: false })
    expect(entry(decision, 'shop').children).toBeUndefined()
  })

  it('runs nothing when the execute rule names a ruleset that does not exist', () => {
    const decision = run({ zone: [execute('ghost', 'd'.repeat(32))] }, get('https://example.com/'))
    expect(decision.outcome).toBe('passed')
    expect(entry(decision, 'ghost')).toMatchObject({ evaluated: true, matched: true })
  })
})

describe('skip', () => {
  it('`ruleset: current` ends the level: later rules of the entry point are not evaluated', () => {
    const zone = build({
      zone: [
        skip('trusted', { ruleset: 'current' }, { expression: 'ip.src in {203.0.113.0/24}' }),
        execute('block-all', BLOCKER),
        execute('log-all', LOGGER),
      ],
      rulesets: [blocker, logger],
    })
    const trusted = run(zone, get('https://example.com/', {}, '203.0.113.9'))
    expect(trusted.outcome).toBe('passed')
    expect(fired(trusted)).toEqual([['trusted', 'skip']])
    for (const id of ['block-all', 'log-all'])
      expect(entry(trusted, id)).toMatchObject({ evaluated: false, not_evaluated: 'skipped' })

    const other = run(zone, get('https://example.com/', {}, '198.51.100.9'))
    expect(other.outcome).toBe('blocked')
    expect(entry(other, 'trusted')).toMatchObject({ evaluated: true, matched: false })
  })

  it('`ruleset: current` at the account level does not reach the zone level', () => {
    const decision = run(
      {
        account: [skip('acct-skip', { ruleset: 'current' }), execute('acct-log', LOGGER)],
        zone: [execute('zone-block', BLOCKER)],
        rulesets: [blocker, logger],
      },
      get('https://example.com/'),
    )
    expect(decision.outcome).toBe('blocked')
    expect(fired(decision)).toEqual([
      ['acct-skip', 'skip'],
      ['blocker-1', 'block'],
    ])
    expect(entry(decision, 'acct-log').not_evaluated).toBe('skipped')
    expect(decision.trace.map((n) => n.rule_id)).toEqual(['acct-skip', 'acct-log', 'zone-block'])
  })

  it('`rulesets` removes later executions of those rulesets only', () => {
    const decision = run(
      {
        zone: [
          skip('no-blocker', { rulesets: [BLOCKER] }),
          execute('block-all', BLOCKER),
          execute('log-all', LOGGER),
        ],
        rulesets: [blocker, logger],
      },
      get('https://example.com/'),
    )
    expect(decision.outcome).toBe('passed')
    expect(fired(decision)).toEqual([
      ['no-blocker', 'skip'],
      ['logger-1', 'log'],
    ])
    expect(entry(decision, 'block-all')).toMatchObject({
      evaluated: false,
      not_evaluated: 'skipped',
    })
  })

  it('`rulesets` placed after the execute rule changes nothing', () => {
    const decision = run(
      {
        zone: [execute('log-all', LOGGER), skip('too-late', { rulesets: [LOGGER] })],
        rulesets: [logger],
      },
      get('https://example.com/'),
    )
    expect(fired(decision)).toEqual([
      ['logger-1', 'log'],
      ['too-late', 'skip'],
    ])
  })

  it('hides the skip event when the skip rule has logging disabled', () => {
    const decision = run(
      {
        zone: [
          skip('quiet', { ruleset: 'current' }, { logging: { enabled: false } }),
          execute('block-all', BLOCKER),
        ],
        rulesets: [blocker],
      },
      get('https://example.com/'),
    )
    expect(decision.outcome).toBe('passed')
    expect(decision.events).toEqual([])
    expect(entry(decision, 'quiet').effect).toMatch(/skipped/)
  })

  describe('skip interplay (override resolution examples): S = skip {rules: {CMR: [R1]}} on /wp-admin, E = execute', () => {
    const CMR = 'e'.repeat(32)
    const cmr = ruleset(CMR, [
      rule('R1', { categories: ['wordpress'], action: 'block' }),
      rule('R2', { categories: ['wordpress', 'php'], action: 'log', enabled: false }),
      rule('R3', { categories: ['php'], action: 'block' }),
      rule('R4', { action: 'block', enabled: false }),
    ])
    const S = skip(
      'S',
      { rules: { [CMR]: ['R1'] } },
      { expression: 'starts_with(http.request.uri.path, "/wp-admin")' },
    )
    const E = execute('E', CMR)

    it('S before E: R1 is bypassed on /wp-admin/x and R3 is still evaluated', () => {
      const zone = build({ zone: [S, E], rulesets: [cmr] })
      const decision = run(zone, get('https://example.com/wp-admin/x'))
      expect(child(decision, 'E', 'R1')).toMatchObject({
        evaluated: false,
        not_evaluated: 'skipped',
      })
      expect(child(decision, 'E', 'R3')).toMatchObject({ evaluated: true, matched: true })
      expect(fired(decision)).toEqual([
        ['S', 'skip'],
        ['R3', 'block'],
      ])
      // elsewhere the exception does not match and R1 acts first
      expect(fired(run(zone, get('https://example.com/blog')))).toEqual([['R1', 'block']])
    })

    it('S after E: nothing is skipped', () => {
      const decision = run({ zone: [E, S], rulesets: [cmr] }, get('https://example.com/wp-admin/x'))
      expect(fired(decision)).toEqual([['R1', 'block']])
      expect(child(decision, 'E', 'R1')).toMatchObject({ evaluated: true, matched: true })
      expect(entry(decision, 'S')).toMatchObject({ evaluated: false, not_evaluated: 'stopped' })
    })
  })
})

describe('terminating and non-terminating actions', () => {
  const ACTS = 'f'.repeat(32)
  const withAction = (action: string, fields: Partial<EngineRule> = {}) =>
    build({
      zone: [execute('run', ACTS), execute('later', LOGGER)],
      rulesets: [
        ruleset(ACTS, [
          rule('before', { action: 'log' }),
          rule('act', { action, ...fields }),
          rule('after', { action: 'log' }),
        ]),
        logger,
      ],
    })

  it.each([
    ['block', 'blocked'],
    ['challenge', 'challenged'],
    ['js_challenge', 'challenged'],
    ['managed_challenge', 'challenged'],
  ])('%s ends evaluation (%s)', (action, outcome) => {
    const decision = run(withAction(action), get('https://example.com/'))
    expect(decision.outcome).toBe(outcome)
    expect(decision.action).toBe(action)
    if (outcome === 'challenged') expect(decision.challenge).toBe(action)
    else expect(decision.challenge).toBeUndefined()
    expect(fired(decision)).toEqual([
      ['before', 'log'],
      ['act', action],
    ])
    expect(child(decision, 'run', 'after')).toMatchObject({
      evaluated: false,
      not_evaluated: 'stopped',
    })
    expect(entry(decision, 'later')).toMatchObject({ evaluated: false, not_evaluated: 'stopped' })
    expect(decision.stopped).toContain('act')
  })

  it('log records an event and evaluation goes on', () => {
    const decision = run(withAction('log'), get('https://example.com/'))
    expect(decision).toMatchObject({ outcome: 'passed', action: null })
    expect(fired(decision)).toEqual([
      ['before', 'log'],
      ['act', 'log'],
      ['after', 'log'],
      ['logger-1', 'log'],
    ])
  })

  const header = { headers: { 'X-Checked': { operation: 'set', value: 'yes' } } }

  it('rewrite adds its header toward the origin and evaluation goes on', () => {
    const decision = run(
      withAction('rewrite', { action_parameters: header }),
      get('https://example.com/'),
    )
    expect(decision).toMatchObject({ outcome: 'passed', action: null })
    expect(decision.origin_headers).toEqual({ 'X-Checked': 'yes' })
    expect(fired(decision)).toEqual([
      ['before', 'log'],
      ['act', 'rewrite'],
      ['after', 'log'],
      ['logger-1', 'log'],
    ])
  })

  it('a request blocked after a rewrite reaches no origin: no origin headers', () => {
    const decision = run(
      {
        zone: [execute('rw', 'ab'.repeat(16)), execute('block-all', BLOCKER)],
        rulesets: [
          ruleset('ab'.repeat(16), [
            rule('rw-1', { action: 'rewrite', action_parameters: header }),
          ]),
          blocker,
        ],
      },
      get('https://example.com/'),
    )
    expect(decision.outcome).toBe('blocked')
    expect(fired(decision)).toEqual([
      ['rw-1', 'rewrite'],
      ['blocker-1', 'block'],
    ])
    expect(decision.origin_headers).toEqual({})
  })
})

// A request that scores on the real OWASP ruleset (CRS 3.3.4) without matching any general
// managed rule: PHP injection in a form field (933100, 933130, 933160), a javascript: URI and
// alert() in a cookie (941170, 941210), and no Accept header (920300, PL2).
const OWASP_ATTACK = {
  method: 'POST',
  url: 'https://blog.example.org/contact',
  headers: {
    host: 'blog.example.org',
    'user-agent': 'curl/8.5.0',
    'content-type': 'application/x-www-form-urlencoded',
    cookie: "pref=javascript%3Aalert('xss')",
  },
  body: 'message=%3C%3Fphp+system(%24_GET%5B%22c%22%5D)%3B+%3F%3E&submit=Send',
  ip: '198.51.100.7',
} satisfies RequestDescription

const owaspRules = catalog.resolve(OWASP)!.rules
const owaspRule = new Map(owaspRules.map((r) => [r.id, r]))
const paranoiaOf = (id: string) =>
  Number(
    owaspRule
      .get(id)
      ?.categories?.find((c) => c.startsWith('paranoia-level-'))
      ?.slice(-1),
  )

/** OWASP at paranoia level `level` (category overrides disabling higher levels). */
function paranoia(level: number, threshold?: number, action?: string): Overrides {
  const categories = [2, 3, 4]
    .filter((n) => n > level)
    .map((n) => ({ category: `paranoia-level-${n}`, enabled: false }))
  const anomaly = {
    id: ANOMALY,
    ...(threshold === undefined ? {} : { score_threshold: threshold }),
    ...(action === undefined ? {} : { action }),
  }
  return {
    ...(categories.length ? { categories } : {}),
    ...(threshold !== undefined || action !== undefined ? { rules: [anomaly] } : {}),
  }
}

const scoreOf = (nodes: TraceNode[]) =>
  nodes.filter((n) => n.score !== undefined).reduce((sum, n) => sum + n.score!, 0)

describe('OWASP anomaly scoring', () => {
  describe('on a small scoring ruleset', () => {
    const SCORING = '5'.repeat(32)
    const scoring = ruleset(SCORING, [
      rule('s-one', {
        action: 'score',
        score: 10,
        categories: ['paranoia-level-1'],
        expression: 'http.request.uri.path contains "one"',
      }),
      rule('s-two', {
        action: 'score',
        score: 15,
        categories: ['paranoia-level-1'],
        expression: 'http.request.uri.path contains "two"',
      }),
      rule('s-three', {
        action: 'score',
        score: 5,
        categories: ['paranoia-level-2'],
        expression: 'http.request.uri.path contains "three"',
      }),
      rule('anomaly', {
        action: 'block',
        score_threshold: 25,
        categories: ['anomaly-score'],
        description: 'Inbound Anomaly Score Exceeded',
      }),
    ])
    const deploy = (overrides?: Overrides) =>
      build({ zone: [execute('owasp', SCORING, overrides)], rulesets: [scoring] })

    it('adds the scores of matching rules and acts when the total reaches the threshold', () => {
      const decision = run(deploy(), get('https://example.com/one-two'))
      expect(decision.outcome).toBe('blocked')
      expect(decision.events).toEqual([
        expect.objectContaining({ rule_id: 'anomaly', action: 'block', score: 25 }),
      ])
      expect(child(decision, 'owasp', 's-one')).toMatchObject({ matched: true, score: 10 })
      expect(child(decision, 'owasp', 's-two')).toMatchObject({ matched: true, score: 15 })
      expect(child(decision, 'owasp', 's-three')).toMatchObject({ evaluated: true, matched: false })
      expect(child(decision, 'owasp', 's-three').score).toBeUndefined()
      expect(child(decision, 'owasp', 'anomaly')).toMatchObject({
        matched: true,
        total_score: 25,
        score_threshold: 25,
      })
    })

    it('lets the request pass below the threshold; scoring rules never act themselves', () => {
      const decision = run(deploy(), get('https://example.com/two-three'))
      expect(decision.outcome).toBe('passed')
      expect(decision.events).toEqual([])
      expect(child(decision, 'owasp', 'anomaly')).toMatchObject({
        evaluated: true,
        matched: false,
        total_score: 20,
      })
    })

    it('takes the threshold of the deployment: a lower one catches what the default lets by', () => {
      const decision = run(
        deploy({ rules: [{ id: 'anomaly', score_threshold: 15 }] }),
        get('https://example.com/two'),
      )
      expect(decision.outcome).toBe('blocked')
      expect(child(decision, 'owasp', 'anomaly').from?.score_threshold).toBe('rule')
    })

    it('does not score rules of a paranoia level disabled by a category override', () => {
      const decision = run(
        deploy({ categories: [{ category: 'paranoia-level-2', enabled: false }] }),
        get('https://example.com/one-two-three'),
      )
      expect(child(decision, 'owasp', 's-three')).toMatchObject({
        evaluated: false,
        not_evaluated: 'disabled',
      })
      expect(child(decision, 'owasp', 'anomaly').total_score).toBe(25)
    })
  })

  describe('on the real OWASP core ruleset', () => {
    it('shows each matching rule’s contribution in the trace, adding up to the total', () => {
      const decision = run({ zone: [execute('owasp', OWASP, paranoia(1))] }, OWASP_ATTACK)
      const nodes = entry(decision, 'owasp').children!
      const contributing = nodes.filter((n) => n.score !== undefined)
      expect(contributing.map((n) => n.description.slice(0, 6)).sort()).toEqual([
        '933100',
        '933130',
        '933160',
        '941170',
        '941210',
      ])
      for (const n of contributing) {
        expect(n.matched).toBe(true)
        expect(n.action).toBe('score')
        expect(n.score).toBe(owaspRule.get(n.rule_id)!.score)
      }
      const anomaly = nodes.find((n) => n.rule_id === ANOMALY)!
      expect(anomaly).toMatchObject({ total_score: 25, score_threshold: 40, matched: false })
      expect(anomaly.from?.score_threshold).toBe('default')
      expect(scoreOf(nodes)).toBe(25)
      // 25 < the default threshold 40: the request passes
      expect(decision.outcome).toBe('passed')
    })

    it('traces the CRS story: the variable, its transformed value, what matched, the score', () => {
      const decision = run(
        {
          zone: [
            execute('owasp', OWASP, paranoia(1, 25), {
              action_parameters: {
                id: OWASP,
                overrides: paranoia(1, 25),
                matched_data: { public_key: 'key' },
              },
            }),
          ],
        },
        OWASP_ATTACK,
      )
      const php = child(
        decision,
        'owasp',
        [...owaspRule.values()].find((r) => r.description.startsWith('933100:'))!.id,
      )
      expect(php).toMatchObject({ matched: true, score: 5 })
      expect(php.crs).toMatchObject({ rule_id: 933100, variable: 'ARGS:message' })
      expect(php.crs!.value).toContain('<?php')
      expect(php.crs!.match).toContain('<?')
      expect(child(decision, 'owasp', ANOMALY)).toMatchObject({
        total_score: 25,
        score_threshold: 25,
        paranoia_level: 1,
      })
      const [event] = decision.events
      expect(Object.keys(event!.matched_data!)).toEqual(
        expect.arrayContaining(['ARGS:message', 'REQUEST_COOKIES:pref']),
      )
    })

    it('neither runs nor scores an OWASP rule a skip rule names; the total drops by its score', () => {
      const php = [...owaspRule.values()].find((r) => r.description.startsWith('933100:'))!.id
      const decision = run(
        {
          zone: [
            skip('skip-933100', { rules: { [OWASP]: [php] } }),
            execute('owasp', OWASP, paranoia(1)),
          ],
        },
        OWASP_ATTACK,
      )
      expect(child(decision, 'owasp', php)).toMatchObject({ not_evaluated: 'skipped' })
      expect(child(decision, 'owasp', ANOMALY).total_score).toBe(20)
    })

    it('applies each deployment’s threshold: 25 blocks the request, 60 lets it pass', () => {
      const decision = run(
        {
          account: [execute('lenient', OWASP, paranoia(1, 60))],
          zone: [execute('strict', OWASP, paranoia(1, 25))],
        },
        OWASP_ATTACK,
      )
      expect(child(decision, 'lenient', ANOMALY)).toMatchObject({
        matched: false,
        total_score: 25,
        score_threshold: 60,
      })
      expect(child(decision, 'strict', ANOMALY)).toMatchObject({
        matched: true,
        total_score: 25,
        score_threshold: 25,
      })
      expect(decision.outcome).toBe('blocked')
      expect(decision.events).toEqual([
        expect.objectContaining({
          ruleset_id: OWASP,
          rule_id: ANOMALY,
          action: 'block',
          score: 25,
          description: '949110: Inbound Anomaly Score Exceeded',
        }),
      ])
    })

    it('scores only the rules of the enabled paranoia levels; the total rises with the level', () => {
      const totals: number[] = []
      for (const level of [1, 2, 3, 4]) {
        const decision = run(
          { zone: [execute('owasp', OWASP, paranoia(level, 10_000))] },
          OWASP_ATTACK,
        )
        const nodes = entry(decision, 'owasp').children!
        for (const n of nodes) {
          if (n.rule_id === ANOMALY) {
            expect(n.evaluated).toBe(true)
            continue
          }
          if (paranoiaOf(n.rule_id) > level) {
            expect(n).toMatchObject({ evaluated: false, not_evaluated: 'disabled' })
            expect(n.from?.enabled).toBe('category')
          } else expect(n.evaluated).toBe(true)
        }
        totals.push(child(decision, 'owasp', ANOMALY).total_score!)
      }
      expect(totals[0]).toBe(25)
      for (let i = 1; i < totals.length; i++) expect(totals[i]).toBeGreaterThan(totals[i - 1]!)
    })

    it('decides every request of the CRS corpus the same without a trace as with one', () => {
      // Untraced, the engine visits only the CRS rules that matched (evaluate.ts): the events,
      // scores, payloads and outcome must be those of the traced run, which visits every rule.
      const corpus = readCorpus()
        .regression.filter((record) => record.wb_ok)
        .filter((_, index) => index % 4 === 0)
        .map(describeRequest)
      const php = [...owaspRule.values()].find((r) => r.description.startsWith('933100:'))!.id
      const xss = [...owaspRule.values()].find((r) => r.description.startsWith('941100:'))!.id
      const zones = [1, 4].map((level) =>
        build({
          zone: [
            skip(
              'skip-933100',
              { rules: { [OWASP]: [php] } },
              { expression: 'http.request.method eq "POST"' },
            ),
            execute('owasp', OWASP, undefined, {
              action_parameters: {
                id: OWASP,
                overrides: {
                  ...paranoia(level, 5),
                  rules: [
                    { id: ANOMALY, score_threshold: 5 },
                    { id: xss, enabled: false },
                  ],
                },
                matched_data: { public_key: 'key' },
              },
            }),
          ],
        }),
      )
      let blocked = 0
      for (const zone of zones) {
        for (const request of [...corpus, OWASP_ATTACK]) {
          const traced = run(zone, request)
          const untraced = run(zone, request, false)
          expect({ ...untraced, trace: [] }).toEqual({ ...traced, trace: [] })
          if (traced.outcome === 'blocked') blocked++
        }
      }
      expect(blocked).toBeGreaterThan(corpus.length)
    })

    it('a ruleset-level action reaches only the anomaly rule: scoring rules keep scoring', () => {
      const decision = run(
        { zone: [execute('owasp', OWASP, { action: 'log', ...paranoia(1, 25) })] },
        OWASP_ATTACK,
      )
      expect(decision.outcome).toBe('passed')
      expect(fired(decision)).toEqual([[ANOMALY, 'log']])
      const nodes = entry(decision, 'owasp').children!
      expect(nodes.filter((n) => n.rule_id !== ANOMALY).every((n) => n.action === 'score')).toBe(
        true,
      )
      expect(child(decision, 'owasp', ANOMALY).from?.action).toBe('ruleset')
    })
  })
})

interface Label {
  class: string
  note: string
  rule_id: string
  exposed: boolean
}
const exposedLogins = readFileSync(
  resolve(ROOT, 'tests/fixtures/traffic/exposed-logins.ndjson'),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as RequestDescription & { label: Label })

describe('exposed-credentials check', () => {
  const zone = build({ zone: [execute('ecc', ECC)] })

  it.each(exposedLogins.map((row) => [row.label.note, row] as const))('%s', (_note, row) => {
    const decision = run(zone, row)
    const { label } = row
    if (label.class === 'header-spoofing') {
      expect(decision.outcome).toBe('blocked')
      expect(fired(decision)).toEqual([[ECC_SPOOF, 'block']])
      return
    }
    const node = child(decision, 'ecc', label.rule_id)
    if (label.exposed) {
      expect(decision.outcome).toBe('passed')
      expect(decision.events).toContainEqual(
        expect.objectContaining({ rule_id: label.rule_id, action: 'rewrite' }),
      )
      expect(decision.origin_headers['Exposed-Credential-Check']).toBe('1')
      expect(node).toMatchObject({
        matched: true,
        credentials: { exposed: true, match: 'test-credentials' },
      })
    } else {
      expect(decision.outcome).toBe('passed')
      expect(decision.events.map((e) => e.rule_id)).not.toContain(label.rule_id)
      expect(decision.origin_headers).toEqual({})
      expect(node.matched).toBe(false)
    }
  })

  it('asks the credential lookup about other pairs: a leaked pair sets the header', () => {
    const form = run(zone, post('https://www.example.com/login', 'username=admin&password=hunter2'))
    expect(fired(form)).toEqual([[ECC_GENERIC_FORM, 'rewrite']])
    expect(form.origin_headers).toEqual({ 'Exposed-Credential-Check': '1' })
    expect(child(form, 'ecc', ECC_GENERIC_FORM).credentials).toEqual({
      username: 'admin',
      exposed: true,
      match: 'pair',
    })

    const json = run(
      zone,
      post(
        'https://api.example.net/v1/auth/login',
        '{"email":"jane@example.com","password":"Winter2024!"}',
        'application/json',
      ),
    )
    expect(fired(json)).toEqual([[ECC_GENERIC_JSON_EMAIL, 'rewrite']])

    const clean = run(zone, post('https://www.example.com/login', 'username=admin&password=nope'))
    expect(clean.events).toEqual([])
    expect(child(clean, 'ecc', ECC_GENERIC_FORM)).toMatchObject({
      matched: false,
      credentials: { username: 'admin', exposed: false },
    })
  })

  it('treats the test credentials as exposed only in their exact case', () => {
    const lower = run(
      zone,
      post(
        'https://www.example.com/login',
        'username=cf_exposed_username&password=cf_exposed_password',
      ),
    )
    expect(lower.events).toEqual([])
    expect(lower.origin_headers).toEqual({})
  })

  it('takes an overridden action: an exposed-credentials rule set to block blocks', () => {
    const decision = run(
      { zone: [execute('ecc', ECC, { rules: [{ id: ECC_WORDPRESS, action: 'block' }] })] },
      exposedLogins.find((r) => r.label.rule_id === ECC_WORDPRESS && r.label.exposed)!,
    )
    expect(decision.outcome).toBe('blocked')
    expect(fired(decision)).toEqual([[ECC_WORDPRESS, 'block']])
  })
})

describe('legacy firewall rules', () => {
  it('orders rules of equal priority by action precedence', () => {
    const actions = [
      'block',
      'js_challenge',
      'managed_challenge',
      'challenge',
      'allow',
      'bypass',
      'log',
    ] as const
    const decision = run(
      { firewall: actions.map((action) => firewallRule(`fw-${action}`, action, 5)) },
      get('https://example.com/'),
    )
    expect(decision.trace.map((n) => n.rule_id)).toEqual([
      'fw-log',
      'fw-bypass',
      'fw-allow',
      'fw-challenge',
      'fw-managed_challenge',
      'fw-js_challenge',
      'fw-block',
    ])
    // log and bypass go on; allow ends the firewall rules, so no block or challenge applies
    expect(fired(decision)).toEqual([
      ['fw-log', 'log'],
      ['fw-bypass', 'bypass'],
      ['fw-allow', 'allow'],
    ])
    expect(decision.outcome).toBe('passed')
  })

  it('runs lower priorities first, rules without a priority last', () => {
    const decision = run(
      {
        firewall: [
          firewallRule('no-priority-challenge', 'challenge', null),
          firewallRule('no-priority-log', 'log', null),
          firewallRule('p2-log', 'log', 2),
          firewallRule('p1-block-admin', 'block', 1, {
            expression: 'starts_with(http.request.uri.path, "/admin")',
          }),
        ],
      },
      get('https://example.com/home'),
    )
    expect(decision.trace.map((n) => n.rule_id)).toEqual([
      'p1-block-admin',
      'p2-log',
      'no-priority-log',
      'no-priority-challenge',
    ])
    expect(fired(decision)).toEqual([
      ['p2-log', 'log'],
      ['no-priority-log', 'log'],
      ['no-priority-challenge', 'challenge'],
    ])
    expect(decision).toMatchObject({ outcome: 'challenged', challenge: 'challenge' })
    expect(decision.events.every((e) => e.source === 'firewallRules')).toBe(true)
  })

  it('skips paused rules and rules whose filter is paused', () => {
    const decision = run(
      {
        firewall: [
          firewallRule('paused', 'block', 1, { paused: true }),
          firewallRule('filter-paused', 'block', 2, { filterPaused: true }),
          firewallRule('log', 'log', 3),
        ],
      },
      get('https://example.com/'),
    )
    expect(decision.outcome).toBe('passed')
    expect(fired(decision)).toEqual([['log', 'log']])
    for (const id of ['paused', 'filter-paused'])
      expect(entry(decision, id)).toMatchObject({ evaluated: false, not_evaluated: 'paused' })
  })

  it('allow ends the firewall rules but the managed rules still run', () => {
    const decision = run(
      {
        firewall: [firewallRule('allow', 'allow', 1), firewallRule('block', 'block', 2)],
        zone: [execute('managed', BLOCKER)],
        rulesets: [blocker],
      },
      get('https://example.com/'),
    )
    expect(entry(decision, 'block')).toMatchObject({ evaluated: false, not_evaluated: 'stopped' })
    expect(decision.outcome).toBe('blocked')
    expect(decision.events).toEqual([
      expect.objectContaining({ rule_id: 'allow', action: 'allow', source: 'firewallRules' }),
      expect.objectContaining({
        rule_id: 'blocker-1',
        action: 'block',
        source: 'firewallManaged',
      }),
    ])
  })

  it('bypass of waf skips the managed phase; later firewall rules still run', () => {
    const setup = (products: EngineFirewallRule['products']): Setup => ({
      firewall: [firewallRule('bypass', 'bypass', 1, { products }), firewallRule('log', 'log', 2)],
      zone: [execute('managed', BLOCKER)],
      rulesets: [blocker],
    })
    const bypassed = run(setup(['waf']), get('https://example.com/'))
    expect(bypassed.outcome).toBe('passed')
    expect(fired(bypassed)).toEqual([
      ['bypass', 'bypass'],
      ['log', 'log'],
    ])
    expect(bypassed.trace.some((n) => n.kind !== 'firewall_rule')).toBe(false)
    expect(bypassed.stopped).toMatch(/bypass/i)

    // bypassing another product leaves the managed rules in place
    const other = run(setup(['uaBlock']), get('https://example.com/'))
    expect(other.outcome).toBe('blocked')
    expect(fired(other)).toEqual([
      ['bypass', 'bypass'],
      ['log', 'log'],
      ['blocker-1', 'block'],
    ])
  })

  it('a later firewall block still applies after a bypass, and ends everything', () => {
    const decision = run(
      {
        firewall: [
          firewallRule('bypass', 'bypass', 1, { products: ['waf'] }),
          firewallRule('block', 'block', 2),
        ],
        zone: [execute('managed', LOGGER)],
        rulesets: [logger],
      },
      get('https://example.com/'),
    )
    expect(decision.outcome).toBe('blocked')
    expect(fired(decision)).toEqual([
      ['bypass', 'bypass'],
      ['block', 'block'],
    ])
  })

  it('a firewall challenge ends evaluation before the managed phase', () => {
    const decision = run(
      {
        firewall: [firewallRule('js', 'js_challenge', 1), firewallRule('log', 'log', 2)],
        zone: [execute('managed', LOGGER)],
        rulesets: [logger],
      },
      get('https://example.com/'),
    )
    expect(decision).toMatchObject({ outcome: 'challenged', challenge: 'js_challenge' })
    expect(fired(decision)).toEqual([['js', 'js_challenge']])
    expect(entry(decision, 'log').not_evaluated).toBe('stopped')
    expect(entry(decision, 'managed').not_evaluated).toBe('stopped')
  })
})

describe('the worked zone entry point', () => {
  const appendixD = [
    skip(
      'ex1',
      { ruleset: 'current' },
      { expression: 'ip.src in {203.0.113.0/24}', logging: { enabled: true } },
    ),
    skip(
      'ex2',
      { rulesets: [OWASP] },
      { expression: 'starts_with(http.request.uri.path, "/api/upload")' },
    ),
    execute('cmr', GENERAL, {
      categories: [{ category: 'wordpress', action: 'block', enabled: true }],
    }),
    execute('owasp', OWASP, {
      categories: [
        { category: 'paranoia-level-3', enabled: false },
        { category: 'paranoia-level-4', enabled: false },
      ],
      rules: [{ id: ANOMALY, score_threshold: 25, action: 'managed_challenge' }],
    }),
    execute('ecc', ECC, undefined, { expression: 'http.request.method eq "POST"' }),
  ]
  const zone = build({ zone: appendixD })
  const EXPOSED_FORM = '&username=CF_EXPOSED_USERNAME&password=CF_EXPOSED_PASSWORD'

  it('a client in 203.0.113.0/24: nothing else runs, the skip is logged', () => {
    const decision = run(
      zone,
      get('https://blog.example.org/wp-content/debug.log', {}, '203.0.113.50'),
    )
    expect(decision.outcome).toBe('passed')
    expect(fired(decision)).toEqual([['ex1', 'skip']])
    for (const id of ['ex2', 'cmr', 'owasp', 'ecc'])
      expect(entry(decision, id)).toMatchObject({ evaluated: false, not_evaluated: 'skipped' })
    // the same request from elsewhere is blocked by the general ruleset
    expect(run(zone, get('https://blog.example.org/wp-content/debug.log')).outcome).toBe('blocked')
  })

  it('a POST to /api/upload: the general ruleset runs, OWASP is skipped, ECC runs', () => {
    const upload = run(zone, {
      ...OWASP_ATTACK,
      url: 'https://blog.example.org/api/upload',
      body: OWASP_ATTACK.body + EXPOSED_FORM,
    })
    expect(upload.outcome).toBe('passed')
    expect(entry(upload, 'cmr')).toMatchObject({ evaluated: true, matched: true })
    expect(entry(upload, 'cmr').children!.length).toBe(catalog.resolve(GENERAL)!.rules.length)
    expect(entry(upload, 'owasp')).toMatchObject({ evaluated: false, not_evaluated: 'skipped' })
    expect(entry(upload, 'ecc')).toMatchObject({ evaluated: true, matched: true })
    expect(fired(upload)).toEqual([
      ['ex2', 'skip'],
      [ECC_GENERIC_FORM, 'rewrite'],
    ])
    expect(upload.origin_headers).toEqual({ 'Exposed-Credential-Check': '1' })

    // the same payload anywhere else is scored by OWASP and challenged before ECC runs
    const elsewhere = run(zone, { ...OWASP_ATTACK, body: OWASP_ATTACK.body + EXPOSED_FORM })
    expect(elsewhere.outcome).toBe('challenged')
    expect(entry(elsewhere, 'ecc').not_evaluated).toBe('stopped')
  })

  it('a request matching a wordpress rule of the general ruleset is blocked; later rulesets do not run', () => {
    const decision = run(zone, get('https://blog.example.org/wp-json/wp/v2/users'))
    expect(decision.outcome).toBe('blocked')
    expect(fired(decision)).toEqual([[WP_USER_ENUM, 'block']])
    expect(child(decision, 'cmr', WP_USER_ENUM).from).toMatchObject({
      action: 'category',
      enabled: 'category',
    })
    for (const id of ['owasp', 'ecc'])
      expect(entry(decision, id)).toMatchObject({ evaluated: false, not_evaluated: 'stopped' })
  })

  it('otherwise OWASP PL1+PL2 scores accumulate and 25 or more is a managed challenge', () => {
    const decision = run(zone, OWASP_ATTACK)
    expect(decision).toMatchObject({ outcome: 'challenged', challenge: 'managed_challenge' })
    const nodes = entry(decision, 'owasp').children!
    // PL1 (25) + PL2: no Accept header (920300, 2)
    expect(scoreOf(nodes)).toBe(27)
    expect(decision.events).toEqual([
      expect.objectContaining({
        ruleset_id: OWASP,
        rule_id: ANOMALY,
        action: 'managed_challenge',
        score: 27,
        description: '949110: Inbound Anomaly Score Exceeded',
      }),
    ])
    expect(child(decision, 'owasp', ANOMALY).from).toEqual({
      action: 'rule',
      enabled: 'default',
      score_threshold: 'rule',
    })
    for (const n of nodes.filter((n) => paranoiaOf(n.rule_id) >= 3))
      expect(n.not_evaluated).toBe('disabled')
    expect(nodes.filter((n) => paranoiaOf(n.rule_id) === 2).every((n) => n.evaluated)).toBe(true)

    // a milder payload (the cookie only) stays below 25 and passes
    const mild = run(zone, {
      ...OWASP_ATTACK,
      method: 'GET',
      url: 'https://blog.example.org/account',
      body: '',
    })
    expect(mild.outcome).toBe('passed')
    expect(child(mild, 'owasp', ANOMALY)).toMatchObject({ matched: false })
    expect(child(mild, 'owasp', ANOMALY).total_score!).toBeLessThan(25)
  })

  it('a POST of the test credentials to a covered login form adds the header and goes on', () => {
    const login = exposedLogins.find((r) => r.label.rule_id === ECC_WORDPRESS && r.label.exposed)!
    const decision = run(zone, login)
    expect(decision.outcome).toBe('passed')
    expect(decision.events).toContainEqual(
      expect.objectContaining({ ruleset_id: ECC, rule_id: ECC_WORDPRESS, action: 'rewrite' }),
    )
    expect(decision.origin_headers).toEqual({ 'Exposed-Credential-Check': '1' })
    // evaluation continued past the rewrite: every later ECC rule was evaluated
    const ecc = entry(decision, 'ecc').children!
    const after = ecc.slice(ecc.findIndex((n) => n.rule_id === ECC_WORDPRESS) + 1)
    expect(after.length).toBeGreaterThan(0)
    expect(after.every((n) => n.evaluated)).toBe(true)
  })
})

describe('the trace', () => {
  const zone = build({
    firewall: [firewallRule('fw-log', 'log', 1, { expression: 'http.host eq "nowhere.example"' })],
    zone: [
      execute('cmr', GENERAL),
      execute('owasp', OWASP, paranoia(1)),
      execute('ecc', ECC, undefined, { expression: 'http.request.method eq "POST"' }),
    ],
  })
  const benign = get('https://www.example.com/products?page=2', { host: 'www.example.com' })

  it('lists every rule considered, in order, with where its action and state came from', () => {
    const decision = run(zone, benign)
    expect(decision.outcome).toBe('passed')
    expect(decision.trace.map((n) => [n.kind, n.rule_id])).toEqual([
      ['firewall_rule', 'fw-log'],
      ['entrypoint_rule', 'cmr'],
      ['entrypoint_rule', 'owasp'],
      ['entrypoint_rule', 'ecc'],
    ])
    expect(entry(decision, 'fw-log')).toMatchObject({ evaluated: true, matched: false })
    expect(entry(decision, 'ecc')).toMatchObject({ evaluated: true, matched: false })
    expect(entry(decision, 'ecc').children).toBeUndefined()

    for (const [id, rulesetId] of [
      ['cmr', GENERAL],
      ['owasp', OWASP],
    ] as const) {
      const rules = catalog.resolve(rulesetId)!.rules
      const nodes = entry(decision, id).children!
      expect(nodes.map((n) => n.rule_id)).toEqual(rules.map((r) => r.id))
      nodes.forEach((n, i) => {
        const r = rules[i]!
        expect(n.kind).toBe('ruleset_rule')
        expect(n.ruleset_id).toBe(rulesetId)
        expect(n.description).toBe(r.description)
        if (n.evaluated) expect(typeof n.matched).toBe('boolean')
        else expect(n.not_evaluated).toBe('disabled')
      })
    }
    const cmrNodes = entry(decision, 'cmr').children!
    const cmrRules = catalog.resolve(GENERAL)!.rules
    cmrNodes.forEach((n, i) => {
      expect(n.evaluated).toBe(cmrRules[i]!.enabled)
      expect(n.from).toEqual({ action: 'default', enabled: 'default' })
    })
    const pl2 = entry(decision, 'owasp').children!.find((n) => paranoiaOf(n.rule_id) === 2)!
    expect(pl2.from).toEqual({ action: 'default', enabled: 'category' })
  })

  it('marks everything after a terminating rule as stopped', () => {
    const decision = run(zone, get('https://blog.example.org/wp-content/debug.log'))
    expect(decision.outcome).toBe('blocked')
    const nodes = entry(decision, 'cmr').children!
    const at = nodes.findIndex((n) => n.matched === true)
    expect(nodes[at]!.effect).toBe('terminated the request')
    expect(nodes.slice(at + 1).every((n) => n.not_evaluated === 'stopped')).toBe(true)
    expect(entry(decision, 'owasp').not_evaluated).toBe('stopped')
    expect(entry(decision, 'owasp').children).toBeUndefined()
    expect(decision.stopped).toContain(nodes[at]!.description)
  })

  it('is empty when evaluated without a trace, with the same decision otherwise', () => {
    const request = get('https://blog.example.org/wp-content/debug.log')
    const traced = run(zone, request)
    const untraced = run(zone, request, false)
    expect(untraced.trace).toEqual([])
    expect({ ...untraced, trace: undefined }).toEqual({ ...traced, trace: undefined })
  })
})
