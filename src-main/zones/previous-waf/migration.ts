// The migration from the previous product to managed rulesets
// (docs/vendor-behaviour.md#migration-api): where a zone stands, whether it may migrate, and the
// managed-phase entry point equivalent to its settings. Everything here reads a snapshot of the
// zone's settings; ZoneConfiguration runs the transitions.
//
// What carries over, and how:
//   - firewall rules with Bypass > WAF Managed Rules become skip rules (`ruleset: current`) with
//     the filter's expression, ahead of the deployments;
//   - page rules with Disable Security or Web Application Firewall: Off become skip rules for their
//     URL pattern, except where a page rule of higher priority matches (only one page rule applies
//     to a request); with the zone's WAF off, Web Application Firewall: On page rules become the
//     scope of the deployments;
//   - the OWASP package's sensitivity and action become the core ruleset's paranoia level, score
//     threshold and anomaly action (the vendor's table decides: Medium and Low give PL1, High and
//     Default PL2);
//   - group and rule modes of the packages do not carry over: they are listed to be recreated.

import { badRequest } from '@shared/api/errors'
import {
  MANAGED_RULESET_IDS,
  OWASP_ANOMALY_RULE_ID,
  type Overrides,
  type RuleBody,
} from '@shared/api/rulesets'
import {
  describeTarget,
  type MigrationCheck,
  type MigrationConfig,
  type MigrationState,
  type MigrationStatus,
  type NotMigrated,
  type PageRule,
  type SensitivityMapping,
  type WafOverride,
} from '@shared/api/waf'
import { orderFirewallRules, type EngineFirewallRule } from '../../engine'
import { inPrecedence, pageRuleTargetExpression, wafEffect } from '../page-rules/page-rules'
import type { ZoneObject, ZoneRecord } from '../zone-object'
import { allowedModes, type LegacyCatalog } from './catalog'
import type { PreviousWafSettings } from './store'
import { MIGRATION_ERRORS } from '@shared/api/error-codes'

/**
 * The vendor's limits on what the migration carries over (docs/vendor-behaviour.md#migration-api).
 */
export const MIGRATION_LIMITS = { firewallRules: 200, expressionBytes: 4096 } as const

/** How long a migration's switch-over takes unless the environment says otherwise. */
export const DEFAULT_SWITCH_MS = 2 * 60 * 1000

/** A zone's settings as the migration reads them. */
export interface MigrationSnapshot {
  record: ZoneRecord
  settings: PreviousWafSettings
  overrides: WafOverride[]
  firewallRules: EngineFirewallRule[]
  pageRules: PageRule[]
  groupModes: Map<string, Map<string, string>>
  ruleModes: Map<string, Map<string, string>>
}

/** Reads what the migration needs from the zone's object. */
export function migrationSnapshot(
  zone: ZoneObject,
  record: ZoneRecord,
  catalog: LegacyCatalog,
): MigrationSnapshot {
  const byPackage = (modes: (packageId: string) => Map<string, string>) =>
    new Map(catalog.packages.map((pkg) => [pkg.id, modes(pkg.id)]))
  return {
    record,
    settings: zone.previousWaf.settings(),
    overrides: zone.previousWaf.overrides(),
    firewallRules: zone.firewallRulesWithFilters(),
    pageRules: zone.pageRules.list(),
    groupModes: byPackage((id) => zone.previousWaf.groupModes(id)),
    ruleModes: byPackage((id) => zone.previousWaf.ruleModes(id)),
  }
}

/** Whether the zone runs, or ran until its migration, the previous product. */
export function ranPreviousProduct(snapshot: Pick<MigrationSnapshot, 'record' | 'settings'>) {
  return snapshot.record.waf_product === 'previous' || snapshot.settings.migration_created !== null
}

/** A zone created on managed rulesets stands where a migrated zone does. */
export function migrationState(record: ZoneRecord, settings: PreviousWafSettings): MigrationState {
  return record.waf_product === 'managed_rulesets' ? 'completed' : settings.migration_state
}

/** Whether the previous product still runs for the zone (before and during its migration). */
export function previousProductRuns(state: MigrationState): boolean {
  return state !== 'completed'
}

/** Whether the managed phase runs for the zone (from validation mode on). */
export function managedRulesetsRun(state: MigrationState): boolean {
  return state !== 'start'
}

