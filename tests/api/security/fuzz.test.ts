// Every route that takes a body, enumerated from the router as the service builds it (so a route
// added later is fuzzed without touching this file), is sent malformed JSON, wrong types, deep
// nesting, huge strings and arrays and random JSON. No answer may be a 5xx, every answer is the
// vendor's envelope, and an answer that is an error leaves the zone's configuration, the
// account's and the zone's history as they were. Fastify announces each instance on a
// diagnostics channel (https://fastify.dev/docs/latest/Reference/Hooks/#diagnostics-channel-hooks),
// where this test adds the onRoute hook that lists the routes with their body schemas.

import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { BRIDGE_INPUTS, BRIDGE_OPERATIONS } from '@shared/bridge'
import { startHeadless } from '../../../src-main/headless'
import type { Service } from '../../../src-main/service'
import { removeDataDir } from '../harness'
import { ACCOUNT } from '../../../src-main/zones/registry'

/** The API token, read again after each success: one of the routes rotates it. */
let token = 'fuzzTestToken0123456789abcdefghijklmnop'
const SEED = 15_007
/** Random bodies per route, besides the fixed hostile ones. */
const RANDOM_BODIES = 3

/** The parts of a JSON schema the generator follows; anything else takes any JSON value. */
interface Schema {
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
  oneOf?: Schema[]
  enum?: unknown[]
  const?: unknown
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
  pattern?: string
  additionalProperties?: unknown
}

interface BodyRoute {
  method: string
  url: string
  body: Schema | undefined
}

const routes: BodyRoute[] = []
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH'])

function collectRoutes(message: unknown): void {
  const { fastify } = message as { fastify: FastifyInstance }
  fastify.addHook('onRoute', (route) => {
    const body = (route.schema as { body?: Schema } | undefined)?.body
    for (const method of [route.method].flat()) {
      if (WRITE_METHODS.has(method) || body !== undefined)
        routes.push({ method, url: route.url, body })
    }
  })
}

// Markers the generator places in a body, replaced in its JSON text by what JSON.stringify could
// not write (10,000 levels overflow its stack) or what is cheaper as text.
const DEEP = '\u0000deep'
const HUGE_STRING = '\u0000huge-string'
const LONG_STRING = '\u0000long-string'
const HUGE_ARRAY = '\u0000huge-array'
const DEPTH = 10_000
const deepText = (open: string, close: string) => open.repeat(DEPTH) + '0' + close.repeat(DEPTH)
const MARKER_TEXT: Record<string, string> = {
  [DEEP]: deepText('{"a":', '}'),
  [HUGE_STRING]: JSON.stringify('x'.repeat(5 * 1024 * 1024)),
  // past a storage value's 128 KiB
  [LONG_STRING]: JSON.stringify('y'.repeat(300_000)),
  [HUGE_ARRAY]: `[${Array.from({ length: 200_000 }, (_, i) => i % 7).join(',')}]`,
}
const withMarkers = (value: unknown) =>
  Object.entries(MARKER_TEXT).reduce(
    (text, [marker, replacement]) => text.replaceAll(JSON.stringify(marker), replacement),
    JSON.stringify(value) ?? 'null',
  )

/** Values of the wrong type or out of range, wherever the schema expects something. */
const wrongValue = fc.oneof(
  fc.constantFrom<unknown>(1e300, -1, 0, 1.5, -1e300, 2 ** 53 + 2, '', null, true, [], {}),
  fc.constantFrom(DEEP, HUGE_STRING, HUGE_ARRAY),
  fc.jsonValue({ maxDepth: 2 }),
)

/** How a body is generated from its route's schema. */
interface Shape {
  /** what goes where the schema allows any value */
  free: fc.Arbitrary<unknown>
  /** the weight, against 4, of a wrong value in place of any node */
  wrong: number
  /** whether objects get a property their schema does not name */
  unknownProperty: boolean
  /** whether every property the schema names is given, and every array has items */
  complete: boolean
}

