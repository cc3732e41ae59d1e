// Import of Terraform files, against real services. Every file the export writes for the fixture
// zones (v5, v4, and v3 for the zone on the previous product) is read by our HCL parser exactly
// as @cdktf/hcl2json reads it (a differential oracle), imports into a fresh service as the same
// configuration (what Terraform carries of it), and imported back into its own zone changes
// nothing. A value that is not literal is refused with the file, line and attribute, and nothing
// is written; a dry run writes nothing.

import { parse } from '@cdktf/hcl2json'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseHcl, type HclBody, type HclNode } from '../../src-main/bundles/hcl-parse'
import {
  managedZone,
  migrationZone,
  previousZone,
  startSourceAndTarget,
  stopAndRemove,
} from './fixtures-zones'
import { CREDENTIALS, type Running } from './harness'

let source: Running
let target: Running

beforeAll(async () => {
  ;({ source, target } = await startSourceAndTarget())
})
afterAll(() => stopAndRemove(source, target))

const zones: Record<string, { id: string; name: string; plan: string }> = {}
beforeAll(async () => {
  zones.managed = {
    id: await managedZone(source, 'managed.example'),
    name: 'managed.example',
    plan: 'enterprise',
  }
  zones.previous = {
    id: await previousZone(source, 'legacy.example'),
    name: 'legacy.example',
    plan: 'business',
  }
  zones.validating = {
    id: await migrationZone(source, 'validating.example', 'validation'),
    name: 'validating.example',
    plan: 'enterprise',
  }
  zones.migrated = {
    id: await migrationZone(source, 'migrated.example', 'pending'),
    name: 'migrated.example',
    plan: 'enterprise',
  }
})

/** Each fixture zone with each provider its export writes. */
const files = () =>
  Object.entries(zones).flatMap(([fixture, zone]) =>
    ['v5', 'v4', ...(fixture === 'previous' || fixture === 'validating' ? ['v3'] : [])].map(
      (provider) => ({ fixture, zone, provider }),
    ),
  )

async function exportText(on: Running, zone: string, query: string): Promise<string> {
  const response = await fetch(`${on.origin}/workbench/v1/zones/${zone}/export?${query}`, {
    headers: { authorization: `Bearer ${CREDENTIALS.apiToken}` },
  })
  expect(response.status).toBe(200)
  return response.text()
}

/** POST of a Terraform file to the import route of `on`. */
async function importTerraform(on: Running, text: string, query: string) {
  const response = await fetch(`${on.origin}/workbench/v1/zones/import?${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${CREDENTIALS.apiToken}`, 'content-type': 'text/plain' },
    body: text,
  })
  return { status: response.status, body: await response.json() }
}

// ---------------------------------------------------------------------------------------------
// The parser, against hcl2json

