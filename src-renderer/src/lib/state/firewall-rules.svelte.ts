// The Firewall rules screen's state: a zone's filters, its firewall rules in the order they run,
// and its rule quota. Every change goes to the API and then reloads all three, also after a
// refusal: a rule refused for the quota still creates its inline filter. The messages of a create
// form's refusal that point at one of its fields are also kept by that field, to be shown there.

import type { ApiMessage } from '@shared/api/envelope'
import type {
  Filter,
  FilterCreate,
  FirewallRule,
  FirewallRuleCreate,
  FirewallRuleUpdate,
  FilterUpdate,
} from '@shared/api/firewall'
import { allPages, api, workbenchApi } from '../api'
import { placeErrors, type FieldErrors, type FieldPointers } from '../field-errors'
import { presentFields } from '../present-fields'
import { changeZone, loadZone } from './zone-editing'
import { ZoneChoice } from './zone-choice.svelte'

/** The workbench's quota setting for a zone's firewall rules. */
export interface FirewallSettings {
  /** null: the plan's default applies */
  rule_quota: number | null
  plan_default: number
  in_use: number
}

/** The order rules run in: by priority, rules without one last, ties in list order. */
export function byPriority(rules: readonly FirewallRule[]): FirewallRule[] {
  const rank = (rule: FirewallRule) => rule.priority ?? Number.POSITIVE_INFINITY
  return rules
    .map((rule, index) => ({ rule, index }))
    .sort((a, b) => rank(a.rule) - rank(b.rule) || a.index - b.index)
    .map(({ rule }) => rule)
}

/** The rule as PUT takes it, whole: PUT resets whatever it is not sent. */
function wholeRule(rule: FirewallRule): FirewallRuleUpdate {
  return {
    id: rule.id,
    filter: { id: rule.filter.id },
    action: rule.action,
    priority: rule.priority,
    paused: rule.paused,
    ...presentFields(rule, ['description', 'ref', 'products']),
  }
}

/** The create form's fields, by where the API points in the body it sends (one rule in an array). */
export const RULE_FIELDS = {
  expression: '/0/filter/expression',
  filter: '/0/filter',
  action: '/0/action',
  description: '/0/description',
  priority: '/0/priority',
  products: '/0/products',
} as const
export type RuleField = keyof typeof RULE_FIELDS

/** The new filter form's fields, likewise (one filter in an array). */
export const FILTER_FIELDS = {
  expression: '/0/expression',
  description: '/0/description',
} as const
export type FilterField = keyof typeof FILTER_FIELDS

/** A refusal shown at the row whose action it answers, instead of at the top of the screen. */
export interface RowErrors {
  /** the rule's or filter's id */
  id: string
  messages: ApiMessage[]
}

/** What the rule editor changes: its filter's expression, its action and its description. */
export interface RuleEdit {
  expression: string
  action: FirewallRule['action']
  description: string
}

export class FirewallRulesState {
  readonly choice = new ZoneChoice()
  filters = $state.raw<Filter[]>([])
  /** In the order they run. */
  rules = $state.raw<FirewallRule[]>([])
  settings = $state.raw<FirewallSettings | null>(null)
  errors = $state.raw<ApiMessage[]>([])
  /** The last refusal of the rule form that points at its fields. */
  ruleErrors = $state.raw<FieldErrors<RuleField>>({})
  /** The last refusal of the filter form that points at its fields. */
  filterErrors = $state.raw<FieldErrors<FilterField>>({})
  loading = $state(false)
  busy = $state(false)
  /** The last refusal of a change made in a row of a table (an edit, a filter's delete). */
  rowErrors = $state.raw<RowErrors | null>(null)

  async select(zoneId: string): Promise<void> {
    this.choice.choose(zoneId)
    await loadZone(this, zoneId, (id) => this.fetch(id))
  }

  private async fetch(zoneId: string): Promise<void> {
    const [filters, rules, settings] = await Promise.all([
      allPages<Filter>(`/zones/${zoneId}/filters`),
      allPages<FirewallRule>(`/zones/${zoneId}/firewall/rules`),
      workbenchApi.get<FirewallSettings>(`/zones/${zoneId}/firewall/settings`),
    ])
    if (this.choice.zoneId !== zoneId) return
    this.filters = filters
    this.rules = byPriority(rules)
    this.settings = settings
  }

