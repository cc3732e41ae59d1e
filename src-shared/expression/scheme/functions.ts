// Functions of the Rules language (docs/vendor-behaviour.md#functions): their signatures (argument
// kinds and types, checked at parse time in the vendor's order and wording), return types, where
// each may be used, and their implementations on binary-string values.

import { asciiLower, asciiUpper, bytesToText, utf8Bytes } from '../values/bytes'
import { formatIp, maskIp } from '../values/ip'
import { lookupJson, parseJson, type JsonValue } from '../values/json'
import { regexError, compileRegex } from '../regex/regex'
import { hmacSha256, sha256 } from '../values/sha256'
import {
  arrayOf,
  expectedMatches,
  typeEquals,
  typeMismatchMessage,
  type ExpectedType,
  type IpAddress,
  type Type,
  type Value,
} from '../values/types'
import { compileWildcard, wildcardError } from '../values/wildcard'

export type ArgKind = 'Field' | 'Literal'

/** What the checker knows about an argument: its kind, type, and value if it is a literal. */
export interface FunctionParam {
  readonly kind: ArgKind
  readonly type: Type
  readonly value?: Value
}

export type ParamError =
  | { readonly kind: 'kind'; readonly expected: ArgKind; readonly actual: ArgKind }
  | { readonly kind: 'type'; readonly expected: readonly ExpectedType[]; readonly actual: Type }
  | { readonly kind: 'value'; readonly message: string }

/** The error code of an argument a function refuses, by what is wrong with it. */
export function paramErrorCode(
  e: ParamError,
): 'argument-kind' | 'argument-type' | 'argument-value' {
  return e.kind === 'kind'
    ? 'argument-kind'
    : e.kind === 'type'
      ? 'argument-type'
      : 'argument-value'
}

export function paramErrorMessage(index: number, e: ParamError): string {
  switch (e.kind) {
    case 'kind':
      return `invalid kind of argument #${index}: expected argument of kind ${e.expected}, but got ${e.actual}`
    case 'type':
      return `invalid type of argument #${index}: ${typeMismatchMessage(e.expected, e.actual)}`
    case 'value':
      return `invalid value of argument #${index}: invalid argument: ${JSON.stringify(e.message)}`
  }
}

export type FunctionImpl = (args: readonly (Value | undefined)[]) => Value | undefined

/** Where an expression is used: the ruleset phase, and whether it is a filter or a value. */
export interface UseSite {
  readonly phase: string
  readonly valueExpression: boolean
}

export interface FunctionDefinition {
  readonly name: string
  /** e.g. `lower(String): String` */
  readonly signature: string
  readonly summary: string
  readonly minArgs: number
  /** undefined: no maximum */
  readonly maxArgs: number | undefined
  checkParam(
    index: number,
    param: FunctionParam,
    previous: readonly FunctionParam[],
  ): ParamError | undefined
  returnType(params: readonly FunctionParam[]): Type
  implement(params: readonly FunctionParam[]): FunctionImpl
  /** a faster one-argument form, used when the call has exactly one argument */
  readonly unary?: (value: Value) => Value | undefined
  /** false: the implementation sees missing arguments (concat skips them); default true */
  readonly propagatesMissing?: boolean
  /** false: never folded at compile time (random output); default true */
  readonly pure?: boolean
  /** where the vendor allows it; undefined: everywhere */
  available?(site: UseSite): boolean
  /** the vendor's own words on where it may be used */
  readonly availability?: string
}

export interface ParamSpec {
  /** required kind (Field: not a literal) */
  readonly kind?: ArgKind
  readonly types: readonly ExpectedType[]
  /** checks a literal's value (given the arguments before it); returns the problem */
  readonly validate?: (value: Value, previous: readonly FunctionParam[]) => string | undefined
}

