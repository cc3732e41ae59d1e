// Makes a zone's configuration equal to a bundle's, inside one change of the zone's object,
// through the same parts the API writes with: everything is checked exactly as the API checks
// it. What the bundle creates keeps the bundle's ids and times; what it changes is updated as an
// API call would update it (versions move on, times are now). A refusal throws, with its pointer
// moved into the bundle, and the caller's transaction leaves nothing written.

import type {
  BundleContent,
  BundleFilter,
  BundleFirewallRule,
  BundleMigration,
  BundlePreviousWaf,
  BundleWafOverride,
} from '@shared/api/bundle'
import type { ApiMessage } from '@shared/api/envelope'
import { ApiError } from '@shared/api/errors'
import { contentKey } from '@shared/sorted-keys'
import type { FirewallRuleBulkUpdate } from '@shared/api/firewall'
import type { Identities, ZoneParts } from '../zones/configuration'
import { RefusedAfterWrite } from '../zones/problems'
import type { ZoneObject } from '../zones/zone-object'
import { sameContent } from './diff'
import type { ZoneContent } from './read'

/** `error` as a refusal of the bundle: each pointer moved by `where` into the bundle. */
function relocated(error: ApiError, where: (pointer: string) => string): ApiError {
  const move = (message: ApiMessage): ApiMessage => ({
    ...message,
    source: { pointer: where(message.source?.pointer ?? '') },
  })
  const [first, ...alongside] = error.toMessages().map(move)
  const { code, message, ...details } = first!
  // A 404 here is an id the bundle names that does not exist: a fault of the request body.
  return new ApiError(error.status === 404 ? 400 : error.status, code, message, details, alongside)
}

/** Runs `work`, refusing what it refuses at the place `where` gives in the bundle. */
function within<R>(where: (pointer: string) => string, work: () => R): R {
  try {
    return work()
  } catch (error) {
    // The whole import is refused: nothing a part wrote before refusing may stay.
    const refusal = error instanceof RefusedAfterWrite ? error.error : error
    if (!(refusal instanceof ApiError)) throw error
    throw relocated(refusal, where)
  }
}

/** Runs `work` on one resource at `prefix` in the bundle (its pointers are the resource's). */
const at = <R>(prefix: string, work: () => R): R => within((pointer) => `${prefix}${pointer}`, work)

/**
 * Runs `work` on a batch of a list's resources, given to a part as an array: the part's
 * pointers `/k/…` name the k-th of the batch, at `indices[k]` of the bundle's `list`.
 */
function inBatch<R>(list: string, indices: readonly number[], work: () => R): R {
  return within((pointer) => {
    const [, k, rest = ''] = /^\/(\d+)(.*)$/.exec(pointer) ?? []
    return k === undefined ? `/${list}` : `/${list}/${indices[Number(k)]}${rest}`
  }, work)
}

/** Consecutive runs of `items` for which `key` is the same. */
function runs<T>(items: readonly T[], key: (item: T) => string): T[][] {
  const grouped: T[][] = []
  for (const item of items) {
    const last = grouped.at(-1)
    if (last !== undefined && key(last[0]!) === key(item)) last.push(item)
    else grouped.push([item])
  }
  return grouped
}

const byId = <T extends { id: string }>(list: readonly T[]) =>
  new Map(list.map((item) => [item.id, item]))

/** Gives each id of `ids` in turn, all at `time`: what a part creates keeps the bundle's identity. */
function given(ids: readonly string[], time: string): Identities {
  let next = 0
  return { newId: () => ids[next++]!, timestamp: () => time }
}

/** A firewall rule as PUT …/firewall/rules takes it. */
export const ruleBody = (rule: BundleFirewallRule): FirewallRuleBulkUpdate => ({
  id: rule.id,
  action: rule.action,
  priority: rule.priority,
  paused: rule.paused,
  ...(rule.description === undefined ? {} : { description: rule.description }),
  ...(rule.ref === undefined ? {} : { ref: rule.ref }),
  ...(rule.products === undefined ? {} : { products: rule.products }),
  filter: { id: rule.filter.id },
})

/** A filter as POST …/filters takes it. */
export const filterBody = ({ id: _id, ...filter }: BundleFilter) => filter

/**
 * Brings the zone from `before` (as read in this change) to `after`. `parts` answer for the
 * zone as its record now stands (its plan already the bundle's).
 */
export function applyConfiguration(
  zone: ZoneObject,
  parts: ZoneParts,
  before: ZoneContent,
  after: Omit<BundleContent, 'event_log_settings'>,
): void {
  if (before.waf_migration === undefined && after.waf_migration !== undefined) {
    // Before the rulesets: a migration that has begun allows managed deployments.
    startedMigration(zone, after.waf_migration)
  }
  applyFirewall(parts, before, after)
  applyRulesets(parts, before, after)
  applyPageRules(parts, before, after)
  applySamples(zone, before, after)
  if (after.previous_waf !== undefined) {
    applyPreviousWaf(zone, parts, before.previous_waf, after.previous_waf)
  }
}

