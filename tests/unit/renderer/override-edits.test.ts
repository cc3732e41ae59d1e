// The Managed rules screen's override edits: each answers overrides the API accepts, dropping
// what no longer overrides anything, and keeps the order that decides between tag overrides.

import { describe, expect, it } from 'vitest'
import {
  addCategoryOverride,
  moveCategoryOverrideUp,
  removeCategoryOverride,
  setRuleOverride,
  setRulesetOverride,
  updateCategoryOverride,
} from '../../../src-renderer/src/lib/state/override-edits'

const RULE = 'e332a8a64016f46d075ecd6e2d705e39'

describe('override edits', () => {
  it('sets and clears the ruleset-level action and status', () => {
    const set = setRulesetOverride(undefined, { action: 'log', enabled: false })
    expect(set).toEqual({ action: 'log', enabled: false })
    expect(setRulesetOverride(set, { action: null })).toEqual({ enabled: false })
    expect(setRulesetOverride(set, { action: null, enabled: null })).toBeUndefined()
  })

  it('adds, updates and removes tag overrides, dropping one that overrides nothing', () => {
    let overrides = addCategoryOverride(undefined, { category: 'wordpress', action: 'log' })
    overrides = addCategoryOverride(overrides, { category: 'joomla', enabled: false })
    expect(overrides?.categories).toEqual([
      { category: 'wordpress', action: 'log' },
      { category: 'joomla', enabled: false },
    ])
    overrides = updateCategoryOverride(overrides, 0, { action: 'block', enabled: true })
    expect(overrides?.categories?.[0]).toEqual({
      category: 'wordpress',
      action: 'block',
      enabled: true,
    })
    overrides = updateCategoryOverride(overrides, 1, { enabled: null })
    expect(overrides?.categories).toHaveLength(1)
    expect(removeCategoryOverride(overrides, 0)).toBeUndefined()
  })

  it('moves a tag override up, and leaves the first one where it is', () => {
    const overrides = {
      categories: [
        { category: 'a', action: 'log' },
        { category: 'b', action: 'block' },
      ],
    }
    expect(moveCategoryOverrideUp(overrides, 1)?.categories?.map((c) => c.category)).toEqual([
      'b',
      'a',
    ])
    expect(moveCategoryOverrideUp(overrides, 0)).toBe(overrides)
  })

  it('edits one rule override in place and removes it once empty', () => {
    let overrides = setRuleOverride({ action: 'log' }, RULE, { score_threshold: 25 })
    expect(overrides).toEqual({ action: 'log', rules: [{ id: RULE, score_threshold: 25 }] })
    overrides = setRuleOverride(overrides, RULE, { enabled: false })
    expect(overrides?.rules).toEqual([{ id: RULE, score_threshold: 25, enabled: false }])
    overrides = setRuleOverride(overrides, RULE, { score_threshold: null, enabled: null })
    expect(overrides).toEqual({ action: 'log' })
  })
})
