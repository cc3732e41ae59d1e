// Values shared across compiled expressions (shared-value.ts): a pure call or a value tried with
// patterns is computed and scanned once per request, for every expression that reads it. The fast
// path (shared, scanned once, prefiltered) must agree with the plain one (the value computed on a
// context of its own, each pattern's automaton run on it), whatever the order in which requests
// and expressions are evaluated: a value must never leak from one request into another.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  compile,
  compileRegex,
  compileValue,
  requestContext,
  type RequestDescription,
  type Value,
} from '@shared/expression'

const MARK = '\u0000matched\u0000'
const automatonMatches = (pattern: string, input: string) =>
  compileRegex(pattern).replaceFirst(input, () => MARK) !== input

/** A raw string literal of the language holding `text` as is. */
function raw(text: string): string {
  let hashes = ''
  while (text.includes(`"${hashes}`)) hashes += '#'
  return `r${hashes}"${text}"${hashes}`
}

const VALUES = [
  'http.request.uri.query',
  'url_decode(http.request.uri.query)',
  'url_decode(http.request.body.raw)',
  'url_decode(http.cookie)',
  'lower(http.request.uri.path)',
  'raw.http.request.uri',
  'http.user_agent',
  'http.request.headers["x-test"][0]',
]
const CONTAINERS = [
  'http.request.headers.values',
  'url_decode(http.request.uri.args.values[*])',
  'http.request.uri.args["q"]',
  'lower(http.request.headers.names[*])',
]
const PATTERNS = [
  '(?i)\\bunion\\b(?:\\s|/\\*.*?\\*/|\\+|\\()+select\\b',
  '(?i)<script[^>]*>',
  '\\.\\.[\\\\/]',
  '[^\\x20-\\x7e]',
  '(?i)(?:[;|`]|&&|\\|\\||\\$\\()\\s*(?:cat|ls|id|whoami)\\b',
  '(?:[~!@#$%^&*()\\-+={}\\[\\]|:;"\'<>][^~!@#$%^&*()\\-+={}\\[\\]|:;"\'<>]*?){3}',
  '^$',
  '(?i)x-?test',
]

const piece = fc.constantFrom(
  'union select',
  'UNION/**/SELECT',
  '%27%20or%201=1',
  '<script>',
  '%3Cscript%3E',
  '../',
  '..%2f',
  '; cat /etc/passwd',
  'a=b',
  'q=1',
  '&',
  'é',
  '\u0001',
  'X-Test',
  'hello',
  '+',
  '',
)
const text = fc.array(piece, { maxLength: 5 }).map((parts) => parts.join(''))
const request: fc.Arbitrary<RequestDescription> = fc
  .record({ path: text, query: text, body: text, cookie: text, header: text, agent: text })
  .map(({ path, query, body, cookie, header, agent }) => ({
    method: 'POST',
    url: `https://example.com/${encodeURI(path)}?q=${query}&r=${body}`,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `s=${cookie}`,
      'user-agent': agent,
      'x-test': header,
      ...(header.length % 2 === 0 ? { 'X-Extra': query } : {}),
    },
    body,
  }))

interface Check {
  text: string
  /** the answer of the plain path on a request */
  expected(request: RequestDescription): boolean
}

function elementsOf(value: Value | undefined): string[] {
  if (value === undefined) return []
  return (Array.isArray(value) ? value : [...(value as Map<string, Value>).values()]) as string[]
}

const check: fc.Arbitrary<Check> = fc.oneof(
  fc.tuple(fc.constantFrom(...VALUES), fc.constantFrom(...PATTERNS)).map(([value, pattern]) => ({
    text: `${value} matches ${raw(pattern)}`,
    expected: (r: RequestDescription) => {
      // A context of its own: nothing shared with the contexts the fast path is evaluated on.
      const v = compileValue(value).evaluate(requestContext(r))
      return v !== undefined && automatonMatches(pattern, v as string)
    },
  })),
  fc
    .tuple(
      fc.constantFrom('any', 'all', 'not any'),
      fc.constantFrom(...CONTAINERS),
      fc.constantFrom(...PATTERNS),
    )
    .map(([quantifier, container, pattern]) => ({
      text: `${quantifier}(${container}[*] matches ${raw(pattern)})`,
      expected: (r: RequestDescription) => {
        const elements = elementsOf(compileValue(container).evaluate(requestContext(r)))
        const some = elements.some((element) => automatonMatches(pattern, element))
        return quantifier === 'any'
          ? some
          : quantifier === 'not any'
            ? !some
            : elements.every((element) => automatonMatches(pattern, element))
      },
    })),
)

describe('shared values', () => {
  it('agree with the plain path, evaluated request by request or expression by expression', () => {
    fc.assert(
      fc.property(
        fc.array(request, { minLength: 1, maxLength: 4 }),
        fc.array(check, { minLength: 1, maxLength: 8 }),
        (requests, checks) => {
          const expected = checks.map((c) => requests.map((r) => c.expected(r)))
          const contexts = requests.map((r) => requestContext(r))
          const compiled = checks.map((c) => compile(c.text))
          // Request by request (as the engine does), then expression by expression (every shared
          // value sees a new context at each step), then the first requests again.
          const byRequest = compiled.map(() => contexts.map(() => false))
          contexts.forEach((ctx, j) =>
            compiled.forEach((c, i) => {
              byRequest[i]![j] = c.evaluate(ctx)
            }),
          )
          const byExpression = compiled.map((c) => contexts.map((ctx) => c.evaluate(ctx)))
          const again = compiled.map((c) => contexts.map((ctx) => c.evaluate(ctx)))
          expect(byRequest).toEqual(expected)
          expect(byExpression).toEqual(expected)
          expect(again).toEqual(expected)
        },
      ),
      { numRuns: 150 },
    )
  })

  it('keeps a value scanned right after the recently scanned inputs have all been reused', () => {
    const ctx = requestContext({ method: 'GET', url: '/?q=union%20select' })
    expect(compile('url_decode(http.request.uri.query) matches "union"').evaluate(ctx)).toBe(true)
    const other = compileRegex('zzz')
    for (let i = 0; i < 600; i++) other.test(`value ${i}`)
    expect(compile('url_decode(http.request.uri.query) matches "select"').evaluate(ctx)).toBe(true)
    expect(compile('url_decode(http.request.uri.query) matches "value"').evaluate(ctx)).toBe(false)
  })

  it('computes a pure call once per request for every expression that makes it', () => {
    const a = compile('url_decode(http.request.uri.query) matches "union select"')
    const b = compile('url_decode(http.request.uri.query) contains "union"')
    const attack = requestContext({ method: 'GET', url: '/?q=union%20select' })
    const benign = requestContext({ method: 'GET', url: '/?q=hello' })
    expect([a.evaluate(attack), b.evaluate(attack)]).toEqual([true, true])
    expect([a.evaluate(benign), b.evaluate(benign)]).toEqual([false, false])
    expect([b.evaluate(attack), a.evaluate(benign), a.evaluate(attack)]).toEqual([
      true,
      false,
      true,
    ])
  })
})
