// The screens' wording of invalid expressions: every kind of error the parser and the checker
// report (each `expected …` the lexer and parser can say, and every error code) is described in
// words, at its place, with none of the parser's internal names; the vendor's message is unchanged.

import { describe, expect, it } from 'vitest'
import { compile, compileValue, ExpressionError } from '@shared/expression'
import { describeExpressionError } from '@shared/expression/syntax/describe'
import { describedDiagnostics } from '@shared/expression/tooling'
import type { ExpressionErrorCode } from '@shared/expression/syntax/errors'

function errorOf(text: string, options: Parameters<typeof compile>[1] = {}): ExpressionError {
  try {
    compile(text, options)
  } catch (error) {
    if (error instanceof ExpressionError) return error
    throw error
  }
  throw new Error(`${text} compiles`)
}

/** Words of the parser and the vendor's messages that mean nothing to a person. */
const INTERNAL =
  /ComparisonOp|expected literal|identifier character|address character|byte separator|radix|unrecognised input|LexErrorKind|ArrayIndex|MapKey|MapEach|Bytes|\bInt\b|\bIp\b|\bBool\b|Array[<(]|Map[<(]|#0|kind Field|kind Literal|could not parse/

// [expression, code, vendor message the error keeps, words the description says]
const CASES: [string, ExpressionErrorCode, RegExp, string][] = [
  [
    'ip.src in {1.2.3.4',
    'expected-name',
    /^expected IP address character$/,
    'a `}` is missing to close the set opened at 1:11',
  ],
  [
    'cf.waf.score in {1 2',
    'expected-name',
    /^expected digit$/,
    'a `}` is missing to close the set opened at 1:17',
  ],
  [
    'http.host in {"a" "b"',
    'unrecognised-input',
    /^unrecognised input$/,
    'a `}` is missing to close the set opened at 1:14',
  ],
  [
    'http.host',
    'expected-name',
    /^expected ComparisonOp$/,
    '`http.host` needs an operator and a value after it, such as eq, ne, contains, matches, wildcard or in',
  ],
  [
    'ip.src is 1.2.3.4',
    'expected-name',
    /^expected ComparisonOp$/,
    '`is` at 1:8 is not an operator: after `ip.src` write eq, ne or in',
  ],
  [
    'http.host eq "a" and',
    'expected-name',
    /^expected identifier character$/,
    'a condition is missing after `and`',
  ],
  [
    'http.host eq "a" and @x',
    'expected-name',
    /^expected identifier character$/,
    '`@x` at 1:22 cannot start a condition',
  ],
  [
    'ip.src lt',
    'expected-name',
    /^expected IP address character$/,
    'an IP address such as 192.0.2.1 is missing after `lt`',
  ],
  [
    'ip.src lt zz',
    'expected-name',
    /^expected IP address character$/,
    '`zz` at 1:11 is not an IP address',
  ],
  ['cf.waf.score lt', 'expected-name', /^expected digit$/, 'a number is missing after `lt`'],
  ['cf.waf.score lt zz', 'expected-name', /^expected digit$/, '`zz` at 1:17 is not a number'],
  [
    'http.host eq 01!02',
    'expected-name',
    /^expected byte separator$/,
    'a `:`, `-` or `.` is expected at 1:16',
  ],
  [
    'http.host eq r#a',
    'expected-name',
    /^expected " or #$/,
    'the raw string at 1:16 must continue with `"` or `#`',
  ],
  [
    'http.host wildcard 1',
    'expected-name',
    /^expected " or r$/,
    'text in quotes such as "text" is expected at 1:20',
  ],
  [
    'lower(http.host',
    'expected-literal',
    /^expected literal "\)"$/,
    'a `)` is missing to close the parenthesis opened at 1:6',
  ],
  [
    '(http.host eq "a"',
    'expected-literal',
    /^expected literal "\)"$/,
    'a `)` is missing to close the parenthesis opened at 1:1',
  ],
  [
    'http.request.headers["a"',
    'expected-literal',
    /^expected literal "\]"$/,
    'a `]` is missing to close the index opened at 1:21',
  ],
  [
    'any(http.request.headers.names[*] eq "a" "b")',
    'expected-literal',
    /^expected literal "\)"$/,
    'a `)` is expected at 1:42 to close the parenthesis opened at 1:4, not `"b")`',
  ],
  [
    'concat("a" "b") eq "ab"',
    'expected-literal',
    /^expected literal ","$/,
    'a `,` is expected between the arguments at 1:12',
  ],
  [
    'lower eq "a"',
    'expected-literal',
    /^expected literal "\("$/,
    "a `(` is expected after the function's name at 1:7",
  ],
  ['http.host in "a"', 'expected-literal', /^expected literal "\{"$/, 'a set in braces'],
  [
    'http.host matches 1',
    'expected-literal',
    /^expected literal "\\""$/,
    'a regular expression in quotes',
  ],
  [
    'http.request.headers["\\xff"][0] eq "a"',
    'expected-literal',
    /^expected literal "expected utf8 string"$/,
    'is not valid UTF-8 text',
  ],
  [
    'http.request.headers[',
    'expected-literal',
    /^expected literal "expected quoted utf8 string or positive integer"$/,
    'an index is expected inside `[ ]` at 1:22',
  ],
  [
    'http.request.headers.names[-1] eq "a"',
    'expected-literal',
    /^expected literal "expected positive integer as index"$/,
    'must be a whole number from 0 up',
  ],
  ['http.host eq', 'unrecognised-input', /^unrecognised input$/, 'a value is missing after `eq`'],
  [
    'ip.src eq 1.2.3.4 xx',
    'unrecognised-input',
    /^unrecognised input$/,
    '`xx` at 1:18 is not understood: the condition before it is complete; join conditions with and, or or xor',
  ],
  [
    'http.host eq "a',
    'missing-quote',
    /^could not find an ending quote$/,
    'the text in quotes that starts at 1:14 is not closed',
  ],
  [
    'http.host eq "a\\qb"',
    'invalid-escape',
    /^expected ", xHH or OOO after \\$/,
    '`\\q` at 1:16 is not an escape',
  ],
  [
    `http.host eq r${'#'.repeat(256)}"a"${'#'.repeat(256)}`,
    'raw-string-hashes',
    /255 #s/,
    'more than 255 `#`',
  ],
  [
    'http.host eq "\\x',
    'count-mismatch',
    /^expected 2 characters, but found 0$/,
    'the escape at 1:15 needs two hexadecimal digits',
  ],
  [
    'http.host eq 1',
    'count-mismatch',
    /^expected 2 characters, but found 1$/,
    '`1` at 1:14 is not text: write text in quotes, such as "1"',
  ],
  ['cf.waf.score eq 99999999999999999999', 'parse-int', /too large/, 'is too large a number'],
  ['cf.waf.score eq 09', 'parse-int', /invalid digit/, '`09` at 1:17 is not a whole number'],
  [
    'ip.src in {1.2.3',
    'parse-network',
    /invalid IP address syntax/,
    '`1.2.3` at 1:12 is not an IP address',
  ],
  ['ip.src in {10.0.0.0/40}', 'parse-network', /too long/, 'IPv4 networks go up to /32'],
  ['ip.src in {10.0.0.1/8}', 'parse-network', /host part/, 'has bits set past its prefix'],
  ['ip.src in {10.0.0.0/x}', 'parse-network', /radix 10/, 'must be a number, as in 192.0.2.0/24'],
  [
    'http.host matches "a("',
    'parse-regex',
    /regex parse error/,
    'the regular expression at 1:20 is not valid',
  ],
  [
    'http.host wildcard "a\\\\"',
    'parse-wildcard',
    /wildcard/,
    'the wildcard pattern at 1:20 is not valid',
  ],
  [
    'http.hots eq "a"',
    'unknown-identifier',
    /^unknown identifier$/,
    '`http.hots` at 1:1 is an unknown identifier: no field or function has this name: did you mean http.host?',
  ],
  ['http.host lt 1.2.3.4', 'parse-int', /radix 16/, '`1.` at 1:14 is not text'],
  ['http.host eq "\\10"', 'parse-int', /radix 8/, 'the escape at 1:15 needs three octal digits'],
  [
    'http.host eq "\\x4"',
    'parse-int',
    /radix 16/,
    'the escape at 1:15 needs two hexadecimal digits',
  ],
  [
    'cf.waf.score contains "a"',
    'unsupported-op',
    /cannot perform this operation on type Int/,
    '`contains` at 1:14 cannot be used on a number',
  ],
  [
    'http.request.headers eq "a"',
    'unsupported-op',
    /Map\(Array\(Bytes\)\)/,
    'cannot be used on a map of arrays of strings: index the value first',
  ],
  ['cf.waf.score in {10..1}', 'range-bounds', /incompatible range bounds/, 'runs backwards'],
  [
    'lower() eq "a"',
    'argument-count',
    /invalid number of arguments/,
    'has the wrong number of arguments: lower() takes 1 argument',
  ],
  [
    'url_decode("a") eq ""',
    'argument-kind',
    /kind Field, but got Literal/,
    'the first argument at 1:12 must be a field or a function of one',
  ],
  [
    'remove_bytes(http.host, http.host) eq ""',
    'argument-kind',
    /kind Literal, but got Field/,
    'the second argument at 1:25 must be a value written out',
  ],
  [
    'concat(http.host, 1) eq ""',
    'argument-type',
    /argument #1/,
    'the second argument at 1:19 must be a string, but it is a number',
  ],
  [
    'wildcard_replace(http.host, "a\\\\", "b") eq ""',
    'argument-value',
    /invalid argument/,
    'the second argument at 1:29 is not valid: invalid wildcard',
  ],
  [
    'len(http.request.headers) eq 1',
    'argument-type',
    /Map<Array<Bytes>>/,
    'must be a string or an array, but it is a map of arrays of strings',
  ],
  [
    'lower(ip.src) eq "a"',
    'argument-type',
    /expected value of type/,
    'the first argument at 1:7 must be a string, but it is an IP address',
  ],
  [
    'http.host[0] eq "a"',
    'index-access',
    /cannot access index/,
    '`[0]` at 1:10 cannot be applied here',
  ],
  [
    'http.host eq "a" and cf.waf.score',
    'expected-name',
    /ComparisonOp/,
    '`cf.waf.score` needs an operator',
  ],
  [
    'any(http.request.headers.names[*] eq "a") and http.request.headers.names[*] eq "b"',
    'type-mismatch',
    /but got Array<Bool>/,
    'a condition (true or false) is expected',
  ],
  [
    'http.request.headers.names[*] eq "a"',
    'missing-quantifier',
    /Array<Bool>/,
    'wrap it in any(…) or all(…)',
  ],
  ['ip.src in $', 'list-name', /invalid list name/, 'the list name at 1:12 is not valid'],
  ['(((((x', 'nesting', /maximum nesting depth/, 'nests too deeply: the limit is 3 levels'],
]

describe('describeExpressionError', () => {
  it.each(CASES)('%s', (text, code, vendor, words) => {
    const error = errorOf(text, text.startsWith('(((') ? { maxNestingDepth: 3 } : {})
    expect(error.code).toBe(code)
    expect(error.message).toMatch(vendor)
    const description = describeExpressionError(error, text)
    expect(description).toContain(words)
    expect(description).not.toMatch(INTERNAL)
  })

  it('covers every code the parser and the checker report', () => {
    const covered = new Set<ExpressionErrorCode>(CASES.map(([, code]) => code))
    const more: [string, Parameters<typeof compile>[1]][] = [
      ['http.host eq "a" and ip.src in $unknown', { lists: { known: 'ip' } }],
      ['http.host eq "a"'.padEnd(5000, ' ') + 'x', {}],
      ['http.host matches "a{1000}{1000}"', { regexSizeLimit: 1000 }],
      ['concat(http.host, http.request.headers.names[*])[0] eq ""', {}],
      ['regex_replace(http.host, "a", "b") eq ""', { credentialExpression: true }],
    ]
    for (const [text, options] of more) {
      const error = errorOf(text, options)
      covered.add(error.code)
      expect(describeExpressionError(error, text)).not.toMatch(INTERNAL)
    }
    // a Record, so that a code added to the language without a case here fails to compile
    const codes: Record<ExpressionErrorCode, true> = {
      'expected-name': true,
      'expected-literal': true,
      'parse-int': true,
      'parse-network': true,
      'parse-regex': true,
      'regex-too-big': true,
      'parse-wildcard': true,
      'invalid-escape': true,
      'raw-string-hashes': true,
      'missing-quote': true,
      'count-mismatch': true,
      'unknown-identifier': true,
      'unsupported-op': true,
      'range-bounds': true,
      'unrecognised-input': true,
      'argument-count': true,
      'argument-kind': true,
      'argument-type': true,
      'argument-value': true,
      'index-access': true,
      'type-mismatch': true,
      'missing-quantifier': true,
      'non-boolean': true,
      'map-each': true,
      'list-name': true,
      'unknown-list': true,
      nesting: true,
      'too-long': true,
      'unavailable-function': true,
    }
    // non-boolean needs a value expression: the next test
    const missing = Object.keys(codes).filter(
      (code) => code !== 'non-boolean' && !covered.has(code as ExpressionErrorCode),
    )
    expect(missing).toEqual([])
  })

  it('says what a value gives where a condition is expected', () => {
    const text = 'lower(http.host)'
    let error: unknown
    try {
      compileValue(text, { expect: 'Bool' })
    } catch (e) {
      error = e
    }
    if (!(error instanceof ExpressionError)) throw new Error('no error')
    expect(error.code).toBe('non-boolean')
    const description = describeExpressionError(error, text)
    expect(description).toContain('it gives a string')
    expect(description).not.toMatch(INTERNAL)
  })
})

describe('describedDiagnostics', () => {
  it('keeps the vendor message and span and adds the words', () => {
    const [d] = describedDiagnostics('ip.src in {1.2.3.4')
    expect(d).toMatchObject({
      from: 18,
      to: 18,
      severity: 'error',
      message: 'expected IP address character',
      description: 'a `}` is missing to close the set opened at 1:11',
    })
    const [warning] = describedDiagnostics('ip.geoip.asnum eq 13335')
    expect(warning?.description).toBe('ip.geoip.asnum is deprecated: use ip.src.asnum')
  })
})
