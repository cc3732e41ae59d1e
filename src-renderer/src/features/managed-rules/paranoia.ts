// The OWASP ruleset's paranoia level as the vendor's dashboard sets it: tags `paranoia-level-1` to
// `-4`, level n turning the tags above n off and those at or below it on
// (docs/vendor-behaviour.md#owasp-core-ruleset).

import type { CategoryOverride } from '@shared/api/rulesets'
import type { RulePreview } from '../../lib/state/managed-rules.svelte'

export const PARANOIA_LEVELS = [1, 2, 3, 4] as const

const PREFIX = 'paranoia-level-'

export function paranoiaCategory(level: number): string {
  return `${PREFIX}${level}`
}

/** A rule's paranoia level, from its `paranoia-level-N` tag. */
function paranoiaLevelOf(tags: readonly string[] | undefined): number | undefined {
  const tag = tags?.find((candidate) => candidate.startsWith(PREFIX))
  return tag === undefined ? undefined : Number(tag.slice(PREFIX.length)) || undefined
}

/** Whether a ruleset's rules carry paranoia levels (the OWASP ruleset's do). */
export function hasParanoiaLevels(previews: readonly RulePreview[]): boolean {
  return previews.some(({ rule }) => paranoiaLevelOf(rule.categories) !== undefined)
}

/**
 * The level the deployment runs at: the highest of its enabled scoring rules' levels, 1 at least,
 * as the engine reckons it (src-main/engine/plan.ts, planCrs).
 */
export function paranoiaLevelInForce(previews: readonly RulePreview[]): number {
  let level = 1
  for (const { rule, effective } of previews) {
    if (rule.action !== 'score' || !effective.enabled) continue
    level = Math.max(level, paranoiaLevelOf(rule.categories) ?? 1)
  }
  return level
}

/** One change to the tag overrides: a patch to an existing entry, or an entry to add. */
export type ParanoiaEdit = { index: number; enabled: boolean } | { add: CategoryOverride }

/**
 * The tag-override edits that set level `level`: each level's tag enabled at or below it and
 * disabled above. An entry the deployment already has for a level's tag is changed in place (its
 * last one, which wins), so its action and its place among the other tags stay as they are.
 */
export function paranoiaEdits(
  categories: readonly CategoryOverride[],
  level: number,
): ParanoiaEdit[] {
  return PARANOIA_LEVELS.map((candidate): ParanoiaEdit => {
    const category = paranoiaCategory(candidate)
    const enabled = candidate <= level
    const index = categories.findLastIndex((entry) => entry.category === category)
    return index >= 0 ? { index, enabled } : { add: { category, enabled } }
  })
}
