// What the Firewall rules screen's forms hold before it is sent: the new rule, the new filter, and
// the rule and the filter open in their row's editor. Each is kept for the zone (zone-drafts.ts)
// as it is typed, across a reload and leaving the screen, until it is saved or discarded; the
// screen's other changes (priority, pause, delete, quota) save at once.

import type { Filter, FirewallAction, FirewallProduct, FirewallRule } from '@shared/api/firewall'
import type { RuleEdit } from '../../lib/state/firewall-rules.svelte'
import { dropDraft, keepDraft, readDraft } from '../../lib/state/zone-drafts'

const DRAFT_SCREEN = 'firewall-rules'

/** The form that creates a rule, as typed. */
export interface NewRuleDraft {
  filterSource: 'new' | 'existing'
  expression: string
  filterId: string
  action: FirewallAction
  description: string
  priority: number | null
  products: FirewallProduct[]
}

/** The form that creates a filter, as typed. */
export interface NewFilterDraft {
  expression: string
  description: string
}

/** The rule open in its row's editor, with the edit as typed. */
export interface RuleEditDraft extends RuleEdit {
  id: string
}

/** The filter open in its row's editor, with the edit as typed. */
export interface FilterEditDraft extends NewFilterDraft {
  id: string
}

interface FirewallDraft {
  newRule: NewRuleDraft
  newFilter: NewFilterDraft
  rule: RuleEditDraft | null
  filter: FilterEditDraft | null
}

const blankRule = (): NewRuleDraft => ({
  filterSource: 'new',
  expression: '',
  filterId: '',
  action: 'block',
  description: '',
  priority: null,
  products: [],
})
const blankFilter = (): NewFilterDraft => ({ expression: '', description: '' })

const ruleEdit = (rule: FirewallRule): RuleEditDraft => ({
  id: rule.id,
  expression: 'expression' in rule.filter ? rule.filter.expression : '',
  action: rule.action,
  description: rule.description ?? '',
})
const filterEdit = (filter: Filter): FilterEditDraft => ({
  id: filter.id,
  expression: filter.expression,
  description: filter.description ?? '',
})

/**
 * Whether two drafts hold the same values (plain data, built with their fields in one order). An
 * emptied number field binds undefined (https://svelte.dev/docs/svelte/bind#input-bind:value),
 * which is the same as its blank, null.
 */
const same = (a: unknown, b: unknown) => {
  const text = (draft: unknown) => JSON.stringify(draft, (_, value) => value ?? null)
  return text(a) === text(b)
}

export class FirewallDrafts {
  newRule = $state(blankRule())
  newFilter = $state(blankFilter())
  rule = $state<RuleEditDraft | null>(null)
  filter = $state<FilterEditDraft | null>(null)
  /** The zone the drafts belong to. */
  private zoneId: string | null = null

  /**
   * Takes up the zone's kept drafts; what names a record that is gone (an open editor, the
   * existing filter chosen for a new rule) is left out.
   */
  load(zoneId: string, rules: readonly FirewallRule[], filters: readonly Filter[]): void {
    this.zoneId = zoneId
    const kept = readDraft<FirewallDraft>(DRAFT_SCREEN, zoneId)
    const exists = (records: readonly { id: string }[], id: string | undefined) =>
      records.some((record) => record.id === id)
    const newRule = kept?.newRule ?? blankRule()
    if (!exists(filters, newRule.filterId)) newRule.filterId = ''
    this.newRule = newRule
    this.newFilter = kept?.newFilter ?? blankFilter()
    this.rule = exists(rules, kept?.rule?.id) ? (kept?.rule ?? null) : null
    this.filter = exists(filters, kept?.filter?.id) ? (kept?.filter ?? null) : null
  }

  /** Keeps the drafts for their zone while there are any, and forgets them once there are none. */
  keep(): void {
    // read first, so that an effect calling this before the zone is known still follows them
    const draft: FirewallDraft = $state.snapshot({
      newRule: this.newRule,
      newFilter: this.newFilter,
      rule: this.rule,
      filter: this.filter,
    })
    if (this.zoneId === null) return
    const empty =
      same(draft.newRule, blankRule()) &&
      same(draft.newFilter, blankFilter()) &&
      draft.rule === null &&
      draft.filter === null
    if (empty) dropDraft(DRAFT_SCREEN, this.zoneId)
    else keepDraft(DRAFT_SCREEN, this.zoneId, draft)
  }

  /** Whether a form holds what is not saved: typed into a new record, or an edit that differs. */
  edited(rules: readonly FirewallRule[], filters: readonly Filter[]): boolean {
    const rule = rules.find((candidate) => candidate.id === this.rule?.id)
    const filter = filters.find((candidate) => candidate.id === this.filter?.id)
    return (
      !same(this.newRule, blankRule()) ||
      !same(this.newFilter, blankFilter()) ||
      (rule !== undefined && !same(this.rule, ruleEdit(rule))) ||
      (filter !== undefined && !same(this.filter, filterEdit(filter)))
    )
  }

  openRule(rule: FirewallRule): void {
    this.rule = ruleEdit(rule)
  }

  openFilter(filter: Filter): void {
    this.filter = filterEdit(filter)
  }

  closeRule(): void {
    this.rule = null
  }

  closeFilter(): void {
    this.filter = null
  }

  clearNewRule(): void {
    this.newRule = blankRule()
  }

  clearNewFilter(): void {
    this.newFilter = blankFilter()
  }

  discard(): void {
    this.clearNewRule()
    this.clearNewFilter()
    this.closeRule()
    this.closeFilter()
  }
}
