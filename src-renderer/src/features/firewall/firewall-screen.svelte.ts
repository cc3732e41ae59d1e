// The Firewall rules screen's state: the zone's rules, filters and quota (FirewallRulesState) and
// the drafts of its forms, which are the screen's unsaved changes: leaving the screen or the zone
// with one asks first (router.svelte.ts), discarding drops them, and a created rule or filter
// empties its form.

import type { FilterCreate, FirewallRuleCreate } from '@shared/api/firewall'
import { FirewallRulesState } from '../../lib/state/firewall-rules.svelte'
import { FirewallDrafts } from './firewall-drafts.svelte'

export class FirewallScreenState extends FirewallRulesState {
  readonly drafts = new FirewallDrafts()
  readonly dirty = $derived(this.drafts.edited(this.rules, this.filters))

  override async select(zoneId: string): Promise<void> {
    await super.select(zoneId)
    if (this.choice.zoneId === zoneId) this.drafts.load(zoneId, this.rules, this.filters)
  }

  override async createRule(rule: FirewallRuleCreate): Promise<boolean> {
    const done = await super.createRule(rule)
    if (done) this.drafts.clearNewRule()
    return done
  }

  override async createFilter(filter: FilterCreate): Promise<boolean> {
    const done = await super.createFilter(filter)
    if (done) this.drafts.clearNewFilter()
    return done
  }

  discard(): void {
    this.drafts.discard()
  }
}
