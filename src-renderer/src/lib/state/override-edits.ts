// Edits to an execute rule's `overrides`, each answering the new value (undefined once nothing is
// overridden any more). A setting of null removes that override. The result is always in the
// shape the API takes: an entry that overrides nothing, an empty list and an empty object are
// dropped rather than sent.

import type { CategoryOverride, Overrides, RuleOverride } from '@shared/api/rulesets'

/** What an edit changes: a value sets the override, null removes it, absent leaves it. */
export interface OverridePatch {
  action?: string | null
  enabled?: boolean | null
}

export interface RuleOverridePatch extends OverridePatch {
  score_threshold?: number | null
}

function patched<T extends object>(target: T, patch: object): T {
  const next = new Map<string, unknown>(Object.entries(target))
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) next.delete(key)
    else if (value !== undefined) next.set(key, value)
  }
  return Object.fromEntries(next) as T
}

function tidy(overrides: Overrides): Overrides | undefined {
  const next: Overrides = { ...overrides }
  const categories = (next.categories ?? []).filter((entry) => Object.keys(entry).length > 1)
  const rules = (next.rules ?? []).filter((entry) => Object.keys(entry).length > 1)
  if (categories.length > 0) next.categories = categories
  else delete next.categories
  if (rules.length > 0) next.rules = rules
  else delete next.rules
  return Object.keys(next).length > 0 ? next : undefined
}

export function setRulesetOverride(
  overrides: Overrides | undefined,
  patch: OverridePatch,
): Overrides | undefined {
  return tidy(patched(overrides ?? {}, patch))
}

export function addCategoryOverride(
  overrides: Overrides | undefined,
  entry: CategoryOverride,
): Overrides | undefined {
  return tidy({ ...overrides, categories: [...(overrides?.categories ?? []), entry] })
}

export function updateCategoryOverride(
  overrides: Overrides | undefined,
  index: number,
  patch: OverridePatch,
): Overrides | undefined {
  const categories = (overrides?.categories ?? []).map((entry, i) =>
    i === index ? patched(entry, patch) : entry,
  )
  return tidy({ ...overrides, categories })
}

export function removeCategoryOverride(
  overrides: Overrides | undefined,
  index: number,
): Overrides | undefined {
  const categories = (overrides?.categories ?? []).filter((_, i) => i !== index)
  return tidy({ ...overrides, categories })
}

/** Moves a tag override one place earlier: later entries win, so this lowers its precedence. */
export function moveCategoryOverrideUp(
  overrides: Overrides | undefined,
  index: number,
): Overrides | undefined {
  const categories = [...(overrides?.categories ?? [])]
  const entry = categories[index]
  const previous = categories[index - 1]
  if (index < 1 || entry === undefined || previous === undefined) return overrides
  categories[index - 1] = entry
  categories[index] = previous
  return tidy({ ...overrides, categories })
}

export function setRuleOverride(
  overrides: Overrides | undefined,
  ruleId: string,
  patch: RuleOverridePatch,
): Overrides | undefined {
  const rules: RuleOverride[] = [...(overrides?.rules ?? [])]
  const index = rules.findIndex((entry) => entry.id === ruleId)
  const current = rules[index]
  if (current) rules[index] = patched(current, patch)
  else rules.push(patched<RuleOverride>({ id: ruleId }, patch))
  return tidy({ ...overrides, rules })
}
