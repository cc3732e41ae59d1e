// The previous product's API for one zone (docs/vendor-behaviour.md#previous-waf-api): packages,
// groups, rules, URI-based overrides and the zone's `waf` setting, read from the catalog and the
// zone's own settings. It answers only while the previous product runs for the zone; once the zone
// is on managed rulesets (migrated, or created so), every call is refused the same way.

import { ApiError, badRequest, couldNotRoute } from '@shared/api/errors'
import {
  WAF_RULE_MODE_CODES,
  type WafGroup,
  type WafGroupEdit,
  type WafOverride,
  type WafOverrideCreate,
  type WafPackage,
  type WafPackageEdit,
  type WafRule,
  type WafRuleMode,
  type WafSetting,
} from '@shared/api/waf'
import type { ZoneRecord } from '../zone-object'
import { allowedModes, type LegacyCatalog, type LegacyGroup, type LegacyRule } from './catalog'
import { migrationState } from './migration'
import type { PreviousWafStore } from './store'
import { PREVIOUS_WAF_ERRORS } from '@shared/api/error-codes'

export interface PreviousWafOptions {
  store: PreviousWafStore
  catalog: LegacyCatalog
  record: ZoneRecord
  /** The time stamped on what is written, in the vendor's format (the service's clock). */
  timestamp: () => string
  newId: () => string
  describe: (note: string) => void
}

export interface GroupQuery {
  mode?: string
  name?: string
}

export interface RuleQuery {
  mode?: string
  group_id?: string
  description?: string
  priority?: string
}

export class PreviousWaf {
  constructor(private readonly options: PreviousWafOptions) {
    const state = migrationState(options.record, options.store.settings())
    if (state === 'completed') {
      throw badRequest(
        PREVIOUS_WAF_ERRORS.migrated,
        options.record.waf_product === 'managed_rulesets' &&
          options.store.settings().migration_created !== null
          ? `This zone has migrated to WAF managed rulesets: the previous WAF managed rules API no longer works for it. Use the Rulesets API (/zones/${options.record.id}/rulesets).`
          : `This zone uses WAF managed rulesets: the previous WAF managed rules API does not apply to it. Use the Rulesets API (/zones/${options.record.id}/rulesets).`,
      )
    }
  }

  private get store() {
    return this.options.store
  }

  private get catalog() {
    return this.options.catalog
  }

  private get basePath() {
    return `/zones/${this.options.record.id}/firewall/waf`
  }

  // --- packages ---------------------------------------------------------------------------------

  packages(name?: string): WafPackage[] {
    return this.catalog.packages
      .filter((p) => name === undefined || p.name.toLowerCase().includes(name.toLowerCase()))
      .map((p) => this.packageView(p.id))
  }

  package(id: string): WafPackage {
    const pkg = this.catalog.package(id)
    if (pkg === undefined) throw couldNotRoute(`${this.basePath}/packages/${id}`)
    return this.packageView(id)
  }

  private packageView(id: string): WafPackage {
    const pkg = this.catalog.package(id)!
    const view: WafPackage = {
      id: pkg.id,
      name: pkg.name,
      description: pkg.description,
      detection_mode: pkg.detection_mode,
      zone_id: this.options.record.id,
      status: 'active',
    }
    if (pkg.detection_mode !== 'anomaly') return view
    const { sensitivity, action_mode } = this.store.settings()
    return { ...view, sensitivity, action_mode }
  }

  editPackage(id: string, edit: WafPackageEdit): WafPackage {
    const pkg = this.package(id)
    if (pkg.detection_mode !== 'anomaly') {
      throw badRequest(
        PREVIOUS_WAF_ERRORS.onlyAnomalyPackages,
        'Only anomaly WAF packages can have their package attributes updated',
      )
    }
    const changes = Object.entries(edit).filter(([, value]) => value !== undefined)
    this.options.describe(
      `WAF package ${pkg.name}: ${changes.map(([key, value]) => `${key} ${String(value)}`).join(', ') || 'saved unchanged'}`,
    )
    this.store.saveSettings(Object.fromEntries(changes))
    return this.packageView(id)
  }

