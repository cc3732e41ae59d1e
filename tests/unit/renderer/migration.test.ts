// The Migration screen's pure parts: the line diff of the review, the side-by-side replay added up
// chunk by chunk, the page rules it creates, the switch-over countdown, and how the Simulator's
// trace names the previous product's nodes.

import { describe, expect, it } from 'vitest'
import type { TraceNode } from '@shared/api/simulate'
import type { ComparedRequest, MigrationComparison, PageRuleOperator } from '@shared/api/waf'
import {
  diffLines,
  diffStats,
  entrypointLines,
} from '../../../src-renderer/src/features/migration/line-diff'
import { ComparisonTally } from '@shared/replay/comparison-tally'
import {
  deployPath,
  PAGE_RULE_VALUE_HELP,
  pageRuleActionLabel,
  pageRuleBody,
  requestsTargeted,
  secondsUntil,
  switchProgress,
} from '../../../src-renderer/src/features/migration/migration-view'
import {
  editorHref,
  nodeActionLabel,
  nodeStatus,
} from '../../../src-renderer/src/features/simulator/trace-view'

/** A diff as `+line`, `-line`, ` line`, to read expectations at a glance. */
const show = (before: string[], after: string[]) =>
  diffLines(before, after).map(
    (line) => ({ same: ' ', added: '+', removed: '-' })[line.kind] + line.text,
  )

describe('diffLines', () => {
  it('keeps equal texts as they are', () => {
    expect(show(['a', 'b'], ['a', 'b'])).toEqual([' a', ' b'])
    expect(show([], [])).toEqual([])
  })

  it('adds every line to an empty text and removes every line of a text emptied', () => {
    expect(show([], ['a', 'b'])).toEqual(['+a', '+b'])
    expect(show(['a', 'b'], [])).toEqual(['-a', '-b'])
  })

  it('finds the longest common subsequence, removals ahead of additions', () => {
    expect(show(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'd', 'e'])).toEqual([
      ' a',
      '-b',
      '+x',
      ' c',
      ' d',
      '+e',
    ])
    expect(show(['x', 'a', 'b', 'y'], ['a', 'q', 'b'])).toEqual(['-x', ' a', '+q', ' b', '-y'])
  })

  it('numbers each line in the text it comes from', () => {
    const lines = diffLines(['a', 'b', 'c'], ['a', 'x', 'y', 'c'])
    expect(lines.map((line) => [line.kind, line.before, line.after])).toEqual([
      ['same', 1, 1],
      ['removed', 2, null],
      ['added', null, 2],
      ['added', null, 3],
      ['same', 3, 4],
    ])
    expect(diffStats(lines)).toEqual({ added: 2, removed: 1 })
  })

  it('rebuilds both texts from the diff', () => {
    const before = ['{', '  "a": 1,', '  "b": 2', '}', 'tail', 'tail']
    const after = ['{', '  "b": 2,', '  "c": 3', '}', 'tail']
    const lines = diffLines(before, after)
    expect(lines.filter((l) => l.kind !== 'added').map((l) => l.text)).toEqual(before)
    expect(lines.filter((l) => l.kind !== 'removed').map((l) => l.text)).toEqual(after)
  })
})

describe('entrypointLines', () => {
  it('pretty-prints the name and rules only, and nothing for no entry point', () => {
    const rule = { id: '', action: 'skip', expression: 'true' }
    const lines = entrypointLines({ name: 'default', rules: [rule] })
    expect(lines[0]).toBe('{')
    expect(lines).toContain('  "name": "default",')
    expect(lines).toContain('      "action": "skip",')
    expect(JSON.parse(lines.join('\n'))).toEqual({ name: 'default', rules: [rule] })
    expect(entrypointLines(null)).toEqual([])
  })
})

describe('ComparisonTally.addComparison', () => {
  const request = (index: number, differs: boolean): ComparedRequest => ({
    index,
    method: 'GET',
    url: `/${index}`,
    differs,
    previous: { outcome: differs ? 'challenged' : 'passed', action: null, rules: [] },
    new: { outcome: 'passed', action: null, rules: [] },
  })
  const chunk = (results: ComparedRequest[]): MigrationComparison => {
    const part = new ComparisonTally().comparison()
    const differences = results.filter((r) => r.differs).length
    return {
      ...part,
      requests: results.length,
      differences,
      new_configuration: 'entrypoint',
      outcomes: {
        previous: { blocked: 0, challenged: differences, passed: results.length - differences },
        new: { blocked: 0, challenged: 0, passed: results.length },
      },
      matrix: {
        ...part.matrix,
        challenged: { blocked: 0, challenged: 0, passed: differences },
        passed: { blocked: 0, challenged: 0, passed: results.length - differences },
      },
      results: [...results.filter((r) => r.differs), ...results.filter((r) => !r.differs)],
    }
  }

  it('adds up the counts and numbers requests in the file, differences first', () => {
    const tally = new ComparisonTally()
    // the route numbers a chunk's requests from 0
    tally.addComparison(chunk([request(0, false), request(1, true)]), 1)
    tally.addComparison(chunk([request(0, true), request(1, false)]), 3)
    const total = tally.comparison()
    expect(total.requests).toBe(4)
    expect(total.differences).toBe(2)
    expect(total.new_configuration).toBe('entrypoint')
    expect(total.outcomes.previous).toEqual({ blocked: 0, challenged: 2, passed: 2 })
    expect(total.outcomes.new).toEqual({ blocked: 0, challenged: 0, passed: 4 })
    expect(total.matrix.challenged.passed).toBe(2)
    expect(total.matrix.passed.passed).toBe(2)
    expect(total.results.map((r) => [r.index, r.differs])).toEqual([
      [1, true],
      [2, true],
      [0, false],
      [3, false],
    ])
  })
})