/** hcl2json's reading of a value: references as `${…}`, strings with `${`/`%{` escaped again. */
function asHcl2Json(node: HclNode): unknown {
  switch (node.kind) {
    case 'literal':
      return typeof node.value === 'string' ? node.value.replace(/([$%])\{/g, '$1$1{') : node.value
    case 'list':
      return node.items.map(asHcl2Json)
    case 'object':
      return Object.fromEntries(node.entries.map((entry) => [entry.key, asHcl2Json(entry.value)]))
    case 'reference':
      return `\${${node.path}}`
    default:
      throw new Error(`no ${node.kind} in an exported file`)
  }
}

/** hcl2json's shape of a body: blocks by type, then by each label, each a list of bodies. */
function bodyAsHcl2Json(body: HclBody): Record<string, unknown> {
  const out: Record<string, any> = {}
  for (const entry of body.attributes) out[entry.key] = asHcl2Json(entry.value)
  for (const block of body.blocks) {
    let into = out
    let key = block.type
    for (const label of block.labels) {
      into[key] ??= {}
      into = into[key]
      key = label
    }
    into[key] = [...(into[key] ?? []), bodyAsHcl2Json(block.body)]
  }
  return out
}

describe('the HCL parser', () => {
  it('reads every exported file as hcl2json does', async () => {
    for (const { fixture, zone, provider } of files()) {
      const text = await exportText(source, zone.id, `format=terraform&provider=${provider}`)
      expect(bodyAsHcl2Json(parseHcl(text)), `${fixture} ${provider}`).toEqual(
        await parse('main.tf', text),
      )
    }
  })

  it('reads comments, heredocs, escapes, literal templates and one-line blocks as hcl2json does', async () => {
    const text = [
      '/* a comment',
      '   over lines */',
      'resource "cloudflare_filter" "a" { // trailing',
      '  zone_id = "0123456789abcdef0123456789abcdef" # another',
      '  expression = <<-EOT',
      '    http.host eq "a"',
      '      and not ip.src in {192.0.2.0/24}',
      '    EOT',
      '  description = "tab\\there \\u00e9 ${"lit"}eral $${x} %%{y} \\"q\\" \\\\"',
      '  paused      = false',
      '  nested { a = 1 }',
      '  list = [',
      '    1.5, -2, true, null,',
      '    { "quoted key" = "v", b: 2 },',
      '  ]',
      '}',
      '',
    ].join('\n')
    const ours = bodyAsHcl2Json(parseHcl(text)) as any
    const theirs = (await parse('main.tf', text)) as any
    // hcl2json shows a literal template's interpolation as written; ours is its value.
    theirs.resource.cloudflare_filter.a[0].description =
      theirs.resource.cloudflare_filter.a[0].description.replace('${"lit"}', 'lit')
    expect(ours).toEqual(theirs)
    expect(ours.resource.cloudflare_filter.a[0].expression).toBe(
      'http.host eq "a"\n  and not ip.src in {192.0.2.0/24}\n',
    )
  })
})

// ---------------------------------------------------------------------------------------------
// Round trips

const BOOKKEEPING = new Set(['version', 'last_updated', 'created_on', 'modified_on'])

/** `value` without bookkeeping (versions, times) at any depth. */
function withoutBookkeeping(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutBookkeeping)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !BOOKKEEPING.has(key))
      .map(([key, item]) => [key, withoutBookkeeping(item)]),
  )
}

/**
 * What a Terraform file of `provider` carries of a zone's bundle: rulesets (rule ids aside),
 * filters, firewall rules (naming their filter by expression), page rules; in v5 a firewall rule
 * is an action and a filter, and a filter it uses has no id; v3 adds the previous product's
 * packages, modes and overrides.
 */
function carried(bundle: any, provider: string) {
  const expressions = new Map(bundle.filters.map((filter: any) => [filter.id, filter.expression]))
  const used = new Set(bundle.firewall_rules.map((rule: any) => rule.filter.id))
  const byText = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b))
  return withoutBookkeeping({
    rulesets: bundle.rulesets.map(({ rules, ...ruleset }: any) => ({
      ...ruleset,
      rules: rules.map(({ id: _id, ...rule }: any) => rule),
    })),
    filters: bundle.filters
      .map(({ id, ...filter }: any) =>
        provider === 'v5' && used.has(id) ? filter : { id, ...filter },
      )
      .sort(byText),
    firewall_rules: bundle.firewall_rules
      .map((rule: any) =>
        provider === 'v5'
          ? { id: rule.id, action: rule.action, filter: expressions.get(rule.filter.id) }
          : { ...rule, filter: expressions.get(rule.filter.id) },
      )
      .sort(byText),
    page_rules: bundle.page_rules,
    ...(provider === 'v3'
      ? {
          previous_waf: {
            packages: bundle.previous_waf.packages,
            groups: bundle.previous_waf.groups,
            rules: bundle.previous_waf.rules,
            overrides: bundle.previous_waf.overrides,
          },
        }
      : {}),
  })
}

const isBypass = (rule: { action: string }) => rule.action === 'bypass'

/**
 * A v5 file without its bypass firewall rules (their resource and import blocks: the file's
 * top-level blocks are apart by blank lines), and the bundle without them and their filters.
 */
