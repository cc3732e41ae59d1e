// The API calls that make a remote zone configured as a local one. The two are compared as an
// import compares them (diffConfigurations), after pairing what the remote created from an
// earlier plan under ids of its own with the local resource it was made from: an entry point by
// its phase, a custom ruleset by its phase and name, a rule by its ref (a plan sends each new
// rule with the local rule's ref), a filter, firewall rule, page rule or override by its content.
// Each change becomes one call, ordered so that every call is valid where it runs: filters
// before the rules that use them and deleted after, custom rulesets before the entry points that
// execute them and deleted after.

import type {
  BundleContent,
  BundleFirewallRule,
  BundleRuleset,
  ConfigurationChange,
} from '@shared/api/bundle'
import type { RemoteCall } from '@shared/api/remote'
import { contentKey } from '@shared/sorted-keys'
import type { LegacyCatalog } from '../zones/previous-waf/catalog'
import { filterBody, ruleBody } from './apply'
import { diffConfigurations } from './diff'
import type { RemoteContent } from './remote-read'

const BOOKKEEPING = new Set(['id', 'version', 'last_updated', 'created_on', 'modified_on'])

/** A resource's content without its identity and bookkeeping, as text. */
const keyOf = (resource: object) =>
  contentKey(Object.fromEntries(Object.entries(resource).filter(([k]) => !BOOKKEEPING.has(k))))

/**
 * Pairs each resource of `remote` whose id the local side lacks with the first local resource
 * the remote lacks that has the same `key`, recording remote id → local id in `renames`.
 */
function pair<T extends { id: string }>(
  remote: readonly T[],
  local: readonly T[],
  key: (resource: T) => string,
  renames: Map<string, string>,
): void {
  const localIds = new Set(local.map((resource) => resource.id))
  const remoteIds = new Set(remote.map((resource) => resource.id))
  const unpaired = local.filter((resource) => !remoteIds.has(resource.id))
  for (const resource of remote) {
    if (localIds.has(resource.id)) continue
    const at = unpaired.findIndex((candidate) => key(candidate) === key(resource))
    if (at < 0) continue
    renames.set(resource.id, unpaired[at]!.id)
    unpaired.splice(at, 1)
  }
}

/** The remote's configuration with each paired resource under its local id. */
function renamed(remote: BundleContent, renames: Map<string, string>): BundleContent {
  const id = (value: string) => renames.get(value) ?? value
  const withId = <T extends { id: string }>(resource: T): T => ({
    ...resource,
    id: id(resource.id),
  })
  return {
    ...remote,
    rulesets: remote.rulesets.map((ruleset) => ({
      ...withId(ruleset),
      rules: ruleset.rules.map((rule) => {
        const executed = rule.action_parameters?.id
        return {
          ...withId(rule),
          ...(typeof executed === 'string'
            ? { action_parameters: { ...rule.action_parameters, id: id(executed) } }
            : {}),
        }
      }),
    })),
    filters: remote.filters.map(withId),
    firewall_rules: remote.firewall_rules.map((rule) => ({
      ...withId(rule),
      filter: { id: id(rule.filter.id) },
    })),
    page_rules: remote.page_rules.map(withId),
    ...(remote.previous_waf === undefined
      ? {}
      : {
          previous_waf: {
            ...remote.previous_waf,
            overrides: remote.previous_waf.overrides.map(withId),
          },
        }),
  }
}

/** `remote` with what it created from the local side under the local ids. */
function aligned(remote: BundleContent, local: BundleContent): BundleContent {
  const renames = new Map<string, string>()
  pair(
    remote.rulesets,
    local.rulesets,
    (r) => `${r.kind} ${r.phase} ${r.kind === 'zone' ? '' : r.name}`,
    renames,
  )
  for (const ruleset of remote.rulesets) {
    const counterpart = local.rulesets.find((r) => r.id === (renames.get(ruleset.id) ?? ruleset.id))
    if (counterpart !== undefined)
      pair(ruleset.rules, counterpart.rules, (rule) => rule.ref, renames)
  }
  pair(remote.filters, local.filters, keyOf, renames)
  const linked = (rule: BundleFirewallRule) =>
    keyOf({ ...rule, filter: { id: renames.get(rule.filter.id) ?? rule.filter.id } })
  pair(remote.firewall_rules, local.firewall_rules, linked, renames)
  pair(remote.page_rules, local.page_rules, keyOf, renames)
  if (remote.previous_waf !== undefined && local.previous_waf !== undefined) {
    pair(remote.previous_waf.overrides, local.previous_waf.overrides, keyOf, renames)
  }
  return withLocalBookkeeping(renamed(remote, renames), local)
}

/**
 * `remote` with the local side's bookkeeping where the two hold the same thing: a rule's version
 * and time are its own side's (the diff compares rules whole, as an import keeps them), and an
 * entry point keeps its name whatever a PUT says, as the vendor's does (so its name is no change).
 */
