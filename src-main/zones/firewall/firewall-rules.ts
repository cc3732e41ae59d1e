// The Firewall Rules API's semantics over one zone (`/zones/{zone_id}/firewall/rules`), and the
// zone's rule quota. Bodies are arrays and each call is all or nothing, with the vendor's one
// exception: firewall rules created with inline filters past the zone's rule quota leave their
// filters created and are themselves refused. These routes never edit or delete a filter's
// content: PUT re-links a rule to another filter, and DELETE removes a filter only when asked and
// when no other rule uses it.

import { ApiError, couldNotRoute } from '@shared/api/errors'
import {
  firewallActionUnavailable,
  type Filter,
  type FirewallRule,
  type FirewallRuleBulkUpdate,
  type FirewallRuleCreate,
  type PriorityUpdate,
} from '@shared/api/firewall'
import type { ZonePlan } from '@shared/api/zones'
import { plural } from '@shared/plural'
import { invalidValue, Problems, RefusedAfterWrite } from '../problems'
import { contains, Filters, type FirewallPartOptions } from './filters'
import { filterName, recordsNamed } from './history-words'
import type { StoredFirewallRule } from './store'
import { FIREWALL_ERRORS } from '@shared/api/error-codes'

/** How many firewall rules a zone may have on each plan, unless the zone sets its own quota. */
export const PLAN_RULE_QUOTA: Record<ZonePlan, number> = {
  free: 5,
  pro: 20,
  business: 100,
  enterprise: 1000,
}

export interface FirewallSettings {
  /** the zone's own quota, or null for its plan's */
  rule_quota: number | null
  plan_default: number
  in_use: number
}

export interface FirewallRuleQuery {
  id?: string[]
  action?: string
  description?: string
  paused?: boolean
}

export interface FirewallRulesOptions extends FirewallPartOptions {
  plan: ZonePlan
}

export class FirewallRules {
  /** where the rules' inline filters are checked */
  private readonly filters: Filters

  constructor(private readonly options: FirewallRulesOptions) {
    this.filters = new Filters(options)
  }

  private get store() {
    return this.options.store
  }

  listRules(query: FirewallRuleQuery): FirewallRule[] {
    return this.store
      .rules()
      .filter(
        (r) =>
          (query.id === undefined || query.id.includes(r.id)) &&
          (query.action === undefined || r.action === query.action) &&
          (query.paused === undefined || r.paused === query.paused) &&
          contains(r.description, query.description),
      )
      .map((rule) => this.present(rule))
  }

  getRule(id: string): FirewallRule {
    return this.present(this.existingRule(id))
  }

  createRules(inputs: FirewallRuleCreate[]): FirewallRule[] {
    const problems = new Problems()
    if (inputs.length === 0)
      problems.add(FIREWALL_ERRORS.nothingToDo, 'no firewall rules to create')
    const at = this.options.timestamp()
    const inlineFilters: Filter[] = []
    const claimed = new Set<string>()
    const rules = inputs.flatMap((input, index): StoredFirewallRule[] => {
      this.checkRuleFields(input, `/${index}`, problems)
      const filterId = this.resolveFilter(input.filter, `/${index}/filter`, problems, (filter) => {
        if (claimed.has(filter.expression)) {
          problems.add(
            FIREWALL_ERRORS.duplicate,
            'config duplicates an already existing config',
            `/${index}/filter/expression`,
          )
        }
        claimed.add(filter.expression)
        inlineFilters.push(filter)
      })
      if (filterId === undefined) return []
      return [this.stored(input, filterId, { id: this.options.newId(), created_on: at })]
    })
    problems.check()
    const quota = this.quota()
    const inUse = this.store.ruleCount()
    for (const filter of inlineFilters) this.store.putFilter(filter)
    if (inUse + rules.length > quota) {
      this.options.describe(
        inlineFilters.length > 0
          ? `${recordsNamed('Filter', inlineFilters.map(filterName))} created; firewall rules refused (quota)`
          : 'Firewall rules refused (quota)',
      )
      const created = inlineFilters.map((f) => f.id)
      throw new RefusedAfterWrite(
        new ApiError(
          400,
          FIREWALL_ERRORS.quotaExceeded,
          `firewall rule quota exceeded: the zone has ${inUse} of ${quota} rules and this request adds ${rules.length}.` +
            (created.length > 0
              ? ` The filter${created.length === 1 ? ' was' : 's were'} created (${created.join(', ')}) and no rule was; delete rules or raise the quota, then create the rules with these filter ids.`
              : ' No rule was created.'),
          { meta: { created_filters: created } },
        ),
      )
    }
    this.options.describe(
      `${recordsNamed('Firewall rule', this.ruleNames(rules))} created` +
        this.newFiltersWords(rules.length, inlineFilters.length),
    )
    for (const rule of rules) this.store.putRule(rule)
    return rules.map((rule) => this.present(rule))
  }

