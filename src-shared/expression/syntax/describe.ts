// An invalid expression in words for the screens. The API keeps the vendor's messages
// (docs/vendor-behaviour.md#parse-errors), which name the parser's internals ("expected
// ComparisonOp") and, where the input ends early, what the last token wanted rather than what is
// missing ("expected IP address character" for a set without its `}`). This says what is wrong,
// where, and how to write it instead, from the error's code, span and message.

import type { ExpressionError } from './errors'
import { typeDisplay, type Type } from '../values/types'

/** An opening bracket the text leaves open, and where it is. */
interface OpenBracket {
  readonly char: '(' | '[' | '{'
  readonly offset: number
}

const CLOSER: Record<OpenBracket['char'], string> = { '(': ')', '[': ']', '{': '}' }
const BRACKET_NAME: Record<OpenBracket['char'], string> = {
  '(': 'parenthesis',
  '[': 'index',
  '{': 'set',
}

const OPERATORS_OF: Record<string, string> = {
  Bytes: 'eq, ne, contains, matches, wildcard or in',
  Int: 'eq, ne, lt, le, gt, ge or in',
  Ip: 'eq, ne or in',
}

/** The brackets still open at `upTo`, outermost first; strings and their brackets are skipped. */
function openBrackets(text: string, upTo: number): OpenBracket[] {
  const open: OpenBracket[] = []
  let i = 0
  while (i < upTo) {
    const c = text[i] as string
    // a raw string opens with `r`, at most 255 `#` (the lexer refuses more) and `"`
    const raw = /^r(#*)"/.exec(text.slice(i, i + 258))
    if (raw && !/[A-Za-z0-9_.]/.test(text[i - 1] ?? '')) {
      const close = text.indexOf('"' + (raw[1] ?? ''), i + raw[0].length)
      i = close < 0 ? upTo : close + 1 + (raw[1] ?? '').length
    } else if (c === '"') {
      let j = i + 1
      while (j < upTo && text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      i = j + 1
    } else {
      if (c === '(' || c === '[' || c === '{') open.push({ char: c, offset: i })
      else if (c === ')' || c === ']' || c === '}') open.pop()
      i++
    }
  }
  return open
}

/** `L:C`, 1-based, of an offset. */
function at(text: string, offset: number): string {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return `${line}:${offset - (before.lastIndexOf('\n') + 1) + 1}`
}

function code(s: string): string {
  return `\`${s}\``
}

/** The first word of a span, short enough to quote. */
function firstWord(s: string): string {
  const word = s.trim().split(/\s+/)[0] ?? ''
  return word.length > 30 ? `${word.slice(0, 29)}…` : word
}

/** A type named by the vendor (`Bytes`, `Array<Int>`, `Array(Ip)`, `Array<_>`), in words. */
function typeInWords(name: string): string {
  const nested = /^(Array|Map)[<(](.+)[>)]$/.exec(name)
  if (nested) {
    const inner = nested[2] === '_' ? '' : ` of ${pluralTypeInWords(nested[2] as string)}`
    return `${nested[1] === 'Array' ? 'an array' : 'a map'}${inner}`
  }
  if (name === 'Bytes') return 'a string'
  if (name === 'Int') return 'a number'
  if (name === 'Ip') return 'an IP address'
  if (name === 'Bool') return 'a condition (true or false)'
  return name
}

function pluralTypeInWords(name: string): string {
  if (name === 'Bytes') return 'strings'
  if (name === 'Int') return 'numbers'
  if (name === 'Ip') return 'IP addresses'
  if (name === 'Bool') return 'true/false values'
  const nested = /^(Array|Map)[<(](.+)[>)]$/.exec(name)
  if (nested) return typeInWords(name).replace(/^an? (array|map)/, '$1s')
  return name
}

/** The vendor's list of expected types (`A`, `A or B`, `{A, B, C}`), in words. */
function expectedTypesInWords(list: string): string {
  const names = list.replace(/^\{(.*)\}$/, '$1').split(/, | or /)
  return names.map(typeInWords).join(' or ')
}

function ordinal(index: number): string {
  return ['first', 'second', 'third', 'fourth', 'fifth'][index] ?? `#${index + 1}`
}

function withHint(sentence: string, hint: string | undefined): string {
  return hint ? `${sentence}: ${hint}` : sentence
}

/** An escape in quotes that lacks its digits (`\x4`, `\10`), in words; undefined otherwise. */
function shortEscape(text: string, error: ExpressionError): string | undefined {
  if (text.slice(Math.max(0, error.start - 2), error.start) === '\\x')
    return `the escape at ${at(text, error.start - 2)} needs two hexadecimal digits, as in \\x41`
  if (text[error.start - 1] === '\\' && /^[0-7]/.test(text[error.start] ?? ''))
    return `the escape at ${at(text, error.start - 1)} needs three octal digits, as in \\101`
  return undefined
}

/** "a `}` is missing to close the set opened at 1:10", for the innermost open bracket. */
function missingCloser(text: string, bracket: OpenBracket): string {
  return `a ${code(CLOSER[bracket.char])} is missing to close the ${BRACKET_NAME[bracket.char]} opened at ${at(text, bracket.offset)}`
}

/** The operators a value of type `type` takes, in words. */
function operatorsFor(type: Type | undefined): string {
  return OPERATORS_OF[type === undefined ? '' : typeDisplay(type)] ?? 'eq, contains or in'
}

/**
 * What is wrong with the expression, in words, with the places it refers to as `L:C`. The
 * error's span stays the place to mark; the vendor's message stays what the API answers.
 */
export function describeExpressionError(error: ExpressionError, text: string): string {
  const trimmedEnd = text.trimEnd().length
  const atEnd = error.start >= trimmedEnd
  const spanText = text.slice(error.start, Math.max(error.end, error.start))
  const word = firstWord(spanText)
  const before = /(\S+)\s*$/.exec(text.slice(0, error.start))?.[1]
  const innermost = openBrackets(text, error.start).at(-1)
  const afterBefore = before === undefined ? 'at the start' : `after ${code(before)}`
  const message = error.message
  const where = at(text, error.start)

  // the input ends inside a set: whatever the last item wanted, the `}` is what is missing
  if (
    atEnd &&
    innermost?.char === '{' &&
    ['expected-name', 'unrecognised-input'].includes(error.code)
  ) {
    return missingCloser(text, innermost)
  }

  switch (error.code) {
    case 'expected-literal': {
      // the vendor quotes the literal as Rust's Debug does, which JSON reads
      const quoted = /^expected literal (".*")$/.exec(message)?.[1]
      const wanted = quoted === undefined ? '' : (JSON.parse(quoted) as string)
      if (wanted === ')' || wanted === ']') {
        const opener = [...openBrackets(text, error.start)]
          .reverse()
          .find((b) => CLOSER[b.char] === wanted)
        if (opener && atEnd) return missingCloser(text, opener)
        const closes = opener
          ? ` to close the ${BRACKET_NAME[opener.char]} opened at ${at(text, opener.offset)}`
          : ''
        return `a ${code(wanted)} is expected at ${where}${closes}, not ${code(word)}`
      }
      if (wanted === '(') return `a ${code('(')} is expected after the function's name at ${where}`
      if (wanted === ',') return `a ${code(',')} is expected between the arguments at ${where}`
      if (wanted === '{')
        return `a set in braces, such as {"a" "b"}, or a list such as $name is expected after ${code('in')} at ${where}`
      if (wanted === '"')
        return `a regular expression in quotes, such as "^/admin", is expected after ${code('matches')} at ${where}`
      if (wanted === 'expected utf8 string')
        return `the key at ${where} is not valid UTF-8 text: write it as plain text in quotes`
      if (wanted === 'expected quoted utf8 string or positive integer')
        return `an index is expected inside ${code('[ ]')} at ${where}: a key in quotes such as ["name"], a position such as [0], or [*] for every element`
      if (wanted === 'expected positive integer as index')
        return `the position at ${where} must be a whole number from 0 up`
      return `a ${code(wanted)} is expected at ${where}`
    }
    case 'expected-name': {
      const wanted = message.replace(/^expected /, '')
      if (wanted === 'ComparisonOp') {
        const ops = operatorsFor(
          error.expectation?.kind === 'operator' ? error.expectation.type : undefined,
        )
        return atEnd
          ? `${code(before ?? '')} needs an operator and a value after it, such as ${ops}`
          : `${code(word)} at ${where} is not an operator: after ${code(before ?? '')} write ${ops}`
      }
      if (wanted === 'identifier character') {
        if (text.trim() === '')
          return 'the expression is empty: write a condition such as http.host eq "example.com"'
        return atEnd
          ? `a condition is missing ${afterBefore}: write a field such as http.host, a function, or not`
          : `${code(word)} at ${where} cannot start a condition: write a field such as http.host, a function, or not`
      }
      if (wanted === 'IP address character')
        return atEnd
          ? `an IP address such as 192.0.2.1 is missing ${afterBefore}`
          : `${code(word)} at ${where} is not an IP address: write one such as 192.0.2.1 or a network such as 192.0.2.0/24`
      if (wanted === 'digit')
        return atEnd
          ? `a number is missing ${afterBefore}`
          : `${code(word)} at ${where} is not a number: write digits such as 80, or 0x1F in hexadecimal`
      if (wanted === 'byte separator')
        return `a ${code(':')}, ${code('-')} or ${code('.')} is expected at ${where} between bytes in hexadecimal, as in 01:02; or write text in quotes such as "text"`
      if (wanted === '" or #')
        return `the raw string at ${where} must continue with ${code('"')} or ${code('#')}, as in r"text" or r#"text"#`
      return `text in quotes such as "text" is expected at ${where}`
    }
    case 'unrecognised-input':
      if (atEnd) return `a value is missing ${afterBefore}`
      return /^\s/.test(spanText)
        ? `${code(word)} at ${where} is not understood: the condition before it is complete; join conditions with and, or or xor`
        : `${code(word)} at ${where} is not understood here: write a value such as "text", 80 or 192.0.2.1, or a field`
    case 'missing-quote': {
      const opening = Math.max(0, error.start - 1)
      return `the text in quotes that starts at ${at(text, opening)} is not closed: end it with ${code('"')}`
    }
    case 'invalid-escape':
      return `${code('\\' + spanText)} at ${at(text, error.start - 1)} is not an escape: inside quotes write \\" for a quote, \\\\ for a backslash, or \\xHH or \\OOO for a byte`
    case 'raw-string-hashes':
      return `the raw string at ${where} has more than 255 ${code('#')}`
    case 'count-mismatch':
    case 'parse-int':
      return (
        shortEscape(text, error) ??
        (error.code === 'count-mismatch' || message.includes('radix 16')
          ? `${code(word)} at ${where} is not text: write text in quotes, such as "${word}"`
          : /too (large|small)/.test(message)
            ? `${code(word)} at ${where} is too large a number (numbers are 64-bit)`
            : `${code(word)} at ${where} is not a whole number`)
      )
    case 'parse-network':
      if (message.startsWith('invalid length for network'))
        return `the prefix of ${code(word)} at ${where} is too long: IPv4 networks go up to /32, IPv6 up to /128`
      if (message === 'host part of address was not zero')
        return `${code(word)} at ${where} has bits set past its prefix: write the network's first address, such as 192.0.2.0/24`
      if (message.includes('while parsing with radix'))
        return `the prefix length ${code(word)} at ${where} must be a number, as in 192.0.2.0/24`
      return `${code(word)} at ${where} is not an IP address: write one such as 192.0.2.1, or a network such as 192.0.2.0/24`
    case 'parse-regex':
      return `the regular expression at ${where} is not valid: ${message.replace(/^regex parse error:\s*/, '')}`
    case 'regex-too-big':
      return `the regular expression at ${where} is too large once compiled: make it simpler`
    case 'parse-wildcard':
      return `the wildcard pattern at ${where} is not valid: ${message.replace(/^invalid wildcard: /, '')}`
    case 'unknown-identifier':
      return withHint(
        `${code(word)} at ${where} is an unknown identifier: no field or function has this name`,
        error.hint,
      )
    case 'unsupported-op': {
      const type = /on type (.+)$/.exec(message)?.[1] ?? ''
      return withHint(
        `${code(word)} at ${where} cannot be used on ${typeInWords(type)}`,
        error.hint,
      )
    }
    case 'range-bounds':
      return `the range ${code(word)} at ${where} runs backwards or mixes IPv4 and IPv6: write the lower bound first`
    case 'argument-count':
      return withHint(`the function at ${where} has the wrong number of arguments`, error.hint)
    case 'argument-kind': {
      const m = /argument #(\d+): expected argument of kind (\w+)/.exec(message)
      const argument = `the ${ordinal(Number(m?.[1] ?? 0))} argument at ${where}`
      return m?.[2] === 'Field'
        ? `${argument} must be a field or a function of one, not a value written out`
        : `${argument} must be a value written out, such as "text" or 80, not a field`
    }
    case 'argument-type': {
      const m = /argument #(\d+): expected value of type (.+), but got (.+)$/.exec(message)
      return withHint(
        `the ${ordinal(Number(m?.[1] ?? 0))} argument at ${where} must be ${expectedTypesInWords(m?.[2] ?? '')}, but it is ${typeInWords(m?.[3] ?? '')}`,
        error.hint,
      )
    }
    case 'argument-value': {
      const m = /argument #(\d+): invalid argument: (".*")$/.exec(message)
      const reason = m?.[2] ? (JSON.parse(m[2]) as string) : message
      return `the ${ordinal(Number(m?.[1] ?? 0))} argument at ${where} is not valid: ${reason}`
    }
    case 'index-access':
      return withHint(
        `${code(word)} at ${where} cannot be applied here`,
        error.hint ?? 'only arrays and maps can be indexed',
      )
    case 'type-mismatch': {
      const m = /expected value of type (.+), but got (.+)$/.exec(message)
      return withHint(
        `${expectedTypesInWords(m?.[1] ?? '')} is expected at ${where}, but this is ${typeInWords(m?.[2] ?? '')}`,
        error.hint,
      )
    }
    case 'missing-quantifier':
      return `the expression gives one result per element because of [*]: wrap it in any(…) or all(…)`
    case 'non-boolean': {
      const got = /but got (.+)$/.exec(message)?.[1] ?? ''
      return `the expression must be a condition, but it gives ${typeInWords(got)}: compare it with an operator such as eq`
    }
    case 'map-each':
      return `[*] at ${where} may only be used in a function's first argument`
    case 'list-name':
      return `the list name at ${where} is not valid: write $ then lowercase letters, digits, _ or ., such as $blocked_ips`
    case 'unknown-list':
      return withHint(`there is no list ${code(spanText)}`, error.hint)
    case 'nesting':
      return `the expression at ${where} nests too deeply: the limit is ${/\d+/.exec(message)?.[0] ?? ''} levels`
    case 'too-long':
    case 'unavailable-function':
      return withHint(message, error.hint)
  }
}
