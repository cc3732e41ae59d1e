// A requirement may only rule out what the expression itself rules out: whenever a table says an
// expression cannot hold for a request, evaluating it must give false. Checked on expressions of
// the shapes managed rules use (and those it must leave alone), on random requests built from
// the patterns' own literals, and on every rule of the shipped catalog against the traffic corpus.
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  compile,
  compileRegex,
  createContext,
  requestContext,
  RequirementTable,
  type CompiledExpression,
  type RequestDescription,
} from '@shared/expression'

function tableOf(expressions: readonly CompiledExpression[]): RequirementTable {
  const table = new RequirementTable()
  table.add(expressions.map((expression) => expression.needs))
  return table
}

const fieldsOf = (query: string, body: string, headers: string[] = []) =>
  createContext({
    'http.request.uri.query': query,
    'http.request.body.raw': body,
    'http.request.headers.values': headers,
  })

describe('needs', () => {
  it('an `or` of patterns needs one of their gates; a lone condition without one needs nothing', () => {
    const either = compile(
      'http.request.uri.query matches "(?i)union\\s+select" or http.request.body.raw matches "<script"',
    )
    expect(either.needs).toHaveLength(2)
    expect(compile('http.request.uri.query matches "a" or http.request.body.size > 0').needs).toBe(
      undefined,
    )
    expect(compile('not http.request.uri.query matches "select"').needs).toBe(undefined)
  })

  it('an `and` needs what its most selective part needs, unless its first part needs nothing', () => {
    const expression = compile(
      'http.request.body.raw matches "wp_capabilities" and http.request.method eq "POST"',
    )
    expect(expression.needs).toHaveLength(1)
    // The size decides before the body is decoded and scanned.
    const sizeFirst = compile(
      'http.request.body.size > 0 and http.request.body.raw matches "wp_capabilities"',
    )
    expect(sizeFirst.needs).toBe(undefined)
  })

  it('a comparison with text needs its value to contain the text, whatever the case', () => {
    const needing = [
      'http.request.method eq "POST"',
      'http.request.uri.path contains "/wp-admin/"',
      'lower(http.request.uri.path) contains "/xmlrpc.php"',
      'http.request.method in {"PUT" "DELETE"}',
      'starts_with(http.request.uri.path, "/api/")',
      'ends_with(lower(http.request.uri.path), "/wp-login.php")',
      // of equal gates the first is kept: the method is read before the body
      'http.request.method eq "POST" and http.request.body.raw matches "wp_capabilities"',
    ]
    for (const text of needing) expect(compile(text).needs, text).toHaveLength(1)
    const notNeeding = [
      'http.request.uri.path contains ""',
      'http.request.uri.path eq "/caf\xc3\xa9"',
      'http.request.method ne "POST"',
      'http.request.method in {"GET" ""}',
      'any(http.request.headers.values[*] contains "x")',
    ]
    for (const text of notNeeding) expect(compile(text).needs, text).toBe(undefined)
    const table = tableOf([compile('ends_with(http.request.uri.path, "/WP-LOGIN.PHP")')])
    const request = (path: string) => createContext({ 'http.request.uri.path': path })
    // a conservative test: the case is the comparison's business
    expect(table.mayHold(0, request('/blog/wp-login.php'))).toBe(true)
    expect(table.mayHold(0, request('/blog/index.php'))).toBe(false)
  })

  it('`all()` needs nothing (it holds for no elements at all), `any()` its pattern', () => {
    expect(compile('all(http.request.headers.values[*] matches "jndi")').needs).toBe(undefined)
    expect(compile('any(http.request.headers.values[*] matches "jndi")').needs).toHaveLength(1)
  })
})

