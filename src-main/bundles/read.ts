// A zone's configuration as a bundle carries it, read in the zone's object through the same
// parts the API answers from, so the bundle shows what the API shows.

import type { BundleContent, BundlePreviousWaf, BundleRuleset } from '@shared/api/bundle'
import type { EventLogLimits } from '@shared/api/simulate'
import type { ZoneParts } from '../zones/configuration'
import { migrationStatus } from '../zones/previous-waf/migration'
import type { ZoneObject, ZoneRecord } from '../zones/zone-object'

/** Everything of the zone but its event log's caps, which live in another object. */
export type ZoneContent = Omit<BundleContent, 'event_log_settings'>

export function readConfiguration(
  zone: ZoneObject,
  record: ZoneRecord,
  parts: ZoneParts,
): ZoneContent {
  return {
    zone: {
      id: record.id,
      name: record.name,
      type: record.type,
      plan: record.plan,
      paused: record.paused,
      waf_product: record.waf_product,
      created_on: record.created_on,
      modified_on: record.modified_on,
    },
    // A zone's object holds entry points (kind zone) and custom rulesets only.
    rulesets: zone.rulesets.list() as BundleRuleset[],
    filters: zone.firewall.filters(),
    firewall_rules: zone.firewall.rules().map(({ filter_id, ...rule }) => ({
      ...rule,
      filter: { id: filter_id },
    })),
    firewall_settings: { rule_quota: zone.firewall.ruleQuota() ?? null },
    page_rules: zone.pageRules.list(),
    samples: zone.samples.list(),
    ...(record.waf_product === 'previous' ? { previous_waf: readPreviousWaf(zone, parts) } : {}),
    ...readMigration(zone, record),
  }
}

/** The migration's status, once it has begun (a zone that never ran the previous product has none). */
function readMigration(zone: ZoneObject, record: ZoneRecord): Pick<ZoneContent, 'waf_migration'> {
  const { created, migration_state, ...status } = migrationStatus(
    record,
    zone.previousWaf.settings(),
  )
  if (created === null || migration_state === 'start') return {}
  return { waf_migration: { ...status, created, migration_state } }
}

function readPreviousWaf(zone: ZoneObject, parts: ZoneParts): BundlePreviousWaf {
  const api = parts.previousWaf()
  const packages = api.packages()
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  return {
    setting: api.setting(),
    packages,
    groups: packages.flatMap((pkg) =>
      [...zone.previousWaf.groupModes(pkg.id)]
        .map(([id, mode]) => ({ id, package_id: pkg.id, mode }))
        .sort(byId),
    ),
    rules: packages.flatMap((pkg) =>
      [...zone.previousWaf.ruleModes(pkg.id)]
        .map(([id, mode]) => ({ id, package_id: pkg.id, mode }))
        .sort(byId),
    ),
    overrides: api.overrides(),
  }
}

/** The caps as the bundle carries them. */
export const eventLogSettings = ({ max_events, max_bytes }: EventLogLimits) => ({
  max_events,
  max_bytes,
})
