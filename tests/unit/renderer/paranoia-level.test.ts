// The Managed rules screen's paranoia level: the tag overrides it writes, and the level the
// deployment then runs at, with the vendor's override precedence (src-shared/rulesets/overrides).

import { describe, expect, it } from 'vitest'
import type { Overrides, Rule } from '../../../src-shared/api/rulesets'
import { resolveOverrides } from '../../../src-shared/rulesets/overrides'
import {
  addCategoryOverride,
  updateCategoryOverride,
} from '../../../src-renderer/src/lib/state/override-edits'
import {
  hasParanoiaLevels,
  paranoiaEdits,
  paranoiaLevelInForce,
} from '../../../src-renderer/src/features/managed-rules/paranoia'

const scoring = (id: string, level: number): Rule =>
  ({
    id,
    version: '1',
    action: 'score',
    expression: 'true',
    enabled: true,
    categories: [`paranoia-level-${level}`, 'attack-sqli'],
    last_updated: '2026-01-01T00:00:00Z',
  }) as Rule

const RULES: Rule[] = [scoring('a', 1), scoring('b', 2), scoring('c', 3), scoring('d', 4)]

/** The overrides once the screen has applied the edits for `level`. */
function atLevel(overrides: Overrides | undefined, level: number): Overrides | undefined {
  let next = overrides
  for (const edit of paranoiaEdits(next?.categories ?? [], level)) {
    next =
      'add' in edit
        ? addCategoryOverride(next, edit.add)
        : updateCategoryOverride(next, edit.index, { enabled: edit.enabled })
  }
  return next
}

const previewsOf = (overrides: Overrides | undefined) =>
  RULES.map((rule) => ({ rule, effective: resolveOverrides(rule, overrides) }))

describe('paranoia level', () => {
  it('is the highest level with an enabled scoring rule', () => {
    expect(paranoiaLevelInForce(previewsOf(undefined))).toBe(4)
    expect(hasParanoiaLevels(previewsOf(undefined))).toBe(true)
    expect(hasParanoiaLevels([])).toBe(false)
  })

  it('writes each level tag: enabled at or below the level chosen, disabled above', () => {
    const overrides = atLevel(undefined, 2)
    expect(overrides?.categories).toEqual([
      { category: 'paranoia-level-1', enabled: true },
      { category: 'paranoia-level-2', enabled: true },
      { category: 'paranoia-level-3', enabled: false },
      { category: 'paranoia-level-4', enabled: false },
    ])
    expect(paranoiaLevelInForce(previewsOf(overrides))).toBe(2)
    for (const level of [1, 3, 4, 2]) {
      expect(paranoiaLevelInForce(previewsOf(atLevel(overrides, level)))).toBe(level)
    }
  })

  it('changes a level tag the deployment has in place, keeping its action and the other tags', () => {
    const overrides: Overrides = {
      categories: [
        { category: 'paranoia-level-3', action: 'log', enabled: true },
        { category: 'attack-sqli', action: 'block' },
      ],
    }
    expect(atLevel(overrides, 2)?.categories).toEqual([
      { category: 'paranoia-level-3', action: 'log', enabled: false },
      { category: 'attack-sqli', action: 'block' },
      { category: 'paranoia-level-1', enabled: true },
      { category: 'paranoia-level-2', enabled: true },
      { category: 'paranoia-level-4', enabled: false },
    ])
  })
})
