// The compiler: closures, constant folding, the cache, short-circuits, missing values, and the
// whole-expression checks (root type, where functions may be used, credential expressions).

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  check,
  compile,
  compileCredentialExpression,
  compileRegex,
  compileValue,
  createContext,
  ExpressionError,
  parse,
  parseValue,
  type Expression,
} from '@shared/expression'

const errorOf = (f: () => unknown): ExpressionError => {
  try {
    f()
  } catch (e) {
    if (e instanceof ExpressionError) return e
    throw e
  }
  throw new Error('expected an ExpressionError')
}

describe('constant folding', () => {
  it('folds literals, the true/false constants and pure functions of literals', () => {
    expect(compile('true').constant).toBe(true)
    expect(compile('false').constant).toBe(false)
    expect(compile('not true or false').constant).toBe(false)
    expect(compile('len("abc") eq 3').constant).toBe(true)
    expect(compile('lower("ABC") eq "abc" and upper("a") eq "A"').constant).toBe(true)
    expect(compile('true xor true xor true').constant).toBe(true)
    expect(compile('ssl or true').constant).toBe(true)
    expect(compile('ssl and false').constant).toBe(false)
  })

  it('keeps what depends on the request', () => {
    const c = compile('ssl and true')
    expect(c.constant).toBeUndefined()
    expect(c.evaluate(createContext({ ssl: true }))).toBe(true)
    expect(c.evaluate(createContext({ ssl: false }))).toBe(false)
    expect(compile('true xor ssl').evaluate(createContext({ ssl: true }))).toBe(false)
  })
})

describe('cache', () => {
  it('returns the same compiled expression for the same text and options', () => {
    const a = compile('http.host eq "a"')
    expect(compile('http.host eq "a"')).toBe(a)
    expect(compile('http.host eq "a"', { nilNotEqual: true })).not.toBe(a)
  })

  it('remembers invalid expressions too', () => {
    const e1 = errorOf(() => compile('http.host eq'))
    const e2 = errorOf(() => compile('http.host eq'))
    expect(e2).toBe(e1)
  })

  it('compiles each regex pattern once', () => {
    expect(compileRegex('^/a+$')).toBe(compileRegex('^/a+$'))
  })
})

describe('evaluation', () => {
  it('short-circuits and / or from left to right', () => {
    const notes: string[] = []
    const ctx = createContext({ ssl: true, 'ip.src': '192.0.2.1' }, { warn: (m) => notes.push(m) })
    expect(compile('ssl or ip.src in $x').evaluate(ctx)).toBe(true)
    expect(compile('not ssl and ip.src in $x').evaluate(ctx)).toBe(false)
    expect(notes).toEqual([])
    expect(compile('ip.src in $x or ssl').evaluate(ctx)).toBe(true)
    expect(notes).toHaveLength(1)
  })

  it('makes every comparison on a missing value false, != included, unless asked otherwise', () => {
    const empty = createContext({})
    for (const expr of [
      'http.host eq "a"',
      'http.host ne "a"',
      'cf.bot_management.score lt 5',
      'http.host contains ""',
      'http.host matches ".*"',
      'ip.src ne 1.1.1.1',
      'http.host in {"a"}',
      'http.host wildcard "*"',
    ]) {
      expect(compile(expr).evaluate(empty)).toBe(false)
    }
    expect(compile('http.host ne "a"', { nilNotEqual: true }).evaluate(empty)).toBe(true)
    expect(compile('not http.host eq "a"').evaluate(empty)).toBe(true)
  })

  it('maps a function over [*] and drops missing results', () => {
    const ctx = createContext({
      'http.request.body.raw': '{"a":"x"}',
      'http.request.headers.values': ['{"a":"1"}', 'nope', '{"a":"3"}'],
    })
    const v = compileValue('lookup_json_string(http.request.headers.values[*], "a")').evaluate(ctx)
    expect(v).toEqual(['1', '3'])
  })

  it('gives value expressions their type', () => {
    expect(compileValue('lower(http.host)').type).toBe('Bytes')
    expect(compileValue('len(http.request.headers.names)').type).toBe('Int')
    expect(compileValue('http.request.headers.names[*] eq "a"').type).toEqual({
      kind: 'Array',
      of: 'Bool',
    })
    expect(compileValue('lower(http.request.headers.names[*])').type).toEqual({
      kind: 'Array',
      of: 'Bytes',
    })
  })

  it('compares IPv4 and IPv6 values as incomparable', () => {
    const ctx = createContext({ 'ip.src': '192.0.2.1' })
    expect(compile('ip.src lt ::1').evaluate(ctx)).toBe(false)
    expect(compile('ip.src ge ::1').evaluate(ctx)).toBe(false)
    expect(compile('ip.src ne ::1').evaluate(ctx)).toBe(true)
    expect(compile('ip.src in {::/0}').evaluate(ctx)).toBe(false)
  })

  it('matches an IP set of 1,000 ranges', () => {
    const ranges = Array.from(
      { length: 1000 },
      (_, i) => `10.${Math.floor(i / 250)}.${i % 250}.0/24`,
    ).join(' ')
    const c = compile(`ip.src in {${ranges}}`, { maxLength: 0 })
    expect(c.evaluate(createContext({ 'ip.src': '10.3.249.77' }))).toBe(true)
    expect(c.evaluate(createContext({ 'ip.src': '10.4.0.1' }))).toBe(false)
  })
})

