// The lexer: scannerless primitives in the manner of wirefilter's `lex.rs` and `rhs_types/*`.
// Each primitive reads one lexical item starting at an offset of the source and returns the
// item and the offset after it, or throws a LexFailure whose span follows the vendor's choice
// (often "the rest of the input", which the error rendering clips to the line).

import { utf8Bytes } from '../values/bytes'
import type { Expectation, ExpressionErrorCode } from './errors'
import { lastInNetwork, maskIp, parseIp, type IpRange } from '../values/ip'
import type { IpAddress } from '../values/types'
import {
  BACKSLASH,
  CARRIAGE_RETURN,
  COLON,
  DIGIT_0,
  DIGIT_7,
  DOT,
  DOUBLE_QUOTE,
  HASH,
  HYPHEN,
  isDigit,
  isHexDigit,
  isLower,
  isUpper,
  LEFT_BRACKET,
  LINE_FEED,
  LOWER_A,
  LOWER_R,
  LOWER_X,
  PLUS,
  RIGHT_BRACKET,
  SLASH,
  SPACE,
  TAB,
  UNDERSCORE,
  UPPER_A,
} from '../values/chars'

/** The text being parsed, and the end of its trimmed part (the vendor trims first). */
export interface Source {
  readonly text: string
  readonly start: number
  readonly end: number
  /** accept TAB between tokens (the vendor does not) */
  readonly lenient: boolean
  /** work counter, for the linear-time property test */
  steps: number
}

export class LexFailure {
  constructor(
    readonly code: ExpressionErrorCode,
    readonly message: string,
    readonly start: number,
    readonly end: number,
    readonly hint?: string,
    readonly expectation?: Expectation,
  ) {}
}

export function fail(
  code: ExpressionErrorCode,
  message: string,
  start: number,
  end: number,
  hint?: string,
  expectation?: Expectation,
): never {
  throw new LexFailure(code, message, start, end, hint, expectation)
}

/** "expected <name>", spanning the rest of the input as the vendor does. */
export function expectedName(src: Source, name: string, pos: number): never {
  fail('expected-name', `expected ${name}`, pos, src.end)
}

/** `expected literal "<s>"` (Rust Debug quoting). */
export function expectedLiteral(src: Source, s: string, pos: number): never {
  fail('expected-literal', `expected literal ${JSON.stringify(s)}`, pos, src.end)
}

export function eofError(src: Source, pos: number): never {
  fail('unrecognised-input', 'unrecognised input', pos, src.end)
}

export function codeAt(src: Source, pos: number): number {
  src.steps++
  return pos < src.end ? src.text.charCodeAt(pos) : -1
}

export function startsWith(src: Source, pos: number, s: string): boolean {
  src.steps++
  return pos + s.length <= src.end && src.text.startsWith(s, pos)
}

export function expect(src: Source, pos: number, s: string): number {
  if (!startsWith(src, pos, s)) expectedLiteral(src, s, pos)
  return pos + s.length
}

export function skipSpace(src: Source, pos: number): number {
  for (;;) {
    const c = codeAt(src, pos)
    if (c === SPACE || c === LINE_FEED || c === CARRIAGE_RETURN || (c === TAB && src.lenient)) pos++
    else return pos
  }
}

/** One or more characters satisfying `pred`; else "expected <name>" over the rest. */
export function takeWhile(
  src: Source,
  pos: number,
  name: string,
  pred: (c: number) => boolean,
): number {
  let p = pos
  while (p < src.end && pred(codeAt(src, p))) p++
  if (p === pos) expectedName(src, name, pos)
  return p
}

/** Offset after `count` code points, or a CountMismatch error spanning the rest. */
export function take(src: Source, pos: number, count: number): number {
  let p = pos
  for (let i = 0; i < count; i++) {
    if (p >= src.end) {
      fail('count-mismatch', `expected ${count} characters, but found ${i}`, pos, src.end)
    }
    const c = codeAt(src, p)
    p += c >= 0xd800 && c <= 0xdbff && p + 1 < src.end ? 2 : 1
  }
  return p
}

// ---------------------------------------------------------------------------------------------
// Integers (Rust's from_str_radix, including its error texts)

const I64_MAX = (1n << 63n) - 1n
const I64_MIN = -(1n << 63n)

export type IntKind = 'i64' | 'u8' | 'u32'

function digitValue(c: number, radix: number): number {
  let d = -1
  if (isDigit(c)) d = c - DIGIT_0
  else if (isLower(c)) d = c - LOWER_A + 10
  else if (isUpper(c)) d = c - UPPER_A + 10
  return d >= 0 && d < radix ? d : -1
}

