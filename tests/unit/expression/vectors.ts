// Conformance vectors: the open-source engine's tests and the vendor's documentation examples
// (docs/vendor-behaviour.md#the-rules-language). Each row is one case of
// tests/unit/expression/conformance.test.ts, its `source` naming the section it checks.

import type { RequestDescription } from '@shared/expression'

const LEXICAL = 'docs/vendor-behaviour.md#lexical-structure'
const GRAMMAR = 'docs/vendor-behaviour.md#grammar'
const TYPES = 'docs/vendor-behaviour.md#types-and-operators'
const EVALUATION = 'docs/vendor-behaviour.md#evaluation'
const PARSE_ERRORS = 'docs/vendor-behaviour.md#parse-errors'
const VECTORS = 'docs/vendor-behaviour.md#evaluation-vectors'
const FUNCTIONS = 'docs/vendor-behaviour.md#functions'
const CREDENTIALS = 'docs/vendor-behaviour.md#exposed-credentials-check'
const REGEX = 'docs/vendor-behaviour.md#regular-expressions-in-typescript'

export type SchemeName = 'oss' | 'waf'

export interface ErrorCase {
  readonly expr: string
  readonly scheme: SchemeName
  readonly line: number
  readonly column: number
  /** span length as the vendor reports it (clipped to the line) */
  readonly length: number
  readonly message: string
  readonly code?: string
  readonly maxNestingDepth?: number
  readonly phase?: string
  readonly lists?: Record<string, 'ip' | 'bytes' | 'int'>
  readonly source: string
}

export interface EvalCase {
  readonly expr: string
  readonly scheme: SchemeName
  /** field values for createContext() */
  readonly values?: Record<string, unknown>
  /** or a request for requestContext() */
  readonly request?: RequestDescription
  /** a filter result, or the value of a value expression (strings as text, bytes as Uint8Array) */
  readonly expect: unknown
  /** evaluate with compileValue() instead of compile() */
  readonly value?: boolean
  readonly nilNotEqual?: boolean
  readonly phase?: string
  readonly lists?: Record<string, { kind: 'ip' | 'bytes' | 'int'; items: (string | number)[] }>
  readonly source: string
}

const e = (
  expr: string,
  line: number,
  column: number,
  length: number,
  message: string,
  source: string,
  more: Partial<ErrorCase> = {},
): ErrorCase => ({ expr, scheme: 'oss', line, column, length, message, source, ...more })

const ORDERING = [
  ['eq', '=='],
  ['ne', '!='],
  ['ge', '>='],
  ['le', '<='],
  ['gt', '>'],
  ['lt', '<'],
].flat()

// ---------------------------------------------------------------------------------------------
// Parse and type errors (open-source scheme: num Int, str Bytes, bool Bool, ip Ip, arr
// Array<Bool>, str_arr Array<Bytes>, str_map Map<Bytes>, …)

