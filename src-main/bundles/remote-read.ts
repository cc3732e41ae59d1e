// A remote zone's configuration as a bundle carries it, read through the vendor's v4 API: the
// same resources an export holds (read.ts), each kept to the bundle's fields. What the vendor's
// API does not show (the workbench's firewall rule quota and event log caps) is the caller's.

import {
  BundleFilter,
  BundleFirewallRule,
  BundlePageRule,
  BundleRule,
  BundleRuleset,
  BundleWafOverride,
  type BundleContent,
  type BundlePreviousWaf,
} from '@shared/api/bundle'
import { badRequest } from '@shared/api/errors'
import { type RemoteTarget } from '@shared/api/remote'
import { PHASES } from '@shared/api/rulesets'
import type { WafGroup, WafRule } from '@shared/api/waf'
import type { Zone } from '@shared/api/zones'
import type { LegacyCatalog } from '../zones/previous-waf/catalog'
import { refusedRead, type RemoteClient } from './remote-client'
import { REMOTE_ERRORS } from '@shared/api/error-codes'

/** The remote's configuration: a bundle's content but for the workbench's own settings. */
export type RemoteContent = Omit<BundleContent, 'firewall_settings' | 'event_log_settings'>

type Loose = Record<string, unknown>

/** `value`'s properties named by `keys` that it has (a bundle never holds an undefined). */
function pick<T>(value: Loose, keys: readonly string[]): T {
  return Object.fromEntries(
    keys.filter((key) => value[key] !== undefined).map((key) => [key, value[key]]),
  ) as T
}

const keysOf = (schema: { properties: object }) => Object.keys(schema.properties)
const PACKAGE_KEYS = [
  'id',
  'name',
  'description',
  'detection_mode',
  'zone_id',
  'status',
  'sensitivity',
  'action_mode',
]
const MIGRATION_KEYS = [
  'created',
  'migration_state',
  'old_waf_status',
  'new_waf_status',
  'source',
  'switch_at',
]

/** The remote zone the target names: by id, or by name. */
export async function findRemoteZone(
  client: RemoteClient,
  target: RemoteTarget,
  fallbackName: string | undefined,
): Promise<Zone> {
  if (target.zone_id !== undefined) {
    const path = `/zones/${target.zone_id}`
    const { status, envelope } = await client.call('GET', path)
    if (envelope.success) return envelope.result as Zone
    if (status === 404) throw zoneNotFound(`of id ${target.zone_id}`, '/zone_id')
    throw refusedRead(`GET ${path}`, status, envelope)
  }
  const name = target.zone_name ?? fallbackName
  if (name === undefined) {
    throw badRequest(REMOTE_ERRORS.target, 'A remote needs zone_id or zone_name', {
      source: { pointer: '/zone_name' },
    })
  }
  const [zone] = await client.get<Zone[]>(`/zones?name=${encodeURIComponent(name)}`)
  if (zone === undefined || zone.name !== name) throw zoneNotFound(`named ${name}`, '/zone_name')
  return zone
}

const zoneNotFound = (which: string, pointer: string) =>
  badRequest(REMOTE_ERRORS.zoneNotFound, `The remote holds no zone ${which}`, {
    source: { pointer },
  })

/** Everything a bundle carries of `zone`, read from the remote. */
export async function readRemote(
  client: RemoteClient,
  zone: Zone,
  catalog: LegacyCatalog,
): Promise<RemoteContent> {
  const at = `/zones/${zone.id}`
  const wafProduct = zone.waf_product ?? 'managed_rulesets'
  const summaries = await client.cursorPages<Loose>(`${at}/rulesets`)
  const own = summaries.filter(
    (ruleset) =>
      (ruleset.kind === 'zone' || ruleset.kind === 'custom') &&
      (PHASES as readonly unknown[]).includes(ruleset.phase),
  )
  const rulesets = await Promise.all(
    own.map(async (summary) => {
      const ruleset = await client.get<Loose & { rules?: Loose[] }>(
        `${at}/rulesets/${String(summary.id)}`,
      )
      return pick<BundleRuleset>(
        {
          ...ruleset,
          rules: (ruleset.rules ?? []).map((rule) => pick(rule, keysOf(BundleRule))),
        },
        keysOf(BundleRuleset),
      )
    }),
  )
  const [filters, firewallRules, pageRules] = await Promise.all([
    client.pages<Loose>(`${at}/filters`),
    client.pages<Loose & { filter: { id: string } }>(`${at}/firewall/rules`),
    client.get<Loose[]>(`${at}/pagerules`),
  ])
  const content: RemoteContent = {
    zone: {
      id: zone.id,
      name: zone.name,
      type: zone.type,
      plan: zone.plan.legacy_id,
      paused: zone.paused,
      waf_product: wafProduct,
      created_on: zone.created_on,
      modified_on: zone.modified_on,
    },
    rulesets,
    filters: filters.map((filter) => pick<BundleFilter>(filter, keysOf(BundleFilter))),
    firewall_rules: firewallRules.map((rule) =>
      pick<BundleFirewallRule>(
        { ...rule, filter: { id: rule.filter.id } },
        keysOf(BundleFirewallRule),
      ),
    ),
    page_rules: pageRules.map((rule) => pick<BundlePageRule>(rule, keysOf(BundlePageRule))),
  }
  if (wafProduct !== 'previous') return content
  const status = await client.get<Loose>(`${at}/waf_migration/status`)
  const migration =
    status.migration_state === 'start' || status.created === null
      ? {}
      : { waf_migration: pick<BundleContent['waf_migration']>(status, MIGRATION_KEYS) }
  return {
    ...content,
    previous_waf: await readPreviousWaf(client, at, catalog),
    ...migration,
  }
}

/** The previous product's settings, with only the groups and rules not in their default mode. */
async function readPreviousWaf(
  client: RemoteClient,
  at: string,
  catalog: LegacyCatalog,
): Promise<BundlePreviousWaf> {
  const [setting, packages, overrides] = await Promise.all([
    client.get<Loose>(`${at}/settings/waf`),
    client.pages<Loose & { id: string }>(`${at}/firewall/waf/packages`),
    client.pages<Loose>(`${at}/firewall/waf/overrides`),
  ])
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  const groups: BundlePreviousWaf['groups'] = []
  const rules: BundlePreviousWaf['rules'] = []
  for (const pkg of packages) {
    const [pkgGroups, pkgRules] = await Promise.all([
      client.pages<WafGroup>(`${at}/firewall/waf/packages/${pkg.id}/groups`),
      client.pages<WafRule>(`${at}/firewall/waf/packages/${pkg.id}/rules`),
    ])
    for (const group of pkgGroups.sort(byId)) {
      const known = catalog.group(pkg.id, group.id)
      if (group.mode !== (known?.mode ?? 'on')) {
        groups.push({ id: group.id, package_id: pkg.id, mode: group.mode })
      }
    }
    for (const rule of pkgRules.sort(byId)) {
      const known = catalog.rule(pkg.id, rule.id)
      const defaultMode =
        known === undefined || known.kind === 'deny' ? 'default' : known.default_mode
      if (rule.mode !== defaultMode)
        rules.push({ id: rule.id, package_id: pkg.id, mode: rule.mode })
    }
  }
  return {
    setting: pick(setting, ['id', 'value', 'editable', 'modified_on']),
    packages: packages.map((pkg) => pick(pkg, PACKAGE_KEYS)),
    groups,
    rules,
    overrides: overrides.map((override) => pick(override, keysOf(BundleWafOverride))),
  }
}