/** Rust's `<int>::from_str_radix`: a value, or the text of its ParseIntError. */
export function parseRustInt(s: string, radix: number, kind: IntKind): bigint | string {
  if (s.length === 0) return 'cannot parse integer from empty string'
  const signed = kind === 'i64'
  let i = 0
  let negative = false
  const first = s.charCodeAt(0)
  if ((first === PLUS || first === HYPHEN) && s.length === 1) return 'invalid digit found in string'
  if (first === PLUS) i = 1
  else if (first === HYPHEN && signed) {
    negative = true
    i = 1
  }
  const max = kind === 'i64' ? I64_MAX : kind === 'u8' ? 255n : 0xffffffffn
  const min = kind === 'i64' ? I64_MIN : 0n
  const r = BigInt(radix)
  let value = 0n
  for (; i < s.length; i++) {
    const d = digitValue(s.charCodeAt(i), radix)
    if (d < 0) return 'invalid digit found in string'
    if (negative) {
      value = value * r - BigInt(d)
      if (value < min) return 'number too small to fit in target type'
    } else {
      value = value * r + BigInt(d)
      if (value > max) return 'number too large to fit in target type'
    }
  }
  return value
}

function parseNumberSpan(src: Source, start: number, end: number, radix: number): bigint {
  const v = parseRustInt(src.text.slice(start, end), radix, 'i64')
  if (typeof v === 'string') fail('parse-int', `${v} while parsing with radix ${radix}`, start, end)
  return v
}

/** An i64 literal: `0x…` hex, `0…` octal, else decimal with an optional `-`. */
export function lexInt(src: Source, pos: number): [bigint, number] {
  if (startsWith(src, pos, '0x')) {
    const end = takeWhile(src, pos + 2, 'digit', isHexDigit)
    return [parseNumberSpan(src, pos + 2, end, 16), end]
  }
  if (codeAt(src, pos) === DIGIT_0) {
    const end = takeWhile(src, pos, 'digit', isHexDigit)
    return [parseNumberSpan(src, pos, end, 8), end]
  }
  const digitsStart = codeAt(src, pos) === HYPHEN ? pos + 1 : pos
  const end = takeWhile(src, digitsStart, 'digit', isHexDigit)
  return [parseNumberSpan(src, pos, end, 10), end]
}

export interface IntRangeValue {
  readonly start: bigint
  readonly end: bigint
}

export function lexIntRange(src: Source, pos: number): [IntRangeValue, number] {
  const [first, afterFirst] = lexInt(src, pos)
  let last = first
  let next = afterFirst
  if (startsWith(src, afterFirst, '..')) {
    ;[last, next] = lexInt(src, afterFirst + 2)
  }
  if (last < first) fail('range-bounds', 'incompatible range bounds', pos, next)
  return [{ start: first, end: last }, next]
}

// ---------------------------------------------------------------------------------------------
// Bytes: quoted strings, raw strings, hex byte strings

function fixedByte(src: Source, pos: number, digits: number, radix: number): [number, number] {
  const end = take(src, pos, digits)
  const v = parseRustInt(src.text.slice(pos, end), radix, 'u8')
  if (typeof v === 'string') fail('parse-int', `${v} while parsing with radix ${radix}`, pos, end)
  return [Number(v), end]
}

/** A quoted string whose opening `"` is just before `pos`; returns its bytes. */
export function lexQuotedString(src: Source, pos: number): [string, number] {
  const full = pos
  let out = ''
  let p = pos
  for (;;) {
    if (p >= src.end) fail('missing-quote', 'could not find an ending quote', full, src.end)
    const c = codeAt(src, p)
    if (c === BACKSLASH) {
      const escPos = p + 1
      if (escPos >= src.end) fail('missing-quote', 'could not find an ending quote', full, src.end)
      const e = codeAt(src, escPos)
      if (e === DOUBLE_QUOTE || e === BACKSLASH) {
        out += String.fromCharCode(e)
        p = escPos + 1
      } else if (e === LOWER_X) {
        const [b, next] = fixedByte(src, escPos + 1, 2, 16)
        out += String.fromCharCode(b)
        p = next
      } else if (e >= DIGIT_0 && e <= DIGIT_7) {
        const [b, next] = fixedByte(src, escPos, 3, 8)
        out += String.fromCharCode(b)
        p = next
      } else {
        const len = e >= 0xd800 && e <= 0xdbff ? 2 : 1
        fail('invalid-escape', 'expected ", xHH or OOO after \\', escPos, escPos + len)
      }
    } else if (c === DOUBLE_QUOTE) {
      return [out, p + 1]
    } else {
      // copy a run of plain characters as UTF-8
      let q = p + 1
      while (q < src.end) {
        const d = src.text.charCodeAt(q)
        if (d === BACKSLASH || d === DOUBLE_QUOTE) break
        q++
      }
      src.steps += q - p
      out += utf8Bytes(src.text.slice(p, q))
      p = q
    }
  }
}

