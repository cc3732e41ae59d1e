// ModSecurity 2.9.7's operators (`@rx`, `@pm`, …) as the OWASP Core Rule Set 3.3 uses them, on
// binary strings. Each follows ModSecurity's apache2/re_operators.c and msc_util.c
// (https://github.com/owasp-modsecurity/ModSecurity/tree/v2/master/apache2): what counts as a
// match, the captures it sets (TX.0–9), and its edge cases (empty values, atoi() on numbers).
import ipaddr from 'ipaddr.js'
import { isHexDigit, isWordChar } from '@shared/expression'
import { detectSqli } from './libinjection/sqli'
import { detectXss } from './libinjection/xss'
import { PhraseAutomaton } from './phrase-automaton'
import { compileCrsRegex } from './regex-dialect'

/** A compiled operator: undefined without a match, else the captures, [0] the whole match. */
export type CompiledOperator = (value: string) => string[] | undefined

export interface OperatorContext {
  readonly ruleId: number
  /** a phrase file's lines (for @pmFromFile), as the CRS bundle holds them */
  dataFile(name: string): readonly string[]
}

const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d)

/**
 * C's atoi() as glibc has it: leading whitespace, a sign, digits; strtol()'s clamp at the long's
 * limits, then the cast to int.
 */
function atoi(text: string): number {
  // Most values are short plain numbers, which need neither the clamp nor the cast.
  if (text.length > 0 && text.length < 10) {
    let value = 0
    let i = 0
    for (; i < text.length; i++) {
      const digit = text.charCodeAt(i) - 0x30
      if (digit < 0 || digit > 9) break
      value = value * 10 + digit
    }
    if (i === text.length) return value
  }
  const m = /^[ \t\n\v\f\r]*([+-]?)(\d+)/.exec(text)
  if (!m) return 0
  let value = BigInt(m[2]!)
  if (m[1] === '-') value = -value
  const LONG_MAX = 0x7fffffffffffffffn
  if (value > LONG_MAX) value = LONG_MAX
  if (value < -LONG_MAX - 1n) value = -LONG_MAX - 1n
  return Number(BigInt.asIntN(32, value))
}

/**
 * A phrase list's content as ModSecurity's parse_pm_content() reads it: surrounding double quotes
 * removed, `|HH HH|` hexadecimal bytes and `\:` `\;` `\\` `\"` escapes decoded (an unknown escape
 * makes ModSecurity use the text as it stands). Where only `|` toggles were seen, ModSecurity keeps
 * the text's original length over the shifted bytes, and so does this.
 */
function pmContent(text: string): string {
  let offset = 0
  while (offset < text.length && isSpace(text.charCodeAt(offset))) offset++
  const quoted = text[offset] === '"' && text.endsWith('"') && text.length - offset >= 2
  const parameter = quoted ? text.slice(offset + 1, -1) : text.slice(offset)
  if (parameter.length === 0) return text
  const bytes = [...parameter].map((c) => c.charCodeAt(0))
  let x = 0
  let binary = false
  let escaped = false
  let converted = false
  let hexDigits = ''
  for (let i = 0; i < parameter.length; i++) {
    const c = parameter[i]!
    if (c === '|') {
      binary = !binary
    } else if (!escaped && c === '\\') {
      escaped = true
    } else if (binary) {
      if (/[0-9a-fA-F]/.test(c)) {
        hexDigits += c
        if (hexDigits.length === 2) {
          bytes[x++] = parseInt(hexDigits, 16)
          hexDigits = ''
          converted = true
        }
      }
    } else if (escaped) {
      if (!':;\\"'.includes(c)) return text
      bytes[x++] = c.charCodeAt(0)
      escaped = false
      converted = true
    } else {
      bytes[x++] = c.charCodeAt(0)
    }
  }
  return String.fromCharCode(...bytes.slice(0, converted ? x : bytes.length))
}

/**
 * @pm's match, case-insensitive (ModSecurity's acmp with no flags): at the first position where a
 * phrase ends, that phrase.
 */
function phraseMatcher(phrases: readonly string[]): CompiledOperator {
  const automaton = new PhraseAutomaton(phrases, 'caseless')
  return (value) => {
    // ModSecurity's pm does not look at an empty value.
    if (value.length === 0) return undefined
    const found = automaton.firstMatch(value)
    return found === -1 ? undefined : [phrases[found]!]
  }
}

