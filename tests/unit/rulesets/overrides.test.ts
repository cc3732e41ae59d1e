// Override resolution on the vendor's worked examples
// (docs/vendor-behaviour.md#execute-rule-and-overrides): a rule override beats a tag override, a
// later tag override beats an earlier one, a tag override beats the ruleset-level one, and each
// property is resolved on its own.
import { describe, expect, it } from 'vitest'
import type { Overrides } from '@shared/api/rulesets'
import { resolveOverrides, type OverridableRule } from '@shared/rulesets/overrides'

const rule = (
  id: string,
  categories: string[],
  action = 'block',
  enabled = true,
): OverridableRule => ({
  id,
  action,
  enabled,
  categories,
})

describe('resolveOverrides', () => {
  it('follows the documented Joomla-only example: ruleset off, joomla on and log, wordpress off', () => {
    const overrides: Overrides = {
      enabled: false,
      categories: [
        { category: 'joomla', enabled: true, action: 'log' },
        { category: 'wordpress', enabled: false },
      ],
    }
    const effective = (tags: string[]) => resolveOverrides(rule('r', tags), overrides).enabled
    expect(effective(['drupal', 'dos'])).toBe(false)
    expect(effective(['drupal', 'dos', 'joomla'])).toBe(true)
    expect(effective(['dos', 'joomla', 'wordpress'])).toBe(false)
    expect(effective(['drupal', 'wordpress'])).toBe(false)
    expect(effective([])).toBe(false)
    expect(resolveOverrides(rule('r', ['joomla']), overrides)).toMatchObject({
      action: 'log',
      enabled: true,
      from: { action: 'category', enabled: 'category' },
    })
  })

  it('lets a rule override beat the tag and ruleset overrides', () => {
    const overrides: Overrides = {
      action: 'managed_challenge',
      categories: [{ category: 'xss', action: 'log' }],
      rules: [{ id: 'a', action: 'js_challenge' }],
    }
    expect(resolveOverrides(rule('a', ['xss']), overrides)).toMatchObject({
      action: 'js_challenge',
      from: { action: 'rule' },
    })
    expect(resolveOverrides(rule('b', ['xss']), overrides)).toMatchObject({
      action: 'log',
      from: { action: 'category' },
    })
    expect(resolveOverrides(rule('c', ['sqli']), overrides)).toMatchObject({
      action: 'managed_challenge',
      from: { action: 'ruleset' },
    })
  })

  it('lets the later of two matching tag overrides win', () => {
    const overrides: Overrides = {
      categories: [
        { category: 'wordpress', action: 'log' },
        { category: 'xss', action: 'block' },
      ],
    }
    expect(
      resolveOverrides(rule('a', ['wordpress', 'xss'], 'js_challenge'), overrides).action,
    ).toBe('block')
    const reversed: Overrides = { categories: [...overrides.categories!].reverse() }
    expect(resolveOverrides(rule('a', ['wordpress', 'xss'], 'js_challenge'), reversed).action).toBe(
      'log',
    )
  })

  it('resolves action and enabled each on its own', () => {
    const overrides: Overrides = {
      action: 'log',
      categories: [{ category: 'php', enabled: false }],
      rules: [{ id: 'a', enabled: true }],
    }
    expect(resolveOverrides(rule('a', ['php']), overrides)).toEqual({
      action: 'log',
      enabled: true,
      from: { action: 'ruleset', enabled: 'rule' },
    })
    expect(resolveOverrides(rule('b', ['php']), overrides)).toEqual({
      action: 'log',
      enabled: false,
      from: { action: 'ruleset', enabled: 'category' },
    })
  })

  it('keeps defaults without overrides, and a disabled-by-default rule disabled', () => {
    expect(resolveOverrides(rule('a', ['php'], 'log', false), undefined)).toEqual({
      action: 'log',
      enabled: false,
      from: { action: 'default', enabled: 'default' },
    })
  })

  it('leaves scoring rules scoring and sets the anomaly rule threshold by rule override only', () => {
    const overrides: Overrides = {
      action: 'managed_challenge',
      rules: [{ id: 'final', score_threshold: 60 }],
    }
    const scoring = { id: 's', action: 'score', enabled: true, categories: ['paranoia-level-1'] }
    expect(resolveOverrides(scoring, overrides).action).toBe('score')
    const final = { id: 'final', action: 'block', enabled: true, score_threshold: 40 }
    expect(resolveOverrides(final, overrides)).toEqual({
      action: 'managed_challenge',
      enabled: true,
      score_threshold: 60,
      from: { action: 'ruleset', enabled: 'default', score_threshold: 'rule' },
    })
    expect(resolveOverrides(final, undefined).score_threshold).toBe(40)
  })
})
