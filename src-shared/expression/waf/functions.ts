// The vendor's functions of the Rules language (docs/vendor-behaviour.md#functions): the catalogue
// a WAF scheme offers, each with its signature, where it may be used and its implementation.
//
// One piece over 500 lines: it is one list, the catalogue, kept whole so that it reads as the
// vendor's reference does; what the functions compute is in operations.ts.

import {
  defineFunction,
  type FunctionDefinition,
  type FunctionImpl,
  type FunctionParam,
  type ParamSpec,
} from '../scheme/functions'
import { asciiLower, asciiUpper, bytesToText, utf8Bytes } from '../values/bytes'
import { maskIp } from '../values/ip'
import { lookupJson, type JsonValue } from '../values/json'
import { regexError, compileRegex } from '../regex/regex'
import { sha256 } from '../values/sha256'
import {
  arrayOf,
  expectedMatches,
  typeEquals,
  type ExpectedType,
  type IpAddress,
  type Value,
} from '../values/types'
import { compileWildcard, wildcardError } from '../values/wildcard'
import {
  base64Decode,
  base64Encode,
  expandReplacement,
  hmacValid,
  jsonOf,
  jsonPath,
  replacementProblem,
  urlDecode,
  uuidFrom,
  valueToString,
} from './operations'
import {
  CUSTOM_ERRORS,
  inPhases,
  PHASE_CUSTOM,
  PHASE_LEGACY_FIREWALL,
  PHASE_RATELIMIT,
  rewriteOnly,
  TRANSFORM_PHASES,
} from './phases'

const bytesLiteral = (problem: (s: string) => string | undefined) => (v: Value) =>
  problem(v as string)

const STRING: ExpectedType[] = ['Bytes']
const INT: ExpectedType[] = ['Int']

/**
 * The lookup_json_* functions' parameters (a field holding JSON, then the path's keys and indexes
 * as literals) and implementation: the value at that path, converted to the function's type.
 */
function jsonLookup(convert: (found: JsonValue) => Value | undefined): {
  params: readonly ParamSpec[]
  variadic: ParamSpec
  implement: (params: readonly FunctionParam[]) => FunctionImpl
} {
  const key: ParamSpec = { kind: 'Literal', types: ['Bytes', 'Int'] }
  return {
    params: [{ kind: 'Field', types: STRING }, key],
    variadic: key,
    implement: (params) => {
      const path = jsonPath(params)
      return (args) => {
        const root = jsonOf(args[0] as string)
        const found = root && lookupJson(root, path)
        return found ? convert(found) : undefined
      }
    },
  }
}

/** cidr()'s and cidr6()'s literal prefix lengths, from 1 to the address's bits. */
function prefixLength(name: string, bits: number): ParamSpec {
  return {
    kind: 'Literal',
    types: INT,
    validate: (v) =>
      (v as number) >= 1 && (v as number) <= bits
        ? undefined
        : `${name} must be between 1 and ${bits}`,
  }
}

const concat: FunctionDefinition = {
  name: 'concat',
  signature: 'concat(String | Bytes | Array, …): String | Array',
  summary:
    'Concatenates strings, or appends arrays of the same type. Missing arguments are skipped.',
  minArgs: 1,
  maxArgs: undefined,
  checkParam(index, param, previous) {
    if (index === 0) {
      const expected: ExpectedType[] = ['Bytes', 'Array<_>']
      if (!expected.some((e) => expectedMatches(e, param.type)))
        return { kind: 'type', expected, actual: param.type }
      return undefined
    }
    const first = previous[0]
    if (first && !typeEquals(first.type, param.type))
      return { kind: 'type', expected: [first.type], actual: param.type }
    return undefined
  },
  returnType: (params) => params[0]?.type ?? 'Bytes',
  implement: (params) => {
    const arrays = params[0]?.type !== 'Bytes'
    return (args) => {
      let any = false
      if (arrays) {
        const out: Value[] = []
        for (const a of args) {
          if (a === undefined) continue
          any = true
          for (const v of a as readonly Value[]) out.push(v)
        }
        return any ? out : undefined
      }
      let out = ''
      for (const a of args) {
        if (a === undefined) continue
        any = true
        out += a as string
      }
      return any ? out : undefined
    }
  },
  propagatesMissing: false,
}