/** @pm's parameter: its content split at whitespace. */
function pmPhrases(parameter: string): string[] {
  return pmContent(parameter)
    .split(/[ \t\n\v\f\r]+/)
    .filter((p) => p !== '')
}

/** A phrase file's lines as @pmFromFile reads them: content decoded, trimmed, `#` comments out. */
function filePhrases(lines: readonly string[]): string[] {
  return lines
    .map((line) => pmContent(line).replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, ''))
    .filter((line) => line !== '' && !line.startsWith('#'))
}

/** A comma-separated list of addresses and CIDR ranges, as @ipMatch builds its radix trees. */
function ipMatcher(entries: readonly string[], ruleId: number): CompiledOperator {
  const ranges = entries.map((entry): [ipaddr.IPv4 | ipaddr.IPv6, number] => {
    const text = entry.trim()
    try {
      if (text.includes('/')) return ipaddr.parseCIDR(text)
      const address = ipaddr.parse(text)
      return [address, address.kind() === 'ipv4' ? 32 : 128]
    } catch {
      throw new Error(`CRS rule ${ruleId}: @ipMatch cannot read "${text}"`)
    }
  })
  const matches = (value: string): string[] | undefined => {
    // ModSecurity reads an address with a colon as IPv6, any other as dotted IPv4.
    const isV6 = value.includes(':')
    let address: ipaddr.IPv4 | ipaddr.IPv6
    try {
      address = isV6 ? ipaddr.IPv6.parse(value) : ipaddr.IPv4.parse(value)
      if (!isV6 && !ipaddr.IPv4.isValidFourPartDecimal(value)) return undefined
    } catch {
      return undefined
    }
    const hit = ranges.some(
      ([range, bits]) => range.kind() === address.kind() && address.match(range, bits),
    )
    return hit ? [value] : undefined
  }
  // Most requests come from the same few addresses: the last one's answer is kept.
  let lastValue: string | undefined
  let lastAnswer: string[] | undefined
  return (value) => {
    if (value !== lastValue) {
      lastAnswer = matches(value)
      lastValue = value
    }
    return lastAnswer === undefined ? undefined : [...lastAnswer]
  }
}

/** @validateByteRange's table: `9,10,13,32-126` (ranges and single bytes). */
function byteRange(parameter: string, ruleId: number): CompiledOperator {
  const allowed = new Uint8Array(256)
  for (const part of parameter.split(',')) {
    const dash = part.indexOf('-')
    const start = atoi(dash < 0 ? part : part.slice(0, dash))
    const end = dash < 0 ? start : atoi(part.slice(dash + 1))
    if (start < 0 || end > 255 || start > end)
      throw new Error(`CRS rule ${ruleId}: @validateByteRange has an invalid range "${part}"`)
    allowed.fill(1, start, end + 1)
  }
  return (value) => {
    for (let i = 0; i < value.length; i++)
      if (allowed[value.charCodeAt(i) & 0xff] === 0) return [value]
    return undefined
  }
}

/** Whether every `%` starts two hexadecimal digits. */
function validUrlEncoding(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) !== 0x25) continue
    if (i + 2 >= value.length) return false
    if (!isHexDigit(value.charCodeAt(i + 1)) || !isHexDigit(value.charCodeAt(i + 2))) return false
    i += 2
  }
  return true
}

/**
 * Whether the bytes are UTF-8 as ModSecurity's detect_utf8_character() checks them: no cut or
 * malformed sequence, no overlong form, no surrogate, nothing above U+10FFFF.
 */
function validUtf8(value: string): boolean {
  let i = 0
  while (i < value.length) {
    const c = value.charCodeAt(i)
    if (c < 0x80) {
      i++
      continue
    }
    const size = (c & 0xe0) === 0xc0 ? 2 : (c & 0xf0) === 0xe0 ? 3 : (c & 0xf8) === 0xf0 ? 4 : 0
    if (size === 0 || (size === 4 && c >= 0xf5)) return false
    // ModSecurity compares the sequence's size with the whole value's length.
    if (value.length < size) return false
    let code = c & (0xff >> (size + 1))
    for (let k = 1; k < size; k++) {
      const next = i + k < value.length ? value.charCodeAt(i + k) : 0
      if ((next & 0xc0) !== 0x80) return false
      code = (code << 6) | (next & 0x3f)
    }
    if (code >= 0xd800 && code <= 0xdfff) return false
    if (code < [0, 0, 0x80, 0x800, 0x10000][size]!) return false
    i += size
  }
  return true
}

