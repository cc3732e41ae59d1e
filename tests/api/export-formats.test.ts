// Export as Terraform and as a curl script, against real services. Fixture zones (managed
// rulesets with overrides and a skip rule, a custom ruleset, filters and firewall rules; a zone on
// the previous product) are built through the vendor's API and exported: each Terraform file
// parses with @cdktf/hcl2json, is unchanged by @cdktf/hcl-tools' formatting (hclwrite's, as
// `terraform fmt` runs it) and carries the zone's rules; the curl script, run with bash against a
// second service, makes the same configuration there, and run again changes nothing.

import { execFile, spawnSync } from 'node:child_process'
import { promisify } from 'node:util'
import { format } from '@cdktf/hcl-tools'
import { parse } from '@cdktf/hcl2json'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CLOUDFLARE_SPECIALS,
  EXPRESSIONS,
  GENERAL,
  OWASP,
  OWASP_ANOMALY,
  OWASP_GENERIC_ATTACKS,
  OWASP_PACKAGE,
  PUBLIC_KEY,
  TRADITIONAL_PACKAGE,
  managedZone,
  migrationZone,
  previousZone,
  startSourceAndTarget,
  stopAndRemove,
} from './fixtures-zones'
import { CREDENTIALS, post, type Running } from './harness'

let source: Running
let target: Running

beforeAll(async () => {
  ;({ source, target } = await startSourceAndTarget())
})
afterAll(() => stopAndRemove(source, target))