export const BUILTIN_FUNCTIONS: readonly FunctionDefinition[] = [
  concat,
  defineFunction({
    name: 'lower',
    signature: 'lower(String): String',
    summary: 'Converts ASCII uppercase letters to lowercase; other bytes are unaffected.',
    params: [{ types: STRING }],
    returns: 'Bytes',
    unary: asciiLower as (v: Value) => Value,
  }),
  defineFunction({
    name: 'upper',
    signature: 'upper(String): String',
    summary: 'Converts ASCII lowercase letters to uppercase; other bytes are unaffected.',
    params: [{ types: STRING }],
    returns: 'Bytes',
    unary: asciiUpper as (v: Value) => Value,
  }),
  defineFunction({
    name: 'len',
    signature: 'len(String | Bytes | Array): Integer',
    summary: 'The byte length of a string, or the number of elements of an array.',
    params: [{ types: ['Bytes', 'Array<_>'] }],
    returns: 'Int',
    unary: (v) => (v as string | readonly Value[]).length,
  }),
  defineFunction({
    name: 'starts_with',
    signature: 'starts_with(source String, substring String): Boolean',
    summary: 'Whether the source starts with the substring. The source cannot be a literal.',
    params: [{ kind: 'Field', types: STRING }, { types: STRING }],
    returns: 'Bool',
    implement: () => (args) => (args[0] as string).startsWith(args[1] as string),
  }),
  defineFunction({
    name: 'ends_with',
    signature: 'ends_with(source String, substring String): Boolean',
    summary: 'Whether the source ends with the substring. The source cannot be a literal.',
    params: [{ kind: 'Field', types: STRING }, { types: STRING }],
    returns: 'Bool',
    implement: () => (args) => (args[0] as string).endsWith(args[1] as string),
  }),
  defineFunction({
    name: 'url_decode',
    signature: 'url_decode(source String [, options String]): String',
    summary:
      'Decodes %XX and + (space). Options: "r" recursive, "u" %uXXXX as UTF-8. The source must be a field.',
    params: [{ kind: 'Field', types: STRING }],
    optional: [
      {
        kind: 'Literal',
        types: STRING,
        validate: bytesLiteral((s) =>
          /^[ru]*$/.test(s)
            ? undefined
            : `unknown url_decode option in "${s}": use "r", "u" or both`,
        ),
      },
    ],
    returns: 'Bytes',
    implement: (params) => {
      const options = (params[1]?.value as string | undefined) ?? ''
      return (args) => urlDecode(args[0] as string, options)
    },
    unary: (v) => urlDecode(v as string),
  }),
  defineFunction({
    name: 'remove_bytes',
    signature: 'remove_bytes(Bytes, Bytes): Bytes',
    summary: 'Removes every occurrence of each of the given bytes.',
    params: [{ types: STRING }, { kind: 'Literal', types: STRING }],
    returns: 'Bytes',
    implement: (params) => {
      const drop = new Set(params[1]?.value as string)
      return (args) => {
        const s = args[0] as string
        let out = ''
        for (const ch of s) if (!drop.has(ch)) out += ch
        return out
      }
    },
  }),
  defineFunction({
    name: 'lookup_json_string',
    signature: 'lookup_json_string(field String, key String | Integer, …): String',
    summary: 'The string at the given object keys / array indexes of a JSON document.',
    returns: 'Bytes',
    ...jsonLookup((found) => (found.t === 'string' ? utf8Bytes(found.v) : undefined)),
  }),
  defineFunction({
    name: 'lookup_json_integer',
    signature: 'lookup_json_integer(field String, key String | Integer, …): Integer',
    summary:
      'The plain integer at the given keys / indexes of a JSON document (42.0 is not an integer).',
    returns: 'Int',
    ...jsonLookup((found) => {
      if (found.t !== 'number' || !/^-?(?:0|[1-9][0-9]*)$/.test(found.raw)) return undefined
      const big = BigInt(found.raw)
      if (big > (1n << 63n) - 1n || big < -(1n << 63n)) return undefined
      return Number(big)
    }),
  }),
  defineFunction({
    name: 'substring',
    signature: 'substring(field String | Bytes, start Integer [, end Integer]): String',
    summary: 'Bytes from start up to (excluding) end; negative indexes count from the end.',
    params: [{ kind: 'Field', types: STRING }, { types: INT }],
    optional: [{ types: INT }],
    returns: 'Bytes',
    implement: () => (args) => {
      const s = args[0] as string
      const len = s.length
      const clamp = (i: number) => Math.max(0, Math.min(len, i < 0 ? len + i : i))
      const start = clamp(args[1] as number)
      const end = args.length > 2 ? clamp(args[2] as number) : len
      return start < end ? s.slice(start, end) : ''
    },
  }),
  defineFunction({
    name: 'decode_base64',
    signature: 'decode_base64(source String): String',
    summary: 'Decodes a Base64 string. The source must be a field.',
    params: [{ kind: 'Field', types: STRING }],
    returns: 'Bytes',
    implement: () => (args) => base64Decode(args[0] as string),
    available: inPhases(...TRANSFORM_PHASES, PHASE_CUSTOM, PHASE_RATELIMIT, PHASE_LEGACY_FIREWALL),
    availability:
      'You can only use the decode_base64() function in Transform Rules, custom rules, and rate limiting rules.',
  }),
  defineFunction({
    name: 'cidr',
    signature:
      'cidr(address IP address, ipv4_network_bits Integer, ipv6_network_bits Integer): IP address',
    summary: 'The network address of an IP for the given IPv4 / IPv6 prefix lengths.',
    params: [
      { kind: 'Field', types: ['Ip'] },
      prefixLength('ipv4_network_bits', 32),
      prefixLength('ipv6_network_bits', 128),
    ],
    returns: 'Ip',
    implement: (params) => {
      const v4 = params[1]?.value as number
      const v6 = params[2]?.value as number
      return (args) => {
        const ip = args[0] as IpAddress
        return maskIp(ip, ip.family === 4 ? v4 : v6)
      }
    },
    available: inPhases(PHASE_CUSTOM, PHASE_RATELIMIT, PHASE_LEGACY_FIREWALL),
    availability: 'You can only use the cidr() function in custom rules and rate limiting rules.',
  }),
  defineFunction({
    name: 'cidr6',
    signature: 'cidr6(address IP address, ipv6_network_bits Integer): IP address',
    summary:
      'The IPv6 network address for the prefix length; IPv4 addresses are returned unchanged.',
    params: [{ kind: 'Field', types: ['Ip'] }, prefixLength('ipv6_network_bits', 128)],
    returns: 'Ip',
    implement: (params) => {
      const v6 = params[1]?.value as number
      return (args) => {
        const ip = args[0] as IpAddress
        return ip.family === 4 ? ip : maskIp(ip, v6)
      }
    },
    available: inPhases(PHASE_CUSTOM, PHASE_RATELIMIT, PHASE_LEGACY_FIREWALL),
    availability: 'You can only use the cidr6() function in custom rules and rate limiting rules.',
  }),
  defineFunction({
    name: 'join',
    signature: 'join(items Array<String>, separator String): String',
    summary: 'The items joined with the separator.',
    params: [{ types: [arrayOf('Bytes')] }, { types: STRING }],
    returns: 'Bytes',
    implement: () => (args) => (args[0] as readonly string[]).join(args[1] as string),
    available: inPhases(...TRANSFORM_PHASES, PHASE_CUSTOM, PHASE_LEGACY_FIREWALL, CUSTOM_ERRORS),
    availability:
      'The join() function is only available in Transform Rules, custom rules, and Custom Error Rules.',
  }),
  defineFunction({
    name: 'split',
    signature: 'split(input String, separator String, limit Integer): Array<String>',
    summary: 'Splits the input at each separator, into at most limit items.',
    params: [
      { types: STRING },
      {
        kind: 'Literal',
        types: STRING,
        validate: (v) => ((v as string).length > 0 ? undefined : 'the separator must not be empty'),
      },
      {
        kind: 'Literal',
        types: INT,
        validate: (v) =>
          (v as number) >= 1 && (v as number) <= 128
            ? undefined
            : 'the limit must be between 1 and 128',
      },
    ],
    returns: arrayOf('Bytes'),
    implement: (params) => {
      const sep = params[1]?.value as string
      const limit = params[2]?.value as number
      return (args) => {
        const parts = (args[0] as string).split(sep)
        if (parts.length <= limit) return parts
        return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(sep)]
      }
    },
    available: inPhases('http_response_headers_transform', CUSTOM_ERRORS),
    availability:
      'The split() function is only available in response header transform rules and Custom Error Rules.',
  }),
  defineFunction({
    name: 'to_string',
    signature: 'to_string(Integer | Boolean | IP address): String',
    summary: 'The string form of an integer, boolean or IP address.',
    params: [{ types: ['Int', 'Bool', 'Ip'] }],
    returns: 'Bytes',
    implement: (params) => {
      const type = params[0]?.type ?? 'Int'
      return (args) => valueToString(type, args[0] as Value)
    },
    available: rewriteOnly,
    availability:
      'You can only use the to_string() function in rewrite expressions of Transform Rules and target URL expressions of dynamic URL redirects.',
  }),
  defineFunction({
    name: 'regex_replace',
    signature:
      'regex_replace(source String, regular_expression String, replacement String): String',
    summary: 'Replaces the first match of the regular expression; ${N} refers to capture groups.',
    params: [
      { types: STRING },
      { kind: 'Literal', types: STRING, validate: (v) => regexError(bytesToText(v as string)) },
      {
        kind: 'Literal',
        types: STRING,
        validate: (v, previous) =>
          replacementProblem(
            v as string,
            compileRegex(bytesToText(previous[1]?.value as string)).groupCount,
          ),
      },
    ],
    returns: 'Bytes',
    implement: (params) => {
      const re = compileRegex(bytesToText(params[1]?.value as string))
      const repl = params[2]?.value as string
      return (args) =>
        re.replaceFirst(args[0] as string, (groups) => expandReplacement(repl, groups))
    },
    available: rewriteOnly,
    availability:
      'Currently, the regex_replace() function is only available in rewrite expressions of Transform Rules and target URL expressions of dynamic URL redirects.',
  }),
  defineFunction({
    name: 'wildcard_replace',
    signature:
      'wildcard_replace(source Bytes, wildcard_pattern Bytes, replacement Bytes [, flags Bytes]): String',
    summary:
      'Replaces a whole-value wildcard match; ${N} refers to what each * matched. Flag "s": case-sensitive.',
    params: [
      { kind: 'Field', types: STRING },
      { kind: 'Literal', types: STRING, validate: (v) => wildcardError(v as string) },
      {
        kind: 'Literal',
        types: STRING,
        validate: (v, previous) =>
          replacementProblem(
            v as string,
            compileWildcard(previous[1]?.value as string, false).starCount,
          ),
      },
    ],
    optional: [
      {
        kind: 'Literal',
        types: STRING,
        validate: bytesLiteral((s) => (s === 's' || s === '' ? undefined : 'the only flag is "s"')),
      },
    ],
    returns: 'Bytes',
    implement: (params) => {
      const strict = params[3]?.value === 's'
      const wc = compileWildcard(params[1]?.value as string, strict)
      const repl = params[2]?.value as string
      return (args) => {
        const src = args[0] as string
        const caps = wc.captures(src)
        return caps ? expandReplacement(repl, [src, ...caps]) : src
      }
    },
    available: rewriteOnly,
    availability:
      'Currently, you can only use the wildcard_replace() function in rewrite expressions of URL rewrites and target URL expressions of dynamic URL redirects.',
  }),
  defineFunction({
    name: 'remove_query_args',
    signature: 'remove_query_args(field String, query_param String, …): String',
    summary: 'Removes the named parameters from a query string.',
    params: [
      { kind: 'Field', types: STRING },
      { kind: 'Literal', types: STRING },
    ],
    variadic: { kind: 'Literal', types: STRING },
    returns: 'Bytes',
    implement: (params) => {
      const names = new Set(params.slice(1).map((p) => p.value as string))
      return (args) =>
        (args[0] as string)
          .split('&')
          .filter((part) => !names.has(part.split('=')[0] ?? ''))
          .join('&')
    },
    available: (site) => site.valueExpression && TRANSFORM_PHASES.includes(site.phase),
    availability:
      'You can only use the remove_query_args() function in rewrite expressions of Transform Rules.',
  }),
  defineFunction({
    name: 'uuidv4',
    signature: 'uuidv4(source Bytes): String',
    summary: 'A random UUIDv4 from the given random bytes (cf.random_seed).',
    params: [{ kind: 'Field', types: STRING }],
    returns: 'Bytes',
    implement: () => (args) => uuidFrom(args[0] as string),
    pure: false,
    available: (site) => site.valueExpression && TRANSFORM_PHASES.includes(site.phase),
    availability:
      'You can only use the uuidv4() function in rewrite expressions of Transform Rules.',
  }),
  defineFunction({
    name: 'encode_base64',
    signature: 'encode_base64(input String | Bytes [, flags String]): String',
    summary: 'Base64 encoding, without padding; flags "u" URL-safe, "p" padding.',
    params: [{ types: STRING }],
    optional: [
      {
        kind: 'Literal',
        types: STRING,
        validate: bytesLiteral((s) =>
          /^[up]*$/.test(s) ? undefined : 'flags must be "u", "p" or both',
        ),
      },
    ],
    returns: 'Bytes',
    implement: (params) => {
      const flags = (params[1]?.value as string | undefined) ?? ''
      return (args) => base64Encode(args[0] as string, flags)
    },
    available: (site) =>
      site.valueExpression &&
      ['http_request_late_transform', 'http_response_headers_transform'].includes(site.phase),
    availability: 'The encode_base64() function is only available in header transform rules.',
  }),
  defineFunction({
    name: 'sha256',
    signature: 'sha256(input String | Bytes): Bytes',
    summary: 'The SHA-256 digest of the input.',
    params: [{ types: STRING }],
    returns: 'Bytes',
    implement: () => (args) => sha256(args[0] as string),
    available: (site) =>
      site.valueExpression &&
      ['http_request_late_transform', 'http_response_headers_transform'].includes(site.phase),
    availability:
      'The sha256() function is only available in header transform rules, and requires enablement.',
  }),
  defineFunction({
    name: 'is_timed_hmac_valid_v0',
    signature:
      'is_timed_hmac_valid_v0(key String literal, MessageMAC String, ttl Integer literal, currentTimeStamp Integer [, lengthOfSeparator Integer literal [, flags String literal]]): Boolean',
    summary: 'Whether MessageMAC carries a valid, unexpired HMAC-SHA256 token.',
    params: [
      { kind: 'Literal', types: STRING },
      { types: STRING },
      { kind: 'Literal', types: INT },
      { types: INT },
    ],
    optional: [
      { kind: 'Literal', types: INT },
      {
        kind: 'Literal',
        types: STRING,
        validate: bytesLiteral((s) => (s === 's' || s === '' ? undefined : 'the only flag is "s"')),
      },
    ],
    returns: 'Bool',
    implement: (params) => {
      const key = params[0]?.value as string
      const ttl = params[2]?.value as number
      const sep = (params[4]?.value as number | undefined) ?? 0
      const flags = (params[5]?.value as string | undefined) ?? ''
      return (args) => hmacValid(key, args[1] as string, ttl, args[3] as number, sep, flags)
    },
  }),
]
