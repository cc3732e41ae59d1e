// Property tests (fast-check): printing a parsed tree and parsing it again gives the same tree;
// the parser throws nothing but ExpressionError; and it does work linear in the input (counted
// in examined characters, never timed).

import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { propertyRuns } from '../../property-runs'
import {
  compile,
  ExpressionError,
  parse,
  parseWithStats,
  print,
  type Expression,
} from '@shared/expression'

/** A tree without its positions, for comparing trees parsed from different texts. */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      if (k === 'span' || k === 'opSpan' || k === 'listSpan' || k === 'nameSpan' || k === 'text')
        continue
      out[k] = strip(v)
    }
    return out
  }
  return value
}

const ws = fc.constantFrom(' ', '  ', '\n', ' \r\n ')
const sp = (a: fc.Arbitrary<string>) => fc.tuple(ws, a, ws).map(([x, s, y]) => `${x}${s}${y}`)

/** A quoted string literal of arbitrary text (escaping `"` and `\`, some bytes as \xHH / \OOO). */
const quoted = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 6 }).map((s) => s.replace(/[\\"]/g, (c) => `\\${c}`)),
      fc.integer({ min: 0, max: 255 }).map((b) => `\\x${b.toString(16).padStart(2, '0')}`),
      fc.integer({ min: 0, max: 255 }).map((b) => `\\${b.toString(8).padStart(3, '0')}`),
      fc.constantFrom('é', '😀', '\\\\', '\\"'),
    ),
    { maxLength: 4 },
  )
  .map((parts) => `"${parts.join('')}"`)
const raw = fc.string({ maxLength: 8 }).map((s) => {
  let h = 0
  while (s.includes('"' + '#'.repeat(h))) h++
  return `r${'#'.repeat(h)}"${s}"${'#'.repeat(h)}`
})
const hexBytes = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 2, maxLength: 4 }),
    fc.constantFrom(':', '-', '.'),
  )
  .map(([bs, sep]) => bs.map((b) => b.toString(16).padStart(2, '0')).join(sep))
const bytesLit = fc.oneof(quoted, raw, hexBytes)

const bytesField = fc.constantFrom(
  'http.host',
  'http.request.uri.path',
  'http.user_agent',
  'http.request.method',
  'http.request.body.raw',
)
const bytesExpr = fc.oneof(
  bytesField,
  bytesField.map((f) => `lower(${f})`),
  bytesField.map((f) => `url_decode(${f})`),
  fc.constantFrom(
    'http.request.headers["user-agent"][0]',
    'http.request.uri.args["id"][1]',
    'http.request.cookies["s"][0]',
  ),
  fc.tuple(bytesField, quoted).map(([f, q]) => `concat(${f}, ${q})`),
)
const intField = fc.constantFrom(
  'cf.waf.score',
  'ip.src.asnum',
  'http.request.body.size',
  'cf.threat_score',
)
const intLit = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc.integer({ min: 0, max: 0xffff }).map((n) => `0x${n.toString(16)}`),
  fc.integer({ min: 1, max: 0o777 }).map((n) => `0${n.toString(8)}`),
)
const intRange = fc
  .tuple(fc.integer({ min: -500, max: 500 }), fc.integer({ min: 0, max: 500 }))
  .map(([a, d]) => (d === 0 ? `${a}` : `${a}..${a + d}`))
const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'))
const v6 = fc
  .array(fc.nat(0xffff), { minLength: 8, maxLength: 8 })
  .map((g) => g.map((x) => x.toString(16)).join(':'))
const cidr = fc
  .tuple(fc.nat(255), fc.nat(255), fc.constantFrom(8, 16, 24))
  .map(([a, b, len]) =>
    len === 8 ? `${a}.0.0.0/8` : len === 16 ? `${a}.${b}.0.0/16` : `${a}.${b}.7.0/24`,
  )
const regex = fc.constantFrom(
  '^/admin',
  '(?i)union\\s+select',
  '[a-z]+\\d{1,3}',
  'a|b|c',
  '(?u)\\p{Greek}',
  '\\bfoo\\b',
  '[^/]*\\.php$',
  'x{2,}',
  '"quote"',
  '[\\]"]',
)
const wildcardLit = fc.stringMatching(/^[a-z/.]{0,6}(\*[a-z/.]{1,6}){0,2}\*?$/).map((s) => `"${s}"`)

