// Zone bundles against real services: fixture zones built through the vendor's API (managed
// rulesets, the previous product, a migration in validation and one completed) are exported,
// imported into a service on an empty data dir and exported again (identical bytes but for
// `exported_at`), and both services' APIs answer the same for every resource. An import over an
// existing zone is one history point listing exactly what differs; a dry run writes nothing; a
// bundle that is not one, breaks the schema or would be refused by the API writes nothing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CREDENTIALS, patch, post, put, type Running, startService } from './harness'
import {
  GENERAL,
  OWASP,
  OWASP_ANOMALY,
  OWASP_GENERIC_ATTACKS,
  OWASP_PACKAGE,
  PUBLIC_KEY,
  TRADITIONAL_PACKAGE,
  startSourceAndTarget,
  stopAndRemove,
  migrationZone,
  previousPackages,
} from './fixtures-zones'

const EXPOSED = 'c2e184081120413c86c3ab7e14069605'

let source: Running
let target: Running

beforeAll(async () => {
  ;({ source, target } = await startSourceAndTarget())
})
afterAll(() => stopAndRemove(source, target))

/** The bundle's text as the export route answers it, with its headers. */
async function exportText(on: Running, zone: string, query = '?format=bundle') {
  const response = await fetch(`${on.origin}/workbench/v1/zones/${zone}/export${query}`, {
    headers: { authorization: `Bearer ${CREDENTIALS.apiToken}` },
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

async function importBundle(on: Running, bundle: unknown, query = '') {
  return on.call(`${on.origin}/workbench/v1/zones/import${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof bundle === 'string' ? bundle : JSON.stringify(bundle),
  })
}

const withoutExportTime = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.startsWith('  "exported_at": '))
    .join('\n')

const history = async (on: Running, zone: string) =>
  (await on.ok(`${on.origin}/workbench/v1/zones/${zone}/history?limit=1000`)) as unknown[]

// ---------------------------------------------------------------------------------------------
// Fixture zones, built through the vendor's API

/** Managed rulesets with ruleset, tag and rule overrides and payload logging; a custom ruleset. */
async function managedZone(on: Running): Promise<string> {
  const zone = (await on.ok('/zones', post({ name: 'managed.example', plan: 'enterprise' }))).id
  const entry = `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`
  const deployment = [
    {
      action: 'execute',
      expression: 'true',
      description: 'general',
      action_parameters: {
        id: GENERAL,
        overrides: {
          enabled: false,
          categories: [{ category: 'joomla', action: 'block', enabled: true }],
        },
      },
    },
    {
      action: 'execute',
      expression: 'http.host eq "managed.example"',
      action_parameters: {
        id: OWASP,
        matched_data: { public_key: PUBLIC_KEY },
        overrides: {
          categories: [{ category: 'paranoia-level-3', enabled: false }],
          rules: [{ id: OWASP_ANOMALY, score_threshold: 60, action: 'managed_challenge' }],
        },
      },
    },
  ]
  const first = await on.ok(entry, put({ rules: deployment }))
  // A second version that changes one rule and adds one: versions and refs move apart.
  await on.ok(
    entry,
    put({
      rules: [
        { ...deployment[0], id: first.rules[0].id, description: 'general, tuned' },
        deployment[1]!,
        { action: 'execute', expression: 'true', action_parameters: { id: EXPOSED } },
      ].map((rule, index) => (index === 1 ? { ...rule, id: first.rules[1].id } : rule)),
    }),
  )
  const custom = await on.ok(
    `/zones/${zone}/rulesets`,
    post({
      name: 'API hardening',
      kind: 'custom',
      phase: 'http_request_firewall_custom',
      description: 'custom rules',
      rules: [
        {
          action: 'block',
          expression: 'http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24}',
          description: 'admin from the office only',
          ref: 'admin-office',
        },
        { action: 'log', expression: 'http.request.method eq "PUT"', enabled: false },
      ],
    }),
  )
  await on.ok(
    `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`,
    put({
      rules: [
        {
          action: 'execute',
          expression: 'http.host eq "managed.example"',
          action_parameters: { id: custom.id },
        },
      ],
    }),
  )
  const filters = await on.ok(
    `/zones/${zone}/filters`,
    post([
      { expression: 'ip.src eq 198.51.100.7', description: 'scanner' },
      { expression: 'http.request.uri.path eq "/health"', paused: true, ref: 'health' },
      { expression: 'http.user_agent contains "curl"' },
    ]),
  )
  const rules = await on.ok(
    `/zones/${zone}/firewall/rules`,
    post([
      { action: 'block', priority: 10, filter: { id: filters[0].id }, description: 'scanner' },
      { action: 'bypass', products: ['waf'], filter: { id: filters[1].id }, paused: true },
      { action: 'log', priority: 5, filter: { id: filters[2].id }, ref: 'curl' },
    ]),
  )
  await on.ok(
    `/zones/${zone}/firewall/rules/${rules[0].id}`,
    patch({ id: rules[0].id, priority: 1 }),
  )
  await on.ok(
    `${on.origin}/workbench/v1/zones/${zone}/firewall/settings`,
    patch({ rule_quota: 50 }),
  )
  await on.ok(
    `${on.origin}/workbench/v1/zones/${zone}/events/settings`,
    patch({ max_events: 5000 }),
  )
  for (const sample of SAMPLES) {
    await on.ok(`${on.origin}/workbench/v1/zones/${zone}/samples`, post(sample))
  }
  return zone
}

/** The managed zone's saved sample requests (the workbench's own, carried by its bundle). */
const SAMPLES = [
  {
    name: 'SQL injection probe',
    expected: 'blocked',
    request: {
      method: 'GET',
      url: 'https://managed.example/?id=1%27%20OR%201=1--',
      headers: { 'user-agent': ['curl/8.0', 'probe'] },
      country: 'DE',
      botScore: 2,
    },
  },
  {
    name: 'Upload',
    expected: 'passed',
    request: {
      method: 'POST',
      url: 'https://managed.example/api/upload',
      headers: { 'content-type': 'application/json' },
      body: '{"file": "a.txt"}',
    },
  },
]

/** A zone on the previous product, set up by previousSettings. */
async function previousZone(on: Running): Promise<string> {
  const zone = (
    await on.ok(
      '/zones',
      post({ name: 'legacy.example', plan: 'business', waf_product: 'previous' }),
    )
  ).id
  await previousSettings(on, zone, 'legacy.example')
  return zone
}

/** The previous product: page rules, URI overrides, group and rule modes, OWASP settings. */
async function previousSettings(on: Running, zone: string, name: string): Promise<void> {
  await previousPackages(on, zone, name)
  await on.ok(`/zones/${zone}/settings/waf`, patch({ value: 'off' }))
  await on.ok(`/zones/${zone}/settings/waf`, patch({ value: 'on' }))
  const pageRule = await on.ok(
    `/zones/${zone}/pagerules`,
    post({
      targets: [{ target: 'url', constraint: { operator: 'matches', value: `${name}/static/*` } }],
      actions: [{ id: 'disable_security' }],
      priority: 2,
      status: 'active',
    }),
  )
  await on.ok(`/zones/${zone}/pagerules/${pageRule.id}`, patch({ priority: 3 }))
  await on.ok(
    `/zones/${zone}/pagerules`,
    post({
      targets: [{ target: 'url', constraint: { operator: 'matches', value: `*${name}/login` } }],
      actions: [{ id: 'waf', value: 'off' }],
    }),
  )
}

/** Every resource's answer through the vendor's API (and ours), by path. */
async function everything(on: Running, zone: string): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {}
  const read = async (path: string) => {
    answers[path.replace(on.origin, '')] = await on.ok(path)
  }
  await read(`/zones/${zone}`)
  const rulesets = (await on.ok(`/zones/${zone}/rulesets`)) as { id: string }[]
  answers.rulesets = rulesets
  for (const ruleset of rulesets) await read(`/zones/${zone}/rulesets/${ruleset.id}`)
  for (const phase of ['http_request_firewall_managed', 'http_request_firewall_custom']) {
    const answer = await on.call(`/zones/${zone}/rulesets/phases/${phase}/entrypoint`)
    answers[phase] = answer.body
  }
  await read(`/zones/${zone}/filters?per_page=100`)
  await read(`/zones/${zone}/firewall/rules?per_page=100`)
  await read(`/zones/${zone}/pagerules`)
  await read(`${on.origin}/workbench/v1/zones/${zone}/firewall/settings`)
  await read(`${on.origin}/workbench/v1/zones/${zone}/events/settings`)
  await read(`/zones/${zone}/waf_migration/status`)
  await read(`${on.origin}/workbench/v1/zones/${zone}/samples`)
  const record = answers[`/zones/${zone}`] as { waf_product: string }
  if (record.waf_product === 'previous') {
    const waf = `/zones/${zone}/firewall/waf`
    await read(`${waf}/packages`)
    await read(`${waf}/overrides`)
    await read(`/zones/${zone}/settings/waf`)
    for (const pkg of [TRADITIONAL_PACKAGE, OWASP_PACKAGE]) {
      await read(`${waf}/packages/${pkg}/groups?per_page=100`)
      for (let page = 1; ; page++) {
        const rules = await on.ok(`${waf}/packages/${pkg}/rules?per_page=100&page=${page}`)
        if (rules.length === 0) break
        answers[`${pkg} rules ${page}`] = rules
      }
    }
  }
  return answers
}

// ---------------------------------------------------------------------------------------------

describe('the round trip', () => {
  const zones: Record<string, string> = {}
  beforeAll(async () => {
    zones.managed = await managedZone(source)
    zones.previous = await previousZone(source)
    zones.validating = await migrationZone(source, 'validating.example', 'validation')
    zones.migrated = await migrationZone(source, 'migrated.example', 'pending')
  })

  it('answers the bundle as a file to save, canonical and named for the zone', async () => {
    const { status, headers, text } = await exportText(source, zones.managed!)
    expect(status).toBe(200)
    expect(headers.get('content-disposition')).toBe(
      'attachment; filename="managed.example.zone-workbench.json"',
    )
    expect(headers.get('content-type')).toMatch(/^application\/json/)
    const bundle = JSON.parse(text)
    expect(text).toBe(`${JSON.stringify(bundle, null, 2)}\n`)
    expect(Object.keys(bundle).slice(0, 4)).toEqual(['format', 'version', 'exported_at', 'zone'])
    expect(bundle.format).toBe('zone-workbench/bundle')
    expect(bundle.version).toBe(1)
    expect(bundle.zone).toMatchObject({ id: zones.managed, name: 'managed.example' })
    // Managed rulesets are referred to by id, never carried.
    expect(bundle.rulesets.map((r: any) => r.kind).sort()).toEqual(['custom', 'zone', 'zone'])
    expect(bundle.filters).toHaveLength(3)
    expect(bundle.firewall_rules[1].filter).toEqual({ id: bundle.filters[1].id })
    expect(bundle.firewall_settings).toEqual({ rule_quota: 50 })
    expect(bundle.event_log_settings.max_events).toBe(5000)
    expect(bundle.previous_waf).toBeUndefined()
    expect(bundle.samples).toMatchObject(SAMPLES)
  })

  it('gives the same bytes after an import into an empty data dir, and the same API answers', async () => {
    for (const zone of Object.values(zones)) {
      const first = await exportText(source, zone)
      const imported = await importBundle(target, first.text)
      expect(imported.status, JSON.stringify(imported.body)).toBe(200)
      const bundle = JSON.parse(first.text)
      expect(imported.body.result.zone).toEqual({ id: zone, name: bundle.zone.name })
      expect(imported.body.result.changes[0]).toMatchObject({
        kind: 'zone',
        id: zone,
        action: 'create',
      })
      const again = await exportText(target, zone)
      expect(withoutExportTime(again.text)).toBe(withoutExportTime(first.text))
      expect(await everything(target, zone)).toEqual(await everything(source, zone))
    }
  })

  it('carries the previous product’s settings, modes, overrides and page rules', async () => {
    const bundle = JSON.parse((await exportText(source, zones.previous!)).text)
    const legacy = bundle.previous_waf
    expect(legacy.setting).toMatchObject({ id: 'waf', value: 'on' })
    expect(legacy.setting.modified_on).not.toBeNull()
    expect(legacy.packages.find((p: any) => p.id === OWASP_PACKAGE)).toMatchObject({
      sensitivity: 'low',
      action_mode: 'block',
    })
    expect(legacy.groups).toEqual([
      { id: OWASP_GENERIC_ATTACKS, package_id: OWASP_PACKAGE, mode: 'off' },
    ])
    expect(legacy.rules).toHaveLength(1)
    expect(legacy.overrides).toHaveLength(1)
    expect(bundle.page_rules.map((r: any) => r.priority)).toEqual([3, 1])
  })

  it('exports a previous-product zone imported anew the same way after a restart', async () => {
    const dataDir = target.dataDir
    await target.stop()
    target = await startService(dataDir)
    const first = await exportText(source, zones.previous!)
    const again = await exportText(target, zones.previous!)
    expect(withoutExportTime(again.text)).toBe(withoutExportTime(first.text))
  })
})

describe('importing over an existing zone', () => {
  let zone: string
  let bundle: any
  beforeAll(async () => {
    const on = target
    zone = (await on.ok('/zones', post({ name: 'replace.example', plan: 'enterprise' }))).id
    const filters = await on.ok(
      `/zones/${zone}/filters`,
      post([{ expression: 'ip.src eq 192.0.2.1' }, { expression: 'ip.src eq 192.0.2.2' }]),
    )
    await on.ok(
      `/zones/${zone}/firewall/rules`,
      post([
        { action: 'block', filter: { id: filters[0].id }, description: 'one' },
        { action: 'challenge', filter: { id: filters[1].id }, description: 'two' },
        { action: 'block', filter: { id: filters[1].id }, description: 'three' },
      ]),
    )
    await on.ok(
      `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
      put({
        rules: [{ action: 'execute', expression: 'true', action_parameters: { id: GENERAL } }],
      }),
    )
    bundle = JSON.parse((await exportText(on, zone)).text)
  })

  it('re-importing the zone’s own bundle changes nothing and writes no history', async () => {
    const points = await history(target, zone)
    const answer = await importBundle(target, bundle)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.result).toEqual({ zone: { id: zone, name: 'replace.example' }, changes: [] })
    expect(await history(target, zone)).toEqual(points)
  })

  it('a dry run answers the changes and writes nothing', async () => {
    const edited = structuredClone(bundle)
    edited.firewall_rules.pop()
    const points = await history(target, zone)
    const before = (await exportText(target, zone)).text
    const answer = await importBundle(target, edited, '?dry_run=true')
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.result.changes).toEqual([
      {
        kind: 'firewall_rule',
        id: bundle.firewall_rules[2].id,
        action: 'delete',
        summary: 'Firewall rule three (block) deleted',
      },
    ])
    expect(await history(target, zone)).toEqual(points)
    expect(withoutExportTime((await exportText(target, zone)).text)).toBe(withoutExportTime(before))
  })

  it('replaces the configuration as one history point listing exactly what differs', async () => {
    const edited = structuredClone(bundle)
    const [first, second] = edited.filters
    first.expression = 'ip.src eq 192.0.2.100'
    edited.firewall_rules[1].action = 'block'
    edited.firewall_rules.pop()
    const newFilter = {
      id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      paused: false,
      expression: 'http.host eq "x.example"',
    }
    edited.filters.push(newFilter)
    edited.firewall_rules.push({
      ...edited.firewall_rules[0],
      id: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
      description: 'four',
      filter: { id: newFilter.id },
    })
    const [entrypoint] = edited.rulesets
    entrypoint.rules[0].action_parameters.overrides = { action: 'log' }
    edited.zone.paused = true
    const points = await history(target, zone)

    const answer = await importBundle(target, edited)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const changes = answer.body.result.changes
    expect(changes.map((c: any) => [c.kind, c.id, c.action])).toEqual([
      ['zone', zone, 'update'],
      ['ruleset', entrypoint.id, 'update'],
      ['filter', first.id, 'update'],
      ['filter', newFilter.id, 'create'],
      ['firewall_rule', edited.firewall_rules[1].id, 'update'],
      ['firewall_rule', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'create'],
      ['firewall_rule', bundle.firewall_rules[2].id, 'delete'],
    ])
    expect(changes[0].summary).toBe('Zone replace.example: paused: false → true')
    expect(changes[1].summary).toContain('1 rule changed')
    expect(changes[2].summary).toContain('expression: ip.src eq 192.0.2.1 → ip.src eq 192.0.2.100')
    expect(second).toBeDefined()

    const after = await history(target, zone)
    expect(after.length).toBe(points.length + 1)
    expect((after[0] as any).note).toBe(
      'Zone configuration imported from a bundle: 7 changes; Zone paused: false → true',
    )

    expect((await target.ok(`/zones/${zone}`)).paused).toBe(true)
    const filter = await target.ok(`/zones/${zone}/filters/${first.id}`)
    expect(filter.expression).toBe('ip.src eq 192.0.2.100')
    const rules = await target.ok(`/zones/${zone}/firewall/rules`)
    expect(rules.map((r: any) => r.description)).toEqual(['one', 'two', 'four'])
    expect(rules[1].action).toBe('block')
    // A resource the bundle leaves as it is stays untouched, times included.
    expect(rules[0].modified_on).toBe(bundle.firewall_rules[0].modified_on)
    const deployed = await target.ok(
      `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    )
    expect(deployed.version).toBe('2')
    expect(deployed.rules[0].action_parameters.overrides).toEqual({ action: 'log' })
    expect(deployed.rules[0].version).toBe('2')
  })
})

describe('importing samples over an existing zone', () => {
  let zone: string
  let bundle: any
  const samples = (on: Running) => on.ok(`${on.origin}/workbench/v1/zones/${zone}/samples`)
  beforeAll(async () => {
    zone = (await target.ok('/zones', post({ name: 'samples.example' }))).id
    for (const sample of SAMPLES) {
      await target.ok(`${target.origin}/workbench/v1/zones/${zone}/samples`, post(sample))
    }
    bundle = JSON.parse((await exportText(target, zone)).text)
  })

  it('lists each sample created, changed and deleted, and stores them as the bundle has them', async () => {
    const edited = structuredClone(bundle)
    const [kept, dropped] = edited.samples
    kept.expected = 'challenged'
    edited.samples = [
      kept,
      { ...dropped, id: 'cccccccccccccccccccccccccccccccc', name: 'Health check' },
    ]
    const answer = await importBundle(target, edited)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.result.changes).toEqual([
      {
        kind: 'sample',
        id: kept.id,
        action: 'update',
        summary: 'Sample request SQL injection probe: expected: blocked → challenged',
      },
      {
        kind: 'sample',
        id: 'cccccccccccccccccccccccccccccccc',
        action: 'create',
        summary: 'Sample request Health check created',
      },
      {
        kind: 'sample',
        id: dropped.id,
        action: 'delete',
        summary: 'Sample request Upload deleted',
      },
    ])
    expect(await samples(target)).toEqual(edited.samples)
  })

  it('keeps the zone’s samples when the bundle has none (one written before they were carried)', async () => {
    const before = await samples(target)
    const { samples: _samples, ...older } = bundle
    const answer = await importBundle(target, older, '?dry_run=true')
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.result.changes.filter((c: any) => c.kind === 'sample')).toEqual([])
    expect(await importBundle(target, older)).toMatchObject({ status: 200 })
    expect(await samples(target)).toEqual(before)
  })
})

describe('importing over a zone on the previous product', () => {
  it('changes settings, packages, modes, overrides and page rules, listing each', async () => {
    const zone = (
      await target.ok(
        '/zones',
        post({ name: 'legacy-replace.example', plan: 'pro', waf_product: 'previous' }),
      )
    ).id
    await previousSettings(target, zone, 'legacy-replace.example')
    const bundle = JSON.parse((await exportText(target, zone)).text)
    const edited = structuredClone(bundle)
    const legacy = edited.previous_waf
    legacy.setting.value = 'off'
    legacy.packages.find((p: any) => p.id === OWASP_PACKAGE).sensitivity = 'high'
    legacy.groups = []
    legacy.overrides = []
    edited.page_rules[0].status = 'disabled'
    const points = await history(target, zone)

    const answer = await importBundle(target, edited)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.result.changes.map((c: any) => [c.kind, c.id, c.action])).toEqual([
      ['page_rule', bundle.page_rules[0].id, 'update'],
      ['waf_setting', 'waf', 'update'],
      ['waf_package', OWASP_PACKAGE, 'update'],
      ['waf_group', `${OWASP_PACKAGE}/${OWASP_GENERIC_ATTACKS}`, 'update'],
      ['waf_override', bundle.previous_waf.overrides[0].id, 'delete'],
    ])
    expect(answer.body.result.changes[2].summary).toContain('sensitivity: low → high')
    expect(answer.body.result.changes[3].summary).toContain('back to its default mode')
    expect((await history(target, zone)).length).toBe(points.length + 1)

    const waf = `/zones/${zone}/firewall/waf`
    expect((await target.ok(`/zones/${zone}/settings/waf`)).value).toBe('off')
    expect((await target.ok(`${waf}/packages/${OWASP_PACKAGE}`)).sensitivity).toBe('high')
    expect(
      (await target.ok(`${waf}/packages/${OWASP_PACKAGE}/groups/${OWASP_GENERIC_ATTACKS}`)).mode,
    ).toBe('on')
    expect(await target.ok(`${waf}/overrides`)).toEqual([])
    expect((await target.ok(`/zones/${zone}/pagerules/${bundle.page_rules[0].id}`)).status).toBe(
      'disabled',
    )
  })
})

describe('bad bundles', () => {
  let valid: any
  let zone: string
  beforeAll(async () => {
    zone = (await source.ok('/zones', post({ name: 'bad.example', plan: 'pro' }))).id
    const text = (await exportText(source, zone)).text
    valid = {
      ...JSON.parse(text),
      zone: { ...JSON.parse(text).zone, id: 'c'.repeat(32), name: 'fresh.example' },
    }
  })

  const cases: [string, (bundle: any) => unknown, number, string][] = [
    ['another format', (b) => ({ ...b, format: 'terraform' }), 10501, '/format'],
    ['another version', (b) => ({ ...b, version: 2 }), 10501, '/version'],
    ['not an object', () => [1, 2], 10501, '/format'],
    [
      'a schema violation',
      (b) => ({ ...b, filters: [{ id: 'nope', paused: false, expression: 'true' }] }),
      10502,
      '/filters/0/id',
    ],
    ['an unknown property', (b) => ({ ...b, extra: 1 }), 10502, '/'],
    [
      'an invalid zone name',
      (b) => ({ ...b, zone: { ...b.zone, name: 'not a domain' } }),
      1099,
      '/zone/name',
    ],
    [
      'an expression that does not parse',
      (b) => ({
        ...b,
        filters: [{ id: 'd'.repeat(32), paused: false, expression: 'http.host eq' }],
      }),
      10014,
      '/filters/0/expression',
    ],
    [
      'a firewall rule naming a missing filter',
      (b) => ({
        ...b,
        firewall_rules: [
          {
            id: 'e'.repeat(32),
            paused: false,
            action: 'block',
            priority: null,
            filter: { id: 'f'.repeat(32) },
            created_on: '2026-01-01T00:00:00.000000Z',
            modified_on: '2026-01-01T00:00:00.000000Z',
          },
        ],
      }),
      10016,
      '/firewall_rules/0/filter/id',
    ],
    ['the id of another zone', (b) => ({ ...b, zone: { ...b.zone, id: zone } }), 1061, '/zone/id'],
    [
      'the previous product on the Free plan',
      (b) => ({
        ...b,
        zone: { ...b.zone, plan: 'free', waf_product: 'previous' },
        previous_waf: {
          setting: { id: 'waf', value: 'on', modified_on: null },
          packages: [],
          groups: [],
          rules: [],
          overrides: [],
        },
      }),
      1004,
      '/zone/plan',
    ],
    [
      'a migration the zone cannot be in',
      (b) => ({
        ...b,
        waf_migration: {
          created: '2026-01-01T00:00:00.000Z',
          migration_state: 'validation',
          source: 'api',
          switch_at: null,
        },
      }),
      10503,
      '/waf_migration/migration_state',
    ],
    [
      'previous-WAF settings on a managed-rulesets zone',
      (b) => ({
        ...b,
        previous_waf: {
          setting: { id: 'waf', value: 'on', modified_on: null },
          packages: [],
          groups: [],
          rules: [],
          overrides: [],
        },
      }),
      10503,
      '/previous_waf',
    ],
  ]

  for (const [label, make, code, pointer] of cases) {
    it(`refuses ${label} with a 400 at ${pointer} and writes nothing`, async () => {
      const zonesBefore = await source.ok('/zones?per_page=50')
      const points = await history(source, zone)
      for (const query of ['', '?dry_run=true']) {
        const answer = await importBundle(source, make(structuredClone(valid)), query)
        expect(answer.status, JSON.stringify(answer.body)).toBe(400)
        expect(answer.body.success).toBe(false)
        expect(answer.body.errors[0].code).toBe(code)
        expect(answer.body.errors[0].source.pointer).toBe(pointer)
      }
      expect(await source.ok('/zones?per_page=50')).toEqual(zonesBefore)
      expect(await history(source, zone)).toEqual(points)
    })
  }

  it('refuses a rule the API would refuse, when replacing, and leaves the zone as it was', async () => {
    const bundle = JSON.parse((await exportText(source, zone)).text)
    const before = (await exportText(source, zone)).text
    // A filter the import would write before it reaches the refused ruleset.
    bundle.filters.push({ id: '4'.repeat(32), paused: false, expression: 'ip.src eq 192.0.2.4' })
    bundle.rulesets.push({
      id: '1'.repeat(32),
      name: 'default',
      description: '',
      source: 'firewall_custom',
      kind: 'zone',
      version: '1',
      rules: [
        {
          id: '2'.repeat(32),
          version: '1',
          action: 'execute',
          expression: 'true',
          description: '',
          last_updated: '2026-01-01T00:00:00.000000Z',
          ref: '2'.repeat(32),
          enabled: true,
          action_parameters: { id: '3'.repeat(32) },
        },
      ],
      last_updated: '2026-01-01T00:00:00.000000Z',
      phase: 'http_request_firewall_custom',
    })
    const points = await history(source, zone)
    const answer = await importBundle(source, bundle)
    expect(answer.status, JSON.stringify(answer.body)).toBe(400)
    expect(answer.body.errors[0].code).toBe(20123)
    expect(answer.body.errors[0].source.pointer).toBe('/rulesets/0/rules/0/action_parameters/id')
    expect(await history(source, zone)).toEqual(points)
    expect(withoutExportTime((await exportText(source, zone)).text)).toBe(withoutExportTime(before))
  })

  it('a dry run of a new zone answers its changes and creates nothing', async () => {
    const zonesBefore = await source.ok('/zones?per_page=50')
    const answer = await importBundle(source, valid, '?dry_run=true')
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.result.zone).toEqual({ id: 'c'.repeat(32), name: 'fresh.example' })
    expect(answer.body.result.changes).toEqual([
      {
        kind: 'zone',
        id: 'c'.repeat(32),
        action: 'create',
        summary: 'Zone fresh.example created (pro plan)',
      },
    ])
    expect(await source.ok('/zones?per_page=50')).toEqual(zonesBefore)
  })

  it('answers unknown zones and formats in the envelope', async () => {
    const unknown = await exportText(source, '0'.repeat(32))
    expect(unknown.status).toBe(404)
    expect(JSON.parse(unknown.text).errors[0].code).toBe(7003)
    const format = await exportText(source, zone, '?format=yaml')
    expect(format.status).toBe(400)
    expect(JSON.parse(format.text).errors[0].code).toBe(10500)
  })
})