  updateRules(inputs: FirewallRuleBulkUpdate[]): FirewallRule[] {
    const problems = new Problems()
    if (inputs.length === 0)
      problems.add(FIREWALL_ERRORS.nothingToDo, 'no firewall rules to update')
    const at = this.options.timestamp()
    const rules = inputs.flatMap((input, index): StoredFirewallRule[] => {
      const existing = this.store.rule(input.id)
      if (existing === undefined) {
        problems.add(
          FIREWALL_ERRORS.unknownId,
          invalidValue(input.id, 'id', 'no firewall rule of this zone has it'),
          `/${index}/id`,
        )
        return []
      }
      this.checkRuleFields(input, `/${index}`, problems)
      if (this.store.filter(input.filter.id) === undefined) {
        problems.add(
          FIREWALL_ERRORS.unknownId,
          invalidValue(input.filter.id, 'id', 'no filter of this zone has it'),
          `/${index}/filter/id`,
        )
        return []
      }
      return [
        this.stored(
          input,
          input.filter.id,
          { id: existing.id, created_on: existing.created_on },
          at,
        ),
      ]
    })
    problems.check()
    this.options.describe(`${recordsNamed('Firewall rule', this.ruleNames(rules))} updated`)
    for (const rule of rules) this.store.putRule(rule)
    return rules.map((rule) => this.present(rule))
  }

  updateRule(
    id: string,
    input: Omit<FirewallRuleBulkUpdate, 'id'> & { id?: string },
  ): FirewallRule {
    this.existingRule(id)
    if (input.id !== undefined && input.id !== id) {
      throw new ApiError(
        400,
        FIREWALL_ERRORS.unknownId,
        invalidValue(input.id, 'id', `the path names firewall rule ${id}`),
      )
    }
    const [rule] = this.updateRules([{ ...input, id }])
    return rule!
  }

  /**
   * PATCH of priorities: each rule named gets the priority its item names; an item without
   * `priority` leaves its rule as it is (answered, not written). Other fields are never changed.
   */
  setPriorities(updates: PriorityUpdate[]): FirewallRule[] {
    const problems = new Problems()
    const at = this.options.timestamp()
    const changed = new Set<StoredFirewallRule>()
    const rules = updates.flatMap((update, index): StoredFirewallRule[] => {
      const existing = this.store.rule(update.id)
      if (existing === undefined) {
        problems.add(
          FIREWALL_ERRORS.unknownId,
          invalidValue(update.id, 'id', 'no firewall rule of this zone has it'),
          `/${index}/id`,
        )
        return []
      }
      if (update.priority === undefined) return [existing]
      const rule = { ...existing, priority: update.priority, modified_on: at }
      changed.add(rule)
      return [rule]
    })
    problems.check()
    if (changed.size > 0) {
      this.options.describe(
        `Priority of ${recordsNamed('firewall rule', this.ruleNames([...changed]))} changed`,
      )
    }
    for (const rule of changed) this.store.putRule(rule)
    return rules.map((rule) => this.present(rule))
  }

  /** PATCH of one rule's priority: answers the vendor's array of the rules changed. */
  setPriority(id: string, priority: number | null | undefined): FirewallRule[] {
    this.existingRule(id)
    return this.setPriorities([{ id, priority }])
  }

  /** Deletes the rules that exist among `ids`, and their filters if asked and unused. */
  deleteRules(ids: string[], deleteFilterIfUnused = false): { id: string }[] {
    const found = [...new Set(ids)].flatMap((id) => this.store.rule(id) ?? [])
    if (found.length > 0)
      this.options.describe(`${recordsNamed('Firewall rule', this.ruleNames(found))} deleted`)
    for (const rule of found) this.store.deleteRule(rule.id)
    if (deleteFilterIfUnused) {
      for (const filterId of new Set(found.map((rule) => rule.filter_id))) {
        if (this.store.rulesUsing(filterId).length === 0) this.store.deleteFilter(filterId)
      }
    }
    return found.map((rule) => ({ id: rule.id }))
  }

  deleteRule(id: string, deleteFilterIfUnused = false): { id: string } {
    this.existingRule(id)
    this.deleteRules([id], deleteFilterIfUnused)
    return { id }
  }

  settings(): FirewallSettings {
    return {
      rule_quota: this.store.ruleQuota() ?? null,
      plan_default: PLAN_RULE_QUOTA[this.options.plan],
      in_use: this.store.ruleCount(),
    }
  }