const comparison = fc.oneof(
  fc
    .tuple(
      bytesExpr,
      sp(
        fc.constantFrom(
          'eq',
          '==',
          'ne',
          '!=',
          'lt',
          '<',
          'le',
          '<=',
          'gt',
          '>',
          'ge',
          '>=',
          'contains',
        ),
      ),
      bytesLit,
    )
    .map((p) => p.join('')),
  fc
    .tuple(
      bytesExpr,
      sp(fc.constantFrom('matches', '~')),
      regex.map((r) => `r#"${r}"#`),
    )
    .map((p) => p.join('')),
  fc
    .tuple(bytesExpr, sp(fc.constantFrom('wildcard', 'strict wildcard')), wildcardLit)
    .map((p) => p.join('')),
  fc
    .tuple(bytesExpr, fc.array(bytesLit, { maxLength: 4 }))
    .map(([f, items]) => `${f} in {${items.join(' ')}}`),
  fc
    .tuple(intField, sp(fc.constantFrom('eq', 'ne', 'lt', 'le', 'gt', 'ge', '==', '<')), intLit)
    .map((p) => p.join('')),
  fc
    .tuple(intField, fc.array(intRange, { maxLength: 4 }))
    .map(([f, items]) => `${f} in { ${items.join(' ')} }`),
  fc
    .tuple(
      intField,
      intLit.filter((s) => !s.startsWith('-')),
    )
    .map(([f, n]) => `${f} & ${n}`),
  fc
    .tuple(
      fc.constantFrom('ip.src', 'cf.edge.server_ip'),
      sp(fc.constantFrom('eq', 'ne', 'lt', 'ge')),
      fc.oneof(v4, v6),
    )
    .map((p) => p.join('')),
  fc
    .tuple(fc.constantFrom('ip.src'), fc.array(fc.oneof(v4, v6, cidr), { maxLength: 4 }))
    .map(([f, items]) => `${f} in {${items.join(' ')}}`),
  fc.constantFrom('ip.src in $cf.open_proxies', 'ip.src.asnum in $asns', 'http.host in $hosts'),
  fc.constantFrom('ssl', 'cf.client.bot', 'http.request.body.truncated', 'true', 'false'),
  fc
    .tuple(fc.constantFrom('starts_with', 'ends_with'), bytesField, quoted)
    .map(([fn, f, q]) => `${fn}(${f}, ${q})`),
  fc
    .tuple(
      fc.constantFrom('any', 'all'),
      fc.constantFrom(
        'http.request.headers.names[*]',
        'lower(http.request.headers.values[*])[*]',
        'http.request.uri.args["x"][*]',
      ),
      quoted,
    )
    .map(([q, lhs, lit]) => `${q}(${lhs} contains ${lit})`),
  fc.constantFrom(
    'len(http.request.uri.args["filter"]) >= 0',
    'lookup_json_integer(http.request.body.raw, "a", 0) eq 1',
    'any(len(http.request.uri.args["f"][*])[*] in {3 4})',
  ),
)

const expression: fc.Arbitrary<string> = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    comparison,
    fc
      .tuple(tie('expr'), sp(fc.constantFrom('and', 'or', 'xor', '&&', '||', '^^')), tie('expr'))
      .map((p) => p.join('')),
    tie('expr').map((x) => `(${x})`),
    fc
      .tuple(fc.constantFrom('not ', '!', 'not(', '! ('), tie('expr'))
      .map(([n, x]) => (n.endsWith('(') ? `${n}${x})` : `${n}(${x})`)),
  ),
})).expr

describe('printer round trip', () => {
  it('print(parse(x)) parses to the same tree, and printing is stable', () => {
    fc.assert(
      fc.property(expression, (text) => {
        const first: Expression = parse(text)
        const printed = print(first)
        const second = parse(printed)
        expect(strip(second.root)).toEqual(strip(first.root))
        expect(print(second)).toBe(printed)
      }),
      { numRuns: propertyRuns(400) },
    )
  })

  it('generated expressions are valid filters', () => {
    fc.assert(
      fc.property(expression, (text) => {
        expect(() => compile(text)).not.toThrow()
      }),
      { numRuns: propertyRuns(200) },
    )
  })
})

