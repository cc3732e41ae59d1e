// What differs between two configurations of a zone, resource by resource: what an import
// changes, and (later) what a plan must call. Ids decide identity; times and version numbers are
// the bookkeeping of whoever wrote a resource, not its content, so they never make a change. A
// filter is compared on its own, and a firewall rule names its filter by id only, so a filter
// whose expression changed is one update of the filter and none of the rules using it.

import type {
  BundleContent,
  BundleResourceKind,
  BundleRule,
  BundleRuleset,
  ConfigurationChange,
} from '@shared/api/bundle'
import { contentKey } from '@shared/sorted-keys'

const BOOKKEEPING = new Set(['version', 'last_updated', 'created_on', 'modified_on'])

/** Whether two resources hold the same content, bookkeeping aside. */
export const sameContent = (a: object | undefined, b: object | undefined): boolean =>
  a === undefined || b === undefined ? a === b : contentKey(content(a)) === contentKey(content(b))

/** A resource's fields without its bookkeeping (times, version numbers). */
function content(resource: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(resource).filter(([key]) => !BOOKKEEPING.has(key)))
}

/** A value short enough to name in a summary, as text; undefined for one that is not. */
function shown(value: unknown): string | undefined {
  if (value === undefined) return '(none)'
  if (typeof value === 'string') return value.length <= 60 ? value : undefined
  return value !== null && typeof value === 'object' ? undefined : String(value)
}

/** e.g. "action: block → challenge, paused: false → true, expression changed" */
function fieldChanges(before: object, after: object, only?: readonly string[]): string {
  const a = content(before)
  const b = content(after)
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((key) => only === undefined || only.includes(key))
    .filter((key) => contentKey(a[key]) !== contentKey(b[key]))
    .map((key) => {
      const was = shown(a[key])
      const is = shown(b[key])
      return was === undefined || is === undefined ? `${key} changed` : `${key}: ${was} → ${is}`
    })
    .join(', ')
}