export const OSS_ERRORS: ErrorCase[] = [
  e('xyz', 1, 1, 3, 'unknown identifier', PARSE_ERRORS),
  e('\n\n    xyz', 3, 5, 3, 'unknown identifier', PARSE_ERRORS),
  e('num == 10 or\nnum == true or\nnum == 20', 2, 8, 7, 'expected digit', PARSE_ERRORS),
  e('arr and arr', 1, 12, 0, 'expected value of type Bool, but got Array<Bool>', PARSE_ERRORS, {
    code: 'missing-quantifier',
  }),
  e('str in {', 1, 9, 0, 'unrecognised input', PARSE_ERRORS),
  e('str in {"a"', 1, 12, 0, 'unrecognised input', PARSE_ERRORS),
  e('num in {', 1, 9, 0, 'expected digit', PARSE_ERRORS),
  e(
    'concat(0, 0) == 0',
    1,
    8,
    1,
    'invalid type of argument #0: expected value of type Bytes or Array<_>, but got Int',
    PARSE_ERRORS,
  ),
  e('bool in {0}', 1, 5, 7, 'unrecognised input', PARSE_ERRORS),
  e('bool in {127.0.0.1}', 1, 5, 15, 'unrecognised input', PARSE_ERRORS),
  e('num in {127.0.0.1}', 1, 12, 7, 'expected digit', PARSE_ERRORS),
  e('num in {"test"}', 1, 9, 7, 'expected digit', PARSE_ERRORS),
  e(
    'ip in {666}',
    1,
    8,
    3,
    "couldn't parse address in network: invalid IP address syntax",
    PARSE_ERRORS,
  ),
  e('ip in {"test"}', 1, 8, 7, 'expected IP address character', PARSE_ERRORS),
  e(
    'str in {0}',
    1,
    9,
    2,
    'invalid digit found in string while parsing with radix 16',
    PARSE_ERRORS,
  ),
  e('str in {127.0.0.1}', 1, 11, 1, 'expected byte separator', PARSE_ERRORS),
  ...['{0}', '{127.0.0.1}', '{"test"}'].flatMap((rhs) => [
    e(
      `str_arr in ${rhs}`,
      1,
      9,
      2,
      'cannot perform this operation on type Array(Bytes)',
      PARSE_ERRORS,
      {
        code: 'unsupported-op',
      },
    ),
    e(
      `str_map in ${rhs}`,
      1,
      9,
      2,
      'cannot perform this operation on type Map(Bytes)',
      PARSE_ERRORS,
      {
        code: 'unsupported-op',
      },
    ),
  ]),
  ...ORDERING.flatMap((op) => {
    const pad = op.length === 1 ? -1 : 0
    return [
      e(`num ${op} 127.0.0.1`, 1, 11 + pad, 6, 'unrecognised input', PARSE_ERRORS),
      e(`num ${op} "test"`, 1, 8 + pad, 6, 'expected digit', PARSE_ERRORS),
      e(`str ${op} 0`, 1, 8 + pad, 1, 'expected 2 characters, but found 1', PARSE_ERRORS),
      e(`str ${op} 256`, 1, 10 + pad, 1, 'expected byte separator', PARSE_ERRORS),
      e(`str ${op} 127.0.0.1`, 1, 10 + pad, 1, 'expected byte separator', PARSE_ERRORS),
      ...['0', '"test"', '127.0.0.1'].flatMap((rhs) => [
        e(
          `str_arr ${op} ${rhs}`,
          1,
          9,
          op.length,
          'cannot perform this operation on type Array(Bytes)',
          PARSE_ERRORS,
        ),
        e(
          `str_map ${op} ${rhs}`,
          1,
          9,
          op.length,
          'cannot perform this operation on type Map(Bytes)',
          PARSE_ERRORS,
        ),
      ]),
    ]
  }),
  e('http.host < 12', 1, 15, 0, 'expected 1 characters, but found 0', PARSE_ERRORS),
  e(
    'echo ( http.host, http.headers[*] )',
    1,
    19,
    15,
    'invalid use of map each access operator',
    PARSE_ERRORS,
  ),
  e(
    'echo ( "test" )',
    1,
    8,
    6,
    'invalid kind of argument #0: expected argument of kind Field, but got Literal',
    PARSE_ERRORS,
  ),
  e('echo ( http.host, 10, 2, "test" )', 1, 26, 8, 'invalid number of arguments', PARSE_ERRORS),
  e('any(t)', 1, 5, 1, 'expected value of type Array<Bool>, but got Bool', PARSE_ERRORS),
  e('str == "\\n"', 1, 10, 1, 'expected ", xHH or OOO after \\', LEXICAL),
  e('str == "\\t"', 1, 10, 1, 'expected ", xHH or OOO after \\', LEXICAL),
  e(
    'str == "\\x3😢"',
    1,
    11,
    3,
    'invalid digit found in string while parsing with radix 16',
    PARSE_ERRORS,
  ),
  e(
    'str == "\\01😢"',
    1,
    10,
    4,
    'invalid digit found in string while parsing with radix 8',
    PARSE_ERRORS,
  ),
  e(
    'str == "\\400"',
    1,
    10,
    3,
    'number too large to fit in target type while parsing with radix 8',
    LEXICAL,
  ),
  e('str == "abc', 1, 9, 3, 'could not find an ending quote', LEXICAL),
  e('str == "abcd\\', 1, 9, 5, 'could not find an ending quote', LEXICAL),
  e('str in $abc.', 1, 9, 4, 'invalid list name "abc."', LEXICAL),
  e('str in $.abc', 1, 9, 4, 'invalid list name ".abc"', LEXICAL),
  e('str in $;', 1, 9, 1, 'invalid list name ";"', LEXICAL),
  e('str in $', 1, 9, 0, 'invalid list name ""', LEXICAL),
  e('http..host == "a"', 1, 6, 12, 'expected identifier character', LEXICAL),
  e('str.# == "a"', 1, 5, 8, 'expected identifier character', LEXICAL),
  e('str == r#"a"', 1, 9, 4, 'could not find an ending quote', LEXICAL),
  e('str == r##"a"#', 1, 9, 6, 'could not find an ending quote', LEXICAL),
  e('str == r#a"', 1, 10, 2, 'expected " or #', LEXICAL),
  e(
    `str == r${'#'.repeat(256)}"a"${'#'.repeat(256)}`,
    1,
    9,
    515,
    "invalid raw string hash count, there can't be more than 255 #s",
    LEXICAL,
  ),
  e('str == 01', 1, 10, 0, 'expected 1 characters, but found 0', LEXICAL),
  e('str == 01:4x', 1, 11, 2, 'invalid digit found in string while parsing with radix 16', LEXICAL),
  e('str == c2:b4710c', 1, 13, 4, 'unrecognised input', LEXICAL),
  e('http.host == r#"ab"##', 1, 21, 1, 'unrecognised input', `${LEXICAL}: surplus # left over`),
  e('str wildcard 61:62', 1, 14, 5, 'expected " or r', TYPES),
  e('str wildcard "**"', 1, 14, 4, 'wildcard contains a double star', TYPES),
  e('str wildcard "a**b"', 1, 14, 6, 'wildcard contains a double star', TYPES),
  e(
    'str wildcard r"a\\b"',
    1,
    14,
    6,
    'invalid wildcard: wildcard syntax error at position 1: invalid escape sequence',
    TYPES,
  ),
  e(
    'str strict wildcard r"ab\\"',
    1,
    21,
    6,
    'invalid wildcard: wildcard syntax error at position 2: incomplete escape sequence at the end of the wildcard',
    TYPES,
  ),
  e('str matches "("', 1, 14, 1, 'regex parse error: unclosed group', TYPES),
  e('str matches ")"', 1, 14, 1, 'regex parse error: unopened group', TYPES),
  e(
    'str matches "(?=a)"',
    1,
    14,
    5,
    'regex parse error: look-around, including look-ahead and look-behind, is not supported',
    TYPES,
  ),
  e(
    'str matches "(?<=a)b"',
    1,
    14,
    7,
    'regex parse error: look-around, including look-ahead and look-behind, is not supported',
    TYPES,
  ),
  e(
    'str matches "(?!a)"',
    1,
    14,
    5,
    'regex parse error: look-around, including look-ahead and look-behind, is not supported',
    TYPES,
  ),
  e('str matches "(a)\\1"', 1, 14, 5, 'regex parse error: backreferences are not supported', TYPES),
  e('str matches "\\pL"', 1, 14, 3, 'regex parse error: Unicode not allowed here', TYPES),
  e('str matches "\\p{Greek}"', 1, 14, 9, 'regex parse error: Unicode not allowed here', TYPES),
  e('str matches "[é]"', 1, 14, 3, 'regex parse error: Unicode not allowed here', REGEX),
  e('str matches "\\Qa\\E"', 1, 14, 5, 'regex parse error: unrecognized escape sequence', REGEX),
  e(
    'str matches "*a"',
    1,
    14,
    2,
    'regex parse error: repetition operator missing expression',
    TYPES,
  ),
  e(
    'str matches "a{2,1}"',
    1,
    14,
    6,
    'regex parse error: invalid repetition count range, the start must be <= the end',
    TYPES,
  ),
  e(
    'str matches "[z-a]"',
    1,
    14,
    5,
    'regex parse error: invalid character class range, the start must be <= the end',
    TYPES,
  ),
  e(
    'str matches "[abc"',
    1,
    14,
    5,
    'could not find an ending quote',
    `${TYPES}: a " inside [...] does not end the string`,
  ),
  e('str matches r"[abc"', 1, 13, 7, 'regex parse error: unclosed character class', TYPES),
  e('str matches "(?z)"', 1, 14, 4, 'regex parse error: unrecognized flag', TYPES),
  e(
    'str matches ".{4079,65535}{4079,65535}"',
    1,
    14,
    25,
    'Compiled regex exceeds size limit of 10485760 bytes.',
    TYPES,
    { code: 'regex-too-big' },
  ),
  e('str matches "abc', 1, 14, 3, 'could not find an ending quote', TYPES),
  e('num in {10..0}', 1, 9, 5, 'incompatible range bounds', LEXICAL),
  e('num in {1 2 3..1}', 1, 13, 4, 'incompatible range bounds', LEXICAL),
  e(
    'ip in {10.0.0.0/100}',
    1,
    8,
    12,
    'invalid length for network: Network length 100 is too long for Ipv4 (maximum: 32)',
    LEXICAL,
  ),
  e(
    'ip in {::/129}',
    1,
    8,
    6,
    'invalid length for network: Network length 129 is too long for Ipv6 (maximum: 128)',
    LEXICAL,
  ),
  e(
    'ip in {::/.1}',
    1,
    11,
    2,
    'invalid digit found in string while parsing with radix 10',
    LEXICAL,
  ),
  e('ip in {10.0.0.0..::1}', 1, 8, 13, 'incompatible range bounds', LEXICAL),
  e('ip in {::1..10.0.0.0}', 1, 8, 13, 'incompatible range bounds', LEXICAL),
  e('ip in {127.0.0.1..10.0.0.0}', 1, 8, 19, 'incompatible range bounds', LEXICAL),
  e('ip in {::2..::1}', 1, 8, 8, 'incompatible range bounds', LEXICAL),
  e(
    'ip in {10.0.0.0.0/10}',
    1,
    8,
    10,
    "couldn't parse address in network: invalid IP address syntax",
    LEXICAL,
  ),
  e('ip in {10.0.0.1/8}', 1, 8, 8, 'host part of address was not zero', LEXICAL),
  e(
    'ip == 1.1.1.01',
    1,
    7,
    8,
    "couldn't parse address in network: invalid IP address syntax",
    LEXICAL,
  ),
  e(
    'ip == 256.1.1.1',
    1,
    7,
    9,
    "couldn't parse address in network: invalid IP address syntax",
    LEXICAL,
  ),
  e(
    'ip == 1:2:3:4:5:6:7:8:9',
    1,
    7,
    17,
    "couldn't parse address in network: invalid IP address syntax",
    LEXICAL,
  ),
  e(
    'ip == 10.0.0.0/8',
    1,
    7,
    10,
    "couldn't parse address in network: invalid IP address syntax",
    LEXICAL,
  ),
  e('num == 10fe', 1, 8, 4, 'invalid digit found in string while parsing with radix 10', LEXICAL),
  e(
    'num == 9223372036854775808',
    1,
    8,
    19,
    'number too large to fit in target type while parsing with radix 10',
    LEXICAL,
  ),
  e(
    'num == -9223372036854775809',
    1,
    8,
    20,
    'number too small to fit in target type while parsing with radix 10',
    LEXICAL,
  ),
  e('num == 0x', 1, 10, 0, 'expected digit', LEXICAL),
  e('num == 089', 1, 8, 3, 'invalid digit found in string while parsing with radix 8', LEXICAL),
  e('num == 0xefg', 1, 12, 1, 'unrecognised input', LEXICAL),
  e('num & "x"', 1, 7, 3, 'expected digit', TYPES),
  e('str & 1', 1, 5, 1, 'cannot perform this operation on type Bytes', TYPES),
  e('ip contains "a"', 1, 4, 8, 'cannot perform this operation on type Ip', TYPES),
  e('num matches "a"', 1, 5, 7, 'cannot perform this operation on type Int', TYPES),
  e('ip wildcard "a"', 1, 4, 8, 'cannot perform this operation on type Ip', TYPES),
  e('num strict wildcard "a"', 1, 5, 15, 'cannot perform this operation on type Int', TYPES),
  e('str[0] == "a"', 1, 4, 3, 'cannot access index ArrayIndex(0) for type Bytes', TYPES),
  e('str_map[0] == "a"', 1, 8, 3, 'cannot access index ArrayIndex(0) for type Map(Bytes)', TYPES),
  e('str_arr["a"] == "a"', 1, 8, 5, 'cannot access index MapKey("a") for type Array(Bytes)', TYPES),
  e('ip[*] == 1.1.1.1', 1, 3, 3, 'cannot access index MapEach for type Ip', TYPES),
  e('str_arr[-1] == "a"', 1, 9, 10, 'expected literal "expected positive integer as index"', TYPES),
  e(
    'str_arr[4294967296] == "a"',
    1,
    9,
    18,
    'expected literal "expected positive integer as index"',
    TYPES,
  ),
  e(
    'str_arr[abc] == "a"',
    1,
    9,
    11,
    'expected literal "expected quoted utf8 string or positive integer"',
    GRAMMAR,
  ),
  e(
    'str_map[r"a"] == "a"',
    1,
    9,
    12,
    'expected literal "expected quoted utf8 string or positive integer"',
    GRAMMAR,
  ),
  e('str_map["\\xff"] == "a"', 1, 9, 14, 'expected literal "expected utf8 string"', GRAMMAR),
  e('str_arr [0] == "a"', 1, 9, 10, 'expected ComparisonOp', GRAMMAR),
  e('str foo "x"', 1, 5, 7, 'expected ComparisonOp', PARSE_ERRORS),
  e('str', 1, 4, 0, 'expected ComparisonOp', PARSE_ERRORS),
  e('str EQ "x"', 1, 5, 6, 'expected ComparisonOp', LEXICAL),
  e('t and at', 1, 9, 0, 'expected value of type Bool, but got Array<Bool>', GRAMMAR),
  e('at and t', 1, 9, 0, 'expected value of type Array<Bool>, but got Bool', GRAMMAR),
  e('at and t or t', 1, 13, 1, 'expected value of type Array<Bool>, but got Bool', GRAMMAR),
  e('at[*]', 1, 6, 0, 'expected value of type Bool, but got Array<Bool>', TYPES, {
    code: 'missing-quantifier',
  }),
  e('map.bool.arr[*]', 1, 16, 0, 'cannot perform this operation on type Array(Array(Bool))', TYPES),
  e('not', 1, 4, 0, 'expected identifier character', GRAMMAR),
  e('', 1, 1, 0, 'expected identifier character', GRAMMAR),
  e('(t', 1, 3, 0, 'expected literal ")"', GRAMMAR),
  e('t)', 1, 2, 1, 'unrecognised input', GRAMMAR),
  e('t t', 1, 2, 2, 'unrecognised input', GRAMMAR),
  e('t AND t', 1, 2, 6, 'unrecognised input', LEXICAL),
  e('bool == true', 1, 5, 8, 'unrecognised input', LEXICAL),
  e('echo(str', 1, 9, 0, 'expected literal ")"', GRAMMAR),
  e('echo str', 1, 6, 3, 'expected literal "("', GRAMMAR),
  e('echo()', 1, 6, 1, 'invalid number of arguments', GRAMMAR),
  e('echo(str str)', 1, 10, 4, 'expected literal ","', GRAMMAR),
  e('lowercase(str, str)', 1, 16, 4, 'invalid number of arguments', GRAMMAR),
  e(
    'echo(str, "x")',
    1,
    11,
    3,
    'invalid type of argument #1: expected value of type Int, but got Bytes',
    GRAMMAR,
  ),
  e(
    'echo(str, num)',
    1,
    11,
    3,
    'invalid kind of argument #1: expected argument of kind Literal, but got Field',
    GRAMMAR,
  ),
  e(
    'echo(num)',
    1,
    6,
    3,
    'invalid type of argument #0: expected value of type Bytes, but got Int',
    GRAMMAR,
  ),
  e(
    'concat(str, num) == "a"',
    1,
    13,
    3,
    'invalid type of argument #1: expected value of type Bytes, but got Int',
    FUNCTIONS,
  ),
  e(
    'concat(str_arr, str) == "a"',
    1,
    17,
    3,
    'invalid type of argument #1: expected value of type Array<Bytes>, but got Bytes',
    FUNCTIONS,
  ),
  e(
    'len(str_arr) == 1',
    1,
    5,
    7,
    'invalid type of argument #0: expected value of type Bytes, but got Array<Bytes>',
    VECTORS,
  ),
  e(
    'any(str_arr[*] == "a") and any(1)',
    1,
    32,
    1,
    'expected value of type Array<Bool>, but got Int',
    TYPES,
  ),
  e('all(ssl)', 1, 5, 3, 'expected value of type Array<Bool>, but got Bool', TYPES),
  e('((t))', 1, 2, 4, 'maximum nesting depth exceeded (limit: 1)', GRAMMAR, { maxNestingDepth: 1 }),
  e('!!t', 1, 2, 2, 'maximum nesting depth exceeded (limit: 1)', GRAMMAR, { maxNestingDepth: 1 }),
  e('t and (t or t)', 1, 7, 8, 'maximum nesting depth exceeded (limit: 0)', GRAMMAR, {
    maxNestingDepth: 0,
  }),
  e(
    'echo ( echo ( echo ( http.host ) ) ) == "a"',
    1,
    20,
    24,
    'maximum nesting depth exceeded (limit: 2)',
    GRAMMAR,
    { maxNestingDepth: 2 },
  ),
  e('any ( ( t or t ) )', 1, 7, 12, 'maximum nesting depth exceeded (limit: 1)', GRAMMAR, {
    maxNestingDepth: 1,
  }),
  e(
    `${'('.repeat(129)}t${')'.repeat(129)}`,
    1,
    129,
    131,
    'maximum nesting depth exceeded (limit: 128)',
    GRAMMAR,
  ),
  e(`${'not '.repeat(129)}t`, 1, 513, 5, 'maximum nesting depth exceeded (limit: 128)', GRAMMAR),
]