/** Mostly the schema's shape, with wrong values anywhere. */
const FUZZED: Shape = {
  free: fc.jsonValue({ maxDepth: 2 }),
  wrong: 1,
  unknownProperty: false,
  complete: false,
}
/** The schema's shape, with 10,000 levels wherever it takes any value or an unknown property. */
const DEEP_INSIDE: Shape = {
  free: fc.constant(DEEP),
  wrong: 0,
  unknownProperty: true,
  complete: true,
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  if (schema.pattern !== undefined) {
    // fast-check cannot generate from lookarounds: text matching the rest of the pattern
    const pattern = schema.pattern.replace(/\(\?<?[!=][^)]*\)/g, '')
    return fc.stringMatching(new RegExp(pattern))
  }
  const short = fc.string({
    minLength: schema.minLength ?? 0,
    maxLength: Math.min(schema.maxLength ?? 12, 12),
  })
  return schema.maxLength === undefined ? fc.oneof(short, fc.constant(LONG_STRING)) : short
}

/** Integers in the schema's range, its bounds, or ±1e300 where it sets none. */
const integerOf = (schema: Schema) =>
  fc.oneof(
    fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 }),
    fc.constantFrom(schema.minimum ?? -1e300, schema.maximum ?? 1e300),
  )

function shaped(schema: Schema | undefined, shape: Shape): fc.Arbitrary<unknown> {
  const right = schema === undefined ? shape.free : rightlyShaped(schema, shape)
  if (shape.wrong === 0) return right
  return fc.oneof({ arbitrary: right, weight: 4 }, { arbitrary: wrongValue, weight: shape.wrong })
}

/**
 * Well-formed values for properties whose validity is more than their schema's, so that a body
 * gets past them into the handler more often than random text would.
 */
const WELL_FORMED: Record<string, unknown> = {
  expression: 'http.request.uri.path eq "/fuzz"',
}

function property(name: string, schema: Schema, shape: Shape): fc.Arbitrary<unknown> {
  const value = shaped(schema, shape)
  if (!Object.hasOwn(WELL_FORMED, name)) return value
  const wellFormed = fc.constant(WELL_FORMED[name])
  return shape.complete ? wellFormed : fc.oneof(wellFormed, value)
}

function rightlyShaped(schema: Schema, shape: Shape): fc.Arbitrary<unknown> {
  const union = schema.anyOf ?? schema.oneOf
  if (union !== undefined) return fc.oneof(...union.map((member) => shaped(member, shape)))
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum)
  switch ([schema.type].flat()[0]) {
    case 'object': {
      const properties = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, child]) => [
          name,
          property(name, child, shape),
        ]),
      )
      const unknown = shape.unknownProperty && schema.additionalProperties !== false
      const all = unknown ? { ...properties, unknownProperty: shape.free } : properties
      return fc.record(all, {
        requiredKeys: shape.complete
          ? Object.keys(all)
          : [...(schema.required ?? []), ...(unknown ? ['unknownProperty'] : [])],
      })
    }
    case 'array':
      return fc.array(shaped(schema.items, shape), {
        minLength: Math.max(schema.minItems ?? 0, shape.complete ? 1 : 0),
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      })
    case 'string':
      return stringOf(schema)
    case 'integer':
      return integerOf(schema)
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    default:
      return shape.free
  }
}

const MALFORMED = [
  '',
  '{',
  '{"name": "x",',
  '[1, 2',
  "{'single': 'quotes'}",
  '{"a": 1}}',
  'nul',
  '{"a": "\\x"}',
  '{"__proto__": {"polluted": true}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  '\u0000',
  deepText('[', ']'),
  deepText('{"a":', '}'),
]

/** The request bodies one route is sent, as JSON text (some are not JSON at all). */
function bodiesFor(route: BodyRoute, index: number): string[] {
  const seed = SEED + index
  const containing = (marker: string) =>
    shaped(route.body, FUZZED).filter((value) =>
      (JSON.stringify(value) ?? '').includes(JSON.stringify(marker)),
    )
  const sample = (arbitrary: fc.Arbitrary<unknown>, numRuns = 1) =>
    fc.sample(arbitrary, { numRuns, seed }).map(withMarkers)
  return [
    MALFORMED[index % MALFORMED.length]!,
    ...sample(shaped(route.body, DEEP_INSIDE)),
    ...sample(containing(HUGE_STRING)),
    ...sample(containing(HUGE_ARRAY)),
    ...sample(fc.oneof(shaped(route.body, FUZZED), fc.jsonValue()), RANDOM_BODIES),
  ]
}

