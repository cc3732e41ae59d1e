// The Migration screen's first step: a zone's settings on the previous product, as its API answers
// them, and the edits a team makes before migrating (the zone's `waf` setting, the packages, their
// groups and rules, URI-based overrides, page rules). Firewall rules that bypass the WAF are shown
// for what the migration carries over; they are edited on the Firewall rules screen. Every change
// goes to the API and then reloads what it touched, also after a refusal.

import type { ApiMessage } from '@shared/api/envelope'
import type { FirewallRule } from '@shared/api/firewall'
import type {
  PageRule,
  PageRuleCreate,
  WafGroup,
  WafGroupMode,
  WafOverride,
  WafOverrideCreate,
  WafPackage,
  WafPackageEdit,
  WafRule,
  WafRuleMode,
  WafSetting,
} from '@shared/api/waf'
import { allPages, api } from '../../lib/api'
import { errorMessages } from '../../lib/api-error'
import { changeZone, loadZone } from '../../lib/state/zone-editing'

/** The group whose rules are shown, with them. */
export interface OpenGroup {
  group: WafGroup
  rules: WafRule[]
}

export class LegacySettingsState {
  zoneId = $state<string | null>(null)
  wafSetting = $state.raw<WafSetting | null>(null)
  packages = $state.raw<WafPackage[]>([])
  /** groups by package id */
  groups = $state.raw<Record<string, WafGroup[]>>({})
  openGroup = $state.raw<OpenGroup | null>(null)
  overrides = $state.raw<WafOverride[]>([])
  pageRules = $state.raw<PageRule[]>([])
  /** firewall rules whose bypass includes the WAF */
  bypassRules = $state.raw<FirewallRule[]>([])
  errors = $state.raw<ApiMessage[]>([])
  loading = $state(false)
  busy = $state(false)

  async load(zoneId: string): Promise<void> {
    this.zoneId = zoneId
    this.openGroup = null
    await loadZone(this, zoneId, (id) => this.fetch(id))
  }

  private async fetch(zoneId: string): Promise<void> {
    const base = `/zones/${zoneId}`
    const [wafSetting, packages, overrides, pageRules, firewallRules] = await Promise.all([
      api.get<WafSetting>(`${base}/settings/waf`),
      allPages<WafPackage>(`${base}/firewall/waf/packages`),
      allPages<WafOverride>(`${base}/firewall/waf/overrides`),
      api.get<PageRule[]>(`${base}/pagerules`),
      allPages<FirewallRule>(`${base}/firewall/rules`),
    ])
    const groups = await Promise.all(
      packages.map((pkg) => allPages<WafGroup>(`${base}/firewall/waf/packages/${pkg.id}/groups`)),
    )
    const open = this.openGroup
    const openRules = open ? await this.rulesOf(zoneId, open.group) : null
    if (this.zoneId !== zoneId) return
    this.wafSetting = wafSetting
    this.packages = packages
    this.groups = Object.fromEntries(packages.map((pkg, index) => [pkg.id, groups[index] ?? []]))
    this.overrides = overrides
    this.pageRules = pageRules
    this.bypassRules = firewallRules.filter(
      (rule) => rule.action === 'bypass' && rule.products?.includes('waf'),
    )
    if (open && openRules) {
      const group = this.groups[open.group.package_id]?.find((g) => g.id === open.group.id)
      this.openGroup = group ? { group, rules: openRules } : null
    }
  }

  private rulesOf(zoneId: string, group: WafGroup): Promise<WafRule[]> {
    return allPages<WafRule>(
      `/zones/${zoneId}/firewall/waf/packages/${group.package_id}/rules?group_id=${group.id}`,
    )
  }

  /** Runs a change and reloads; on a refusal keeps the API's messages and reports false. */
  private change(work: (zoneId: string) => Promise<unknown>): Promise<boolean> {
    return changeZone(this, this.zoneId, work, (id) => this.fetch(id))
  }

  async showRules(group: WafGroup): Promise<void> {
    const zoneId = this.zoneId
    if (zoneId === null) return
    this.busy = true
    try {
      const rules = await this.rulesOf(zoneId, group)
      if (this.zoneId === zoneId) this.openGroup = { group, rules }
      this.errors = []
    } catch (error) {
      this.errors = errorMessages(error)
    } finally {
      this.busy = false
    }
  }

  closeRules(): void {
    this.openGroup = null
  }

  setWaf(value: 'on' | 'off'): Promise<boolean> {
    return this.change((zoneId) => api.patch(`/zones/${zoneId}/settings/waf`, { value }))
  }

  editPackage(pkg: WafPackage, edit: WafPackageEdit): Promise<boolean> {
    return this.change((zoneId) =>
      api.patch(`/zones/${zoneId}/firewall/waf/packages/${pkg.id}`, edit),
    )
  }

  setGroupMode(group: WafGroup, mode: WafGroupMode): Promise<boolean> {
    return this.change((zoneId) =>
      api.patch(`/zones/${zoneId}/firewall/waf/packages/${group.package_id}/groups/${group.id}`, {
        mode,
      }),
    )
  }

  setRuleMode(rule: WafRule, mode: WafRuleMode): Promise<boolean> {
    return this.change((zoneId) =>
      api.patch(`/zones/${zoneId}/firewall/waf/packages/${rule.package_id}/rules/${rule.id}`, {
        mode,
      }),
    )
  }

  createOverride(override: WafOverrideCreate): Promise<boolean> {
    return this.change((zoneId) => api.post(`/zones/${zoneId}/firewall/waf/overrides`, override))
  }

  /** The vendor's "Delete a WAF override" operation. */
  deleteOverride(override: WafOverride): Promise<boolean> {
    return this.change((zoneId) =>
      api.delete(`/zones/${zoneId}/firewall/waf/overrides/${override.id}`),
    )
  }

  createPageRule(pageRule: PageRuleCreate): Promise<boolean> {
    return this.change((zoneId) => api.post(`/zones/${zoneId}/pagerules`, pageRule))
  }

  deletePageRule(pageRule: PageRule): Promise<boolean> {
    return this.change((zoneId) => api.delete(`/zones/${zoneId}/pagerules/${pageRule.id}`))
  }
}