// ---------------------------------------------------------------------------------------------
// Errors in the vendor's WAF scheme (documentation examples)

const w = (
  expr: string,
  line: number,
  column: number,
  length: number,
  message: string,
  source: string,
  more: Partial<ErrorCase> = {},
): ErrorCase => ({ expr, scheme: 'waf', line, column, length, message, source, ...more })

export const WAF_ERRORS: ErrorCase[] = [
  w(
    'ip.src==34',
    1,
    9,
    2,
    "couldn't parse address in network: invalid IP address syntax",
    'cf-filters/validation.mdx',
  ),
  w(
    'ip.src in {2400:cb00::/32 2405:8100::/2000 2c0f:f248::/32 2a06:98c0::/29}',
    1,
    39,
    4,
    'number too large to fit in target type while parsing with radix 10',
    'cf-filters/validation.mdx',
  ),
  w(
    'http.request.headers.names[*] == "x"',
    1,
    37,
    0,
    'expected value of type Bool, but got Array<Bool>',
    'values.mdx: [*] needs any()/all()',
    { code: 'missing-quantifier' },
  ),
  w(
    'http.request.uri.path eq "/a" AND ssl',
    1,
    30,
    8,
    'unrecognised input',
    'operators.mdx: lowercase operators',
  ),
  w(
    'http.request.uri.path ends_with ".html"',
    1,
    23,
    17,
    'expected ComparisonOp',
    'functions.mdx: ends_with is a function',
  ),
  w(
    'url_decode("John%20Doe") eq "John Doe"',
    1,
    12,
    12,
    'invalid kind of argument #0: expected argument of kind Field, but got Literal',
    'functions.mdx: source must be a field',
  ),
  w(
    'starts_with("/blog", "/b")',
    1,
    13,
    7,
    'invalid kind of argument #0: expected argument of kind Field, but got Literal',
    'functions.mdx',
  ),
  w(
    'decode_base64("MTIzYWJj") eq "123abc"',
    1,
    15,
    10,
    'invalid kind of argument #0: expected argument of kind Field, but got Literal',
    'functions.mdx',
  ),
  w(
    'cidr(ip.src, 33, 24) eq 10.0.0.0',
    1,
    14,
    2,
    'invalid value of argument #1: invalid argument: "ipv4_network_bits must be between 1 and 32"',
    'functions.mdx: cidr',
  ),
  w(
    'cidr(ip.src, 24, 0) eq 10.0.0.0',
    1,
    18,
    1,
    'invalid value of argument #2: invalid argument: "ipv6_network_bits must be between 1 and 128"',
    'functions.mdx: cidr',
  ),
  w(
    'url_decode(http.request.uri.path, "x") eq "a"',
    1,
    35,
    3,
    'invalid value of argument #1: invalid argument: "unknown url_decode option in \\"x\\": use \\"r\\", \\"u\\" or both"',
    'functions.mdx: url_decode',
  ),
  w(
    'lookup_json_string(http.request.body.raw) eq "a"',
    1,
    41,
    8,
    'invalid number of arguments',
    'functions.mdx: lookup_json_string',
  ),
  w(
    'lookup_json_string(http.request.body.raw, http.host) eq "a"',
    1,
    43,
    9,
    'invalid kind of argument #1: expected argument of kind Literal, but got Field',
    'functions.mdx',
  ),
  w(
    'len(ip.src) > 1',
    1,
    5,
    6,
    'invalid type of argument #0: expected value of type Bytes or Array<_>, but got Ip',
    'functions.mdx: len',
  ),
  w(
    'lower(http.request.headers.names[*]) == "x"',
    1,
    38,
    2,
    'cannot perform this operation on type Array(Bytes)',
    'values.mdx: arrays',
  ),
  w(
    'http.request.headers == "x"',
    1,
    22,
    2,
    'cannot perform this operation on type Map(Array(Bytes))',
    'values.mdx: maps',
  ),
  w(
    'http.request.headers["host"] == "x"',
    1,
    30,
    2,
    'cannot perform this operation on type Array(Bytes)',
    'values.mdx: maps',
  ),
  w('ssl eq true', 1, 4, 8, 'unrecognised input', LEXICAL),
  w('any(ssl)', 1, 5, 3, 'expected value of type Array<Bool>, but got Bool', 'functions.mdx: any'),
  w('cf.waf.score eq "10"', 1, 17, 4, 'expected digit', 'fields: cf.waf.score is an Integer'),
  w(
    'http.host contains 10',
    1,
    22,
    0,
    'expected 1 characters, but found 0',
    `${LEXICAL}: 10 is not a string`,
  ),
  w('ip.src eq "1.2.3.4"', 1, 11, 9, 'expected IP address character', LEXICAL),
  w(
    'ip.src == 10.0.0.0/8',
    1,
    11,
    10,
    "couldn't parse address in network: invalid IP address syntax",
    'standard-fields.mdx: CIDR needs in',
  ),
  w('http.request.method in "GET"', 1, 24, 5, 'expected literal "{"', TYPES),
  w(
    'http.host in {"a", "b"}',
    1,
    18,
    2,
    'invalid digit found in string while parsing with radix 16',
    `${GRAMMAR}: sets have no commas`,
  ),
  w(
    'to_string(cf.waf.score) eq "1"',
    1,
    1,
    9,
    'You can only use the to_string() function in rewrite expressions of Transform Rules and target URL expressions of dynamic URL redirects.',
    'functions.mdx: to_string',
    { code: 'unavailable-function' },
  ),
  w(
    'regex_replace(http.host, "a", "b") eq "x"',
    1,
    1,
    13,
    'Currently, the regex_replace() function is only available in rewrite expressions of Transform Rules and target URL expressions of dynamic URL redirects.',
    'functions.mdx: regex_replace',
    { code: 'unavailable-function' },
  ),
  w(
    'wildcard_replace(http.host, "*", "b") eq "x"',
    1,
    1,
    16,
    'Currently, you can only use the wildcard_replace() function in rewrite expressions of URL rewrites and target URL expressions of dynamic URL redirects.',
    'functions.mdx',
    { code: 'unavailable-function' },
  ),
  w(
    'split(http.host, ",", 2)[0] eq "x"',
    1,
    1,
    5,
    'The split() function is only available in response header transform rules and Custom Error Rules.',
    'functions.mdx: split',
    { code: 'unavailable-function' },
  ),
  w(
    'cidr(ip.src, 24, 24) eq 10.0.0.0',
    1,
    1,
    4,
    'You can only use the cidr() function in custom rules and rate limiting rules.',
    'functions.mdx: cidr',
    { code: 'unavailable-function', phase: 'http_request_firewall_managed' },
  ),
  w(
    'decode_base64(http.host) eq "x"',
    1,
    1,
    13,
    'You can only use the decode_base64() function in Transform Rules, custom rules, and rate limiting rules.',
    'functions.mdx',
    { code: 'unavailable-function', phase: 'http_request_firewall_managed' },
  ),
  w('ip.src in $nope', 1, 11, 5, 'unknown list $nope', EVALUATION, {
    code: 'unknown-list',
    lists: { good: 'ip' },
  }),
  w('http.host in $good', 1, 11, 2, 'cannot perform this operation on type Bytes', LEXICAL, {
    lists: { good: 'ip' },
  }),
  w(
    'http.host eq "a" '.repeat(300).trim(),
    1,
    4097,
    1003,
    'the expression is 5099 characters long, but the limit is 4096',
    `${FUNCTIONS}: 4,096 characters`,
    { code: 'too-long' },
  ),
  w(
    'http.request.uri.path eq "/a" and ip.geoip.asnum eq 1 and ip.src.asnum eq 1 and tcp.port eq 1',
    1,
    81,
    8,
    'unknown identifier',
    'fields/index.yaml',
  ),
]

