// A page rule target's operators as the engine and the migration read them
// (docs/vendor-behaviour.md#page-rules): `matches` the URL pattern, the others the same full URL;
// and how a target reads in notes, traces and the Migration screen (describeTarget).
import { describe, expect, it } from 'vitest'
import { compile, requestContext } from '@shared/expression'
import { describeTarget, PAGE_RULE_OPERATORS, type PageRuleOperator } from '@shared/api/waf'
import { pageRuleTargetExpression } from '../../../src-main/zones/page-rules/page-rules'

const matches = (operator: PageRuleOperator, value: string, url: string) =>
  compile(pageRuleTargetExpression({ target: 'url', constraint: { operator, value } }), {
    phase: 'http_request_firewall_managed',
  }).evaluate(requestContext({ method: 'GET', url, headers: {}, ip: '198.51.100.20' }))

describe('page rule target operators', () => {
  it('matches: the wildcard URL pattern (scheme optional, a bare host its root)', () => {
    expect(matches('matches', '*example.com/admin/*', 'https://www.example.com/admin/x')).toBe(true)
    expect(matches('matches', 'example.com', 'https://example.com/')).toBe(true)
    expect(matches('matches', 'example.com', 'https://example.com/x')).toBe(false)
  })

  it('contains / not_contain: the value anywhere in the full URL, case folded, * literal', () => {
    expect(matches('contains', '/Admin', 'https://shop.example.com/admin/users')).toBe(true)
    expect(matches('contains', '/admin', 'https://shop.example.com/products')).toBe(false)
    expect(matches('contains', 'a*b', 'https://x.example.com/aXb')).toBe(false)
    expect(matches('contains', 'a*b', 'https://x.example.com/a*b')).toBe(true)
    expect(matches('not_contain', '/admin', 'https://shop.example.com/products')).toBe(true)
    expect(matches('not_contain', '/admin', 'https://shop.example.com/admin/')).toBe(false)
  })

  it('equals / not_equal: the whole URL as matches forms it, without wildcards', () => {
    expect(matches('equals', 'shop.example.com/admin', 'https://shop.example.com/admin')).toBe(true)
    expect(matches('equals', 'shop.example.com/admin', 'http://SHOP.example.com/admin')).toBe(true)
    expect(matches('equals', 'shop.example.com/admin', 'https://shop.example.com/admin/x')).toBe(
      false,
    )
    expect(matches('equals', 'shop.example.com', 'https://shop.example.com/')).toBe(true)
    expect(matches('equals', 'https://shop.example.com/*', 'https://shop.example.com/x')).toBe(
      false,
    )
    expect(matches('not_equal', 'shop.example.com/admin', 'https://shop.example.com/x')).toBe(true)
    expect(matches('not_equal', 'shop.example.com/admin', 'https://shop.example.com/admin')).toBe(
      false,
    )
  })

  it('describeTarget: the value alone for matches, the operator before it otherwise', () => {
    const target = (operator: PageRuleOperator, value: string) =>
      describeTarget({ target: 'url', constraint: { operator, value } })
    expect(target('matches', '*example.com/admin/*')).toBe('*example.com/admin/*')
    expect(target('contains', '/admin')).toBe('contains /admin')
    expect(target('equals', 'example.com/admin')).toBe('equals example.com/admin')
    expect(target('not_equal', 'example.com/admin')).toBe('not_equal example.com/admin')
    expect(target('not_contain', '/admin')).toBe('not_contain /admin')
    // each operator reads differently, so two rules on one value never read alike
    const read = PAGE_RULE_OPERATORS.map((operator) => target(operator, '/admin'))
    expect(new Set(read).size).toBe(PAGE_RULE_OPERATORS.length)
  })
})