function withoutBypassRules(text: string, bundle: any): { file: string; original: any } {
  const chunks = text.split('\n\n')
  const names = chunks
    .filter(
      (chunk) =>
        /^resource "cloudflare_firewall_rule"/m.test(chunk) && /mode\s*=\s*"bypass"/.test(chunk),
    )
    .map((chunk) => /^resource "cloudflare_firewall_rule" "([^"]+)"/m.exec(chunk)![1]!)
  expect(names.length).toBeGreaterThan(0)
  const dropped = (chunk: string) =>
    names.some(
      (name) =>
        chunk.includes(`resource "cloudflare_firewall_rule" "${name}"`) ||
        chunk.includes(`to = cloudflare_firewall_rule.${name}\n`),
    )
  const bypassFilters = new Set(
    bundle.firewall_rules.filter(isBypass).map((rule: any) => rule.filter.id),
  )
  return {
    file: chunks.filter((chunk) => !dropped(chunk)).join('\n\n'),
    original: {
      ...bundle,
      firewall_rules: bundle.firewall_rules.filter((rule: any) => !isBypass(rule)),
      filters: bundle.filters.filter((filter: any) => !bypassFilters.has(filter.id)),
    },
  }
}

const exportedBundle = async (on: Running, zone: string) =>
  JSON.parse(await exportText(on, zone, 'format=bundle'))