const dataDir = mkdtempSync(join(tmpdir(), 'zw-fuzz-'))
let service: Service
let origin: string
const ids: Record<string, string> = {}

async function call(method: string, path: string, body?: string) {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  })
  const text = await response.text()
  return { status: response.status, text }
}

async function created(path: string, body: unknown): Promise<any> {
  const { status, text } = await call('POST', `/client/v4${path}`, JSON.stringify(body))
  expect(status, text).toBe(200)
  return JSON.parse(text).result
}

async function result(path: string): Promise<any> {
  const answer = await service.server.inject({
    url: path,
    headers: { host: '127.0.0.1', authorization: `Bearer ${token}` },
  })
  expect(answer.statusCode, `${path}: ${answer.body}`).toBe(200)
  return answer.json().result
}

beforeAll(async () => {
  subscribe('fastify.initialization', collectRoutes)
  try {
    ;({ service, origin } = await startHeadless({
      dataDir,
      port: 0,
      apiToken: token,
    }))
  } finally {
    unsubscribe('fastify.initialization', collectRoutes)
  }
  // A zone on the previous product holds something of every kind, so that path parameters name
  // real objects and a request reaches as far into a handler as its body lets it.
  const zone = await created('/zones', {
    name: 'fuzz.example',
    plan: 'enterprise',
    waf_product: 'previous',
  })
  const z = `/zones/${zone.id}`
  const [filter] = await created(`${z}/filters`, [{ expression: 'http.request.uri.path eq "/a"' }])
  const [firewallRule] = await created(`${z}/firewall/rules`, [
    { filter: { id: filter.id }, action: 'block' },
  ])
  const rules = [{ action: 'block', expression: 'http.request.uri.path eq "/b"' }]
  const zoneRuleset = await created(`${z}/rulesets`, {
    name: 'fuzz zone',
    kind: 'zone',
    phase: 'http_request_firewall_custom',
    rules,
  })
  const accountRuleset = await created(`/accounts/${ACCOUNT.id}/rulesets`, {
    name: 'fuzz account',
    kind: 'custom',
    phase: 'http_request_firewall_custom',
    rules,
  })
  const packages = await result(`/client/v4${z}/firewall/waf/packages`)
  const [group] = await result(`/client/v4${z}/firewall/waf/packages/${packages[0].id}/groups`)
  const [wafRule] = await result(`/client/v4${z}/firewall/waf/packages/${packages[0].id}/rules`)
  const override = await created(`${z}/firewall/waf/overrides`, {
    urls: ['fuzz.example/x/*'],
    rules: { [wafRule.id]: 'disable' },
  })
  const pageRule = await created(`${z}/pagerules`, {
    targets: [{ target: 'url', constraint: { operator: 'matches', value: 'fuzz.example/p*' } }],
    actions: [{ id: 'waf', value: 'off' }],
  })
  Object.assign(ids, {
    zone: zone.id,
    filter: filter.id,
    firewallRule: firewallRule.id,
    zoneRuleset: zoneRuleset.id,
    zoneRulesetRule: zoneRuleset.rules[0].id,
    accountRuleset: accountRuleset.id,
    accountRulesetRule: accountRuleset.rules[0].id,
    package: packages[0].id,
    group: group.id,
    wafRule: wafRule.id,
    override: override.id,
    pageRule: pageRule.id,
  })
})
afterAll(async () => {
  await service?.close()
  removeDataDir(dataDir)
})

/** The value of path parameter `name` in a route whose path reads `before` up to it. */
function parameter(name: string, before: string): string {
  const inAccount = before.includes('/accounts/')
  switch (name) {
    case 'zone_id':
      return ids.zone!
    case 'account_id':
      return ACCOUNT.id
    case 'filter_id':
      return ids.filter!
    case 'ruleset_id':
      return inAccount ? ids.accountRuleset! : ids.zoneRuleset!
    case 'rule_id':
      if (before.includes('/rulesets/'))
        return inAccount ? ids.accountRulesetRule! : ids.zoneRulesetRule!
      return before.includes('/packages/') ? ids.wafRule! : ids.firewallRule!
    case 'package_id':
      return ids.package!
    case 'group_id':
      return ids.group!
    case 'override_id':
      return ids.override!
    case 'pagerule_id':
      return ids.pageRule!
    case 'phase':
      return 'http_request_firewall_custom'
    case 'version':
      return '1'
    default:
      // a well-formed id that names nothing
      return '0123456789abcdef0123456789abcdef'
  }
}