export function checkMigration(snapshot: MigrationSnapshot): MigrationCheck {
  const state = migrationState(snapshot.record, snapshot.settings)
  const reasons: string[] = []
  if (state === 'completed') {
    reasons.push(
      snapshot.record.waf_product === 'managed_rulesets' && snapshot.settings.migration_created
        ? 'The zone has already migrated to WAF managed rulesets.'
        : 'The zone uses WAF managed rulesets; it has nothing to migrate.',
    )
  } else if (state === 'pending') {
    reasons.push(
      `The migration is underway: the switch-over completes at ${new Date(snapshot.settings.migration_switch_at ?? 0).toISOString()}.`,
    )
  } else if (snapshot.overrides.length > 0) {
    reasons.push(
      `The zone has ${snapshot.overrides.length} URI-based WAF override${snapshot.overrides.length === 1 ? '' : 's'}: delete ${snapshot.overrides.length === 1 ? 'it' : 'them'} with Delete a WAF override (DELETE /zones/${snapshot.record.id}/firewall/waf/overrides/{id}) first.`,
    )
  }
  return { compatible: reasons.length === 0, migration_state: state, reasons }
}

export function migrationStatus(
  record: ZoneRecord,
  settings: PreviousWafSettings,
): MigrationStatus {
  const state = migrationState(record, settings)
  return {
    created: settings.migration_created,
    migration_state: state,
    old_waf_status: previousProductRuns(state) && settings.waf === 'on' ? 'enabled' : 'disabled',
    new_waf_status: managedRulesetsRun(state) ? 'enabled' : 'disabled',
    source: settings.migration_source,
    switch_at:
      state === 'pending' && settings.migration_switch_at !== null
        ? new Date(settings.migration_switch_at).toISOString()
        : null,
  }
}

const PARANOIA_TAGS = ['paranoia-level-2', 'paranoia-level-3', 'paranoia-level-4']

/** The vendor's sensitivity table (High is the package's default, so Default maps alike). */
export function owaspMapping(settings: PreviousWafSettings): SensitivityMapping {
  const { sensitivity, action_mode } = settings
  const action = action_mode === 'simulate' ? 'log' : action_mode
  if (sensitivity === 'off') {
    return { sensitivity, action_mode, paranoia_level: null, score_threshold: null, action: null }
  }
  const [paranoia_level, score_threshold] = (
    { high: [2, 40], medium: [1, 25], low: [1, 40] } as const
  )[sensitivity]
  return { sensitivity, action_mode, paranoia_level, score_threshold, action }
}

function owaspOverrides(mapping: SensitivityMapping): Overrides | undefined {
  if (mapping.paranoia_level === null) return undefined
  return {
    categories: PARANOIA_TAGS.slice(mapping.paranoia_level - 1).map((category) => ({
      category,
      enabled: false,
    })),
    rules: [
      {
        id: OWASP_ANOMALY_RULE_ID,
        action: mapping.action!,
        score_threshold: mapping.score_threshold!,
      },
    ],
  }
}

/** A new rule as the migration writes it: identity and versions left empty. */
const migratedRule = (rule: Omit<RuleBody, 'id' | 'version' | 'ref'>): RuleBody => ({
  id: '',
  version: '',
  ref: '',
  enabled: true,
  ...rule,
})

/** The firewall rules that carry over: active ones that bypass the WAF. */
function bypassRules(snapshot: MigrationSnapshot): EngineFirewallRule[] {
  return orderFirewallRules(snapshot.firewallRules).filter(
    (rule) =>
      rule.action === 'bypass' &&
      rule.products?.includes('waf') === true &&
      !rule.paused &&
      !rule.filter.paused,
  )
}

/** `rule`'s URL pattern, where no page rule of higher precedence matches. */
function pageRuleScope(rule: PageRule, higher: readonly PageRule[]): string {
  const own = pageRuleTargetExpression(rule.targets[0]!)
  const excluded = higher.map((h) => `not (${pageRuleTargetExpression(h.targets[0]!)})`)
  return [own, ...excluded].join(' and ')
}