/** A zone created with its migration where the bundle says it stands. */
function startedMigration(zone: ZoneObject, migration: BundleMigration): void {
  const switchAt = migration.switch_at === null ? null : Date.parse(migration.switch_at)
  zone.previousWaf.saveSettings({
    migration_state: migration.migration_state,
    migration_created: migration.created,
    migration_source: migration.source,
    migration_switch_at: switchAt,
  })
  if (migration.migration_state === 'pending' && switchAt !== null) zone.wakeBy(switchAt)
}

function applyFirewall(parts: ZoneParts, before: ZoneContent, after: ZoneContent): void {
  const oldRules = byId(before.firewall_rules)
  const oldFilters = byId(before.filters)
  const keptRules = new Set(after.firewall_rules.map((rule) => rule.id))
  const keptFilters = new Set(after.filters.map((filter) => filter.id))
  const gone = before.firewall_rules.filter((rule) => !keptRules.has(rule.id))
  if (gone.length > 0) parts.firewallRules().deleteRules(gone.map((rule) => rule.id))

  // What is new is created in batches (a rule's times are the batch's), as the API created it.
  const newFilters = after.filters.flatMap((filter, index) =>
    oldFilters.has(filter.id) ? [] : [{ filter, index }],
  )
  if (newFilters.length > 0) {
    inBatch(
      'filters',
      newFilters.map(({ index }) => index),
      () =>
        parts
          .filters(
            given(
              newFilters.map(({ filter }) => filter.id),
              '',
            ),
          )
          .createFilters(newFilters.map(({ filter }) => filterBody(filter))),
    )
  }
  after.filters.forEach((filter, index) => {
    const old = oldFilters.get(filter.id)
    if (old === undefined || sameContent(old, filter)) return
    inBatch('filters', [index], () => parts.filters().updateFilters([filter]))
  })

  if (!sameContent(before.firewall_settings, after.firewall_settings)) {
    parts.firewallRules().setRuleQuota(after.firewall_settings.rule_quota)
  }
  const newRules = after.firewall_rules.flatMap((rule, index) =>
    oldRules.has(rule.id) ? [] : [{ rule, index }],
  )
  for (const batch of runs(newRules, ({ rule }) => `${rule.created_on} ${rule.modified_on}`)) {
    const [{ rule: first }] = batch as [(typeof batch)[number]]
    const rules = batch.map(({ rule }) => ruleBody(rule))
    inBatch(
      'firewall_rules',
      batch.map(({ index }) => index),
      () => {
        parts
          .firewallRules(
            given(
              rules.map((rule) => rule.id),
              first.created_on,
            ),
          )
          .createRules(rules)
        if (first.modified_on !== first.created_on) {
          parts.firewallRules(given([], first.modified_on)).updateRules(rules)
        }
      },
    )
  }
  after.firewall_rules.forEach((rule, index) => {
    const old = oldRules.get(rule.id)
    if (old === undefined || sameContent(old, rule)) return
    inBatch('firewall_rules', [index], () => parts.firewallRules().updateRules([ruleBody(rule)]))
  })

  const unused = before.filters.filter((filter) => !keptFilters.has(filter.id))
  if (unused.length > 0)
    within(
      () => '/filters',
      () => parts.filters().deleteFilters(unused.map((f) => f.id)),
    )
}

/**
 * Entry points the bundle drops go first (the bundle's own may take their phase), then every
 * ruleset of the bundle in its order (a custom ruleset before the rules that execute it), then
 * the custom rulesets it drops (no rule executes them any more).
 */
function applyRulesets(parts: ZoneParts, before: ZoneContent, after: ZoneContent): void {
  const kept = new Set(after.rulesets.map((ruleset) => ruleset.id))
  const dropped = before.rulesets.filter((ruleset) => !kept.has(ruleset.id))
  const rulesets = parts.rulesets()
  for (const ruleset of dropped.filter((r) => r.kind === 'zone')) rulesets.remove(ruleset.id)
  after.rulesets.forEach((ruleset, index) => {
    at(`/rulesets/${index}`, () => rulesets.adopt(ruleset))
  })
  for (const ruleset of dropped.filter((r) => r.kind !== 'zone')) rulesets.remove(ruleset.id)
}