describe('RequirementTable', () => {
  it('numbers groups of expressions one after the other and refuses more once in use', () => {
    const table = new RequirementTable()
    const [a, b] = [compile('http.request.uri.query matches "abc"'), compile('true')]
    expect(table.add([a.needs, b.needs])).toBe(0)
    expect(table.add([a.needs])).toBe(2)
    expect(table.mayHold(2, fieldsOf('xyz', ''))).toBe(false)
    expect(table.mayHold(1, fieldsOf('xyz', ''))).toBe(true)
    expect(() => table.add([a.needs])).toThrow(/cannot grow/)
  })

  const expressions = [
    'http.request.uri.query matches "(?i)union\\s+select" or http.request.body.raw matches "(?i)<script"',
    'any(http.request.headers.values[*] matches "(?i)\\$\\{jndi:") and http.request.uri.query ne "x"',
    'http.request.uri.query ne "admin"',
  ].map((text) => compile(text))
  const table = tableOf(expressions)

  it('rules out an expression none of whose gates a request meets, and only then', () => {
    const clean = fieldsOf('q=shoes', 'name=ada', ['Mozilla/5.0'])
    expect(table.mayHold(0, clean)).toBe(false)
    expect(table.mayHold(1, clean)).toBe(false)
    // No needs: always evaluated.
    expect(table.mayHold(2, clean)).toBe(true)
    const attack = fieldsOf('q=1 UNION  SELECT 2', '', ['${jndi:ldap://x}'])
    expect(table.mayHold(0, attack)).toBe(true)
    expect(expressions[0]!.evaluate(attack)).toBe(true)
    expect(table.mayHold(1, attack)).toBe(true)
    expect(expressions[1]!.evaluate(attack)).toBe(true)
  })

  it('keeps its answer for a request after the scanned inputs it read are reused for other values', () => {
    const attack = fieldsOf('q=1 union select 2', '', [])
    expect(table.mayHold(0, attack)).toBe(true)
    // Patterns tried on other values take over every input of the shared ring.
    const other = compileRegex('zz')
    for (let i = 0; i < 100; i++) other.test(`value ${i}`)
    expect(table.mayHold(0, attack)).toBe(true)
    expect(table.mayHold(0, fieldsOf('q=shoes', ''))).toBe(false)
  })

  it('never rules out an expression that holds (random requests from the literals)', () => {
    const words = ['union', 'Select', '<script', 'jndi', '${', 'ADMIN', 'or', "'", '1=1', 'x', ' ']
    const texts = [
      'http.request.uri.query matches "(?i)\\bunion\\b.{0,8}select" or http.request.body.raw matches "<script"',
      'http.request.uri.query matches "\'\\s*or\\s*1=1" and http.request.body.raw ne ""',
      'any(http.request.headers.values[*] matches "\\$\\{jndi") or http.request.uri.query matches "admin$"',
      'not http.request.uri.query matches "select" and http.request.body.raw matches "(?i)union"',
      '(http.request.uri.query matches "x{2,}" or http.request.uri.query matches "or") and any(http.request.headers.values[*] matches "select")',
      'http.request.uri.query contains "admin" or starts_with(lower(http.request.body.raw), "union")',
      'ends_with(http.request.uri.query, "1=1") and http.request.body.raw in {"x" "Select" "or\'"}',
      'lower(http.request.uri.query) eq "union" or http.request.body.raw contains "script"',
    ]
    const compiled = texts.map((text) => compile(text))
    const randomTable = tableOf(compiled)
    const value = fc
      .array(fc.constantFrom(...words), { maxLength: 6 })
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(value, value, fc.array(value, { maxLength: 3 }), (query, body, headers) => {
        const ctx = fieldsOf(query, body, headers)
        compiled.forEach((expression, i) => {
          if (!randomTable.mayHold(i, ctx)) expect(expression.evaluate(ctx)).toBe(false)
        })
      }),
      { numRuns: 300 },
    )
  })

  it('never rules out a shipped managed rule on the traffic corpus', () => {
    const root = resolve(import.meta.dirname, '../../..')
    // The OWASP ruleset's rules are CRS's (its expressions are `true`; the CRS program decides).
    const rules = ['efb7b8c949ac4650a09736fc376e9aee'].flatMap((id) =>
      (
        JSON.parse(
          readFileSync(resolve(root, `resources/managed-rulesets/${id}.json`), 'utf8'),
        ) as { rules: { expression: string }[] }
      ).rules.map((rule) => compile(rule.expression, { phase: 'http_request_firewall_managed' })),
    )
    const catalogTable = tableOf(rules)
    const requests = ['attacks', 'benign'].flatMap((name) =>
      readFileSync(resolve(root, `tests/fixtures/traffic/${name}.ndjson`), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as RequestDescription),
    )
    let ruledOut = 0
    for (const request of requests) {
      const ctx = requestContext(request)
      rules.forEach((rule, i) => {
        if (catalogTable.mayHold(i, ctx)) return
        ruledOut++
        expect(rule.evaluate(ctx), `${rule.text} on ${request.url}`).toBe(false)
      })
    }
    // The table does rule most rules out, or this test would prove nothing.
    expect(ruledOut).toBeGreaterThan(requests.length * rules.length * 0.5)
  })
})
