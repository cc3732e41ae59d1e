// A zone's page rules (`/zones/{zone_id}/pagerules`): URL patterns with actions. Only the
// highest-priority active rule matching a request applies to it. Two actions matter to the WAF:
// `disable_security` and `waf` (on/off) decide whether the previous product runs for a URL, and the
// migration turns them into rules of the managed phase. Other actions are kept as given.

import { ApiError, badRequest, couldNotRoute } from '@shared/api/errors'
import type { ZonePlan } from '@shared/api/zones'
import {
  PAGE_RULE_QUOTA,
  describeTarget,
  withOperators,
  type PageRuleTarget,
  type PageRule,
  type PageRuleAction,
  type PageRuleCreate,
  type PageRuleEdit,
} from '@shared/api/waf'
import type { PageRuleStore } from './store'
import { PAGE_RULE_ERRORS } from '@shared/api/error-codes'

const invalid = (reason: string) =>
  badRequest(PAGE_RULE_ERRORS.invalid, `Page Rule validation failed: ${reason}`)

/**
 * The Rules-language expression that matches what a page rule's URL pattern matches: the full
 * URL (scheme optional in the pattern, `*` any run of characters, case folded), with a bare host
 * meaning its root. The engine runs page rules through it, and the migration writes it into skip
 * rules, so the two cannot disagree.
 */
export function pageRuleExpression(
  pattern: string,
  escape: (text: string) => string = (text) => text,
): string {
  const scheme = pattern.includes('://') ? '' : 'http*://'
  const afterScheme = pattern.includes('://') ? pattern.indexOf('://') + 3 : 0
  const normalized = pattern.includes('/', afterScheme) ? pattern : `${pattern}/`
  return `http.request.full_uri wildcard "${scheme}${escape(normalized)}"`
}

/** `value` with each `*` taken literally, as a wildcard pattern reads it (the literal's `\\*`). */
const literalStars = (value: string) => value.replaceAll('*', '\\\\*')

/**
 * The expression that matches what a page rule's target matches. `matches` is the URL pattern
 * (pageRuleExpression). The other operators compare the same URL, the full URL the pattern is
 * matched against, case folded as the pattern is, with `*` a character like any other:
 * `equals` the whole URL as `matches` forms it from the value (scheme optional, a bare host its
 * root), `contains` the value anywhere in the full URL; `not_equal` and `not_contain` their
 * negations. That reading is the workbench's (docs/vendor-behaviour.md#page-rules).
 */
export function pageRuleTargetExpression(target: PageRuleTarget): string {
  const { operator, value } = target.constraint
  switch (operator) {
    case 'matches':
      return pageRuleExpression(value)
    case 'equals':
      return pageRuleExpression(value, literalStars)
    case 'not_equal':
      return `not ${pageRuleExpression(value, literalStars)}`
    case 'contains':
      return `http.request.full_uri wildcard "*${literalStars(value)}*"`
    case 'not_contain':
      return `not http.request.full_uri wildcard "*${literalStars(value)}*"`
  }
}

function checkPattern(target: PageRuleTarget): void {
  const { operator, value } = target.constraint
  if (/[\s"\\]/.test(value)) {
    throw invalid(`the URL pattern ${JSON.stringify(value)} may not contain spaces, quotes or \\`)
  }
  // `contains` and `not_contain` take any part of a URL (`/admin`); the others a whole one.
  if (operator === 'contains' || operator === 'not_contain') return
  if (!/^(\*|[a-z*]+:\/\/)?[^/]*[a-z0-9*][^/]*(\/.*)?$/i.test(value)) {
    throw invalid(`${JSON.stringify(value)} is not a URL pattern (e.g. *example.com/images/*)`)
  }
}

function checkActions(actions: PageRuleAction[]): void {
  const seen = new Set<string>()
  for (const action of actions) {
    if (seen.has(action.id)) throw invalid(`the action ${action.id} is given twice`)
    seen.add(action.id)
    if (action.id === 'waf' && action.value !== 'on' && action.value !== 'off') {
      throw invalid(`the waf action takes the value "on" or "off"`)
    }
    if (action.id === 'disable_security' && action.value !== undefined) {
      throw invalid('the disable_security action takes no value')
    }
  }
  if (seen.has('disable_security') && seen.has('waf')) {
    throw invalid('disable_security and waf cannot be combined: Disable Security turns the WAF off')
  }
}

/** What a page rule does to the previous WAF, if anything. */
export function wafEffect(rule: PageRule): 'disable_security' | 'waf_off' | 'waf_on' | undefined {
  for (const action of rule.actions) {
    if (action.id === 'disable_security') return 'disable_security'
    if (action.id === 'waf') return action.value === 'off' ? 'waf_off' : 'waf_on'
  }
  return undefined
}

/** Active rules, the one that wins first: higher priority, then the older. */
export function inPrecedence(rules: readonly PageRule[]): PageRule[] {
  return rules.filter((rule) => rule.status === 'active').sort((a, b) => b.priority - a.priority)
}

export interface PageRulesOptions {
  store: PageRuleStore
  plan: ZonePlan
  /** the zone's path in the API, e.g. /zones/<id>, for the vendor's 7003 wording */
  basePath: string
  /** The time stamped on what is written, in the vendor's format (the service's clock). */
  timestamp: () => string
  newId: () => string
  describe: (note: string) => void
}

/** The Page Rules API's semantics over one zone. */
export class PageRules {
  constructor(private readonly options: PageRulesOptions) {}

  /** In creation order. */
  list(): PageRule[] {
    return this.options.store.list()
  }

  get(id: string): PageRule {
    const rule = this.options.store.rule(id)
    if (rule === undefined) throw couldNotRoute(`${this.options.basePath}/pagerules/${id}`)
    return rule
  }

  create(body: PageRuleCreate): PageRule {
    const count = this.options.store.count()
    const { plan } = this.options
    const quota = PAGE_RULE_QUOTA[plan]
    if (count >= quota) {
      throw new ApiError(
        400,
        PAGE_RULE_ERRORS.quota,
        `Page Rule validation failed: the zone already has ${count} page rules, the most its ${plan} plan allows`,
      )
    }
    const at = this.options.timestamp()
    const rule: PageRule = {
      id: this.options.newId(),
      targets: withOperators(body.targets),
      actions: body.actions,
      priority: body.priority ?? 1,
      status: body.status ?? 'disabled',
      created_on: at,
      modified_on: at,
    }
    this.save(rule, `Page rule ${describeTarget(rule.targets[0]!)} created`)
    return rule
  }

  /**
   * PUT replaces the rule's content; PATCH changes what it names. Only the rule's own fields are
   * taken: a property the schema does not know is ignored, never stored nor answered back.
   */
  edit(id: string, body: PageRuleEdit): PageRule {
    const current = this.get(id)
    const rule: PageRule = {
      ...current,
      targets: body.targets === undefined ? current.targets : withOperators(body.targets),
      actions: body.actions ?? current.actions,
      priority: body.priority ?? current.priority,
      status: body.status ?? current.status,
      modified_on: this.options.timestamp(),
    }
    this.save(rule, `Page rule ${describeTarget(rule.targets[0]!)} changed`)
    return rule
  }

  delete(id: string): { id: string } {
    const rule = this.get(id)
    this.options.describe(`Page rule ${describeTarget(rule.targets[0]!)} deleted`)
    this.options.store.delete(id)
    return { id }
  }

  private save(rule: PageRule, note: string): void {
    checkPattern(rule.targets[0]!)
    checkActions(rule.actions)
    this.options.describe(note)
    this.options.store.put(rule)
  }
}