/** Changes of one kind of resource, matched by `idOf`, in `after`'s order then the deletions. */
function diffList<T extends { id: string }>(
  kind: BundleResourceKind,
  before: readonly T[],
  after: readonly T[],
  describe: {
    idOf?: (resource: T) => string
    name: (resource: T) => string
    created?: (resource: T) => string
    updated?: (was: T, is: T) => string
  },
): ConfigurationChange[] {
  const idOf = describe.idOf ?? ((resource: T) => resource.id)
  const old = new Map(before.map((resource) => [idOf(resource), resource]))
  const kept = new Set(after.map(idOf))
  const changes: ConfigurationChange[] = []
  for (const resource of after) {
    const id = idOf(resource)
    const was = old.get(id)
    if (was === undefined) {
      changes.push({
        kind,
        id,
        action: 'create',
        summary: describe.created?.(resource) ?? `${describe.name(resource)} created`,
      })
    } else if (contentKey(content(was)) !== contentKey(content(resource))) {
      changes.push({
        kind,
        id,
        action: 'update',
        summary: `${describe.name(resource)}: ${describe.updated?.(was, resource) ?? fieldChanges(was, resource)}`,
      })
    }
  }
  for (const resource of before) {
    const id = idOf(resource)
    if (!kept.has(id)) {
      changes.push({ kind, id, action: 'delete', summary: `${describe.name(resource)} deleted` })
    }
  }
  return changes
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`

/** e.g. "1 rule added, 2 changed, 1 removed, rules reordered" */
function rulesetChanges(was: BundleRuleset, is: BundleRuleset): string {
  const old = new Map(was.rules.map((rule) => [rule.id, rule]))
  const ids = new Set(is.rules.map((rule) => rule.id))
  const ruleKey = (rule: BundleRule) => contentKey(content(rule))
  const added = is.rules.filter((rule) => !old.has(rule.id)).length
  const changed = is.rules.filter((rule) => {
    const before = old.get(rule.id)
    return before !== undefined && ruleKey(before) !== ruleKey(rule)
  }).length
  const removed = was.rules.filter((rule) => !ids.has(rule.id)).length
  const keptOrder = (rules: BundleRule[], other: Set<string>) =>
    rules.filter((rule) => other.has(rule.id)).map((rule) => rule.id)
  const reordered =
    keptOrder(was.rules, ids).join() !== keptOrder(is.rules, new Set(old.keys())).join()
  return [
    added > 0 ? `${plural(added, 'rule')} added` : '',
    changed > 0 ? `${plural(changed, 'rule')} changed` : '',
    removed > 0 ? `${plural(removed, 'rule')} removed` : '',
    reordered ? 'rules reordered' : '',
    fieldChanges(was, is, ['name', 'description']),
  ]
    .filter((part) => part !== '')
    .join(', ')
}

const EMPTY: Omit<BundleContent, 'zone'> = {
  rulesets: [],
  filters: [],
  firewall_rules: [],
  firewall_settings: { rule_quota: null },
  page_rules: [],
  samples: [],
  event_log_settings: { max_events: 0, max_bytes: 0 },
}

/**
 * The changes that make a zone configured as `before` (none: a zone yet to be created) configured
 * as `after`: only what differs, each with its kind, id, action and a sentence saying what.
 */
export function diffConfigurations(
  before: BundleContent | undefined,
  after: BundleContent,
): ConfigurationChange[] {
  const was = before ?? { ...EMPTY, zone: after.zone }
  const single = <T extends object>(
    kind: BundleResourceKind,
    id: string,
    name: string,
    a: T | undefined,
    b: T | undefined,
  ) =>
    diffList(
      kind,
      a === undefined ? [] : [{ id, value: content(a) }],
      b === undefined ? [] : [{ id, value: content(b) }],
      {
        name: () => name,
        updated: (x, y) => fieldChanges(x.value, y.value),
      },
    )
  const previousBefore = was.previous_waf
  const previousAfter = after.previous_waf
  const catalogId = (entry: { id: string; package_id: string }) => `${entry.package_id}/${entry.id}`
  return [
    ...(before === undefined
      ? [
          {
            kind: 'zone' as const,
            id: after.zone.id,
            action: 'create' as const,
            summary: `Zone ${after.zone.name} created (${after.zone.plan} plan${after.zone.waf_product === 'previous' ? ', previous WAF' : ''})`,
          },
        ]
      : diffList('zone', [was.zone], [after.zone], {
          idOf: () => after.zone.id,
          name: (zone) => `Zone ${zone.name}`,
        })),
    ...diffList('ruleset', was.rulesets, after.rulesets, {
      name: (ruleset) => `Ruleset ${ruleset.name} (${ruleset.phase})`,
      created: (ruleset) =>
        `Ruleset ${ruleset.name} (${ruleset.phase}) created with ${plural(ruleset.rules.length, 'rule')}`,
      updated: rulesetChanges,
    }),
    ...diffList('filter', was.filters, after.filters, {
      name: (filter) => `Filter ${filter.description || filter.id}`,
    }),
    ...diffList('firewall_rule', was.firewall_rules, after.firewall_rules, {
      name: (rule) => `Firewall rule ${rule.description || rule.id} (${rule.action})`,
    }),
    ...single(
      'firewall_settings',
      'rule_quota',
      'Firewall rule quota',
      was.firewall_settings,
      after.firewall_settings,
    ),
    ...diffList('page_rule', was.page_rules, after.page_rules, {
      name: (rule) => `Page rule ${rule.targets[0]?.constraint.value ?? rule.id}`,
    }),
    ...(before === undefined
      ? []
      : single(
          'event_log_settings',
          'event_log',
          'Event log caps',
          was.event_log_settings,
          after.event_log_settings,
        )),
    ...single(
      'waf_setting',
      'waf',
      'Zone setting waf',
      previousBefore?.setting,
      previousAfter?.setting,
    ),
    ...diffList('waf_package', previousBefore?.packages ?? [], previousAfter?.packages ?? [], {
      name: (pkg) => `WAF package ${pkg.name ?? pkg.id}`,
      updated: (x, y) => fieldChanges(x, y, ['sensitivity', 'action_mode']),
    }).filter((change) => change.action === 'update'),
    ...diffList('waf_group', previousBefore?.groups ?? [], previousAfter?.groups ?? [], {
      idOf: catalogId,
      name: (group) => `WAF group ${group.id} (package ${group.package_id})`,
      created: (group) =>
        `WAF group ${group.id} (package ${group.package_id}) set to ${group.mode}`,
    }).map(defaultModeBack),
    ...diffList('waf_rule', previousBefore?.rules ?? [], previousAfter?.rules ?? [], {
      idOf: catalogId,
      name: (rule) => `WAF rule ${rule.id} (package ${rule.package_id})`,
      created: (rule) => `WAF rule ${rule.id} (package ${rule.package_id}) set to ${rule.mode}`,
    }).map(defaultModeBack),
    ...diffList('waf_override', previousBefore?.overrides ?? [], previousAfter?.overrides ?? [], {
      name: (override) => `URI-based WAF override for ${override.urls.join(', ')}`,
    }),
    // A side without samples (a bundle written before they were carried, a remote zone) keeps
    // the other's: only two lists of them are compared.
    ...(was.samples === undefined || after.samples === undefined
      ? []
      : diffList('sample', was.samples, after.samples, {
          name: (sample) => `Sample request ${sample.name}`,
        })),
  ]
}

/**
 * Groups and rules are listed only while their mode is not the default: one that leaves the list
 * is not deleted but set back to its default mode (and one that joins it is updated).
 */
function defaultModeBack(change: ConfigurationChange): ConfigurationChange {
  if (change.action === 'delete') {
    return {
      ...change,
      action: 'update',
      summary: change.summary.replace(/ deleted$/, ' back to its default mode'),
    }
  }
  return { ...change, action: 'update' }
}