  // --- groups -----------------------------------------------------------------------------------

  groups(packageId: string, query: GroupQuery = {}): WafGroup[] {
    this.package(packageId)
    return this.catalog
      .groups(packageId)
      .map((group) => this.groupView(group))
      .filter(
        (group) =>
          (query.mode === undefined || group.mode === query.mode) &&
          (query.name === undefined || group.name.toLowerCase().includes(query.name.toLowerCase())),
      )
  }

  group(packageId: string, groupId: string): WafGroup {
    this.package(packageId)
    const group = this.catalog.group(packageId, groupId)
    if (group === undefined)
      throw couldNotRoute(`${this.basePath}/packages/${packageId}/groups/${groupId}`)
    return this.groupView(group)
  }

  private groupView(group: LegacyGroup): WafGroup {
    const rules = this.catalog.rules(group.package_id).filter((r) => r.group_id === group.id)
    const modified = this.store.ruleModes(group.package_id)
    return {
      id: group.id,
      name: group.name,
      description: group.description,
      rules_count: rules.length,
      modified_rules_count: rules.filter((r) => modified.has(r.id)).length,
      package_id: group.package_id,
      mode: this.store.groupModes(group.package_id).get(group.id) ?? group.mode,
      allowed_modes: ['on', 'off'],
    }
  }

  editGroup(packageId: string, groupId: string, edit: WafGroupEdit): WafGroup {
    const current = this.group(packageId, groupId)
    const group = this.catalog.group(packageId, groupId)!
    this.options.describe(`WAF group ${current.name}: ${current.mode} → ${edit.mode}`)
    this.store.setGroupMode(packageId, groupId, edit.mode === group.mode ? undefined : edit.mode)
    return this.groupView(group)
  }

  // --- rules ------------------------------------------------------------------------------------

  rules(packageId: string, query: RuleQuery = {}): WafRule[] {
    this.package(packageId)
    const mode =
      query.mode === undefined ? undefined : (WAF_RULE_MODE_CODES[query.mode] ?? query.mode)
    return this.catalog
      .rules(packageId)
      .map((rule) => this.ruleView(rule))
      .filter(
        (rule) =>
          (mode === undefined ||
            rule.mode === mode ||
            (rule.mode === 'default' && rule.default_mode === mode)) &&
          (query.group_id === undefined || rule.group.id === query.group_id) &&
          (query.priority === undefined || rule.priority === query.priority) &&
          (query.description === undefined ||
            rule.description.toLowerCase().includes(query.description.toLowerCase())),
      )
  }

  rule(packageId: string, ruleId: string): WafRule {
    this.package(packageId)
    const rule = this.catalog.rule(packageId, ruleId)
    if (rule === undefined)
      throw couldNotRoute(`${this.basePath}/packages/${packageId}/rules/${ruleId}`)
    return this.ruleView(rule)
  }

  private ruleView(rule: LegacyRule): WafRule {
    const group = this.catalog.group(rule.package_id, rule.group_id)
    const stored = this.store.ruleModes(rule.package_id).get(rule.id)
    const view: WafRule = {
      id: rule.id,
      description: rule.description,
      priority: rule.priority,
      group: { id: rule.group_id, name: group?.name ?? '' },
      package_id: rule.package_id,
      mode: stored ?? (rule.kind === 'deny' ? 'default' : rule.default_mode),
      allowed_modes: allowedModes(rule.kind),
    }
    if (rule.kind === 'deny') view.default_mode = rule.default_mode as WafRule['default_mode']
    return view
  }