export interface SimpleFunctionInit {
  name: string
  signature: string
  summary: string
  params: readonly ParamSpec[]
  optional?: readonly ParamSpec[]
  variadic?: ParamSpec
  returns: Type | ((params: readonly FunctionParam[]) => Type)
  implement: (params: readonly FunctionParam[]) => FunctionImpl
  unary?: (value: Value) => Value | undefined
  propagatesMissing?: boolean
  pure?: boolean
  available?: (site: UseSite) => boolean
  availability?: string
}

/** Builds a FunctionDefinition from per-parameter kinds and types. */
export function defineFunction(init: SimpleFunctionInit): FunctionDefinition {
  const specFor = (index: number): ParamSpec | undefined =>
    init.params[index] ?? init.optional?.[index - init.params.length] ?? init.variadic
  const def: FunctionDefinition = {
    name: init.name,
    signature: init.signature,
    summary: init.summary,
    minArgs: init.params.length,
    maxArgs: init.variadic ? undefined : init.params.length + (init.optional?.length ?? 0),
    checkParam(index, param, previous) {
      const spec = specFor(index)
      if (!spec) return undefined
      if (spec.kind && spec.kind !== param.kind)
        return { kind: 'kind', expected: spec.kind, actual: param.kind }
      if (!spec.types.some((t) => expectedMatches(t, param.type))) {
        return { kind: 'type', expected: spec.types, actual: param.type }
      }
      if (spec.validate && param.kind === 'Literal' && param.value !== undefined) {
        const problem = spec.validate(param.value, previous)
        if (problem) return { kind: 'value', message: problem }
      }
      return undefined
    },
    returnType: typeof init.returns === 'function' ? init.returns : () => init.returns as Type,
    implement: init.implement,
    ...(init.unary ? { unary: init.unary } : {}),
    propagatesMissing: init.propagatesMissing ?? true,
    pure: init.pure ?? true,
    ...(init.available ? { available: init.available } : {}),
    ...(init.availability ? { availability: init.availability } : {}),
  }
  return def
}

// ---------------------------------------------------------------------------------------------
// Where functions may be used

export const PHASE_CUSTOM = 'http_request_firewall_custom'
export const PHASE_MANAGED = 'http_request_firewall_managed'
export const PHASE_RATELIMIT = 'http_ratelimit'
/** the previous product's firewall rules (the Filters API) */
export const PHASE_LEGACY_FIREWALL = 'legacy_firewall_rules'
const TRANSFORM_PHASES = [
  'http_request_transform',
  'http_request_late_transform',
  'http_response_headers_transform',
]
const REDIRECT_PHASE = 'http_request_dynamic_redirect'
const CUSTOM_ERRORS = 'http_custom_errors'

const inPhases =
  (...phases: string[]) =>
  (site: UseSite) =>
    phases.includes(site.phase)

const rewriteOnly = (site: UseSite) =>
  site.valueExpression && (TRANSFORM_PHASES.includes(site.phase) || site.phase === REDIRECT_PHASE)

// ---------------------------------------------------------------------------------------------
// Helpers on values

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 97 && c <= 102) return c - 87
  if (c >= 65 && c <= 70) return c - 55
  return -1
}

// Runs of plain bytes are copied whole (one slice per run, not one concatenation per byte).
function urlDecodeOnce(s: string, unicode: boolean): string {
  if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return s
  let out = ''
  let run = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c !== 43 && c !== 37) continue
    if (c === 43) {
      out += s.slice(run, i) + ' '
      run = i + 1
      continue
    }
    const h1 = hexVal(s.charCodeAt(i + 1))
    const h2 = hexVal(s.charCodeAt(i + 2))
    if (h1 >= 0 && h2 >= 0) {
      out += s.slice(run, i) + String.fromCharCode(h1 * 16 + h2)
      i += 2
      run = i + 1
      continue
    }
    const u = s.charCodeAt(i + 1)
    if (unicode && (u === 117 || u === 85)) {
      const hex = s.slice(i + 2, i + 6)
      if (/^[0-9a-fA-F]{4}$/.test(hex)) {
        let cp = parseInt(hex, 16)
        let consumed = 6
        if (
          cp >= 0xd800 &&
          cp <= 0xdbff &&
          s[i + 6] === '%' &&
          /^[uU][0-9a-fA-F]{4}$/.test(s.slice(i + 7, i + 12))
        ) {
          const lo = parseInt(s.slice(i + 8, i + 12), 16)
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00)
            consumed = 12
          }
        }
        out +=
          s.slice(run, i) +
          utf8Bytes(String.fromCodePoint(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp))
        i += consumed - 1
        run = i + 1
      }
    }
  }
  return out + s.slice(run)
}