/** Fragments of the language, glued at random: nearly-valid input that reaches deep paths. */
const TOKENS = [
  'http.host',
  'ip.src',
  'cf.waf.score',
  'ssl',
  'http.request.headers',
  '["a"]',
  '[0]',
  '[*]',
  '[-1]',
  'lower(',
  'concat(',
  'any(',
  'all(',
  'url_decode(',
  ' eq ',
  ' == ',
  ' ne ',
  ' in ',
  ' contains ',
  ' matches ',
  ' ~ ',
  ' wildcard ',
  ' strict wildcard ',
  ' & ',
  ' and ',
  ' or ',
  ' xor ',
  ' && ',
  'not ',
  '!',
  '(',
  ')',
  '{',
  '}',
  ',',
  '"',
  '"abc"',
  'r#"x"#',
  'r##"',
  '\\',
  '\\x',
  '\\0',
  '10',
  '0x1f',
  '077',
  '-5',
  '1..5',
  '1.2.3.4',
  '::1',
  '10.0.0.0/8',
  '::/.1',
  '01:02',
  '$list',
  '$',
  '.',
  ' ',
  '\n',
  '\t',
  'é',
  '😀',
  '#',
  '*',
  'true',
  'false',
  '"(?i)[a-z"',
  '[[:alpha:]]',
  '{1001}',
]
const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((t) => t.join(''))
const anyText = fc.oneof(
  soup,
  fc.string({ maxLength: 200 }),
  fc.string({ maxLength: 60, unit: 'binary' }),
)

describe('parser robustness', () => {
  it('throws nothing but ExpressionError, on any input', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        try {
          compile(text)
        } catch (e) {
          if (!(e instanceof ExpressionError)) throw e
          expect(e.line).toBeGreaterThanOrEqual(1)
          expect(e.column).toBeGreaterThanOrEqual(1)
          expect(e.length).toBeGreaterThanOrEqual(0)
          expect(e.start).toBeLessThanOrEqual(text.length)
        }
      }),
      { numRuns: propertyRuns(2000) },
    )
  })
})

describe('linear time', () => {
  /** Characters examined per input character, at most. */
  const PER_CHAR = 40

  const bounded = (text: string) => {
    const { steps } = parseWithStats(text, { maxLength: 0 })
    expect(steps).toBeLessThanOrEqual(PER_CHAR * (text.length + 1))
    return steps
  }

  it('does work proportional to the input on random input up to 4 KB', () => {
    const big = fc.oneof(
      fc
        .array(fc.constantFrom(...TOKENS), { minLength: 50, maxLength: 600 })
        .map((t) => t.join('').slice(0, 4096)),
      fc.string({ minLength: 100, maxLength: 4096 }),
      fc
        .array(expression, { minLength: 1, maxLength: 40 })
        .map((xs) => xs.join(' or ').slice(0, 4096)),
    )
    fc.assert(
      fc.property(big, (text) => void bounded(text)),
      { numRuns: propertyRuns(300) },
    )
  })

  it('stays linear on adversarial shapes', () => {
    const shapes: ((n: number) => string)[] = [
      (n) => '('.repeat(n),
      (n) => 'not '.repeat(n),
      (n) => 'ssl and '.repeat(n) + 'ssl',
      (n) => 'http.host eq "a" or '.repeat(n) + 'ssl',
      (n) => 'a.'.repeat(n),
      (n) => `http.host eq "${'\\x41'.repeat(n)}`,
      (n) => `http.host eq r${'#'.repeat(n)}"`,
      (n) => `concat(${'http.host, '.repeat(n)}`,
      (n) => `ip.src in {${'1.2.3.4 '.repeat(n)}`,
      (n) => `ip.src in {${'1'.repeat(n)}`,
      (n) => `cf.waf.score in {${'1 '.repeat(n)}`,
      (n) => `http.host in {${'"a" '.repeat(n)}`,
      (n) => `http.host matches "${'(a'.repeat(n)}`,
      (n) => `http.request.headers${'[*]'.repeat(n)}`,
      (n) => `lower(${'lower('.repeat(n)}`,
      (n) => 'x'.repeat(n),
    ]
    for (const shape of shapes) {
      const small = shape(100)
      const large = shape(400)
      const a = bounded(small)
      const b = bounded(large)
      // quadrupling the input may at most (about) quadruple the work
      expect(b).toBeLessThanOrEqual(5 * a + 100)
    }
  })
})