describe('whole-expression checks', () => {
  it('names the missing any()/all() around [*] and a non-boolean result apart', () => {
    const e = errorOf(() => compile('http.request.headers.names[*] eq "x"'))
    expect(e.code).toBe('missing-quantifier')
    expect(e.hint).toMatch(/any\(…\) or all\(…\)/)
    const v = errorOf(() => compileValue('http.host', { expect: 'Bool' }))
    expect(v.code).toBe('non-boolean')
    expect(v.message).toBe('expected value of type Bool, but got Bytes')
  })

  it('gives distinct messages for unknown fields, wrong operand types and undefined operators', () => {
    const unknown = errorOf(() => compile('http.hots eq "a"'))
    expect([unknown.code, unknown.message, unknown.hint]).toEqual([
      'unknown-identifier',
      'unknown identifier',
      'did you mean http.host?',
    ])
    const operand = errorOf(() => compile('cf.waf.score eq "10"'))
    expect([operand.code, operand.message]).toEqual(['expected-name', 'expected digit'])
    expect(operand.hint).toMatch(/must be an integer/)
    const op = errorOf(() => compile('http.request.headers.names eq "a"'))
    expect([op.code, op.message]).toEqual([
      'unsupported-op',
      'cannot perform this operation on type Array(Bytes)',
    ])
    expect(op.hint).toMatch(/\[\*\]/)
    const lower = errorOf(() => compile('http.host EQ "a"'))
    expect(lower.message).toBe('expected ComparisonOp')
  })

  it('allows each function only where the vendor does', () => {
    expect(() => compile('cidr(ip.src, 24, 24) eq 10.0.0.0')).not.toThrow()
    expect(
      errorOf(() =>
        compile('cidr(ip.src, 24, 24) eq 10.0.0.0', { phase: 'http_request_firewall_managed' }),
      ).code,
    ).toBe('unavailable-function')
    expect(() =>
      compileValue('regex_replace(http.request.uri.path, "^/old/(.*)$", "/new/${1}")', {
        phase: 'http_request_transform',
      }),
    ).not.toThrow()
    expect(
      errorOf(() =>
        compileValue('regex_replace(http.request.uri.path, "a", "${2}")', {
          phase: 'http_request_transform',
        }),
      ).code,
    ).toBe('argument-value')
    expect(
      errorOf(() => compile('to_string(ssl) eq "true"', { phase: 'http_request_transform' })).code,
    ).toBe('unavailable-function')
  })

  it('keeps exposed-credential expressions to the four functions, unnested, yielding a string', () => {
    expect(() =>
      compileCredentialExpression('url_decode(http.request.body.form["log"][0])'),
    ).not.toThrow()
    expect(() =>
      compileCredentialExpression('lookup_json_string(http.request.body.raw, "email")'),
    ).not.toThrow()
    expect(
      errorOf(() =>
        compileCredentialExpression('lower(url_decode(http.request.body.form["log"][0]))'),
      ).message,
    ).toBe('functions cannot be nested in an exposed-credential expression')
    expect(errorOf(() => compileCredentialExpression('concat(http.host, "a")')).code).toBe(
      'unavailable-function',
    )
    expect(errorOf(() => compileCredentialExpression('len(http.host)')).code).toBe(
      'unavailable-function',
    )
    expect(errorOf(() => compileCredentialExpression('cf.waf.score')).message).toBe(
      'expected value of type Bytes, but got Int',
    )
    expect(
      errorOf(() => compileCredentialExpression(`lower(http.request.body.raw)${' '.repeat(1100)}`))
        .code,
    ).toBe('too-long')
  })

  it('checks hand-built trees', () => {
    const good = parse('http.host eq "a"')
    expect(check(good).type).toBe('Bool')
    const bad: Expression = {
      text: 'x',
      span: { start: 0, end: 1 },
      root: {
        kind: 'comparison',
        lhs: {
          kind: 'index',
          target: { kind: 'field', name: 'http.host', span: { start: 0, end: 1 } },
          indexes: [],
          span: { start: 0, end: 1 },
        },
        op: {
          kind: 'bitwiseAnd',
          rhs: { kind: 'int', value: 1n, span: { start: 0, end: 1 } },
          opSpan: { start: 0, end: 1 },
        },
        span: { start: 0, end: 1 },
      },
    }
    expect(errorOf(() => check(bad)).message).toBe('cannot perform this operation on type Bytes')
    expect(check(parseValue('lower(http.host)')).type).toBe('Bytes')
  })

  it('warns about deprecated fields', () => {
    const c = compile('ip.geoip.country eq "DE"')
    expect(c.warnings).toEqual([
      { message: 'ip.geoip.country is deprecated: use ip.src.country', start: 0, end: 16 },
    ])
    expect([...c.fields]).toEqual(['ip.geoip.country'])
  })
})

describe('closures only', () => {
  it('never evaluates code from text', () => {
    const dir = join(import.meta.dirname, '../../../src-shared/expression')
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    )) {
      const source = readFileSync(join(dir, file), 'utf8')
      expect(source, file).not.toMatch(/new Function\(|\beval\(/)
    }
  })
})