export function urlDecode(s: string, options = ''): string {
  const unicode = options.includes('u')
  if (!options.includes('r')) return urlDecodeOnce(s, unicode)
  let cur = s
  for (let i = 0; i < 32; i++) {
    const next = urlDecodeOnce(cur, unicode)
    if (next === cur) return cur
    cur = next
  }
  return cur
}

let jsonCacheInput: string | undefined
let jsonCacheValue: JsonValue | undefined

function jsonOf(binary: string): JsonValue | undefined {
  if (binary !== jsonCacheInput) {
    jsonCacheInput = binary
    jsonCacheValue = parseJson(bytesToText(binary))
  }
  return jsonCacheValue
}

function jsonPath(params: readonly FunctionParam[]): (string | number)[] {
  return params
    .slice(1)
    .map((p) => (typeof p.value === 'number' ? p.value : bytesToText(p.value as string)))
}

function base64Decode(s: string): string | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined
  try {
    return atob(s)
  } catch {
    return undefined
  }
}

function base64Encode(s: string, flags: string): string {
  let out = btoa(s)
  if (flags.includes('u')) out = out.replace(/\+/g, '-').replace(/\//g, '_')
  if (!flags.includes('p')) out = out.replace(/=+$/, '')
  return out
}

/** `${N}` references (at most 8) and `$$`; returns the problem with a replacement, if any. */
function replacementProblem(repl: string, maxGroup: number): string | undefined {
  let refs = 0
  for (let i = 0; i < repl.length; i++) {
    if (repl[i] !== '$') continue
    if (repl[i + 1] === '$') {
      i++
      continue
    }
    const m = /^\$\{([0-9]+)\}/.exec(repl.slice(i))
    if (!m) return `invalid replacement: "$" must be followed by "$" or "{N}"`
    if (Number(m[1]) > maxGroup)
      return `invalid replacement: reference \${${m[1]}} to a missing capture group`
    if (++refs > 8) return 'invalid replacement: at most 8 capture references'
    i += m[0].length - 1
  }
  return undefined
}

function expandReplacement(repl: string, groups: readonly (string | undefined)[]): string {
  let out = ''
  for (let i = 0; i < repl.length; i++) {
    const c = repl[i]
    if (c !== '$') {
      out += c
      continue
    }
    if (repl[i + 1] === '$') {
      out += '$'
      i++
      continue
    }
    const m = /^\$\{([0-9]+)\}/.exec(repl.slice(i))
    if (m) {
      out += groups[Number(m[1])] ?? ''
      i += m[0].length - 1
    }
  }
  return out
}

function uuidFrom(seed: string): string {
  const bytes: number[] = []
  for (let i = 0; i < 16; i++) bytes.push(seed.charCodeAt(i % Math.max(1, seed.length)) & 0xff)
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

function valueToString(type: Type, v: Value): string {
  if (type === 'Ip') return formatIp(v as IpAddress)
  if (type === 'Bool') return v ? 'true' : 'false'
  return String(v)
}

function hmacValid(
  key: string,
  messageMac: string,
  ttl: number,
  now: number,
  sepLen: number,
  flags: string,
): boolean {
  // MessageMAC: message, separator, 10-digit timestamp, '-', base64 MAC of 43+ characters
  for (
    let dash = messageMac.lastIndexOf('-');
    dash >= 11;
    dash = messageMac.lastIndexOf('-', dash - 1)
  ) {
    const mac = messageMac.slice(dash + 1)
    if (mac.length < 43) continue
    const ts = messageMac.slice(dash - 10, dash)
    if (!/^[0-9]{10}$/.test(ts)) continue
    const head = messageMac.slice(0, dash - 10)
    if (head.length < sepLen + 1) continue
    const message = head.slice(0, head.length - sepLen)
    const raw = flags.includes('s')
      ? mac.replace(/-/g, '+').replace(/_/g, '/')
      : urlDecode(mac).replace(/=+$/, '')
    const expected = btoa(hmacSha256(key, message + ts)).replace(/=+$/, '')
    const issued = Number(ts)
    return raw.replace(/=+$/, '') === expected && now >= issued && now - issued <= ttl
  }
  return false
}

const bytesLiteral = (problem: (s: string) => string | undefined) => (v: Value) =>
  problem(v as string)

// ---------------------------------------------------------------------------------------------
// The catalogue

const STRING: ExpectedType[] = ['Bytes']
const INT: ExpectedType[] = ['Int']

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
    implement: () => (args) => asciiLower(args[0] as string),
    unary: asciiLower as (v: Value) => Value,
  }),
  defineFunction({
    name: 'upper',
    signature: 'upper(String): String',
    summary: 'Converts ASCII lowercase letters to uppercase; other bytes are unaffected.',
    params: [{ types: STRING }],
    returns: 'Bytes',
    implement: () => (args) => asciiUpper(args[0] as string),
    unary: asciiUpper as (v: Value) => Value,
  }),
  defineFunction({
    name: 'len',
    signature: 'len(String | Bytes | Array): Integer',
    summary: 'The byte length of a string, or the number of elements of an array.',
    params: [{ types: ['Bytes', 'Array<_>'] }],
    returns: 'Int',
    implement: () => (args) => (args[0] as string | readonly Value[]).length,
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
    params: [
      { kind: 'Field', types: STRING },
      { kind: 'Literal', types: ['Bytes', 'Int'] },
    ],
    variadic: { kind: 'Literal', types: ['Bytes', 'Int'] },
    returns: 'Bytes',
    implement: (params) => {
      const path = jsonPath(params)
      return (args) => {
        const root = jsonOf(args[0] as string)
        const v = root && lookupJson(root, path)
        return v && v.t === 'string' ? utf8Bytes(v.v) : undefined
      }
    },
  }),
  defineFunction({
    name: 'lookup_json_integer',
    signature: 'lookup_json_integer(field String, key String | Integer, …): Integer',
    summary:
      'The plain integer at the given keys / indexes of a JSON document (42.0 is not an integer).',
    params: [
      { kind: 'Field', types: STRING },
      { kind: 'Literal', types: ['Bytes', 'Int'] },
    ],
    variadic: { kind: 'Literal', types: ['Bytes', 'Int'] },
    returns: 'Int',
    implement: (params) => {
      const path = jsonPath(params)
      return (args) => {
        const root = jsonOf(args[0] as string)
        const v = root && lookupJson(root, path)
        if (!v || v.t !== 'number' || !/^-?(?:0|[1-9][0-9]*)$/.test(v.raw)) return undefined
        const big = BigInt(v.raw)
        if (big > (1n << 63n) - 1n || big < -(1n << 63n)) return undefined
        return Number(big)
      }
    },
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
      {
        kind: 'Literal',
        types: INT,
        validate: (v) =>
          (v as number) >= 1 && (v as number) <= 32
            ? undefined
            : 'ipv4_network_bits must be between 1 and 32',
      },
      {
        kind: 'Literal',
        types: INT,
        validate: (v) =>
          (v as number) >= 1 && (v as number) <= 128
            ? undefined
            : 'ipv6_network_bits must be between 1 and 128',
      },
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
    params: [
      { kind: 'Field', types: ['Ip'] },
      {
        kind: 'Literal',
        types: INT,
        validate: (v) =>
          (v as number) >= 1 && (v as number) <= 128
            ? undefined
            : 'ipv6_network_bits must be between 1 and 128',
      },
    ],
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