  editRule(packageId: string, ruleId: string, mode: string | undefined): WafRule {
    const current = this.rule(packageId, ruleId)
    if (mode === undefined || !current.allowed_modes.includes(mode as WafRuleMode)) {
      throw badRequest(PREVIOUS_WAF_ERRORS.ruleMode, 'Invalid or missing WAF Rule mode', {
        source: { pointer: '/mode' },
      })
    }
    const rule = this.catalog.rule(packageId, ruleId)!
    const isDefault = rule.kind === 'deny' ? mode === 'default' : mode === rule.default_mode
    this.options.describe(`WAF rule ${ruleId}: ${current.mode} → ${mode}`)
    this.store.setRuleMode(packageId, ruleId, isDefault ? undefined : (mode as WafRuleMode))
    return this.ruleView(rule)
  }

  // --- URI-based overrides ----------------------------------------------------------------------

  overrides(): WafOverride[] {
    return this.store.overrides()
  }

  override(id: string): WafOverride {
    const override = this.store.override(id)
    if (override === undefined) throw couldNotRoute(`${this.basePath}/overrides/${id}`)
    return override
  }

  createOverride(body: WafOverrideCreate): WafOverride {
    const override = this.checkedOverride(this.options.newId(), body)
    this.options.describe(`URI-based WAF override for ${override.urls.join(', ')} created`)
    this.store.saveOverride(override)
    return override
  }

  updateOverride(id: string, body: WafOverrideCreate & { id?: string }): WafOverride {
    this.override(id)
    if (body.id !== undefined && body.id !== id) {
      throw badRequest(
        PREVIOUS_WAF_ERRORS.overrideInvalid,
        `The body's id ${body.id} is not the id in the path (${id})`,
        { source: { pointer: '/id' } },
      )
    }
    const override = this.checkedOverride(id, body)
    this.options.describe(`URI-based WAF override for ${override.urls.join(', ')} changed`)
    this.store.saveOverride(override)
    return override
  }

  deleteOverride(id: string): { id: string } {
    const override = this.override(id)
    this.options.describe(`URI-based WAF override for ${override.urls.join(', ')} deleted`)
    this.store.deleteOverride(id)
    return { id }
  }

  private checkedOverride(id: string, body: WafOverrideCreate): WafOverride {
    const problem = (message: string, pointer: string) =>
      new ApiError(400, PREVIOUS_WAF_ERRORS.overrideInvalid, message, { source: { pointer } })
    body.urls.forEach((url, index) => {
      if (/[\s"\\]/.test(url) || url.includes('://')) {
        throw problem(
          `${JSON.stringify(url)} is not a URL pattern: give a host and path without a scheme, with * wildcards (e.g. shop.example.com/*)`,
          `/urls/${index}`,
        )
      }
    })
    // The vendor's create body requires only `urls` (the SDK's OverrideCreateParams is
    // `{zone_id, urls}`) and its update body allows `rules: {}`: an override with no rules or
    // groups is kept, and changes nothing until it is edited.
    const rules = body.rules ?? {}
    const groups = body.groups ?? {}
    for (const ruleId of Object.keys(rules)) {
      if (!this.catalog.packages.some((p) => this.catalog.rule(p.id, ruleId) !== undefined))
        throw problem(`${ruleId} is not the id of a WAF rule`, `/rules/${ruleId}`)
    }
    for (const groupId of Object.keys(groups)) {
      if (!this.catalog.packages.some((p) => this.catalog.group(p.id, groupId) !== undefined))
        throw problem(`${groupId} is not the id of a WAF rule group`, `/groups/${groupId}`)
    }
    return {
      id,
      description: body.description ?? null,
      urls: body.urls,
      rules,
      groups,
      rewrite_action: body.rewrite_action ?? {},
      priority: body.priority ?? 1,
      paused: body.paused ?? false,
    }
  }

  // --- the zone's waf setting -------------------------------------------------------------------

  setting(): WafSetting {
    const settings = this.store.settings()
    return { id: 'waf', value: settings.waf, editable: true, modified_on: settings.waf_modified_on }
  }

  editSetting(value: 'on' | 'off'): WafSetting {
    this.options.describe(`Zone setting waf: ${this.store.settings().waf} → ${value}`)
    this.store.saveSettings({ waf: value, waf_modified_on: this.options.timestamp() })
    return this.setting()
  }
}