/** The managed-phase entry point equivalent to the zone's settings of the previous product. */
export function migrationConfig(snapshot: MigrationSnapshot): MigrationConfig {
  if (!ranPreviousProduct(snapshot)) {
    throw badRequest(
      MIGRATION_ERRORS.nothingToMigrate,
      'This zone does not use the previous WAF managed rules: there is nothing to migrate.',
    )
  }
  const bypass = bypassRules(snapshot)
  if (bypass.length > MIGRATION_LIMITS.firewallRules) {
    throw badRequest(
      MIGRATION_ERRORS.tooManyFirewallRules,
      `The zone has ${bypass.length} firewall rules to migrate, more than the ${MIGRATION_LIMITS.firewallRules} the migration takes: contact Cloudflare support to migrate this zone.`,
    )
  }
  const tooLong = bypass.find(
    (rule) => Buffer.byteLength(rule.filter.expression) > MIGRATION_LIMITS.expressionBytes,
  )
  if (tooLong !== undefined) {
    throw badRequest(
      MIGRATION_ERRORS.expressionTooLong,
      `The expression of firewall rule ${tooLong.id} is longer than 4 KB, more than the migration takes: contact Cloudflare support to migrate this zone.`,
    )
  }
  const rules: RuleBody[] = bypass.map((rule) =>
    migratedRule({
      action: 'skip',
      expression: rule.filter.expression,
      description: `Migrated from firewall rule ${rule.id} (Bypass > WAF Managed Rules)${rule.description ? `: ${rule.description}` : ''}`,
      action_parameters: { ruleset: 'current' },
    }),
  )
  const pageRules = inPrecedence(snapshot.pageRules)
  const wafOn: string[] = []
  pageRules.forEach((rule, index) => {
    const effect = wafEffect(rule)
    const pattern = describeTarget(rule.targets[0]!)
    const scope = pageRuleScope(rule, pageRules.slice(0, index))
    if (effect === 'waf_on') wafOn.push(`(${scope})`)
    if (effect !== 'disable_security' && effect !== 'waf_off') return
    rules.push(
      migratedRule({
        action: 'skip',
        expression: scope,
        description: `Migrated from page rule ${rule.id} (${pattern}: ${effect === 'disable_security' ? 'Disable Security' : 'Web Application Firewall: Off'})`,
        action_parameters: { ruleset: 'current' },
      }),
    )
  })
  // With the WAF off for the zone, the deployments run only where a page rule turns it on.
  const wafIsOn = snapshot.settings.waf === 'on'
  const scope = wafIsOn ? 'true' : wafOn.length > 0 ? wafOn.join(' or ') : 'true'
  const deployed = wafIsOn || wafOn.length > 0
  const mapping = owaspMapping(snapshot.settings)
  const overrides = owaspOverrides(mapping)
  rules.push(
    migratedRule({
      action: 'execute',
      expression: scope,
      description: 'Cloudflare Managed Ruleset',
      enabled: deployed,
      action_parameters: { id: MANAGED_RULESET_IDS.general },
    }),
    migratedRule({
      action: 'execute',
      expression: scope,
      description: 'Cloudflare OWASP Core Ruleset',
      enabled: deployed && mapping.paranoia_level !== null,
      action_parameters: {
        id: MANAGED_RULESET_IDS.owasp,
        ...(overrides === undefined ? {} : { overrides }),
      },
    }),
  )
  return { name: 'default', rules }
}

/** One line per legacy setting the configuration carries over. */
export function carriedOver(snapshot: MigrationSnapshot): string[] {
  const lines = bypassRules(snapshot).map(
    (rule) => `Firewall rule ${rule.id} (Bypass > WAF Managed Rules) → a skip rule`,
  )
  for (const rule of inPrecedence(snapshot.pageRules)) {
    const effect = wafEffect(rule)
    const pattern = describeTarget(rule.targets[0]!)
    if (effect === 'disable_security' || effect === 'waf_off')
      lines.push(
        `Page rule ${pattern} (${effect === 'disable_security' ? 'Disable Security' : 'WAF off'}) → a skip rule`,
      )
    else if (effect === 'waf_on' && snapshot.settings.waf === 'off')
      lines.push(`Page rule ${pattern} (WAF on) → the scope of the deployments`)
  }
  const mapping = owaspMapping(snapshot.settings)
  lines.push(
    mapping.paranoia_level === null
      ? 'OWASP sensitivity off → the OWASP core ruleset is deployed disabled'
      : `OWASP sensitivity ${mapping.sensitivity} → paranoia level ${mapping.paranoia_level}, score threshold ${mapping.score_threshold}; action ${mapping.action_mode} → ${mapping.action}`,
  )
  if (snapshot.settings.waf === 'off')
    lines.push("The zone's WAF is off → the deployments run only where a page rule turns it on")
  return lines
}

/** Group and rule modes that differ from the catalog's: not migrated, to be recreated. */
export function notMigrated(snapshot: MigrationSnapshot, catalog: LegacyCatalog): NotMigrated[] {
  const list: NotMigrated[] = []
  for (const pkg of catalog.packages) {
    /** A changed mode of a group or rule the catalog holds (`known`: its name and default). */
    const add = (
      kind: NotMigrated['kind'],
      id: string,
      mode: string,
      known: Pick<NotMigrated, 'name' | 'default_mode'> | undefined,
    ) => {
      if (known === undefined) return
      list.push({
        kind,
        package_id: pkg.id,
        id,
        name: known.name,
        mode,
        default_mode: known.default_mode,
      })
    }
    for (const [groupId, mode] of snapshot.groupModes.get(pkg.id) ?? []) {
      const group = catalog.group(pkg.id, groupId)
      add('group_mode', groupId, mode, group && { name: group.name, default_mode: group.mode })
    }
    for (const [ruleId, mode] of snapshot.ruleModes.get(pkg.id) ?? []) {
      const rule = catalog.rule(pkg.id, ruleId)
      add(
        'rule_mode',
        ruleId,
        mode,
        rule && {
          name: rule.description,
          default_mode: allowedModes(rule.kind).includes('default') ? 'default' : rule.default_mode,
        },
      )
    }
  }
  return list
}