  /** Runs a change and reloads; on a refusal keeps the API's messages and reports false. */
  private change(work: (zoneId: string) => Promise<unknown>): Promise<boolean> {
    this.ruleErrors = {}
    this.filterErrors = {}
    return changeZone(this, this.choice.zoneId, work, (id) => this.fetch(id))
  }

  /** A form's change: what its refusal points at is also kept by the field it names. */
  private async formChange<F extends string>(
    fields: FieldPointers<F>,
    work: (zoneId: string) => Promise<unknown>,
  ): Promise<{ done: boolean; byField: FieldErrors<F> }> {
    const done = await this.change(work)
    return { done, byField: placeErrors(this.errors, fields).byField }
  }

  /** The refusals that no form's field shows, for the screen to show. */
  get screenErrors(): ApiMessage[] {
    const atFields = [...Object.values(this.ruleErrors), ...Object.values(this.filterErrors)]
    return this.errors.filter((error) => !atFields.some((messages) => messages?.includes(error)))
  }

  async createRule(rule: FirewallRuleCreate): Promise<boolean> {
    const { done, byField } = await this.formChange(RULE_FIELDS, (zoneId) =>
      api.post(`/zones/${zoneId}/firewall/rules`, [rule]),
    )
    this.ruleErrors = byField
    return done
  }

  async createFilter(filter: FilterCreate): Promise<boolean> {
    const { done, byField } = await this.formChange(FILTER_FIELDS, (zoneId) =>
      api.post(`/zones/${zoneId}/filters`, [filter]),
    )
    this.filterErrors = byField
    return done
  }

  setPriority(rule: FirewallRule, priority: number | null): Promise<boolean> {
    return this.change((zoneId) =>
      api.patch(`/zones/${zoneId}/firewall/rules/${rule.id}`, { id: rule.id, priority }),
    )
  }

  setPaused(rule: FirewallRule, paused: boolean): Promise<boolean> {
    return this.change((zoneId) =>
      api.put(`/zones/${zoneId}/firewall/rules/${rule.id}`, { ...wholeRule(rule), paused }),
    )
  }

  deleteRule(rule: FirewallRule, deleteFilterIfUnused: boolean): Promise<boolean> {
    return this.change((zoneId) =>
      api.delete(`/zones/${zoneId}/firewall/rules/${rule.id}`, {
        delete_filter_if_unused: deleteFilterIfUnused,
      }),
    )
  }

  /** null returns the zone to its plan's default quota. */
  setQuota(ruleQuota: number | null): Promise<boolean> {
    return this.change((zoneId) =>
      workbenchApi.patch(`/zones/${zoneId}/firewall/settings`, { rule_quota: ruleQuota }),
    )
  }

  /** A change made in a row: its refusal is kept by that row. */
  private async rowChange(id: string, work: (zoneId: string) => Promise<unknown>) {
    this.rowErrors = null
    const done = await this.change(work)
    if (!done) {
      this.rowErrors = { id, messages: this.errors }
      this.errors = []
    }
    return done
  }

  /**
   * Edits a rule as the vendor's dashboard does: a changed expression is written to the rule's
   * filter (PUT of the filter, so every rule using it sees it), then the rule is PUT whole with
   * its action and description.
   */
  editRule(rule: FirewallRule, edit: RuleEdit): Promise<boolean> {
    const oldExpression = 'expression' in rule.filter ? rule.filter.expression : undefined
    return this.rowChange(rule.id, async (zoneId) => {
      if (edit.expression !== oldExpression) {
        await api.put(`/zones/${zoneId}/filters/${rule.filter.id}`, {
          id: rule.filter.id,
          expression: edit.expression,
        })
      }
      await api.put(`/zones/${zoneId}/firewall/rules/${rule.id}`, {
        ...wholeRule(rule),
        action: edit.action,
        description: edit.description.trim(),
      })
    })
  }

  /** Changes a filter's expression and description (PUT of the filter). */
  editFilter(filter: Filter, edit: Pick<FilterUpdate, 'expression' | 'description'>) {
    return this.rowChange(filter.id, (zoneId) =>
      api.put(`/zones/${zoneId}/filters/${filter.id}`, { id: filter.id, ...edit }),
    )
  }

  /** Deletes a filter; the API refuses while a rule uses it. */
  deleteFilter(filter: Filter): Promise<boolean> {
    return this.rowChange(filter.id, (zoneId) =>
      api.delete(`/zones/${zoneId}/filters/${filter.id}`),
    )
  }
}