describe('import of a Terraform file', () => {
  it('makes every exported file into the same configuration in a fresh service', async () => {
    for (const { fixture, zone, provider } of files()) {
      // A zone whose migration has begun holds a managed entry point that a new zone on the
      // previous product may not deploy (20132): its v3 file is for the zone it came from.
      if (fixture === 'validating' && provider === 'v3') continue
      const text = await exportText(source, zone.id, `format=terraform&provider=${provider}`)
      const query = `zone_name=${zone.name}&plan=${zone.plan}`
      let original = await exportedBundle(source, zone.id)
      let file = text
      if (provider === 'v5' && original.firewall_rules.some(isBypass)) {
        // v5's firewall rule carries no products, and a new bypass rule needs them: refused as the
        // API refuses it (an existing zone keeps its rule's products, as the next test shows).
        const refused = await importTerraform(target, text, query)
        expect(refused.status).toBe(400)
        expect(refused.body.errors[0]).toMatchObject({ code: 10019 })
        expect(await target.ok(`/zones?name=${zone.name}`)).toEqual([])
        // The rest of the file is carried: without the bypass rules, it imports.
        ;({ file, original } = withoutBypassRules(text, original))
      }
      const { status, body } = await importTerraform(target, file, query)
      expect(status, `${fixture} ${provider}: ${JSON.stringify(body)}`).toBe(200)
      expect(body.result.zone).toEqual({ id: zone.id, name: zone.name })
      const made = await exportedBundle(target, zone.id)
      expect(made.zone.plan).toBe(zone.plan)
      expect(
        made.rulesets.length + made.firewall_rules.length + made.page_rules.length,
        `${fixture} ${provider} carries something`,
      ).toBeGreaterThan(0)
      expect(carried(made, provider), `${fixture} ${provider}`).toEqual(carried(original, provider))
      await target.ok(`/zones/${zone.id}`, { method: 'DELETE' })
    }
  })

  it('changes nothing when a zone takes back its own file', async () => {
    for (const { fixture, zone, provider } of files()) {
      const text = await exportText(source, zone.id, `format=terraform&provider=${provider}`)
      for (const dryRun of [true, false]) {
        const { status, body } = await importTerraform(
          source,
          text,
          `zone_name=${zone.name}&dry_run=${dryRun}`,
        )
        expect(status, `${fixture} ${provider}: ${JSON.stringify(body)}`).toBe(200)
        expect(body.result.changes, `${fixture} ${provider}`).toEqual([])
      }
    }
  })

  it('answers the changes of a dry run and writes nothing', async () => {
    const zone = zones.managed!
    const text = await exportText(source, zone.id, 'format=terraform&provider=v4')
    const { status, body } = await importTerraform(
      target,
      text,
      `zone_name=${zone.name}&plan=enterprise&dry_run=true`,
    )
    expect(status).toBe(200)
    expect(body.result.changes).toContainEqual(
      expect.objectContaining({ kind: 'zone', action: 'create' }),
    )
    expect(body.result.changes.filter((change: any) => change.kind === 'ruleset')).toHaveLength(3)
    expect(await target.ok(`/zones?name=${zone.name}`)).toEqual([])

    // An edit of the file is one change of the zone it names.
    const edited = text.replace(
      /(resource "cloudflare_firewall_rule"[^}]*action\s+= )"log"/,
      '$1"challenge"',
    )
    expect(edited).not.toBe(text)
    const changed = await importTerraform(source, edited, `zone_name=${zone.name}&dry_run=true`)
    expect(changed.body.result.changes).toEqual([
      expect.objectContaining({ kind: 'firewall_rule', action: 'update' }),
    ])
  })

  it('refuses what is not literal with the file, line and attribute, writing nothing', async () => {
    const zone = zones.managed!
    const text = await exportText(source, zone.id, 'format=terraform&provider=v5')
    const lines = text.split('\n')
    const at = lines.findIndex((line) =>
      /^\s+expression\s+= "ip\.src eq 203\.0\.113\.9"$/.test(line),
    )
    expect(at).toBeGreaterThan(0)
    const history = () =>
      source.ok(`${source.origin}/workbench/v1/zones/${zone.id}/history?limit=1000`)
    const before = await history()
    for (const [value, says] of [
      ['var.blocked_ip', /var\.blocked_ip cannot be resolved/],
      ['lower("IP.SRC eq 203.0.113.9")', /the function call lower\(…\)/],
      ['cloudflare_filter.elsewhere.id', /cloudflare_filter\.elsewhere\.id cannot be resolved/],
      ['"ip.src eq ${var.ip}"', /var\.ip cannot be resolved/],
    ] as const) {
      const file = lines.map((line, index) => (index === at ? `      expression = ${value}` : line))
      for (const [on, query] of [
        [source, `zone_name=${zone.name}&file_name=main.tf`],
        [target, `zone_name=${zone.name}&plan=enterprise&file_name=main.tf`],
      ] as const) {
        const { status, body } = await importTerraform(on, file.join('\n'), query)
        expect(status, value).toBe(400)
        const [error] = body.errors
        expect(error.code).toBe(10504)
        expect(error.message).toMatch(says)
        expect(error.message).toMatch(
          new RegExp(
            `^main\\.tf, line ${at + 1}, cloudflare_filter\\.[a-z_]+\\.body\\[0\\]\\.expression: `,
          ),
        )
        expect(error.meta).toMatchObject({ file: 'main.tf', line: at + 1 })
      }
    }
    expect(await history()).toEqual(before)
    expect(await target.ok(`/zones?name=${zone.name}`)).toEqual([])
  })

  it('refuses a file it cannot read, or without a zone name, in the envelope', async () => {
    const broken = await importTerraform(
      target,
      'resource "cloudflare_filter" "a" {\n  x = \n}\n',
      'zone_name=a.example',
    )
    expect(broken.status).toBe(400)
    expect(broken.body.errors[0]).toMatchObject({ code: 10504, meta: { line: 2 } })
    const record = await importTerraform(
      target,
      '\n\nresource "cloudflare_record" "www" {\n  name = "www"\n}\n',
      'zone_name=a.example',
    )
    expect(record.status).toBe(400)
    expect(record.body.errors[0]).toMatchObject({ code: 10504, meta: { line: 3 } })
    expect(record.body.errors[0].message).toContain("cloudflare_record is not part of a zone's")
    const deep = await importTerraform(
      target,
      `resource "cloudflare_filter" "a" {\n  x = ${'['.repeat(100_000)}\n}\n`,
      'zone_name=a.example',
    )
    expect(deep.status).toBe(400)
    expect(deep.body.errors[0]).toMatchObject({ code: 10504, meta: { line: 2 } })
    const unnamed = await importTerraform(target, '', '')
    expect(unnamed.status).toBe(400)
    expect(unnamed.body.errors[0].code).toBe(10504)
    const unknown = await importTerraform(target, '', 'format=yaml&zone_name=a.example')
    expect(unknown.body.errors[0].code).toBe(10500)
    expect(await target.ok('/zones?name=a.example')).toEqual([])
  })
})
