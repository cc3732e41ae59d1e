// What a deployed managed rule does once the execute rule's overrides apply. The vendor's
// precedence, highest first: a rule override, then the category (tag) overrides, the later entry
// of the array winning when several match, then the ruleset-level override, then the rule's own
// default. Each property (`action`, `enabled`, `score_threshold`) is resolved on its own: a rule
// override that only disables a rule leaves its action to the tags and the ruleset.
//
// Scoring rules (OWASP, action `score`) keep `score` whatever an override says: they only add to
// the request's anomaly score, and the action taken is the one of the ruleset's anomaly rule
// (which the ruleset-level action does reach), as the vendor documents for its core ruleset.

import type { Overrides } from '../api/rulesets'

/** The part of a managed rule that overrides act on. */
export interface OverridableRule {
  id: string
  action: string
  enabled: boolean
  categories?: readonly string[]
  score_threshold?: number
}

/** Where an effective value came from. */
export type OverrideSource = 'rule' | 'category' | 'ruleset' | 'default'

export interface EffectiveRule {
  action: string
  enabled: boolean
  score_threshold?: number
  from: { action: OverrideSource; enabled: OverrideSource; score_threshold?: OverrideSource }
}

interface Resolved<T> {
  value: T
  from: OverrideSource
}

function pick<T>(
  fallback: T,
  ruleset: T | undefined,
  category: T | undefined,
  rule: T | undefined,
): Resolved<T> {
  if (rule !== undefined) return { value: rule, from: 'rule' }
  if (category !== undefined) return { value: category, from: 'category' }
  if (ruleset !== undefined) return { value: ruleset, from: 'ruleset' }
  return { value: fallback, from: 'default' }
}

/** The last category override naming one of `tags` that sets `property`. */
function lastCategoryValue<K extends 'action' | 'enabled'>(
  overrides: Overrides | undefined,
  tags: readonly string[],
  property: K,
): NonNullable<Overrides['categories']>[number][K] | undefined {
  let found: NonNullable<Overrides['categories']>[number][K] | undefined
  for (const entry of overrides?.categories ?? []) {
    if (tags.includes(entry.category) && entry[property] !== undefined) found = entry[property]
  }
  return found
}

export function resolveOverrides(
  rule: OverridableRule,
  overrides: Overrides | undefined,
): EffectiveRule {
  const tags = rule.categories ?? []
  const ruleOverride = overrides?.rules?.find((entry) => entry.id === rule.id)
  const scoring = rule.action === 'score'
  const action = scoring
    ? { value: rule.action, from: 'default' as const }
    : pick(
        rule.action,
        overrides?.action,
        lastCategoryValue(overrides, tags, 'action'),
        ruleOverride?.action,
      )
  const enabled = pick(
    rule.enabled,
    overrides?.enabled,
    lastCategoryValue(overrides, tags, 'enabled'),
    ruleOverride?.enabled,
  )
  const effective: EffectiveRule = {
    action: action.value,
    enabled: enabled.value,
    from: { action: action.from, enabled: enabled.from },
  }
  if (rule.score_threshold !== undefined) {
    const threshold = pick(
      rule.score_threshold,
      undefined,
      undefined,
      ruleOverride?.score_threshold,
    )
    effective.score_threshold = threshold.value
    effective.from.score_threshold = threshold.from
  }
  return effective
}