// ---------------------------------------------------------------------------------------------
// Evaluation (open-source scheme; values given per case)

const v = (
  expr: string,
  values: Record<string, unknown>,
  expect: unknown,
  source: string,
  more: Partial<EvalCase> = {},
): EvalCase => ({
  expr,
  scheme: 'oss',
  values,
  expect,
  source,
  ...more,
})

const cookies = ['one', 'two', 'three']
const grid = Array.from({ length: 10 }, (_, i) =>
  Array.from({ length: 10 }, (_, j) => `[${i}][${j}]`),
)

export const OSS_EVAL: EvalCase[] = [
  v('ssl', { ssl: true }, true, VECTORS),
  v('ssl', { ssl: false }, false, VECTORS),
  v('ssl', {}, false, `${EVALUATION} IsTrue on missing`),
  v('not ssl', {}, true, EVALUATION),
  ...(
    [
      ['::1', true],
      ['10:20:30:40:50:60:70:80', true],
      ['10:20:30:40:50:60:70:81', false],
      ['127.0.0.1', false],
    ] as const
  ).map(([ip, r]) => v('ip.addr <= 10:20:30:40:50:60:70:80', { 'ip.addr': ip }, r, VECTORS)),
  v(
    'ip.addr != 10:20:30:40:50:60:70:80',
    { 'ip.addr': '127.0.0.1' },
    true,
    `${LEXICAL} v4/v6 incomparable`,
  ),
  v('ip.addr == 10:20:30:40:50:60:70:80', { 'ip.addr': '127.0.0.1' }, false, LEXICAL),
  v('http.host == "example.org"', { 'http.host': 'example.com' }, false, VECTORS),
  v('http.host == "example.org"', { 'http.host': 'example.org' }, true, VECTORS),
  v('tcp.port & 1', { 'tcp.port': 80 }, false, VECTORS),
  v('tcp.port & 1', { 'tcp.port': 443 }, true, VECTORS),
  v('tcp.port bitwise_and 0x100000000', { 'tcp.port': 2 ** 32 + 5 }, true, `${TYPES} 64-bit`),
  ...(
    [
      [80, true],
      [8080, false],
      [443, true],
      [2081, false],
      [2082, true],
      [2083, true],
      [2084, false],
    ] as const
  ).map(([port, r]) => v('tcp.port in { 80 443 2082..2083 }', { 'tcp.port': port }, r, VECTORS)),
  ...(
    [
      ['example.com', true],
      ['example.org', true],
      ['example.net', false],
    ] as const
  ).map(([host, r]) =>
    v('http.host in { "example.org" "example.com" }', { 'http.host': host }, r, VECTORS),
  ),
  ...(
    [
      ['127.0.0.1', true],
      ['127.0.0.3', true],
      ['255.255.255.255', false],
      ['::1', true],
      ['::2', false],
      ['10.0.128.1', true],
    ] as const
  ).map(([ip, r]) =>
    v('ip.addr in { 127.0.0.0/8 ::1 10.0.0.0..10.0.255.255 }', { 'ip.addr': ip }, r, VECTORS),
  ),
  v('http.host in {}', { 'http.host': 'a' }, false, `${TYPES} empty set`),
  v('http.host contains "abc"', { 'http.host': 'example.org' }, false, VECTORS),
  v('http.host contains "abc"', { 'http.host': 'abc.net.au' }, true, VECTORS),
  v('http.host contains ""', { 'http.host': 'x' }, true, `${TYPES} empty needle`),
  v('http.host contains 6F:72:67', { 'http.host': 'example.com' }, false, VECTORS),
  v('http.host contains 6F:72:67', { 'http.host': 'example.org' }, true, VECTORS),
  v(
    'http.host >= 10:20:30:40:50:60:70:80',
    { 'http.host': '\u0010 0' },
    false,
    `${LEXICAL} bytes literal`,
  ),
  v('tcp.port < 8000', { 'tcp.port': 80 }, true, VECTORS),
  v('tcp.port < 8000', { 'tcp.port': 8080 }, false, VECTORS),
  v('tcp.port lt 0123', { 'tcp.port': 82 }, true, `${LEXICAL} octal`),
  v('tcp.port eq 0x1f5', { 'tcp.port': 501 }, true, `${LEXICAL} hex`),
  v('tcp.port in {0123..0xef}', { 'tcp.port': 100 }, true, LEXICAL),
  v('tcp.port in {-20..-10}', { 'tcp.port': -15 }, true, LEXICAL),
  v('http.cookies[0] contains "abc"', { 'http.cookies': ['abc'] }, true, VECTORS),
  v('http.cookies[0] contains "abc"', { 'http.cookies': ['def'] }, false, VECTORS),
  v(
    'http.headers["host"] contains "abc"',
    { 'http.headers': { host: 'example.org' } },
    false,
    VECTORS,
  ),
  v(
    'http.headers["host"] contains "abc"',
    { 'http.headers': { host: 'abc.net.au' } },
    true,
    VECTORS,
  ),
  v('lowercase(http.host) == "example.org"', { 'http.host': 'EXAMPLE.COM' }, false, VECTORS),
  v('lowercase(http.host) == "example.org"', { 'http.host': 'EXAMPLE.ORG' }, true, VECTORS),
  v('http.cookies[0] == "example.org"', { 'http.cookies': [] }, false, VECTORS),
  v(
    'http.cookies[0] != "example.org"',
    { 'http.cookies': [] },
    false,
    `${EVALUATION} vendor default`,
  ),
  v(
    'http.cookies[0] != "example.org"',
    { 'http.cookies': [] },
    true,
    `${EVALUATION} open-source default`,
    {
      nilNotEqual: true,
    },
  ),
  v('http.headers["missing"] == "example.org"', { 'http.headers': {} }, false, VECTORS),
  v(
    'http.headers["missing"] != "example.org"',
    { 'http.headers': {} },
    false,
    `${EVALUATION} vendor default`,
  ),
  v(
    'http.headers["missing"] != "example.org"',
    { 'http.headers': {} },
    true,
    `${EVALUATION} open-source default`,
    { nilNotEqual: true },
  ),
  v('concat(http.host) == "example.org"', { 'http.host': 'example.org' }, true, VECTORS),
  v('concat(http.host) == "example.org"', { 'http.host': 'example.co.uk' }, false, VECTORS),
  v('concat(http.host, ".org") == "example.org"', { 'http.host': 'example' }, true, VECTORS),
  v('concat(http.host, ".org") == "example.org"', { 'http.host': 'cloudflare' }, false, VECTORS),
  v('concat(http.cookies[*], "-cf")[2] == "three-cf"', { 'http.cookies': cookies }, true, VECTORS),
  v(
    'concat(http.headers[*], "-cf")[2] in {"one-cf" "two-cf" "three-cf"}',
    { 'http.headers': { 0: 'one', 1: 'two', 2: 'three' } },
    true,
    VECTORS,
  ),
  v('http.cookies[*] == "three"', { 'http.cookies': cookies }, [false, false, true], VECTORS, {
    value: true,
  }),
  v('len(http.cookies[*])[*] > 3', { 'http.cookies': cookies }, [false, false, true], VECTORS, {
    value: true,
  }),
  v(
    'http.parts[*][*] == "[5][5]"',
    { 'http.parts': grid },
    Array.from({ length: 100 }, (_, i) => i === 55),
    VECTORS,
    { value: true },
  ),
  v('any(http.parts[*][*] == "[5][5]")', { 'http.parts': grid }, true, TYPES),
  v('all(http.parts[5][*] contains "[5]")', { 'http.parts': grid }, true, TYPES),
  v('any(http.parts[*][5] == "[2][5]")', { 'http.parts': grid }, true, TYPES),
  v('any(tcp.ports[*] in $even)', { 'tcp.ports': [1001, 1000] }, true, VECTORS, {
    lists: { even: { kind: 'int', items: [0, 2, 1000] } },
  }),
  v('any(tcp.ports[*] in $even)', { 'tcp.ports': [1001, 1003] }, false, VECTORS, {
    lists: { even: { kind: 'int', items: [0, 2, 1000] } },
  }),
  v('tcp.port in $missing', { 'tcp.port': 1 }, false, `${EVALUATION} unknown list is empty`),
  v('any(at)', { at: [true, false, true] }, true, VECTORS),
  v('all(at)', { at: [true, false, true] }, false, VECTORS),
  v('any(empty_bool_array)', { empty_bool_array: [] }, false, VECTORS),
  v('all(empty_bool_array)', { empty_bool_array: [] }, true, VECTORS),
  v('any(map.bool.arr["missing"])', { 'map.bool.arr': {} }, false, VECTORS),
  v('all(map.bool.arr["missing"])', { 'map.bool.arr': {} }, false, VECTORS),
  v('any(map.bytes.arr["missing"][*] matches "bar")', { 'map.bytes.arr': {} }, false, VECTORS),
  v('all(map.bytes.arr["missing"][*] matches "bar")', { 'map.bytes.arr': {} }, true, VECTORS),
  v(
    'any(map.bytes.arr["k"][*] matches "bar")',
    { 'map.bytes.arr': { k: ['foo', 'xbarx'] } },
    true,
    TYPES,
  ),
  v('http.host == r###"ab"###', { 'http.host': 'ab' }, true, VECTORS),
  v('http.host == r###"ab"###', { 'http.host': 'cd' }, false, VECTORS),
  v('http.host matches r###"a.b"###', { 'http.host': 'axb' }, true, VECTORS),
  v('http.host matches r###"a.b"###', { 'http.host': 'axc' }, false, VECTORS),
  v('concat(http.host, r#"cd"#) == r##"abcd"##', { 'http.host': 'xx' }, false, VECTORS),
  v('concat(http.host, r#"cd"#) == r##"abcd"##', { 'http.host': 'ab' }, true, VECTORS),
  v(
    'http.host == "s\\\\t\\"r\\x0A\\000t"',
    { 'http.host': 's\\t"r\n\u0000t' },
    true,
    `${LEXICAL} escapes`,
  ),
  v(
    'http.host == "\\xFF"',
    { 'http.host': new Uint8Array([0xff]) },
    true,
    `${LEXICAL} non-UTF-8 byte`,
  ),
  v('http.host == "\\377"', { 'http.host': new Uint8Array([0xff]) }, true, `${LEXICAL} octal byte`),
  v('http.host == "\\177"', { 'http.host': '\u007f' }, true, LEXICAL),
  v(
    'http.host == 01:2e:f3-77.12',
    { 'http.host': new Uint8Array([1, 0x2e, 0xf3, 0x77, 0x12]) },
    true,
    `${LEXICAL} hex bytes`,
  ),
  v('http.host lt "b"', { 'http.host': 'a' }, true, `${TYPES} lexicographic`),
  v(
    'http.host gt "\\x7f"',
    { 'http.host': new Uint8Array([0x80]) },
    true,
    `${TYPES} bytes compare unsigned`,
  ),
  v('http.host == "é"', { 'http.host': 'é' }, true, `${LEXICAL} UTF-8`),
  // logical operators
  v('t and t', { t: true }, true, GRAMMAR),
  v('t and f', { t: true, f: false }, false, GRAMMAR),
  v('t or f', { t: true, f: false }, true, GRAMMAR),
  v('f or f', { f: false }, false, GRAMMAR),
  v('t xor f', { t: true, f: false }, true, GRAMMAR),
  v('f xor f', { f: false }, false, GRAMMAR),
  v('f xor t', { t: true, f: false }, true, GRAMMAR),
  v('t ^^ t ^^ t', { t: true }, true, GRAMMAR),
  v('f || t && f', { t: true, f: false }, false, `${GRAMMAR} precedence`),
  v('not t && f', { t: true, f: false }, false, GRAMMAR),
  v('! (not !t)', { t: true }, false, GRAMMAR),
  v('!!t', { t: true }, true, GRAMMAR),
  v('not t or t', { t: true }, true, GRAMMAR),
  v(
    'at and af',
    { at: [true, false, true], af: [false, false, true] },
    [false, false, true],
    GRAMMAR,
    { value: true },
  ),
  v(
    'at or af',
    { at: [true, false, true], af: [false, false, true] },
    [true, false, true],
    GRAMMAR,
    { value: true },
  ),
  v(
    'at xor af',
    { at: [true, false, true], af: [false, false, true] },
    [true, false, false],
    GRAMMAR,
    { value: true },
  ),
  v('not at', { at: [true, false, true] }, [false, true, false], GRAMMAR, { value: true }),
  v('at and af', { at: [true, false, true], af: [true] }, [true], `${GRAMMAR} shortest wins`, {
    value: true,
  }),
  v('any((at and af))', { at: [true, false, true], af: [false, false, true] }, true, TYPES),
  // missing values (vendor default: every comparison is false)
  ...(
    [
      [{ 'tcp.dstport': 443 }, true],
      [{ 'tcp.dstport': 80 }, false],
      [{ 'udp.dstport': 53 }, true],
      [{ 'udp.dstport': 80 }, false],
      [{}, false],
    ] as const
  ).map(([values, r]) => v('(tcp.dstport != 80) or (udp.dstport != 80)', values, r, EVALUATION)),
  ...[
    { 'tcp.dstport': 443 },
    { 'tcp.dstport': 80 },
    { 'udp.dstport': 53 },
    { 'udp.dstport': 80 },
    {},
  ].map((values) => v('(tcp.dstport != 80) and (udp.dstport != 80)', values, false, EVALUATION)),
  ...(
    [
      [{ 'tcp.dstport': 80 }, false],
      [{ 'tcp.dstport': 443 }, true],
      [{}, true],
    ] as const
  ).map(([values, r]) => v('not (tcp.dstport eq 80)', values, r, EVALUATION)),
  ...(
    [
      [{ 'tcp.dstport': 80 }, true],
      [{ 'tcp.dstport': 443 }, false],
      [{}, true],
    ] as const
  ).map(([values, r]) => v('not (tcp.dstport ne 80)', values, r, EVALUATION)),
  ...(
    [
      [{ 'tcp.srcport': 1337, 'tcp.dstport': 443, 'tcp.flags.syn': true }, true],
      [{ 'tcp.srcport': 1337, 'tcp.dstport': 443, 'tcp.flags.syn': false }, false],
      [{ 'tcp.srcport': 1337, 'tcp.dstport': 80, 'tcp.flags.syn': true }, false],
      [{ 'tcp.srcport': 1337 }, false],
      [{}, false],
    ] as const
  ).map(([values, r]) =>
    v(
      '(tcp.srcport == 1337) and ((tcp.dstport != 80) and ((tcp.flags.syn) or (udp.dstport != 80)))',
      values,
      r,
      EVALUATION,
    ),
  ),
  // wildcards (both operators unless noted)
  ...(['wildcard', 'strict wildcard'] as const).flatMap((op) => [
    ...(
      [
        ['foo?*\\', true],
        ['foo?bar*\\', true],
        ['foo?x\\', false],
      ] as const
    ).flatMap(([host, r]) => [
      v(`http.host ${op} r"foo?*\\*\\\\"`, { 'http.host': host }, r, TYPES),
      v(`http.host ${op} "foo?*\\\\*\\\\\\\\"`, { 'http.host': host }, r, TYPES),
    ]),
    v(`http.host ${op} "fo\\x6f"`, { 'http.host': 'foo' }, true, TYPES),
    v(`http.host ${op} "\\xaa\\x22"`, { 'http.host': new Uint8Array([0xaa, 0x22]) }, true, TYPES),
    v(`http.host ${op} "?"`, { 'http.host': '?' }, true, TYPES),
    v(`http.host ${op} "?"`, { 'http.host': 'x' }, false, TYPES),
    v(`http.host ${op} "a"`, { 'http.host': 'A' }, op === 'wildcard', TYPES),
    ...(
      [
        ['foo*\\', true],
        ['foo*', false],
        ['foo\\', false],
        ['Foo*\\', op === 'wildcard'],
        ['foobarmumble*\\', true],
        ['foobarmumble\\', false],
      ] as const
    ).map(([host, r]) => v(`http.host ${op} r##"foo*\\*\\\\"##`, { 'http.host': host }, r, TYPES)),
    v(
      `http.host ${op} "*.example.com"`,
      { 'http.host': 'a.b.example.com' },
      true,
      `${TYPES} * crosses dots`,
    ),
    v(`http.host ${op} "a*b*c"`, { 'http.host': 'abbc' }, true, TYPES),
    v(`http.host ${op} "a*b*c"`, { 'http.host': 'acb' }, false, TYPES),
  ]),
]