function applyPageRules(parts: ZoneParts, before: ZoneContent, after: ZoneContent): void {
  const old = byId(before.page_rules)
  const kept = new Set(after.page_rules.map((rule) => rule.id))
  for (const rule of before.page_rules) {
    if (!kept.has(rule.id)) parts.pageRules().delete(rule.id)
  }
  after.page_rules.forEach((rule, index) => {
    const { id: _id, created_on: _created, modified_on: _modified, ...body } = rule
    const was = old.get(rule.id)
    at(`/page_rules/${index}`, () => {
      if (was === undefined) {
        parts.pageRules(given([rule.id], rule.created_on)).create(body)
        if (rule.modified_on !== rule.created_on) {
          parts.pageRules(given([], rule.modified_on)).edit(rule.id, body)
        }
      } else if (!sameContent(was, rule)) {
        parts.pageRules().edit(rule.id, body)
      }
    })
  })
}

/** Samples are the workbench's own: stored as the bundle has them, ids and times kept. */
function applySamples(zone: ZoneObject, before: ZoneContent, after: ZoneContent): void {
  if (after.samples === undefined) return
  const old = byId(before.samples ?? [])
  const kept = new Set(after.samples.map((sample) => sample.id))
  for (const sample of before.samples ?? []) {
    if (!kept.has(sample.id)) zone.samples.remove(sample.id)
  }
  for (const sample of after.samples) {
    if (contentKey(old.get(sample.id)) !== contentKey(sample)) zone.samples.write(sample)
  }
}

function applyPreviousWaf(
  zone: ZoneObject,
  parts: ZoneParts,
  before: BundlePreviousWaf | undefined,
  after: BundlePreviousWaf,
): void {
  const waf = at('/previous_waf', () => parts.previousWaf())
  const { setting } = after
  // Compared with its time: a new zone takes the setting's time too.
  if (contentKey(before?.setting) !== contentKey(setting)) {
    if (before === undefined || before.setting.modified_on === null) {
      // A new zone takes the bundle's setting as it was last written.
      zone.previousWaf.saveSettings({ waf: setting.value, waf_modified_on: setting.modified_on })
    } else if (before.setting.value !== setting.value) waf.editSetting(setting.value)
  }

  const known = byId(waf.packages())
  after.packages.forEach((pkg, index) => {
    const current = known.get(pkg.id)
    at(`/previous_waf/packages/${index}`, () => {
      if (current === undefined) waf.package(pkg.id)
      const edit = {
        ...(pkg.sensitivity === undefined || pkg.sensitivity === current?.sensitivity
          ? {}
          : { sensitivity: pkg.sensitivity }),
        ...(pkg.action_mode === undefined || pkg.action_mode === current?.action_mode
          ? {}
          : { action_mode: pkg.action_mode }),
      }
      if (Object.keys(edit).length > 0) waf.editPackage(pkg.id, edit)
    })
  })

  const key = (entry: { id: string; package_id: string }) => `${entry.package_id}/${entry.id}`
  const groups = new Map(after.groups.map((group) => [key(group), group]))
  for (const group of before?.groups ?? []) {
    if (!groups.has(key(group)))
      zone.previousWaf.setGroupMode(group.package_id, group.id, undefined)
  }
  const oldGroups = new Map((before?.groups ?? []).map((group) => [key(group), group.mode]))
  after.groups.forEach((group, index) => {
    if (oldGroups.get(key(group)) === group.mode) return
    at(`/previous_waf/groups/${index}`, () =>
      waf.editGroup(group.package_id, group.id, { mode: group.mode }),
    )
  })

  const rules = new Map(after.rules.map((rule) => [key(rule), rule]))
  for (const rule of before?.rules ?? []) {
    if (!rules.has(key(rule))) zone.previousWaf.setRuleMode(rule.package_id, rule.id, undefined)
  }
  const oldRules = new Map((before?.rules ?? []).map((rule) => [key(rule), rule.mode]))
  after.rules.forEach((rule, index) => {
    if (oldRules.get(key(rule)) === rule.mode) return
    at(`/previous_waf/rules/${index}`, () => waf.editRule(rule.package_id, rule.id, rule.mode))
  })

  applyOverrides(parts, before?.overrides ?? [], after.overrides)
}

function applyOverrides(
  parts: ZoneParts,
  before: readonly BundleWafOverride[],
  after: readonly BundleWafOverride[],
): void {
  const old = byId(before)
  const kept = new Set(after.map((override) => override.id))
  const waf = parts.previousWaf()
  for (const override of before) if (!kept.has(override.id)) waf.deleteOverride(override.id)
  after.forEach((override, index) => {
    const was = old.get(override.id)
    at(`/previous_waf/overrides/${index}`, () => {
      if (was === undefined) parts.previousWaf(given([override.id], '')).createOverride(override)
      else if (!sameContent(was, override)) waf.updateOverride(override.id, override)
    })
  })
}