/** Whether `word` occurs in `value` with no letter, digit or `_` on either side. */
function containsWord(value: string, word: string): boolean {
  if (word.length === 0) return true
  for (let i = value.indexOf(word); i >= 0; i = value.indexOf(word, i + 1)) {
    if (!isWordChar(value.charCodeAt(i - 1)) && !isWordChar(value.charCodeAt(i + word.length)))
      return true
  }
  return false
}

const whole = (value: string) => [value]

/** A numeric comparison of atoi(value) with atoi(parameter). */
function numeric(parameter: string, holds: (left: number, right: number) => boolean) {
  const right = atoi(parameter)
  return (value: string) => (holds(atoi(value), right) ? [value] : undefined)
}

/**
 * Compiles an operator (name without `@`, lower case; parameter macro-expanded). Throws for an
 * operator CRS does not use or a parameter ModSecurity would refuse at start-up.
 */
export function compileOperator(
  name: string,
  parameter: string,
  context: OperatorContext,
): CompiledOperator {
  switch (name) {
    case 'rx': {
      const regex = compileCrsRegex(parameter)
      return (value) => regex.exec(value)
    }
    case 'pm':
      return phraseMatcher(pmPhrases(parameter))
    case 'pmf':
    case 'pmfromfile':
      return phraseMatcher(
        parameter
          .split(/\s+/)
          .filter((file) => file !== '')
          .flatMap((file) => filePhrases(context.dataFile(file))),
      )
    case 'streq':
      return (value) => (value === parameter ? whole(value) : undefined)
    case 'contains':
      return (value) => (value.includes(parameter) ? whole(value) : undefined)
    case 'containsword':
      return (value) => (containsWord(value, parameter) ? whole(value) : undefined)
    case 'beginswith':
      return (value) => (value.startsWith(parameter) ? whole(value) : undefined)
    case 'endswith':
      return (value) => (value.endsWith(parameter) ? whole(value) : undefined)
    case 'within':
      return (value) => (parameter.includes(value) ? whole(value) : undefined)
    case 'eq':
      return numeric(parameter, (a, b) => a === b)
    case 'ge':
      return numeric(parameter, (a, b) => a >= b)
    case 'gt':
      return numeric(parameter, (a, b) => a > b)
    case 'le':
      return numeric(parameter, (a, b) => a <= b)
    case 'lt':
      return numeric(parameter, (a, b) => a < b)
    case 'validatebyterange':
      return byteRange(parameter, context.ruleId)
    case 'validateurlencoding':
      return (value) => (validUrlEncoding(value) ? undefined : whole(value))
    case 'validateutf8encoding':
      return (value) => (validUtf8(value) ? undefined : whole(value))
    case 'ipmatch':
      return ipMatcher(parameter.split(','), context.ruleId)
    case 'ipmatchfromfile':
    case 'ipmatchf':
      return ipMatcher(
        context.dataFile(parameter.trim()).filter((line) => !line.startsWith('#')),
        context.ruleId,
      )
    case 'unconditionalmatch':
      return whole
    case 'nomatch':
      return () => undefined
    // The reference has no GeoIP database (SecGeoLookupDb) and looks up no DNS block list offline:
    // both fail without a match.
    case 'geolookup':
    case 'rbl':
      return () => undefined
    case 'detectsqli':
      return (value) => {
        const fingerprint = detectSqli(value)
        return fingerprint === undefined ? undefined : [fingerprint]
      }
    case 'detectxss':
      return (value) => (detectXss(value) ? whole(value) : undefined)
    default:
      throw new Error(`CRS rule ${context.ruleId}: unknown operator @${name}`)
  }
}

/**
 * An operator as a test, for a negated rule, which reads no captures: a regex then only answers
 * whether it matches, without running again for its groups.
 */
export function compileOperatorTest(
  name: string,
  parameter: string,
  context: OperatorContext,
): (value: string) => boolean {
  if (name === 'rx') {
    const regex = compileCrsRegex(parameter)
    return (value) => regex.test(value)
  }
  const operator = compileOperator(name, parameter, context)
  return (value) => operator(value) !== undefined
}