describe('page rules and the switch-over', () => {
  it('deploys to the managed phase with the migration mode, as the steps show the call', () => {
    expect(deployPath('z1', 'validation')).toBe(
      '/zones/z1/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=validation&phase_two=1',
    )
    expect(deployPath('z1', 'pending')).toBe(
      '/zones/z1/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=pending&phase_two=1',
    )
  })

  it('creates an active page rule with the chosen WAF action', () => {
    expect(pageRuleBody(' *example.com/admin/* ', 'waf_off')).toEqual({
      targets: [
        { target: 'url', constraint: { operator: 'matches', value: '*example.com/admin/*' } },
      ],
      actions: [{ id: 'waf', value: 'off' }],
      status: 'active',
    })
    expect(pageRuleBody('x.test/*', 'disable_security').actions).toEqual([
      { id: 'disable_security' },
    ])
  })

  it('creates a page rule with the chosen operator, and says what its value is and takes', () => {
    expect(pageRuleBody(' /admin ', 'disable_security', 'contains').targets).toEqual([
      { target: 'url', constraint: { operator: 'contains', value: '/admin' } },
    ])
    expect(PAGE_RULE_VALUE_HELP.matches.hint).toMatch(/URL pattern.*\* stands for any/)
    for (const operator of ['contains', 'equals', 'not_equal', 'not_contain'] as const) {
      expect(PAGE_RULE_VALUE_HELP[operator].hint).toContain('* is a plain character')
    }
    expect(PAGE_RULE_VALUE_HELP.contains.example).toBe('/admin')
    const target = (operator: PageRuleOperator, value: string) =>
      requestsTargeted({ target: 'url', constraint: { operator, value } })
    expect(target('matches', '*example.com/*')).toBe('Requests matching *example.com/*')
    expect(target('contains', '/admin')).toBe('Requests whose URL contains /admin')
    expect(target('equals', 'example.com/')).toBe('Requests whose URL is example.com/')
    expect(target('not_equal', 'example.com/')).toBe('Requests whose URL is not example.com/')
    expect(target('not_contain', '/admin')).toBe('Requests whose URL does not contain /admin')
  })

  it('names page-rule actions as the dashboard does, others by id and value', () => {
    expect(pageRuleActionLabel({ id: 'waf', value: 'on' })).toBe('Web Application Firewall: On')
    expect(pageRuleActionLabel({ id: 'disable_security' })).toBe('Disable Security')
    expect(pageRuleActionLabel({ id: 'cache_level', value: 'bypass' })).toBe(
      'cache_level: "bypass"',
    )
    expect(pageRuleActionLabel({ id: 'always_use_https' })).toBe('always_use_https')
  })

  it('counts down to the switch and measures how far it has come', () => {
    const created = '2025-01-01T00:00:00.000Z'
    const switchAt = '2025-01-01T00:00:10.000Z'
    const now = Date.parse('2025-01-01T00:00:02.500Z')
    expect(secondsUntil(switchAt, now)).toBe(8)
    expect(secondsUntil(switchAt, Date.parse(switchAt) + 5000)).toBe(0)
    expect(secondsUntil(null, now)).toBeNull()
    expect(switchProgress(created, switchAt, now)).toBeCloseTo(0.25)
    expect(switchProgress(created, switchAt, Date.parse(switchAt) + 1)).toBe(1)
    expect(switchProgress(null, switchAt, now)).toBe(0)
  })
})

describe("the previous product's trace nodes", () => {
  const node = (extra: Partial<TraceNode>): TraceNode => ({
    kind: 'waf_rule',
    ruleset_id: 'c504870194831cd12c3fc0284f294abb',
    rule_id: '960015',
    description: 'Request missing an Accept header',
    action: 'simulate',
    evaluated: true,
    matched: true,
    ...extra,
  })

  it('names their modes and settings, and sends their edits to the Migration screen', () => {
    expect(nodeActionLabel(node({}))).toBe('Simulate')
    expect(nodeActionLabel(node({ kind: 'page_rule', action: 'disable_security' }))).toBe(
      'Disable Security',
    )
    expect(nodeActionLabel(node({ kind: 'waf_package', action: 'challenge' }))).toBe(
      'Interactive Challenge',
    )
    expect(nodeActionLabel(node({ kind: 'ruleset_rule', action: 'block' }))).toBe('Block')
    expect(editorHref(node({ kind: 'waf_override' }), null)).toBe('#/migration')
    expect(editorHref(node({ kind: 'firewall_rule' }), null)).toBe('#/firewall-rules')
    expect(editorHref(node({ kind: 'ruleset_rule' }), 'z 1')).toBe('#/zones/z%201/managed-rules')
  })

  it('says a package ran rather than matched', () => {
    expect(nodeStatus(node({ kind: 'waf_package', matched: undefined }))).toBe('Ran')
    expect(nodeStatus(node({}))).toBe('Matched')
    expect(nodeStatus(node({ evaluated: false, not_evaluated: 'disabled' }))).toMatch(/disabled/)
  })
})