async function exportFile(zone: string, query: string) {
  const response = await fetch(`${source.origin}/workbench/v1/zones/${zone}/export?${query}`, {
    headers: { authorization: `Bearer ${CREDENTIALS.apiToken}` },
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

// ---------------------------------------------------------------------------------------------

const zones: Record<string, string> = {}
beforeAll(async () => {
  zones.managed = await managedZone(source, 'managed.example')
  zones.previous = await previousZone(source, 'legacy.example')
  zones.validating = await migrationZone(source, 'validating.example', 'validation')
  zones.migrated = await migrationZone(source, 'migrated.example', 'pending')
})

/** The file parsed by hcl2json, after checking that hclwrite's formatter leaves it as it is. */
async function parsedTerraform(zone: string, provider: string) {
  const { status, headers, text } = await exportFile(zone, `format=terraform&provider=${provider}`)
  expect(status, text).toBe(200)
  expect(headers.get('content-type')).toMatch(/^text\/plain/)
  expect(await format(text)).toBe(text)
  return { text, headers, hcl: (await parse('main.tf', text)) as Record<string, any> }
}

/** hcl2json gives a literal string back with its template escapes ($${, %%{) as written. */
const literal = (text: string) => text.replace(/([$%])\1\{/g, '$1{')

/** Each resource of `type` in the parsed file, by name (hcl2json lists each one's bodies). */
function resources(hcl: Record<string, any>, type: string): Record<string, any> {
  return Object.fromEntries(
    Object.entries(hcl.resource?.[type] ?? {}).map(([name, bodies]) => [
      name,
      (bodies as unknown[])[0],
    ]),
  )
}

const importIds = (hcl: Record<string, any>) =>
  Object.fromEntries(
    (hcl.import as { to: string; id: string }[]).map(({ to, id }) => [to.slice(2, -1), id]),
  )

describe('export as Terraform', () => {
  it('v5: rulesets as attributes, filters and firewall rules, import blocks, canonical', async () => {
    const zone = zones.managed!
    const { hcl, headers, text } = await parsedTerraform(zone, 'v5')
    expect(headers.get('content-disposition')).toBe('attachment; filename="managed.example.tf"')
    expect(text).toMatch(/^# Zone managed\.example \(/)
    const rulesets = await source.ok(`/zones/${zone}/rulesets`)
    const byPhase = (phase: string) =>
      rulesets.find((ruleset: any) => ruleset.kind === 'zone' && ruleset.phase === phase)
    const managed = await source.ok(
      `/zones/${zone}/rulesets/${byPhase('http_request_firewall_managed').id}`,
    )
    const custom = rulesets.find((ruleset: any) => ruleset.kind === 'custom')

    const tf = resources(hcl, 'cloudflare_ruleset')
    expect(Object.keys(tf).sort()).toEqual([
      'api_hardening',
      'http_request_firewall_custom',
      'http_request_firewall_managed',
    ])
    const entry = tf.http_request_firewall_managed
    expect(entry).toMatchObject({
      zone_id: zone,
      kind: 'zone',
      phase: 'http_request_firewall_managed',
    })
    expect(entry.rules).toHaveLength(3)
    const [skip, general, owasp] = entry.rules
    expect(skip).toEqual({
      ref: managed.rules[0].ref,
      description: 'uploads skip the anomaly score',
      expression: EXPRESSIONS.skip,
      action: 'skip',
      action_parameters: { rules: { [OWASP]: [OWASP_ANOMALY] } },
      enabled: true,
      logging: { enabled: true },
    })
    expect(general.action_parameters).toEqual({
      id: GENERAL,
      overrides: { categories: [{ category: 'joomla', action: 'block', enabled: true }] },
      version: 'latest',
    })
    expect(owasp).toMatchObject({
      expression: EXPRESSIONS.owasp,
      action: 'execute',
      action_parameters: {
        id: OWASP,
        matched_data: { public_key: PUBLIC_KEY },
        overrides: {
          categories: [{ category: 'paranoia-level-3', enabled: false }],
          rules: [{ id: OWASP_ANOMALY, score_threshold: 60, action: 'managed_challenge' }],
        },
      },
    })
    // The custom ruleset is referred to, so that a zone made from the file runs its own.
    expect(tf.http_request_firewall_custom.rules[0].action_parameters.id).toBe(
      '${cloudflare_ruleset.api_hardening.id}',
    )
    expect(tf.api_hardening).toMatchObject({ name: 'API hardening', kind: 'custom' })
    expect(
      tf.api_hardening.rules.map((rule: any) => [
        literal(rule.expression),
        rule.action,
        rule.enabled,
      ]),
    ).toEqual([
      [EXPRESSIONS.admin, 'block', true],
      [EXPRESSIONS.templated, 'log', false],
    ])

    // v5's firewall rule holds its filter; the filter no rule uses stands alone.
    const filters = resources(hcl, 'cloudflare_filter')
    expect(Object.values(filters).map((filter) => filter.body)).toEqual([
      [{ expression: 'ip.src eq 203.0.113.9', paused: false, description: 'unused' }],
    ])
    const rules = Object.values(resources(hcl, 'cloudflare_firewall_rule'))
    expect(rules.map((rule) => [rule.action.mode, rule.filter.expression])).toEqual(
      expect.arrayContaining([
        ['block', 'ip.src eq 198.51.100.7'],
        ['bypass', 'http.request.uri.path eq "/health"'],
        ['log', 'http.user_agent contains "curl"'],
      ]),
    )

    const ids = importIds(hcl)
    expect(ids['cloudflare_ruleset.http_request_firewall_managed']).toBe(
      `zones/${zone}/${managed.id}`,
    )
    expect(ids['cloudflare_ruleset.api_hardening']).toBe(`zones/${zone}/${custom.id}`)
    expect(Object.keys(ids)).toHaveLength(3 + 1 + 3)
  })

  it('v4: rulesets as nested blocks, firewall rules with their filters by reference', async () => {
    const zone = zones.managed!
    const { hcl } = await parsedTerraform(zone, 'v4')
    const tf = resources(hcl, 'cloudflare_ruleset')
    const [skip, , owasp] = tf.http_request_firewall_managed.rules
    // hcl2json shows a nested block as a list of its bodies.
    expect(skip.action_parameters).toEqual([{ rules: { [OWASP]: OWASP_ANOMALY } }])
    expect(skip.logging).toEqual([{ enabled: true }])
    expect(owasp.action_parameters[0].overrides[0]).toEqual({
      categories: [{ category: 'paranoia-level-3', enabled: false }],
      rules: [{ id: OWASP_ANOMALY, score_threshold: 60, action: 'managed_challenge' }],
    })
    const firewall = await source.ok(`/zones/${zone}/firewall/rules?per_page=100`)
    const filters = resources(hcl, 'cloudflare_filter')
    expect(Object.keys(filters)).toHaveLength(4)
    const rules = resources(hcl, 'cloudflare_firewall_rule')
    for (const rule of firewall) {
      const [name, written] = Object.entries(rules).find(([, body]) => body.action === rule.action)!
      expect(written).toMatchObject({
        action: rule.action,
        paused: rule.paused,
        ...(rule.priority === null ? {} : { priority: rule.priority }),
        ...(rule.products ? { products: rule.products } : {}),
      })
      const filterName = /^\$\{cloudflare_filter\.(.+)\.id\}$/.exec(written.filter_id)![1]!
      expect(filters[filterName].expression).toBe(rule.filter.expression)
      expect(importIds(hcl)[`cloudflare_firewall_rule.${name}`]).toBe(`${zone}/${rule.id}`)
    }
    const managed = (await source.ok(`/zones/${zone}/rulesets`)).find(
      (ruleset: any) => ruleset.phase === 'http_request_firewall_managed',
    )
    expect(importIds(hcl)['cloudflare_ruleset.http_request_firewall_managed']).toBe(
      `zone/${zone}/${managed.id}`,
    )
  })

  it('v3: the previous product as it stands, with the warning that it ends with the migration', async () => {
    const zone = zones.previous!
    const { hcl, text } = await parsedTerraform(zone, 'v3')
    expect(text).toContain('they stop\n# working once the zone migrates')
    const packages = Object.values(resources(hcl, 'cloudflare_waf_package'))
    expect(packages).toContainEqual({
      zone_id: zone,
      package_id: OWASP_PACKAGE,
      sensitivity: 'low',
      action_mode: 'block',
    })
    expect(packages.map((pkg) => pkg.package_id)).toContain(TRADITIONAL_PACKAGE)
    expect(Object.values(resources(hcl, 'cloudflare_waf_group'))).toEqual([
      { zone_id: zone, group_id: OWASP_GENERIC_ATTACKS, package_id: OWASP_PACKAGE, mode: 'off' },
    ])
    const [rule] = Object.values(resources(hcl, 'cloudflare_waf_rule'))
    expect(rule.package_id).toBe(TRADITIONAL_PACKAGE)
    const [override] = Object.values(resources(hcl, 'cloudflare_waf_override'))
    expect(override).toMatchObject({
      urls: ['legacy.example/api/*'],
      rules: { [rule.rule_id]: 'simulate' },
      groups: { [CLOUDFLARE_SPECIALS]: 'disable' },
      rewrite_action: { block: 'challenge' },
      description: 'API',
      priority: 2,
    })
    expect(Object.values(resources(hcl, 'cloudflare_firewall_rule'))).toMatchObject([
      { action: 'bypass', products: ['waf'] },
    ])
    expect(Object.values(resources(hcl, 'cloudflare_page_rule'))).toEqual([
      {
        zone_id: zone,
        target: 'legacy.example/static/*',
        priority: 1,
        status: 'active',
        actions: [{ disable_security: true }],
      },
    ])
    // v5 of the same zone carries its firewall and page rules but not the previous product.
    const v5 = await parsedTerraform(zone, 'v5')
    expect(v5.hcl.resource.cloudflare_waf_package).toBeUndefined()
    expect(Object.values(resources(v5.hcl, 'cloudflare_page_rule'))).toMatchObject([
      { target: 'legacy.example/static/*', actions: { disable_security: true } },
    ])
  })

  it('writes every fixture zone, mid-migration and migrated too, canonical and parseable', async () => {
    for (const [name, zone] of Object.entries(zones)) {
      const providers = ['v5', 'v4', ...(name === 'managed' || name === 'migrated' ? [] : ['v3'])]
      for (const provider of providers) {
        const { hcl } = await parsedTerraform(zone, provider)
        const entry = resources(hcl, 'cloudflare_ruleset').http_request_firewall_managed
        expect(entry === undefined, `${name} ${provider}`).toBe(name === 'previous')
      }
    }
  })

  it("leaves out a page rule whose operator the provider's URL pattern cannot hold, and names it", async () => {
    const zone = (await source.ok('/zones', post({ name: 'operators.example', plan: 'pro' }))).id
    const pageRule = (operator: string, value: string, priority: number) =>
      source.ok(
        `/zones/${zone}/pagerules`,
        post({
          targets: [{ target: 'url', constraint: { operator, value } }],
          actions: [{ id: 'disable_security' }],
          priority,
        }),
      )
    await pageRule('matches', 'operators.example/static/*', 1)
    const contains = await pageRule('contains', '/admin', 2)
    for (const provider of ['v5', 'v4']) {
      const { hcl, text } = await parsedTerraform(zone, provider)
      // Written as `target = "/admin"`, the rule would select only URLs matching that pattern.
      expect(Object.values(resources(hcl, 'cloudflare_page_rule')), provider).toMatchObject([
        { target: 'operators.example/static/*' },
      ])
      expect(text).toContain(`# - ${contains.id}: contains /admin (priority 2)`)
    }
  })

  it('refuses a provider the zone cannot have, or does not exist, in the envelope', async () => {
    for (const [zone, provider] of [
      [zones.managed!, 'v3'],
      [zones.migrated!, 'v3'],
      [zones.managed!, 'v6'],
    ] as const) {
      const { status, text } = await exportFile(zone, `format=terraform&provider=${provider}`)
      expect(status).toBe(400)
      expect(JSON.parse(text)).toMatchObject({ success: false, errors: [{ code: 10500 }] })
    }
  })
})

// ---------------------------------------------------------------------------------------------

const run = promisify(execFile)

/** The script, run with bash against `on`'s API for `zone`. */
function runScript(script: string, on: Running, zone: string, token = CREDENTIALS.apiToken) {
  // --norc: with a socket for stdin, as here, bash would read ~/.bashrc as if run by sshd.
  const child = run('bash', ['--norc', '-c', script], {
    env: {
      PATH: process.env.PATH,
      CLOUDFLARE_BASE_URL: on.api,
      CLOUDFLARE_API_TOKEN: token,
      CLOUDFLARE_ZONE_ID: zone,
    },
  })
  return child
}

/** A zone's rulesets, filters and firewall rules without what differs between zones (ids, times, versions). */
async function configuration(on: Running, zone: string) {
  const list = ((await on.ok(`/zones/${zone}/rulesets`)) as { id: string; kind: string }[])
    // The account's managed rulesets are listed too: the zone's own are the configuration.
    .filter((ruleset) => ruleset.kind !== 'managed')
  const rulesets = await Promise.all(
    list.map((ruleset) => on.ok(`/zones/${zone}/rulesets/${ruleset.id}`)),
  )
  const names = new Map(rulesets.map((ruleset) => [ruleset.id, ruleset.name]))
  const filters = await on.ok(`/zones/${zone}/filters?per_page=100`)
  const rules = await on.ok(`/zones/${zone}/firewall/rules?per_page=100`)
  const byText = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b))
  return {
    rulesets: rulesets
      .map(({ id: _id, version: _v, last_updated: _t, rules, ...ruleset }) => ({
        ...ruleset,
        rules: rules.map(({ id: _r, version: _rv, last_updated: _rt, ...rule }: any) => ({
          ...rule,
          // An executed custom ruleset is named by its name: its id is the zone's own.
          ...(names.has(rule.action_parameters?.id)
            ? {
                action_parameters: {
                  ...rule.action_parameters,
                  id: names.get(rule.action_parameters.id),
                },
              }
            : {}),
        })),
      }))
      .sort(byText),
    filters: filters.map(({ id: _id, ...filter }: any) => filter).sort(byText),
    firewall_rules: rules
      .map(({ id: _id, created_on: _c, modified_on: _m, filter, ...rule }: any) => ({
        ...rule,
        filter: filter.expression,
      }))
      .sort(byText),
  }
}

/** The script needs jq (.ci/run installs it); without it, these tests say so and skip. */
const jqMissing = spawnSync('jq', ['--version']).status !== 0

describe.skipIf(jqMissing)(
  `export as a curl script${jqMissing ? ' (skipped: jq is not installed)' : ''}`,
  () => {
    it('makes the same configuration in another zone, and changes nothing run again', async () => {
      const { status, headers, text: script } = await exportFile(zones.managed!, 'format=curl')
      expect(status, script).toBe(200)
      expect(headers.get('content-disposition')).toBe('attachment; filename="managed.example.sh"')
      expect(script).toMatch(/^#!\/usr\/bin\/env bash\n/)

      const zone = (
        await target.ok('/zones', post({ name: 'managed.example', plan: 'enterprise' }))
      ).id
      const first = await runScript(script, target, zone)
      expect(first.stderr).toBe('')
      const made = await configuration(target, zone)
      expect(made).toEqual(await configuration(source, zones.managed!))
      expect(made.rulesets).toHaveLength(3)
      expect(made.filters).toHaveLength(4)
      expect(made.firewall_rules).toHaveLength(3)

      // Run again: no error, and not a version, id or time moves.
      const history = async () =>
        target.ok(`${target.origin}/workbench/v1/zones/${zone}/history?limit=1000`)
      const everything = async () => ({
        rulesets: await Promise.all(
          ((await target.ok(`/zones/${zone}/rulesets`)) as { id: string }[]).map((ruleset) =>
            target.ok(`/zones/${zone}/rulesets/${ruleset.id}`),
          ),
        ),
        filters: await target.ok(`/zones/${zone}/filters?per_page=100`),
        rules: await target.ok(`/zones/${zone}/firewall/rules?per_page=100`),
        history: await history(),
      })
      const before = await everything()
      const second = await runScript(script, target, zone)
      expect(second.stderr).toBe('')
      expect(await everything()).toEqual(before)
    })

    it('stops at the first refusal with the API message', async () => {
      const { text: script } = await exportFile(zones.managed!, 'format=curl')
      const zone = (
        await target.ok('/zones', post({ name: 'refused.example', plan: 'enterprise' }))
      ).id
      const failed = await runScript(script, target, zone, 'not-the-token').catch(
        (error: { code: number; stderr: string }) => error,
      )
      expect(failed).toMatchObject({ code: 1 })
      expect((failed as { stderr: string }).stderr).toMatch(
        /^GET \/zones\/[0-9a-f]{32}\/rulesets failed: 9109: Invalid access token\n$/,
      )
      expect(await target.ok(`/zones/${zone}/filters`)).toEqual([])
    })

    it('makes the previous product and page rules of a zone on it, and changes nothing run again', async () => {
      const { text: script } = await exportFile(zones.previous!, 'format=curl')
      const zone = (
        await target.ok(
          '/zones',
          post({ name: 'legacy.example', plan: 'business', waf_product: 'previous' }),
        )
      ).id
      await runScript(script, target, zone)
      const previous = async (on: Running, id: string) => {
        const waf = `/zones/${id}/firewall/waf`
        const withoutIds = (items: any[]) =>
          items.map(({ id: _id, created_on: _c, modified_on: _m, ...item }) => item)
        return {
          setting: (await on.ok(`/zones/${id}/settings/waf`)).value,
          packages: (await on.ok(`${waf}/packages`)).map(({ zone_id: _z, ...pkg }: any) => pkg),
          groups: await on.ok(`${waf}/packages/${OWASP_PACKAGE}/groups?per_page=100`),
          rules: await on.ok(`${waf}/packages/${TRADITIONAL_PACKAGE}/rules?per_page=5`),
          overrides: withoutIds(await on.ok(`${waf}/overrides`)),
          page_rules: withoutIds(await on.ok(`/zones/${id}/pagerules`)),
          ...(await configuration(on, id)),
        }
      }
      const made = await previous(target, zone)
      expect(made).toEqual(await previous(source, zones.previous!))
      expect(made.setting).toBe('off')
      expect(made.overrides).toHaveLength(1)
      expect(made.page_rules).toHaveLength(1)

      const history = () =>
        target.ok(`${target.origin}/workbench/v1/zones/${zone}/history?limit=1000`)
      const before = await history()
      expect((await runScript(script, target, zone)).stderr).toBe('')
      expect(await history()).toEqual(before)
    })

    it('begins the same migration in a zone on the previous product; a migrated zone has no previous product to make', async () => {
      const { text: script } = await exportFile(zones.validating!, 'format=curl')
      const zone = (
        await target.ok(
          '/zones',
          post({ name: 'validating.example', plan: 'enterprise', waf_product: 'previous' }),
        )
      ).id
      await runScript(script, target, zone)
      expect(await target.ok(`/zones/${zone}/waf_migration/status`)).toMatchObject({
        migration_state: 'validation',
      })
      expect(await configuration(target, zone)).toEqual(
        await configuration(source, zones.validating!),
      )
      const before = await target.ok(
        `${target.origin}/workbench/v1/zones/${zone}/history?limit=1000`,
      )
      expect((await runScript(script, target, zone)).stderr).toBe('')
      expect(
        await target.ok(`${target.origin}/workbench/v1/zones/${zone}/history?limit=1000`),
      ).toEqual(before)

      const migrated = (await exportFile(zones.migrated!, 'format=curl')).text
      expect(migrated).toContain('/rulesets/phases/http_request_firewall_managed/entrypoint"')
      expect(migrated).not.toContain('/firewall/waf/')
      expect(migrated).not.toContain('waf_migration=')
    })
  },
)
