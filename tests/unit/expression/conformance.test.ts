// The conformance table: parse and type errors with their positions and the vendor's messages,
// and evaluation results, from the reference's vectors and the vendor's documentation.

import { describe, expect, it } from 'vitest'
import {
  compile,
  compileValue,
  createContext,
  createList,
  ExpressionError,
  formatRulesetError as formatRuleset,
  formatValidateExprError as formatValidate,
  requestContext,
  rulesetExpressionErrorMessage as rulesetMessage,
  toUint8Array,
  utf8Bytes,
  WAF_SCHEME,
  type EvaluationContext,
  type ListMatcher,
  type Value,
} from '@shared/expression'
import { OSS_SCHEME } from './schemes'
import {
  OSS_ERRORS,
  OSS_EVAL,
  WAF_ERRORS,
  WAF_EVAL,
  type ErrorCase,
  type EvalCase,
} from './vectors'

const schemeOf = (name: 'oss' | 'waf') => (name === 'oss' ? OSS_SCHEME : WAF_SCHEME)

function errorOf(c: ErrorCase): ExpressionError {
  try {
    compile(c.expr, {
      scheme: schemeOf(c.scheme),
      ...(c.maxNestingDepth !== undefined ? { maxNestingDepth: c.maxNestingDepth } : {}),
      ...(c.phase ? { phase: c.phase } : {}),
      ...(c.lists ? { lists: c.lists } : {}),
    })
  } catch (e) {
    if (e instanceof ExpressionError) return e
    throw e
  }
  throw new Error(`expected ${JSON.stringify(c.expr)} to be rejected`)
}

function label(expr: string): string {
  return expr.length > 70 ? `${expr.slice(0, 67)}…` : expr
}

/** Values as the tests state them: text for Bytes, Uint8Array for raw bytes. */
function normalizeExpected(v: unknown): unknown {
  if (typeof v === 'string') return utf8Bytes(v)
  if (v instanceof Uint8Array) return String.fromCharCode(...v)
  if (Array.isArray(v)) return v.map(normalizeExpected)
  return v
}

function contextOf(c: EvalCase): EvaluationContext {
  const lists: Record<string, ListMatcher> = {}
  for (const [name, l] of Object.entries(c.lists ?? {})) lists[name] = createList(l.kind, l.items)
  if (c.request) return requestContext(c.request, { lists })
  return createContext(c.values ?? {}, { scheme: schemeOf(c.scheme), lists })
}

function evaluate(c: EvalCase): unknown {
  const options = {
    scheme: schemeOf(c.scheme),
    ...(c.nilNotEqual ? { nilNotEqual: true } : {}),
    ...(c.phase ? { phase: c.phase } : {}),
  }
  const ctx = contextOf(c)
  if (c.value) return compileValue(c.expr, options).evaluate(ctx)
  return compile(c.expr, options).evaluate(ctx)
}

const ALL_ERRORS = [...OSS_ERRORS, ...WAF_ERRORS]
const ALL_EVAL = [...OSS_EVAL, ...WAF_EVAL]

describe('conformance table', () => {
  it('has at least 300 cases', () => {
    expect(ALL_ERRORS.length + ALL_EVAL.length).toBeGreaterThanOrEqual(300)
  })

  describe('errors: position, length and message', () => {
    it.each(ALL_ERRORS.map((c) => [label(c.expr), c] as const))('%s', (_, c) => {
      const err = errorOf(c)
      expect({
        line: err.line,
        column: err.column,
        length: err.length,
        message: err.message,
      }).toEqual({
        line: c.line,
        column: c.column,
        length: c.length,
        message: c.message,
      })
      if (c.code) expect(err.code).toBe(c.code)
    })
  })

  describe('evaluation', () => {
    it.each(ALL_EVAL.map((c) => [`${label(c.expr)} (${c.source})`, c] as const))('%s', (_, c) => {
      const got = evaluate(c)
      expect(got).toEqual(normalizeExpected(c.expect))
    })
  })
})

describe('vendor error renderings', () => {
  it('validate-expr: the three-line caret form, as documented', () => {
    const text = 'ip.src==34'
    const err = errorOf({
      expr: text,
      scheme: 'waf',
      line: 0,
      column: 0,
      length: 0,
      message: '',
      source: '',
    })
    expect(formatValidate(err, text)).toBe(
      "Filter parsing error:\n`ip.src==34`\n          ^^ couldn't parse address in network: invalid IP address syntax\n",
    )
    const cidr = 'ip.src in {2400:cb00::/32 2405:8100::/2000 2c0f:f248::/32 2a06:98c0::/29}'
    const err2 = errorOf({
      expr: cidr,
      scheme: 'waf',
      line: 0,
      column: 0,
      length: 0,
      message: '',
      source: '',
    })
    expect(formatValidate(err2, cidr)).toBe(
      `Filter parsing error:\n\`${cidr}\`\n${' '.repeat(40)}^^^^ number too large to fit in target type while parsing with radix 10\n`,
    )
  })

  it('rulesets: Filter parsing error (L:C) with the offending line', () => {
    const text = 'http.request.uri.path eq "/a"\nand ip.src in {10.0.0.1/8}'
    const err = errorOf({
      expr: text,
      scheme: 'waf',
      line: 0,
      column: 0,
      length: 0,
      message: '',
      source: '',
    })
    expect(formatRuleset(err, text)).toBe(
      'Filter parsing error (2:16):\nand ip.src in {10.0.0.1/8}\n               ^^^^^^^^ host part of address was not zero\n',
    )
    expect(rulesetMessage(err, text)).toBe(
      `'${text}' is not a valid value for expression because could not parse filter expression: ${formatRuleset(err, text)}`,
    )
  })

  it('a point error at the end still gets one caret', () => {
    const text = 'http.host eq'
    const err = errorOf({
      expr: text,
      scheme: 'waf',
      line: 0,
      column: 0,
      length: 0,
      message: '',
      source: '',
    })
    expect(err.length).toBe(0)
    expect(formatRuleset(err, text)).toBe(
      'Filter parsing error (1:13):\nhttp.host eq\n            ^ unrecognised input\n',
    )
  })
})

describe('bytes values', () => {
  it('evaluates to raw bytes for non-UTF-8 input', () => {
    const v = compileValue('url_decode(http.request.uri.path)').evaluate(
      createContext({ 'http.request.uri.path': '%ff' }),
    )
    expect(toUint8Array(v as string)).toEqual(new Uint8Array([0xff]))
  })

  it('reports a missing value as undefined', () => {
    const v: Value | undefined = compileValue('http.request.headers["x"][0]').evaluate(
      createContext({ 'http.request.headers': {} }),
    )
    expect(v).toBeUndefined()
  })
})