/** The routes to fuzz, with concrete paths; the bridge's one route is each of its operations. */
function targets(): BodyRoute[] {
  return routes.flatMap((route) => {
    if (route.url.endsWith('/bridge/:operation')) {
      return BRIDGE_OPERATIONS.map((operation) => ({
        method: route.method,
        url: route.url.replace(':operation', operation),
        body: BRIDGE_INPUTS[operation] as Schema,
      }))
    }
    const url = route.url.replace(/:(\w+)/g, (_match, name: string, offset: number) =>
      parameter(name, route.url.slice(0, offset)),
    )
    return [{ ...route, url }]
  })
}

/** The ids of the rulesets a change can touch (the managed ones are read-only). */
const ownRulesets = (list: { id: string; kind: string }[]) =>
  list.filter((r) => r.kind !== 'managed').map((r) => r.id)

/** What an error must leave as it was: the account's zones and rulesets, and everything in the zone. */
async function snapshot(): Promise<string> {
  const z = `/client/v4/zones/${ids.zone}`
  const account = `/client/v4/accounts/${ACCOUNT.id}/rulesets`
  const zoneRulesets = await result(`${z}/rulesets`)
  const accountRulesets = await result(account)
  const paths = [
    '/client/v4/zones?per_page=50',
    z,
    ...ownRulesets(zoneRulesets).map((id) => `${z}/rulesets/${id}`),
    ...ownRulesets(accountRulesets).map((id) => `${account}/${id}`),
    `${z}/filters?per_page=100`,
    `${z}/firewall/rules?per_page=100`,
    `${z}/pagerules`,
    `${z}/settings/waf`,
    `${z}/firewall/waf/overrides?per_page=100`,
    `${z}/firewall/waf/packages`,
    `${z}/firewall/waf/packages/${ids.package}/groups?per_page=100`,
    `/workbench/v1/zones/${ids.zone}/firewall/settings`,
    `/workbench/v1/zones/${ids.zone}/history?limit=1000`,
  ]
  return JSON.stringify(await Promise.all(paths.map(result)))
}

/** Why `text` is not the vendor's envelope, if it is not. */
function notAnEnvelope(status: number, text: string): string | undefined {
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    return 'not JSON'
  }
  if (typeof body?.success !== 'boolean' || !Array.isArray(body.errors)) return 'not the envelope'
  if (status < 400) return undefined
  if (body.success !== false) return `success with status ${status}`
  if (body.errors.length === 0) return 'no errors'
  // validate-expr answers the vendor's way: its parse errors carry a message and no code.
  if (body.messages === null && /^Filter parsing error:/.test(body.errors[0]?.message))
    return undefined
  const described = body.errors.every(
    (e: any) => typeof e?.code === 'number' && typeof e?.message === 'string',
  )
  return described ? undefined : 'an error without code and message'
}

it('answers every body route, whatever its body, in the envelope, never 5xx, and an error changes nothing', async () => {
  const fuzzed = targets()
  expect(fuzzed.length).toBeGreaterThan(40)
  const failures: string[] = []
  let before = await snapshot()
  let requests = 0
  for (const [index, route] of fuzzed.entries()) {
    for (const body of bodiesFor(route, index)) {
      const { status, text } = await call(route.method, route.url, body)
      requests++
      const what = `${route.method} ${route.url} ${body.slice(0, 80)}… → ${status} ${text.slice(0, 200)}`
      if (status >= 500) failures.push(`5xx: ${what}`)
      const reason = notAnEnvelope(status, text)
      if (reason !== undefined) failures.push(`${reason}: ${what}`)
      if (status < 400) token = (await service.bridge.serviceInfo({})).apiToken
      const after = await snapshot()
      if (status >= 400 && after !== before) failures.push(`changed state: ${what}`)
      before = after
    }
  }
  expect(failures).toEqual([])
  expect(requests).toBeGreaterThan(300)
}, 120_000)