/**
 * A raw string whose `r` is just before `pos`: `#…#"…"#…#`. Returns the raw text (not bytes),
 * the number of hashes and the offset after it.
 */
export function lexRawString(src: Source, pos: number): [string, number, number] {
  const full = pos
  let p = pos
  while (codeAt(src, p) === HASH) p++
  const hashes = p - pos
  if (hashes > 255) {
    fail(
      'raw-string-hashes',
      "invalid raw string hash count, there can't be more than 255 #s",
      full,
      src.end,
    )
  }
  if (codeAt(src, p) !== DOUBLE_QUOTE) expectedName(src, '" or #', p)
  const bodyStart = p + 1
  let q = bodyStart
  for (;;) {
    if (q >= src.end) fail('missing-quote', 'could not find an ending quote', full, src.end)
    const c = codeAt(src, q)
    if (c === DOUBLE_QUOTE) {
      let h = 0
      while (q + 1 + h < src.end && codeAt(src, q + 1 + h) === HASH) h++
      if (h >= hashes) {
        return [src.text.slice(bodyStart, q), hashes, q + 1 + hashes]
      }
      q += 1 + h
    } else {
      q++
    }
  }
}

function byteSeparator(src: Source, pos: number): number {
  const end = take(src, pos, 1)
  const c = src.text.charCodeAt(pos)
  if (c === COLON || c === HYPHEN || c === DOT) return end
  fail('expected-name', 'expected byte separator', pos, end)
}

/** `HH(sep HH)+` with separators `:`, `-` or `.`; at least two bytes. */
export function lexHexBytes(src: Source, pos: number): [string, number] {
  let [b, p] = fixedByte(src, pos, 2, 16)
  let out = String.fromCharCode(b)
  p = byteSeparator(src, p)
  for (;;) {
    ;[b, p] = fixedByte(src, p, 2, 16)
    out += String.fromCharCode(b)
    const c = codeAt(src, p)
    if (c === COLON || c === HYPHEN || c === DOT) p++
    else return [out, p]
  }
}

export type BytesFormat = 'quoted' | 'raw' | 'hex'

/** Any Bytes literal: quoted, raw or hex bytes. */
export function lexBytes(src: Source, pos: number): [string, number, BytesFormat] {
  const c = codeAt(src, pos)
  if (c === DOUBLE_QUOTE || c === LOWER_R) return lexQuotedOrRaw(src, pos)
  if (c < 0) eofError(src, pos)
  const [v, next] = lexHexBytes(src, pos)
  return [v, next, 'hex']
}

/** A quoted or raw string (wildcard patterns, function string arguments). */
export function lexQuotedOrRaw(src: Source, pos: number): [string, number, BytesFormat] {
  const c = codeAt(src, pos)
  if (c === DOUBLE_QUOTE) {
    const [v, next] = lexQuotedString(src, pos + 1)
    return [v, next, 'quoted']
  }
  if (c === LOWER_R) {
    const [raw, , next] = lexRawString(src, pos + 1)
    return [utf8Bytes(raw), next, 'raw']
  }
  if (c < 0) eofError(src, pos)
  expectedName(src, '" or r', pos)
}

/**
 * A regex literal after `matches`/`~`. In quoted form the lexer only turns `\"` into `"` outside
 * a character class; every other backslash pair reaches the regex unchanged, and a `"` inside
 * `[...]` does not end the string. Returns the pattern text and the span of its body.
 */
export function lexRegexLiteral(
  src: Source,
  pos: number,
): { pattern: string; bodyStart: number; bodyEnd: number; next: number; raw: boolean } {
  const c = codeAt(src, pos)
  if (c === LOWER_R) {
    const [raw, , next] = lexRawString(src, pos + 1)
    return { pattern: raw, bodyStart: pos, bodyEnd: src.end, next, raw: true }
  }
  if (c !== DOUBLE_QUOTE) expectedLiteral(src, '"', pos)
  const bodyStart = pos + 1
  let p = bodyStart
  let inClass = false
  let out = ''
  for (;;) {
    if (p >= src.end) fail('missing-quote', 'could not find an ending quote', bodyStart, src.end)
    const ch = codeAt(src, p)
    if (ch === BACKSLASH) {
      if (p + 1 < src.end) {
        const e = src.text[p + 1] ?? ''
        if (inClass || e !== '"') out += '\\'
        out += e
        p += 2
      } else {
        p += 1
      }
    } else if (ch === DOUBLE_QUOTE && !inClass) {
      return { pattern: out, bodyStart, bodyEnd: p, next: p + 1, raw: false }
    } else {
      if (ch === LEFT_BRACKET && !inClass) inClass = true
      else if (ch === RIGHT_BRACKET && inClass) inClass = false
      out += src.text[p] ?? ''
      p++
    }
  }
}