  setRuleQuota(quota: number | null): FirewallSettings {
    this.options.describe(
      quota === null
        ? 'Firewall rule quota back to the plan default'
        : `Firewall rule quota set to ${quota}`,
    )
    this.store.setRuleQuota(quota)
    return this.settings()
  }

  /** Rules by name for the history: their description, else their filter's name. */
  private ruleNames(rules: readonly StoredFirewallRule[]): string[] {
    return rules.map((rule) => {
      const filter = this.store.filter(rule.filter_id)
      return rule.description || (filter === undefined ? rule.id : filterName(filter))
    })
  }

  /** `, with its filter` after rules created with filters written inline. */
  private newFiltersWords(rules: number, filters: number): string {
    if (filters === 0) return ''
    if (filters === rules) return rules === 1 ? ', with its filter' : ', with their filters'
    return `, with ${plural(filters, 'new filter')}`
  }

  private quota(): number {
    return this.store.ruleQuota() ?? PLAN_RULE_QUOTA[this.options.plan]
  }

  private existingRule(id: string): StoredFirewallRule {
    const rule = this.store.rule(id)
    if (rule === undefined) throw couldNotRoute(`${this.options.basePath}/firewall/rules/${id}`)
    return rule
  }

  private checkRuleFields(
    input: Pick<FirewallRuleCreate, 'action' | 'products'>,
    at: string,
    problems: Problems,
  ): void {
    if (input.action === 'bypass' && (input.products ?? []).length === 0) {
      problems.add(
        FIREWALL_ERRORS.productsInvalid,
        'a bypass rule needs products: the features it bypasses',
        `${at}/products`,
      )
    }
    if (input.action !== 'bypass' && input.products !== undefined) {
      problems.add(
        FIREWALL_ERRORS.productsInvalid,
        `products can only be set on a bypass rule, not on a ${input.action} rule`,
        `${at}/products`,
      )
    }
    const unavailable = firewallActionUnavailable(input.action, this.options.plan)
    if (unavailable !== undefined) {
      problems.add(
        FIREWALL_ERRORS.planRefused,
        invalidValue(input.action, 'action', unavailable),
        `${at}/action`,
      )
    }
  }

  /** The id of the filter a new rule uses: an existing one, or `inline`'s new one. */
  private resolveFilter(
    filter: FirewallRuleCreate['filter'],
    at: string,
    problems: Problems,
    inline: (filter: Filter) => void,
  ): string | undefined {
    const hasId = filter.id !== undefined
    const hasExpression = filter.expression !== undefined
    if (hasId === hasExpression) {
      problems.add(
        FIREWALL_ERRORS.filterReference,
        hasId
          ? 'a rule names its filter by id or creates it with an expression, not both'
          : 'a rule needs a filter: its id, or an expression to create it with',
        at,
      )
      return undefined
    }
    if (filter.id !== undefined) {
      if (this.store.filter(filter.id) !== undefined) return filter.id
      problems.add(
        FIREWALL_ERRORS.unknownId,
        invalidValue(filter.id, 'id', 'no filter of this zone has it'),
        `${at}/id`,
      )
      return undefined
    }
    const [created] = this.filters.checkFilters(
      [{ ...filter, expression: filter.expression! }],
      problems,
      () => this.options.newId(),
      () => at,
    )
    if (created === undefined) return undefined
    inline(created)
    return created.id
  }

  private stored(
    input: Omit<FirewallRuleCreate, 'filter'>,
    filterId: string,
    identity: { id: string; created_on: string },
    modifiedOn = identity.created_on,
  ): StoredFirewallRule {
    return {
      id: identity.id,
      filter_id: filterId,
      action: input.action,
      priority: input.priority ?? null,
      paused: input.paused ?? false,
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.ref === undefined ? {} : { ref: input.ref }),
      ...(input.products === undefined ? {} : { products: input.products }),
      created_on: identity.created_on,
      modified_on: modifiedOn,
    }
  }

  private present(rule: StoredFirewallRule): FirewallRule {
    const { filter_id, ...rest } = rule
    return {
      id: rest.id,
      paused: rest.paused,
      ...(rest.description === undefined ? {} : { description: rest.description }),
      action: rest.action,
      priority: rest.priority,
      filter: this.store.filter(filter_id) ?? { id: filter_id, deleted: true },
      ...(rest.ref === undefined ? {} : { ref: rest.ref }),
      ...(rest.products === undefined ? {} : { products: rest.products }),
      created_on: rest.created_on,
      modified_on: rest.modified_on,
    }
  }
}
