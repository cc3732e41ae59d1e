// Fixture zones built through the vendor's API, shared by the export and Terraform import tests:
// managed rulesets with overrides and a skip rule, a custom ruleset, filters and firewall rules;
// a zone on the previous product with page rules and a URI override; and zones mid-migration.

import { expect } from 'vitest'
import { FakeClock } from '../unit/objects/fake-clock'
import { patch, post, put, removeDataDir, startService, type Running } from './harness'

export const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
export const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
export const OWASP_ANOMALY = '6179ae15870a4bb7b2d480d4843b323c'
export const PUBLIC_KEY = 'Ycig/Zr/pZmklmFUN99nr+taURlYItL91g+NcHGYpB8='
export const TRADITIONAL_PACKAGE = '1e334934fd7ae32ad705667f8c1057aa'
export const OWASP_PACKAGE = 'c504870194831cd12c3fc0284f294abb'
export const OWASP_GENERIC_ATTACKS = '5461c3844f6b5597986ae41d052a7cbd'
export const CLOUDFLARE_SPECIALS = 'f90712123fb02287348dd34c0a282bb9'

/** A migration's switch-over, two minutes as by default: migrationZone moves the clock past it. */
const SWITCH_MS = 2 * 60_000
/** The source service's clock, which stands still unless a test moves it. */
const sourceClock = new FakeClock(Date.now())

/** A service to build zones on (its clock moved by the tests), and an empty one. */
export async function startSourceAndTarget(): Promise<{ source: Running; target: Running }> {
  const [source, target] = await Promise.all([
    startService(undefined, { migrationSwitchMs: SWITCH_MS, clock: sourceClock }),
    startService(),
  ])
  return { source, target }
}

/** Stops services and removes their data dirs. */
export async function stopAndRemove(...services: Running[]): Promise<void> {
  for (const running of services) {
    await running.stop()
    removeDataDir(running.dataDir)
  }
}

export const EXPRESSIONS = {
  skip: 'http.request.uri.path eq "/api/upload" and http.request.method eq "POST"',
  owasp: 'http.host eq "managed.example"',
  admin: 'http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24}',
  templated: 'http.request.uri.query contains "${jndi" or http.user_agent contains "%{x}\\\\"',
}

/** Managed rulesets with overrides and a skip rule, a custom ruleset, filters, firewall rules. */
export async function managedZone(on: Running, name: string): Promise<string> {
  const zone = (await on.ok('/zones', post({ name, plan: 'enterprise' }))).id
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
          expression: EXPRESSIONS.admin,
          description: 'admin from the office only',
          ref: 'admin-office',
        },
        { action: 'log', expression: EXPRESSIONS.templated, enabled: false },
      ],
    }),
  )
  await on.ok(
    `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`,
    put({
      rules: [
        {
          action: 'execute',
          expression: 'true',
          description: 'the custom ruleset',
          action_parameters: { id: custom.id },
        },
      ],
    }),
  )
  await on.ok(
    `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    put({
      rules: [
        {
          action: 'skip',
          expression: EXPRESSIONS.skip,
          description: 'uploads skip the anomaly score',
          action_parameters: { rules: { [OWASP]: [OWASP_ANOMALY] } },
          logging: { enabled: true },
        },
        {
          action: 'execute',
          expression: 'true',
          description: 'general',
          action_parameters: {
            id: GENERAL,
            overrides: {
              categories: [{ category: 'joomla', action: 'block', enabled: true }],
            },
          },
        },
        {
          action: 'execute',
          expression: EXPRESSIONS.owasp,
          action_parameters: {
            id: OWASP,
            matched_data: { public_key: PUBLIC_KEY },
            overrides: {
              categories: [{ category: 'paranoia-level-3', enabled: false }],
              rules: [{ id: OWASP_ANOMALY, score_threshold: 60, action: 'managed_challenge' }],
            },
          },
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
      { expression: 'ip.src eq 203.0.113.9', description: 'unused' },
    ]),
  )
  await on.ok(
    `/zones/${zone}/firewall/rules`,
    post([
      { action: 'block', priority: 1, filter: { id: filters[0].id }, description: 'scanner' },
      { action: 'bypass', products: ['waf'], filter: { id: filters[1].id }, paused: true },
      { action: 'log', priority: 5, filter: { id: filters[2].id }, ref: 'curl' },
    ]),
  )
  return zone
}

/** The previous product's packages as a user tunes them: OWASP settings, a group's and a rule's
 * mode off their defaults, and a URI override. */
export async function previousPackages(on: Running, zone: string, name: string): Promise<void> {
  const waf = `/zones/${zone}/firewall/waf`
  await on.ok(
    `${waf}/packages/${OWASP_PACKAGE}`,
    patch({ sensitivity: 'low', action_mode: 'block' }),
  )
  await on.ok(
    `${waf}/packages/${OWASP_PACKAGE}/groups/${OWASP_GENERIC_ATTACKS}`,
    patch({ mode: 'off' }),
  )
  const [rule] = await on.ok(`${waf}/packages/${TRADITIONAL_PACKAGE}/rules?per_page=5`)
  const mode = rule.allowed_modes.find((m: string) => m !== rule.mode && m !== 'default')
  await on.ok(`${waf}/packages/${TRADITIONAL_PACKAGE}/rules/${rule.id}`, patch({ mode }))
  await on.ok(
    `${waf}/overrides`,
    post({
      urls: [`${name}/api/*`],
      rules: { [rule.id]: 'simulate' },
      groups: { [CLOUDFLARE_SPECIALS]: 'disable' },
      rewrite_action: { block: 'challenge' },
      description: 'API',
      priority: 2,
    }),
  )
}

/** A zone on the previous product: package settings, group and rule modes, a URI override. */
export async function previousZone(on: Running, name: string): Promise<string> {
  const zone = (await on.ok('/zones', post({ name, plan: 'business', waf_product: 'previous' }))).id
  await previousPackages(on, zone, name)
  await on.ok(`/zones/${zone}/settings/waf`, patch({ value: 'off' }))
  await on.ok(
    `/zones/${zone}/pagerules`,
    post({
      targets: [{ target: 'url', constraint: { operator: 'matches', value: `${name}/static/*` } }],
      actions: [{ id: 'disable_security' }],
      priority: 1,
      status: 'active',
    }),
  )
  const [filter] = await on.ok(
    `/zones/${zone}/filters`,
    post([{ expression: 'http.request.uri.path eq "/legacy"' }]),
  )
  await on.ok(
    `/zones/${zone}/firewall/rules`,
    post([{ action: 'bypass', products: ['waf'], filter: { id: filter.id } }]),
  )
  return zone
}

/**
 * A zone on the previous product whose migration is in validation, or completed: on the source
 * service, whose clock is moved past the switch-over.
 */
export async function migrationZone(
  on: Running,
  name: string,
  mode: 'validation' | 'pending',
): Promise<string> {
  const zone = (await on.ok('/zones', post({ name, plan: 'enterprise', waf_product: 'previous' })))
    .id
  const config = await on.ok(`/zones/${zone}/waf_migration/config?phase_two=1`)
  await on.ok(
    `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=${mode}&phase_two=1`,
    put(config),
  )
  if (mode === 'pending') {
    await sourceClock.advance(SWITCH_MS)
    const status = await on.ok(`/zones/${zone}/waf_migration/status`)
    expect(status.migration_state).toBe('completed')
  }
  return zone
}