// ---------------------------------------------------------------------------------------------
// IP addresses, CIDRs and ranges

function isIpChar(c: number): boolean {
  return isHexDigit(c) || c === COLON || c === DOT || c === SLASH
}

const ADDR_SYNTAX = "couldn't parse address in network: invalid IP address syntax"

function parseAddrAt(src: Source, start: number, end: number): IpAddress {
  const ip = parseIp(src.text.slice(start, end))
  if (!ip) fail('parse-network', ADDR_SYNTAX, start, end)
  return ip
}

/** A single address (ordering comparisons on Ip fields). */
export function lexIpAddr(src: Source, pos: number): [IpAddress, number] {
  const end = takeWhile(src, pos, 'IP address character', isIpChar)
  return [parseAddrAt(src, pos, end), end]
}

export type IpSetItem =
  | { readonly kind: 'cidr'; readonly addr: IpAddress; readonly prefix: number }
  | { readonly kind: 'range'; readonly start: IpAddress; readonly end: IpAddress }

export function ipSetItemRange(item: IpSetItem): IpRange {
  if (item.kind === 'range') return { start: item.start, end: item.end }
  return { start: item.addr, end: lastInNetwork(item.addr, item.prefix) }
}

/** An address, a CIDR network or an explicit `A..B` range (inside `in {…}`). */
export function lexIpSetItem(src: Source, pos: number): [IpSetItem, number] {
  const end = takeWhile(src, pos, 'IP address character', isIpChar)
  const chunk = src.text.slice(pos, end)
  const dots = chunk.indexOf('..')
  if (dots >= 0) {
    const first = parseAddrAt(src, pos, pos + dots)
    const last = parseAddrAt(src, pos + dots + 2, end)
    if (first.family !== last.family || first.n > last.n) {
      fail('range-bounds', 'incompatible range bounds', pos, end)
    }
    return [{ kind: 'range', start: first, end: last }, end]
  }
  const slash = chunk.indexOf('/')
  if (slash < 0) {
    const addr = parseAddrAt(src, pos, end)
    return [{ kind: 'cidr', addr, prefix: addr.family === 4 ? 32 : 128 }, end]
  }
  const addr = parseAddrAt(src, pos, pos + slash)
  const lenStart = pos + slash + 1
  const len = parseRustInt(src.text.slice(lenStart, end), 10, 'u8')
  if (typeof len === 'string')
    fail('parse-network', `${len} while parsing with radix 10`, lenStart, end)
  const max = addr.family === 4 ? 32 : 128
  const prefix = Number(len)
  if (prefix > max) {
    fail(
      'parse-network',
      `invalid length for network: Network length ${prefix} is too long for Ipv${addr.family} (maximum: ${max})`,
      pos,
      end,
    )
  }
  const network = maskIp(addr, prefix)
  if (network.n !== addr.n)
    fail('parse-network', 'host part of address was not zero', pos, pos + slash)
  return [{ kind: 'cidr', addr, prefix }, end]
}

// ---------------------------------------------------------------------------------------------
// Lists

/** `$name`: lowercase letters, digits, `_` and `.`, not starting or ending with `.`. */
export function lexListName(src: Source, pos: number): [string, number] {
  const start = expect(src, pos, '$')
  let p = start
  for (;;) {
    const c = codeAt(src, p)
    if (isLower(c) || isDigit(c) || c === UNDERSCORE || c === DOT) p++
    else break
  }
  const name = src.text.slice(start, p)
  if (name.length === 0) {
    const next = src.text.codePointAt(start)
    const shown = start < src.end && next !== undefined ? String.fromCodePoint(next) : ''
    fail('list-name', `invalid list name ${JSON.stringify(shown)}`, start, src.end)
  }
  if (name.startsWith('.') || name.endsWith('.')) {
    fail('list-name', `invalid list name ${JSON.stringify(name)}`, start, p)
  }
  return [name, p]
}