// ---------------------------------------------------------------------------------------------
// Evaluation in the WAF scheme (vendor documentation)

const r = (
  expr: string,
  request: RequestDescription,
  expect: unknown,
  source: string,
  more: Partial<EvalCase> = {},
): EvalCase => ({
  expr,
  scheme: 'waf',
  request,
  expect,
  source,
  ...more,
})
const wv = (
  expr: string,
  values: Record<string, unknown>,
  expect: unknown,
  source: string,
  more: Partial<EvalCase> = {},
): EvalCase => ({
  expr,
  scheme: 'waf',
  values,
  expect,
  source,
  ...more,
})

const filterRequest: RequestDescription = {
  method: 'GET',
  url: 'https://example.com/?filter=waf&filter=botm&filter=cdn',
  headers: { Accept: 'application/json' },
}
const json = (body: string): RequestDescription => ({
  method: 'POST',
  url: 'https://example.com/api',
  headers: { 'Content-Type': 'application/json' },
  body,
})

export const WAF_EVAL: EvalCase[] = [
  r('http.request.uri.args["filter"]', filterRequest, ['waf', 'botm', 'cdn'], 'values.mdx', {
    value: true,
  }),
  r('len(http.request.uri.args["filter"][1])', filterRequest, 4, 'values.mdx', { value: true }),
  r('all(len(http.request.uri.args["filter"][*])[*] in {3 4})', filterRequest, true, 'values.mdx'),
  r(
    'all(not len(http.request.uri.args["filter"][*])[*] in {3 4})',
    filterRequest,
    false,
    'values.mdx',
  ),
  r('len(http.request.uri.args["filter"]) >= 0', filterRequest, true, 'values.mdx: key present'),
  r('not len(http.request.uri.args["order"]) >= 0', filterRequest, true, 'values.mdx: key absent'),
  r('http.request.headers["accept"][0]', filterRequest, 'application/json', 'values.mdx', {
    value: true,
  }),
  r('any(http.request.headers["accept"][*] == "text/plain")', filterRequest, false, 'values.mdx'),
  r(
    'all(http.request.headers["accept"][*] == "application/json")',
    filterRequest,
    true,
    'functions.mdx: all',
  ),
  r(
    'http.request.uri.args.names[0] eq "filter" and len(http.request.uri.args.values) eq 3',
    filterRequest,
    true,
    'fields',
  ),
  wv(
    'lower(http.host) == "www.cloudflare.com"',
    { 'http.host': 'WWW.cloudflare.com' },
    true,
    'functions.mdx: lower',
  ),
  wv(
    'upper(http.host)',
    { 'http.host': 'www.cloudflare.com' },
    'WWW.CLOUDFLARE.COM',
    'functions.mdx: upper',
    { value: true },
  ),
  wv('lower(http.host)', { 'http.host': 'ÀB' }, 'Àb', 'functions.mdx: ASCII only', { value: true }),
  wv('len(http.host)', { 'http.host': 'example.com' }, 11, 'functions.mdx: len', { value: true }),
  wv('len(http.host)', { 'http.host': 'é' }, 2, 'functions.mdx: byte length', { value: true }),
  wv(
    'len(http.request.headers.names)',
    { 'http.request.headers.names': ['a', 'b'] },
    2,
    'functions.mdx: len of array',
    { value: true },
  ),
  wv(
    'starts_with(http.request.uri.path, "/blog")',
    { 'http.request.uri.path': '/blog/first-post' },
    true,
    'functions.mdx: starts_with',
  ),
  wv(
    'ends_with(http.request.uri.path, ".html")',
    { 'http.request.uri.path': '/welcome.html' },
    true,
    'functions.mdx: ends_with',
  ),
  wv(
    'ends_with(http.request.uri.path, ".html")',
    { 'http.request.uri.path': '/welcome.htm' },
    false,
    'functions.mdx',
  ),
  wv('concat("String1", " ", "String", "2")', {}, 'String1 String2', 'functions.mdx: concat', {
    value: true,
  }),
  wv(
    'concat("/", http.request.accepted_languages[0], http.request.uri.path)',
    { 'http.request.uri.path': '/my-path' },
    '//my-path',
    `${EVALUATION} concat skips missing`,
    { value: true },
  ),
  wv(
    'concat(http.request.headers.names, http.request.uri.args.names)',
    { 'http.request.headers.names': ['a'], 'http.request.uri.args.names': ['b', 'c'] },
    ['a', 'b', 'c'],
    'functions.mdx: concat arrays',
    { value: true },
  ),
  wv(
    'url_decode(http.request.uri.path)',
    { 'http.request.uri.path': 'John%20Doe' },
    'John Doe',
    'functions.mdx: url_decode',
    { value: true },
  ),
  wv(
    'url_decode(http.request.uri.path)',
    { 'http.request.uri.path': 'John+Doe' },
    'John Doe',
    'functions.mdx',
    { value: true },
  ),
  wv(
    'url_decode(http.request.uri.path)',
    { 'http.request.uri.path': '%2520' },
    '%20',
    'functions.mdx',
    { value: true },
  ),
  wv(
    'url_decode(http.request.uri.path, "r")',
    { 'http.request.uri.path': '%2520' },
    ' ',
    'functions.mdx: recursive',
    { value: true },
  ),
  wv(
    'url_decode(http.request.uri.path)',
    { 'http.request.uri.path': '%E4%BD' },
    new Uint8Array([0xe4, 0xbd]),
    'functions.mdx: bytes',
    { value: true },
  ),
  wv(
    'url_decode(http.request.uri.path, "u")',
    { 'http.request.uri.path': '%u2601' },
    new Uint8Array([0xe2, 0x98, 0x81]),
    'functions.mdx: %u',
    { value: true },
  ),
  wv(
    'url_decode(http.request.uri.path)',
    { 'http.request.uri.path': '%u2601' },
    '%u2601',
    'functions.mdx: %u needs "u"',
    { value: true },
  ),
  wv(
    'url_decode(http.request.uri.path) matches "(?u)\\p{Hangul}+"',
    { 'http.request.uri.path': '%ED%95%9C%EA%B5%AD' },
    true,
    'functions.mdx: (?u)',
  ),
  wv(
    'remove_bytes(http.host, "\\x2e\\x77")',
    { 'http.host': 'www.cloudflare.com' },
    'cloudflarecom',
    'functions.mdx: remove_bytes',
    { value: true },
  ),
  ...(
    [
      ['{ "company": "cloudflare", "product": "rulesets" }', '"company"', 'cloudflare'],
      ['{ "network": { "name": "cloudflare" } }', '"network", "name"', 'cloudflare'],
      ['["other_company", "cloudflare"]', '1', 'cloudflare'],
      ['{ "networks": ["other_company", "cloudflare"] }', '"networks", 1', 'cloudflare'],
      [
        '[{ "network": "other_company" }, { "network": "cloudflare" }]',
        '1, "network"',
        'cloudflare',
      ],
    ] as const
  ).map(([body, keys, out]) =>
    r(
      `lookup_json_string(http.request.body.raw, ${keys}) == "${out}"`,
      json(body),
      true,
      'functions.mdx: lookup_json_string',
    ),
  ),
  r(
    'lookup_json_string(http.request.body.raw, "missing")',
    json('{"a":"b"}'),
    undefined,
    'functions.mdx',
    { value: true },
  ),
  r(
    'lookup_json_string(http.request.body.raw, "a")',
    json('{"a":1}'),
    undefined,
    'functions.mdx: not a string',
    { value: true },
  ),
  r(
    'lookup_json_string(http.request.body.raw, "a")',
    json('not json'),
    undefined,
    'functions.mdx: invalid JSON',
    { value: true },
  ),
  r(
    'lookup_json_string(http.request.body.raw, "name")',
    json('{"name":"Zoë"}'),
    'Zoë',
    'functions.mdx: UTF-8',
    { value: true },
  ),
  ...(
    [
      ['{ "record_id": "aed53a", "version": 2 }', '"version"', 2],
      ['{ "product": { "id": 356 } }', '"product", "id"', 356],
      ['["first_item", -234]', '1', -234],
      ['{ "network_ids": [123, 456] }', '"network_ids", 0', 123],
      ['[{ "product_id": 123 }, { "product_id": 456 }]', '1, "product_id"', 456],
    ] as const
  ).map(([body, keys, out]) =>
    r(
      `lookup_json_integer(http.request.body.raw, ${keys})`,
      json(body),
      out,
      'functions.mdx: lookup_json_integer',
      { value: true },
    ),
  ),
  r(
    'lookup_json_integer(http.request.body.raw, "a")',
    json('{"a": 42.0}'),
    undefined,
    'functions.mdx: 42.0 is not an integer',
    { value: true },
  ),
  ...(
    [
      ['2, 5', 'dfg'],
      ['2', 'dfghjk'],
      ['-2', 'jk'],
      ['0, -2', 'asdfgh'],
    ] as const
  ).map(([args, out]) =>
    wv(
      `substring(http.request.body.raw, ${args})`,
      { 'http.request.body.raw': 'asdfghjk' },
      out,
      'functions.mdx: substring',
      { value: true },
    ),
  ),
  r(
    'any(decode_base64(http.request.headers["client_id"][*])[*] eq "123abc")',
    { method: 'GET', url: '/', headers: { client_id: 'MTIzYWJj' } },
    true,
    'functions.mdx: decode_base64',
  ),
  wv(
    'cidr(ip.src, 24, 24)',
    { 'ip.src': '113.10.0.2' },
    { family: 4, n: 1896480768 },
    'functions.mdx: cidr',
    { value: true },
  ),
  wv('cidr(ip.src, 24, 24) == 113.10.0.0', { 'ip.src': '113.10.0.2' }, true, 'functions.mdx: cidr'),
  wv(
    'cidr(ip.src, 24, 24) == 2001::',
    { 'ip.src': '2001:0000:130F:0000:0000:09C0:876A:130B' },
    true,
    'functions.mdx: cidr',
  ),
  wv(
    'cidr6(ip.src, 24) == 2001::',
    { 'ip.src': '2001:0000:130F:0000:0000:09C0:876A:130B' },
    true,
    'functions.mdx: cidr6',
  ),
  wv(
    'cidr6(ip.src, 24) == 113.10.0.2',
    { 'ip.src': '113.10.0.2' },
    true,
    'functions.mdx: cidr6 keeps IPv4',
  ),
  wv(
    'join(http.request.headers.names, ",")',
    { 'http.request.headers.names': ['a', 'b'] },
    'a,b',
    'functions.mdx: join',
    { value: true },
  ),
  wv(
    'split(http.host, ",", 3)',
    { 'http.host': 'groceries,electronics,diy,auto' },
    ['groceries', 'electronics', 'diy,auto'],
    'functions.mdx: split',
    { value: true, phase: 'http_response_headers_transform' },
  ),
  wv(
    'to_string(cf.bot_management.score)',
    { 'cf.bot_management.score': 5 },
    '5',
    'functions.mdx: to_string',
    { value: true, phase: 'http_request_transform' },
  ),
  wv('to_string(ssl)', { ssl: true }, 'true', 'functions.mdx: to_string', {
    value: true,
    phase: 'http_request_transform',
  }),
  ...(
    [
      ['"/foo/bar"', '"/bar$"', '"/baz"', '/foo/baz'],
      ['"/x"', '"^/y$"', '"/mumble"', '/x'],
      ['"/foo"', '"^/FOO$"', '"/x"', '/foo'],
      ['"/a/a"', '"/a"', '"/b"', '/b/a'],
      ['"/b"', '"^/b$"', '"/b$$"', '/b$'],
      ['"/foo/a/path"', '"^/foo/([^/]*)/(.*)$"', '"/bar/${2}/${1}"', '/bar/path/a'],
    ] as const
  ).map(([src, re, repl, out]) =>
    wv(`regex_replace(${src}, ${re}, ${repl})`, {}, out, 'functions.mdx: regex_replace', {
      value: true,
      phase: 'http_request_transform',
    }),
  ),
  ...(
    [
      [
        'https://apps.example.com/calendar/admin?expand=true',
        'http.request.full_uri',
        '"https://*.example.com/*/*"',
        '"https://example.com/${1}/${2}/${3}"',
        'https://example.com/apps/calendar/admin?expand=true',
      ],
      [
        'https://example.com/applications/app1',
        'http.request.full_uri',
        '"/applications/*"',
        '"/apps/${1}"',
        'https://example.com/applications/app1',
      ],
    ] as const
  ).map(([uri, field, pat, repl, out]) =>
    wv(
      `wildcard_replace(${field}, ${pat}, ${repl})`,
      { [field]: uri },
      out,
      'functions.mdx: wildcard_replace',
      { value: true, phase: 'http_request_transform' },
    ),
  ),
  ...(
    [
      ['/calendar', '"/*"', '"/apps/${1}"', '', '/apps/calendar'],
      ['/Apps/calendar', '"/apps/*"', '"/${1}"', '', '/calendar'],
      ['/Apps/calendar', '"/apps/*"', '"/${1}"', ', "s"', '/Apps/calendar'],
      ['/apps/calendar/login', '"/apps/*/login"', '"/${1}/login"', '', '/calendar/login'],
    ] as const
  ).map(([path, pat, repl, flags, out]) =>
    wv(
      `wildcard_replace(http.request.uri.path, ${pat}, ${repl}${flags})`,
      { 'http.request.uri.path': path },
      out,
      'functions.mdx: wildcard_replace',
      { value: true, phase: 'http_request_transform' },
    ),
  ),
  ...(
    [
      ['country', 'order=asc'],
      ['order', 'country=GB'],
      ['search', 'order=asc&country=GB'],
    ] as const
  ).map(([arg, out]) =>
    wv(
      `remove_query_args(http.request.uri.query, "${arg}")`,
      { 'http.request.uri.query': 'order=asc&country=GB' },
      out,
      'functions.mdx: remove_query_args',
      { value: true, phase: 'http_request_transform' },
    ),
  ),
  wv(
    'remove_query_args(http.request.uri.query, "category")',
    { 'http.request.uri.query': 'category=Foo&order=desc&category=Bar' },
    'order=desc',
    'functions.mdx',
    { value: true, phase: 'http_request_transform' },
  ),
  wv(
    'encode_base64(http.host)',
    { 'http.host': 'hello world' },
    'aGVsbG8gd29ybGQ',
    'changelog 2026-01-22',
    { value: true, phase: 'http_request_late_transform' },
  ),
  wv(
    'encode_base64(http.host, "p")',
    { 'http.host': 'hello world' },
    'aGVsbG8gd29ybGQ=',
    'changelog 2026-01-22',
    { value: true, phase: 'http_request_late_transform' },
  ),
  wv('len(sha256(http.host))', { 'http.host': 'my-token' }, 32, 'changelog 2026-01-22', {
    value: true,
    phase: 'http_request_late_transform',
  }),
  ...(
    [
      ['https://example.com/a/', true],
      ['https://example.com/a/page.html', true],
      ['https://example.com/a/sub/folder/?name=value', true],
      ['https://example.com/ab/', false],
      ['https://sub.example.com/a/', false],
    ] as const
  ).map(([uri, out]) =>
    wv(
      'http.request.full_uri wildcard "https://example.com/a/*"',
      { 'http.request.full_uri': uri },
      out,
      'operators.mdx: wildcard',
    ),
  ),
  wv(
    'http.request.full_uri strict wildcard "https://example.com/A/*"',
    { 'http.request.full_uri': 'https://example.com/a/x' },
    false,
    'operators.mdx: strict wildcard',
  ),
  r(
    'any(url_decode(http.request.body.form.values[*])[*] contains "an xss attack")',
    {
      method: 'POST',
      url: '/f',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&comment=an+xss+attack',
    },
    true,
    'functions.mdx: any',
  ),
  r(
    'url_decode(http.request.body.form["log"][0])',
    {
      method: 'POST',
      url: '/wp-login.php',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'log=CF_EXPOSED_USERNAME%40example.com&pwd=x',
    },
    'CF_EXPOSED_USERNAME@example.com',
    `${CREDENTIALS} credential expression`,
    { value: true },
  ),
  wv('true', {}, true, `${LEXICAL} true literal`),
  wv('false', {}, false, LEXICAL),
  wv('not false and true', {}, true, LEXICAL),
  // regular expressions: the Rust dialect on bytes (TYPES and REGEX)
  ...(
    [
      ['"^/a\\.b$"', '/a.b', true],
      ['"^/a\\.b$"', '/axb', false],
      ['"\\\\."', '\\x', true],
      ['"(?i)abc"', 'xABCx', true],
      ['"abc"', 'ABC', false],
      ['"(?i)é"', 'É', false],
      ['"(?i)[a-c]+"', 'ABC', true],
      ['"^.$"', 'é', false],
      ['"^..$"', 'é', true],
      ['"(?u)^.$"', 'é', true],
      ['"a$"', 'a\n', false],
      ['"(?m)a$"', 'a\n', true],
      ['"\\Aa"', 'ba', false],
      ['"b\\z"', 'ab', true],
      ['"."', '\n', false],
      ['"(?s)."', '\n', true],
      ['"[^a]"', '\n', true],
      ['"\\d"', '٣', false],
      ['"(?u)\\d"', '٣', true],
      ['"\\w+"', 'é', false],
      ['"(?x) a b # comment"', 'ab', true],
      ['"[a-y&&xyz]"', 'a', false],
      ['"[a-y&&xyz]"', 'x', true],
      ['"[0-9--4]"', '4', false],
      ['"[0-9--4]"', '5', true],
      ['"[a-g~~b-h]"', 'a', true],
      ['"[a-g~~b-h]"', 'c', false],
      ['"[a-g~~b-h]"', 'h', true],
      ['"[[:alpha:]]+"', 'abc', true],
      ['"[[:^alpha:]]"', 'abc', false],
      ['"\\b{start}foo"', 'a foo', true],
      ['"\\b{start}foo"', 'afoo', false],
      ['"foo\\b{end}"', 'foo bar', true],
      ['"\\<foo\\>"', 'a foo b', true],
      ['"(?P<x>a)(?<y>b)"', 'ab', true],
      ['"a**"', 'aaa', true],
      ['"x{2}{3}"', 'xxxxxx', true],
      ['"(?U)a+"', 'aaa', true],
      ['"[\\x00-\\x1F]"', '\t', true],
      ['"\\x{e9}"', 'é', true],
      ['"\\u00e9"', 'é', true],
      ['"\\t"', 'a\tb', true],
      ['"(?i)\\x41"', 'a', true],
      ['"[a-z"\\]]+\\d{1,10}\\""', 'x]"1"', true],
      ['"^(a+)+$"', `${'a'.repeat(30000)}!`, false],
    ] as const
  ).map(([re, host, out]) =>
    wv(`http.host matches ${re}`, { 'http.host': host }, out, `${TYPES} regex dialect`),
  ),
  wv(
    'http.host matches "\\xff"',
    { 'http.host': new Uint8Array([0xff]) },
    true,
    `${TYPES} raw byte`,
  ),
  wv('http.host matches "\\xff"', { 'http.host': 'ÿ' }, false, `${TYPES} raw byte is not U+00FF`),
  wv(
    'http.host matches "[\\x80-\\xff]"',
    { 'http.host': new Uint8Array([0x61, 0x9c]) },
    true,
    `${TYPES} byte class`,
  ),
  wv(
    `http.host matches "a{1001}"`,
    { 'http.host': 'a'.repeat(1001) },
    true,
    `${REGEX} repetition above 1000`,
  ),
  wv(`http.host matches "^a{1001}$"`, { 'http.host': 'a'.repeat(1000) }, false, REGEX),
  wv('http.host ~ "ab+c"', { 'http.host': 'xabbbcx' }, true, `${GRAMMAR} ~ spelling`),
  // lists
  wv('ip.src in $cf.open_proxies', { 'ip.src': '198.51.100.7' }, true, `${LEXICAL} managed list`, {
    lists: { 'cf.open_proxies': { kind: 'ip', items: ['198.51.100.0/24'] } },
  }),
  wv('ip.src in $office', { 'ip.src': '2001:db8::1' }, true, `${EVALUATION} IP list`, {
    lists: { office: { kind: 'ip', items: ['192.0.2.1', '2001:db8::/32'] } },
  }),
  wv('ip.src in $office', { 'ip.src': '192.0.2.2' }, false, `${EVALUATION} IP list`, {
    lists: { office: { kind: 'ip', items: ['192.0.2.1', '2001:db8::/32'] } },
  }),
  wv('http.host in $hosts', { 'http.host': 'Shop.Example.com' }, true, 'lists: hostname', {
    lists: { hosts: { kind: 'bytes', items: ['*.example.com'] } },
  }),
  wv('ip.src.asnum in $asns', { 'ip.src.asnum': 13335 }, true, 'lists: ASN', {
    lists: { asns: { kind: 'int', items: [13335] } },
  }),
  // missing values in the WAF scheme
  wv('http.user_agent ne "curl"', {}, false, 'missing-value-behavior.mdx'),
  wv('not http.user_agent contains "curl"', {}, true, 'missing-value-behavior.mdx'),
  wv('cf.bot_management.score lt 30', {}, false, 'missing-value-behavior.mdx'),
]