function withLocalBookkeeping(remote: BundleContent, local: BundleContent): BundleContent {
  const localRulesets = new Map(local.rulesets.map((ruleset) => [ruleset.id, ruleset]))
  const localRules = new Map(
    local.rulesets.flatMap((ruleset) => ruleset.rules.map((rule) => [rule.id, rule])),
  )
  return {
    ...remote,
    rulesets: remote.rulesets.map((ruleset) => {
      const counterpart = localRulesets.get(ruleset.id)
      return {
        ...ruleset,
        ...(ruleset.kind === 'zone' && counterpart !== undefined ? { name: counterpart.name } : {}),
        rules: ruleset.rules.map((rule) => {
          const mine = localRules.get(rule.id)
          return mine === undefined
            ? rule
            : { ...rule, version: mine.version, last_updated: mine.last_updated }
        }),
      }
    }),
  }
}

/**
 * The changes that make the remote as the local zone is, and the calls that make them, in the
 * order they run.
 */
export function planRemote(
  read: RemoteContent,
  local: BundleContent,
  catalog: LegacyCatalog,
): { changes: ConfigurationChange[]; calls: RemoteCall[] } {
  const remoteZoneId = read.zone.id
  // The zones are compared on what a call can change; the workbench's own settings and the
  // migration (which no import or plan moves) are the local zone's on both sides.
  const { waf_migration: _migration, ...configuration } = read
  const { paused, plan, type } = read.zone
  const remoteContent: BundleContent = {
    ...configuration,
    zone: { ...local.zone, paused, plan, type },
    firewall_settings: local.firewall_settings,
    event_log_settings: local.event_log_settings,
    ...(local.waf_migration === undefined ? {} : { waf_migration: local.waf_migration }),
  }
  const remote = aligned(remoteContent, local)
  // Remote ids by local id: a remote resource paired with a local one goes by the remote's id.
  const toRemote = new Map<string, string>()
  const record = <T extends { id: string }>(before: readonly T[], after: readonly T[]) =>
    before.forEach((resource, index) => toRemote.set(after[index]!.id, resource.id))
  record(remoteContent.rulesets, remote.rulesets)
  remoteContent.rulesets.forEach((ruleset, index) =>
    record(ruleset.rules, remote.rulesets[index]!.rules),
  )
  record(remoteContent.filters, remote.filters)
  record(remoteContent.firewall_rules, remote.firewall_rules)
  record(remoteContent.page_rules, remote.page_rules)
  record(remoteContent.previous_waf?.overrides ?? [], remote.previous_waf?.overrides ?? [])
  const remoteId = (id: string) => toRemote.get(id) ?? id

  const changes = diffConfigurations(remote, local)
  const zone = `/zones/${remoteZoneId}`
  const byId = <T extends { id: string }>(list: readonly T[]) =>
    new Map(list.map((item) => [item.id, item]))
  const localRulesets = byId(local.rulesets)
  const remoteRulesets = byId(remote.rulesets)
  const localFilters = byId(local.filters)
  const localRules = byId(local.firewall_rules)
  const localPageRules = byId(local.page_rules)
  const localOverrides = byId(local.previous_waf?.overrides ?? [])
  const modeKey = (entry: { id: string; package_id: string }) => `${entry.package_id}/${entry.id}`
  const localGroups = new Map((local.previous_waf?.groups ?? []).map((g) => [modeKey(g), g]))
  const localWafRules = new Map((local.previous_waf?.rules ?? []).map((r) => [modeKey(r), r]))

  /** The rules of a ruleset's PUT: a rule the remote holds by its remote id, a new one by ref. */
  const rulesBody = (ruleset: BundleRuleset) => {
    const held = new Set(remoteRulesets.get(ruleset.id)?.rules.map((rule) => rule.id))
    return ruleset.rules.map(({ id, version: _v, last_updated: _t, ...rule }) => {
      const executed = rule.action_parameters?.id
      return {
        ...(held.has(id) ? { id: remoteId(id) } : {}),
        ...rule,
        ...(typeof executed === 'string'
          ? { action_parameters: { ...rule.action_parameters, id: remoteId(executed) } }
          : {}),
      }
    })
  }
  const rulesetCall = (change: ConfigurationChange): [number, RemoteCall] => {
    const ruleset = localRulesets.get(change.id) ?? remoteRulesets.get(change.id)!
    const entrypoint = ruleset.kind === 'zone'
    if (change.action === 'delete') {
      return [
        entrypoint ? 6 : 8,
        { method: 'DELETE', path: `${zone}/rulesets/${remoteId(ruleset.id)}` },
      ]
    }
    const body = { description: ruleset.description, rules: rulesBody(ruleset) }
    if (entrypoint) {
      return [
        7,
        {
          method: 'PUT',
          path: `${zone}/rulesets/phases/${ruleset.phase}/entrypoint`,
          body: change.action === 'create' ? { name: ruleset.name, ...body } : body,
          ...(change.action === 'create'
            ? { creates: [{ id: ruleset.id, at: '/result/id' }] }
            : {}),
        },
      ]
    }
    if (change.action === 'create') {
      return [
        5,
        {
          method: 'POST',
          path: `${zone}/rulesets`,
          body: { name: ruleset.name, kind: ruleset.kind, phase: ruleset.phase, ...body },
          creates: [{ id: ruleset.id, at: '/result/id' }],
        },
      ]
    }
    return [5, { method: 'PUT', path: `${zone}/rulesets/${remoteId(ruleset.id)}`, body }]
  }

  const firewallRuleBody = (rule: BundleFirewallRule) => {
    const { id: _id, ...body } = ruleBody(rule)
    return { ...body, filter: { id: remoteId(rule.filter.id) } }
  }

  const callOf = (change: ConfigurationChange): [number, RemoteCall] | undefined => {
    const { id, action } = change
    const path = (collection: string) => `${zone}/${collection}/${remoteId(id)}`
    switch (change.kind) {
      case 'zone': {
        const { paused, plan, type } = local.zone
        const edit = {
          ...(paused === remote.zone.paused ? {} : { paused }),
          ...(plan === remote.zone.plan ? {} : { plan }),
          ...(type === remote.zone.type ? {} : { type }),
        }
        return Object.keys(edit).length === 0
          ? undefined
          : [0, { method: 'PATCH', path: zone, body: edit }]
      }
      case 'ruleset':
        return rulesetCall(change)
      case 'filter': {
        if (action === 'delete') return [4, { method: 'DELETE', path: path('filters') }]
        const filter = filterBody(localFilters.get(id)!)
        return action === 'create'
          ? [
              1,
              {
                method: 'POST',
                path: `${zone}/filters`,
                body: [filter],
                creates: [{ id, at: '/result/0/id' }],
              },
            ]
          : [1, { method: 'PUT', path: path('filters'), body: { id: remoteId(id), ...filter } }]
      }
      case 'firewall_rule': {
        if (action === 'delete') return [2, { method: 'DELETE', path: path('firewall/rules') }]
        const body = firewallRuleBody(localRules.get(id)!)
        return action === 'create'
          ? [
              3,
              {
                method: 'POST',
                path: `${zone}/firewall/rules`,
                body: [body],
                creates: [{ id, at: '/result/0/id' }],
              },
            ]
          : [
              3,
              { method: 'PUT', path: path('firewall/rules'), body: { id: remoteId(id), ...body } },
            ]
      }
      case 'page_rule': {
        if (action === 'delete') return [9, { method: 'DELETE', path: path('pagerules') }]
        const { id: _id, created_on: _c, modified_on: _m, ...body } = localPageRules.get(id)!
        return action === 'create'
          ? [
              10,
              {
                method: 'POST',
                path: `${zone}/pagerules`,
                body,
                creates: [{ id, at: '/result/id' }],
              },
            ]
          : [10, { method: 'PUT', path: path('pagerules'), body }]
      }
      case 'waf_setting':
        return [
          11,
          {
            method: 'PATCH',
            path: `${zone}/settings/waf`,
            body: { value: local.previous_waf!.setting.value },
          },
        ]
      case 'waf_package': {
        const pkg = local.previous_waf!.packages.find((p) => p.id === id)!
        const body = {
          ...(pkg.sensitivity === undefined ? {} : { sensitivity: pkg.sensitivity }),
          ...(pkg.action_mode === undefined ? {} : { action_mode: pkg.action_mode }),
        }
        return [12, { method: 'PATCH', path: `${zone}/firewall/waf/packages/${id}`, body }]
      }
      case 'waf_group': {
        const [packageId = '', groupId = ''] = id.split('/')
        const mode = localGroups.get(id)?.mode ?? catalog.group(packageId, groupId)?.mode ?? 'on'
        return [
          13,
          {
            method: 'PATCH',
            path: `${zone}/firewall/waf/packages/${packageId}/groups/${groupId}`,
            body: { mode },
          },
        ]
      }
      case 'waf_rule': {
        const [packageId = '', ruleId = ''] = id.split('/')
        const known = catalog.rule(packageId, ruleId)
        const mode =
          localWafRules.get(id)?.mode ??
          (known === undefined || known.kind === 'deny' ? 'default' : known.default_mode)
        return [
          14,
          {
            method: 'PATCH',
            path: `${zone}/firewall/waf/packages/${packageId}/rules/${ruleId}`,
            body: { mode },
          },
        ]
      }
      case 'waf_override': {
        if (action === 'delete')
          return [15, { method: 'DELETE', path: path('firewall/waf/overrides') }]
        const { id: _id, ...body } = localOverrides.get(id)!
        return action === 'create'
          ? [
              16,
              {
                method: 'POST',
                path: `${zone}/firewall/waf/overrides`,
                body,
                creates: [{ id, at: '/result/id' }],
              },
            ]
          : [16, { method: 'PUT', path: path('firewall/waf/overrides'), body }]
      }
      // The workbench's own settings: the vendor's API has no call for them.
      case 'firewall_settings':
      case 'event_log_settings':
      case 'sample':
        return undefined
    }
  }

  const calls = changes
    .map(callOf)
    .filter((call) => call !== undefined)
    .map(([step, call], index) => ({ step, index, call }))
    .sort((a, b) => a.step - b.step || a.index - b.index)
    .map(({ call }) => call)
  return { changes, calls }
}
