// CRS's @rx patterns (PCRE, as ModSecurity 2.9.7 compiles them with PCRE2: DOTALL and
// DOLLAR_ENDONLY, no UTF mode, so a pattern and its subject are bytes) on the project's
// linear-time regex engine, whose dialect is Rust's regex crate with Unicode off
// (docs/vendor-behaviour.md#regular-expressions-in-typescript).
//
// The rewrite is mechanical: every literal byte becomes `\xHH` (so PCRE's escaped punctuation, a
// literal `{` that starts no quantifier, and a pattern's UTF-8 bytes all mean the same byte), bracket
// classes are rebuilt item by item (PCRE's literal `[`, `&&`, `--` and `~~` are set operations in
// Rust), PCRE-only escapes (`\h`, `\v`, `\e`, `\Z`, octal, `\Q…\E`) become their bytes or classes,
// and `(?s)` stands for DOTALL (Rust's `$` without `m` is the end of the text, as DOLLAR_ENDONLY
// makes PCRE's). What needs backtracking (look-around, back-references, atomic groups,
// possessive quantifiers) is refused; the patterns of CRS that use it are hand-written below with
// the same meaning.
//
// One piece over 500 lines: the rewriter and the patterns written by hand are one choice
// (compileCrsRegex takes a hand-written pattern where the rewrite would refuse it), and two of
// those are themselves rewritten (RewrittenRegex) once their possessive quantifiers are relaxed.
import {
  compileRegex,
  isAlnum,
  isDigit,
  isHexDigit,
  isWordChar,
  type CompiledRegex,
} from '@shared/expression'
import { Parser } from '@shared/expression/regex/parser'
import { patternShortcut } from './pattern-shortcuts'

/** A pattern this module cannot carry over, with the PCRE feature that stops it. */
export class UnsupportedPcre extends Error {}

/** A compiled @rx: captures as ModSecurity sets TX.0–9, or undefined without a match. */
export interface CrsRegex {
  exec(value: string): string[] | undefined
  /** whether it matches, without the captures */
  test(value: string): boolean
}

/** ModSecurity keeps the whole match and the first nine groups (an ovector of 30). */
const MAX_CAPTURES = 10

const hex = (byte: number) => `\\x${byte.toString(16).padStart(2, '0')}`

function utf8(text: string): number[] {
  return [...new TextEncoder().encode(text)]
}

const isOctal = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x37

/** PCRE's class escapes with no Rust spelling, as Rust classes of bytes (no UTF mode). */
const PCRE_CLASSES: Record<string, string> = {
  h: '[\\x09\\x20\\xa0]',
  H: '[^\\x09\\x20\\xa0]',
  v: '[\\x0a-\\x0d\\x85]',
  V: '[^\\x0a-\\x0d\\x85]',
}

const SINGLE_BYTE_ESCAPES: Record<string, number> = {
  a: 0x07,
  e: 0x1b,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
}

/** One item of a bracket class: a byte, or a class it holds (`\d`, `[:alpha:]`). */
type ClassItem = { byte: number } | { text: string }

class Rewriter {
  private i = 0
  private readonly b: number[]

  constructor(pattern: string) {
    this.b = utf8(pattern)
  }

  rewrite(): string {
    let out = '(?s)'
    // Whether the previous token can take a quantifier (PCRE reads `{` as literal otherwise).
    let quantifiable = false
    const b = this.b
    while (this.i < b.length) {
      const c = b[this.i]!
      const ch = String.fromCharCode(c)
      if (c === 0x5c) {
        out += this.escape()
        quantifiable = true
      } else if (c === 0x5b) {
        out += this.bracketClass()
        quantifiable = true
      } else if (c === 0x28) {
        out += this.groupOpening()
        quantifiable = false
      } else if (c === 0x29 || c === 0x2e || c === 0x5e || c === 0x24 || c === 0x7c) {
        out += ch
        this.i++
        quantifiable = c === 0x29 || c === 0x2e
      } else if (c === 0x2a || c === 0x2b || c === 0x3f) {
        out += ch
        this.i++
        out += this.quantifierSuffix()
        quantifiable = false
      } else if (c === 0x7b && quantifiable && this.countedRepetition() !== undefined) {
        const counted = this.countedRepetition()!
        out += counted
        this.i += counted.length
        out += this.quantifierSuffix()
        quantifiable = false
      } else {
        out += hex(c)
        this.i++
        quantifiable = true
      }
    }
    return out
  }

  /** `{n}`, `{n,}` or `{n,m}` at the cursor, as PCRE2 10.42 reads a counted repetition. */
  private countedRepetition(): string | undefined {
    let j = this.i + 1
    const b = this.b
    if (!isDigit(b[j] ?? -1)) return undefined
    while (isDigit(b[j] ?? -1)) j++
    if (b[j] === 0x2c) {
      j++
      while (isDigit(b[j] ?? -1)) j++
    }
    if (b[j] !== 0x7d) return undefined
    return String.fromCharCode(...b.slice(this.i, j + 1))
  }

  /** A lazy `?` passes; a possessive `+` needs backtracking control. */
  private quantifierSuffix(): string {
    const next = this.b[this.i]
    if (next === 0x3f) {
      this.i++
      return '?'
    }
    if (next === 0x2b) throw new UnsupportedPcre('possessive quantifier')
    return ''
  }

  private groupOpening(): string {
    const b = this.b
    this.i++
    if (b[this.i] !== 0x3f) return '('
    this.i++
    const c = b[this.i]
    if (c === 0x3a) {
      this.i++
      return '(?:'
    }
    if (c === 0x3d || c === 0x21) throw new UnsupportedPcre('look-ahead')
    if (c === 0x3c && (b[this.i + 1] === 0x3d || b[this.i + 1] === 0x21))
      throw new UnsupportedPcre('look-behind')
    if (c === 0x3e) throw new UnsupportedPcre('atomic group')
    if (c === 0x23) {
      while (this.i < b.length && b[this.i] !== 0x29) this.i++
      this.i++
      return '(?:)'
    }
    if (c === 0x50 || c === 0x3c || c === 0x27) {
      // A named group: its name is of no use to ModSecurity, which numbers groups.
      if (c === 0x50) this.i++
      const close = b[this.i] === 0x27 ? 0x27 : 0x3e
      while (this.i < b.length && b[this.i] !== close) this.i++
      this.i++
      return '('
    }
    // Inline options: `(?i)`, `(?i-s:…)`.
    let flags = ''
    while (this.i < b.length && b[this.i] !== 0x29 && b[this.i] !== 0x3a) {
      const flag = String.fromCharCode(b[this.i]!)
      if (!'imsx-'.includes(flag)) throw new UnsupportedPcre(`option (?${flag}`)
      flags += flag
      this.i++
    }
    const end = String.fromCharCode(b[this.i] ?? 0x29)
    this.i++
    return `(?${flags}${end}`
  }

  /** An escape outside a class. */
  private escape(): string {
    const b = this.b
    this.i++
    const c = b[this.i]
    if (c === undefined) throw new UnsupportedPcre('a pattern ending in \\')
    const ch = String.fromCharCode(c)
    if ('dDwWsSbBAz'.includes(ch)) {
      this.i++
      return `\\${ch}`
    }
    if (ch === 'Z') {
      this.i++
      return '(?:\\n?\\z)'
    }
    const pcreClass = PCRE_CLASSES[ch]
    if (pcreClass !== undefined) {
      this.i++
      return pcreClass
    }
    if (ch === 'Q') {
      this.i++
      let out = ''
      while (this.i < b.length && !(b[this.i] === 0x5c && b[this.i + 1] === 0x45))
        out += hex(b[this.i++]!)
      this.i += 2
      return out
    }
    if (ch === 'E') {
      this.i++
      return ''
    }
    if (c >= 0x31 && c <= 0x39) throw new UnsupportedPcre('back-reference')
    return hex(this.escapedByte())
  }

  /**
   * The byte an escape denotes (cursor on the character after the backslash): `\xHH`, `\x{HH}`,
   * octal `\0OO`, `\cX`, the single-letter controls, or an escaped character itself.
   */
  private escapedByte(): number {
    const b = this.b
    const c = b[this.i]!
    const ch = String.fromCharCode(c)
    this.i++
    const control = SINGLE_BYTE_ESCAPES[ch]
    if (control !== undefined) return control
    if (ch === 'x') {
      let digits = ''
      if (b[this.i] === 0x7b) {
        const close = b.indexOf(0x7d, this.i)
        digits = String.fromCharCode(...b.slice(this.i + 1, close))
        this.i = close + 1
      } else {
        while (digits.length < 2 && isHexDigit(b[this.i] ?? -1))
          digits += String.fromCharCode(b[this.i++]!)
      }
      const value = digits === '' ? 0 : parseInt(digits, 16)
      if (!(value <= 0xff)) throw new UnsupportedPcre(`\\x{${digits}} above a byte`)
      return value
    }
    if (isOctal(c)) {
      let digits = ch
      while (digits.length < 3 && isOctal(b[this.i])) digits += String.fromCharCode(b[this.i++]!)
      return parseInt(digits, 8) & 0xff
    }
    if (ch === 'c') {
      const letter = b[this.i++]
      if (letter === undefined) throw new UnsupportedPcre('\\c at the end')
      return (letter >= 0x61 && letter <= 0x7a ? letter - 0x20 : letter) ^ 0x40
    }
    if (isAlnum(c)) throw new UnsupportedPcre(`escape \\${ch}`)
    return c
  }

  /** A bracket class, rebuilt from its items so that nothing in it is a Rust set operation. */
  private bracketClass(): string {
    const b = this.b
    this.i++
    let out = '['
    if (b[this.i] === 0x5e) {
      out += '^'
      this.i++
    }
    let first = true
    for (;;) {
      if (this.i >= b.length) throw new UnsupportedPcre('unterminated class')
      if (b[this.i] === 0x5d && !first) {
        this.i++
        return `${out}]`
      }
      first = false
      const item = this.classItem()
      if ('byte' in item && b[this.i] === 0x2d && b[this.i + 1] !== 0x5d && this.i + 1 < b.length) {
        const save = this.i
        this.i++
        const end = this.classItem()
        if ('byte' in end) {
          if (end.byte < item.byte) throw new UnsupportedPcre('range out of order')
          out += `${hex(item.byte)}-${hex(end.byte)}`
          continue
        }
        // `[a-\d]`: PCRE reads the hyphen as a literal.
        this.i = save
      }
      out += 'byte' in item ? hex(item.byte) : item.text
    }
  }

  private classItem(): ClassItem {
    const b = this.b
    const c = b[this.i]!
    if (c === 0x5b && b[this.i + 1] === 0x3a) {
      const close = this.indexOfBytes([0x3a, 0x5d], this.i + 2)
      if (close > 0) {
        const text = String.fromCharCode(...b.slice(this.i, close + 2))
        this.i = close + 2
        return { text }
      }
    }
    if (c !== 0x5c) {
      this.i++
      return { byte: c }
    }
    this.i++
    const e = b[this.i]
    if (e === undefined) throw new UnsupportedPcre('a pattern ending in \\')
    const ch = String.fromCharCode(e)
    if ('dDwWsS'.includes(ch)) {
      this.i++
      return { text: `\\${ch}` }
    }
    if (ch === 'h' || ch === 'v') {
      this.i++
      return { text: PCRE_CLASSES[ch]!.slice(1, -1) }
    }
    if (ch === 'b') {
      this.i++
      return { byte: 0x08 }
    }
    if (ch === '8' || ch === '9') {
      this.i++
      return { byte: e }
    }
    return { byte: this.escapedByte() }
  }

  private indexOfBytes(needle: number[], from: number): number {
    for (let k = from; k + needle.length <= this.b.length; k++)
      if (needle.every((x, n) => this.b[k + n] === x)) return k
    return -1
  }
}

/** The pattern in the engine's dialect; throws UnsupportedPcre for what needs backtracking. */
export function rewritePcre(pattern: string): string {
  return new Rewriter(pattern).rewrite()
}

/** A pattern in the engine's dialect, tested without the engine where its shape allows. */
class RewrittenRegex implements CrsRegex {
  private readonly regex: CompiledRegex
  private readonly shortcut: ((value: string) => boolean) | undefined
  /**
   * The last value that matched and its captures: finding them runs the engine again, and a rule
   * meets the same value request after request (a Content-Type, a method, a header's name).
   */
  private lastMatched: string | undefined
  private lastCaptures: string[] = []

  constructor(rewritten: string) {
    this.regex = compileRegex(rewritten)
    this.shortcut = patternShortcut(new Parser(rewritten).parse())
  }

  test(value: string): boolean {
    return this.shortcut === undefined ? this.regex.test(value) : this.shortcut(value)
  }

  exec(value: string): string[] | undefined {
    if (value === this.lastMatched) return [...this.lastCaptures]
    if (!this.test(value)) return undefined
    let captures: string[] = []
    this.regex.replaceFirst(value, (groups) => {
      // PCRE reports groups up to the last that took part; one before it that did not is empty.
      let last = Math.min(groups.length, MAX_CAPTURES) - 1
      while (last > 0 && groups[last] === undefined) last--
      captures = groups.slice(0, last + 1).map((g) => g ?? '')
      return ''
    })
    this.lastMatched = value
    this.lastCaptures = captures
    return [...captures]
  }
}

/** `^.*$` (901318, 920450): with DOTALL every value matches whole, so no engine need run. */
const WHOLE_VALUE: CrsRegex = {
  test: () => true,
  exec: (value) => [value],
}

/** A backtick inside String.raw, where \\` would keep its backslash. */
const BACKTICK = '`'
const isWord = (value: string, i: number) => isWordChar(value.charCodeAt(i))

/**
 * 920120 (multipart file names): a `'`, `"` or `=`, or a `;` that ends none of the HTML entities
 * `&Auml` … `&apos` it lists, PCRE's look-behind `(?<!&(?:[aAoOuUyY]uml)|…);|['"=]`.
 */
const ENTITY_NAMES = new Set(
  (
    [
      ['aAoOuUyY', 'uml'],
      ['aAeEiIoOuU', 'circ'],
      ['eEiIoOuUyY', 'acute'],
      ['aAeEiIoOuU', 'grave'],
      ['cC', 'cedil'],
      ['aAnNoO', 'tilde'],
      ['a', 'mp'],
      ['a', 'pos'],
    ] as const
  ).flatMap(([letters, rest]) => [...letters].map((letter) => letter + rest)),
)

/** Whether one of those entities (`&` and 3 to 6 letters) ends at `end`. */
function entityEndsAt(value: string, end: number): boolean {
  for (let start = end - 4; start >= end - 7 && start >= 0; start--)
    if (value.charCodeAt(start) === 0x26 && ENTITY_NAMES.has(value.slice(start + 1, end)))
      return true
  return false
}

const FILE_NAME_QUOTE_OR_SEMICOLON: CrsRegex = {
  test(value) {
    return this.exec(value) !== undefined
  },
  exec(value) {
    for (let i = 0; i < value.length; i++) {
      const c = value[i]!
      if (c === "'" || c === '"' || c === '=') return [c]
      if (c === ';' && !entityEndsAt(value, i)) return [c]
    }
    return undefined
  },
}

/** `[\s'"`()]`: what CRS lets stand between the words and the operator of a comparison. */
const FILLERS = new Uint8Array(256)
for (const c of '\t\n\v\f\r \'"`()') FILLERS[c.charCodeAt(0)] = 1
function isFiller(value: string, i: number): boolean {
  const c = value.charCodeAt(i)
  return c <= 0xff && FILLERS[c] === 1
}

/**
 * The whitespace this code's earlier JavaScript `\s` found (\t-\r, space, NBSP and the Unicode
 * spaces), kept so that 942130 answers as it did.
 */
function isJsSpace(c: number): boolean {
  if (c <= 0xff) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0
  return (
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  )
}

/** Where `text` (lower case) ends if it stands at `at`, ASCII letters compared without case. */
function caselessEnd(value: string, at: number, text: string): number {
  if (at < 0) return -1
  for (let k = 0; k < text.length; k++) {
    let c = value.charCodeAt(at + k)
    if (c >= 0x41 && c <= 0x5a) c += 0x20
    if (c !== text.charCodeAt(k)) return -1
  }
  return at + text.length
}

/** Where `first`, whitespace and then one of `seconds` end from `at`, or -1. */
function phraseEnd(value: string, at: number, first: string, seconds: readonly string[]): number {
  let next = caselessEnd(value, at, first)
  if (next < 0 || !isJsSpace(value.charCodeAt(next))) return -1
  while (isJsSpace(value.charCodeAt(next))) next++
  for (const second of seconds) {
    const end = caselessEnd(value, next, second)
    if (end >= 0) return end
  }
  return -1
}

/** An operator's text, or its first word, whitespace and one of the words that may follow. */
type OperatorSpelling = readonly [text: string, following?: readonly string[]]

/** An inequality, in CRS's order: `<=|<>|<|not\s+(?:regexp|like)|is\s+not|>=?|!=|\^`. */
const INEQUALITIES: readonly OperatorSpelling[] = [
  ['<='],
  ['<>'],
  ['<'],
  ['not', ['regexp', 'like']],
  ['is', ['not']],
  ['>='],
  ['>'],
  ['!='],
  ['^'],
]

/** An equality, in CRS's order: `<=>|(?:sounds\s+)?like|r(?:egexp|like)|=`. */
const EQUALITIES: readonly OperatorSpelling[] = [
  ['<=>'],
  ['sounds', ['like']],
  ['like'],
  ['regexp'],
  ['rlike'],
  ['='],
]

/** The length of the first operator of its kind that stands at `at`, or -1. */
function operatorLength(value: string, at: number, equal: boolean): number {
  for (const [text, following] of equal ? EQUALITIES : INEQUALITIES) {
    const end =
      following === undefined ? caselessEnd(value, at, text) : phraseEnd(value, at, text, following)
    if (end >= 0) return end - at
  }
  return -1
}

/**
 * 942130 (SQL tautologies): a word, then a comparison with a different word (`1<2`, `a != b`,
 * `x not like y`) or an equality with the same word, ignoring case (`a=a`, `1 like 1`), what
 * PCRE does with the back-reference `\1` and the look-ahead `(?!\b\1\b)`. The captures are those
 * of its leftmost match: the whole match from the filler before the word, and the word.
 */
const SQL_TAUTOLOGY: CrsRegex = {
  test(value) {
    return this.exec(value) !== undefined
  },
  exec(value) {
    let i = 0
    while (i < value.length) {
      if (!isWord(value, i)) {
        i++
        continue
      }
      const wordStart = i
      while (isWord(value, i)) i++
      const end = comparisonEnd(value, wordStart, i)
      if (end !== undefined) {
        let start = wordStart
        while (isFiller(value, start - 1)) start--
        return [value.slice(start, end), value.slice(wordStart, i)]
      }
    }
    return undefined
  },
}

/** The first characters of the operators (`<`, `not`, `is`, `>`, `!=`, `^`, `sounds`, …, `=`). */
const OPERATOR_STARTS = new Uint8Array(256)
for (const c of '<>!^=nislrNISLR') OPERATOR_STARTS[c.charCodeAt(0)] = 1

/**
 * Where a comparison of the word at `wordStart`..`from` with the next word ends, if it is one.
 * Most words are followed by no operator at all: they are passed over before any is tried.
 */
function comparisonEnd(value: string, wordStart: number, from: number): number | undefined {
  let at = from
  while (isFiller(value, at)) at++
  const first = value.charCodeAt(at)
  if (!(first <= 0xff && OPERATOR_STARTS[first] === 1)) return undefined
  const word = value.slice(wordStart, from)
  for (let kind = 0; kind < 2; kind++) {
    const equal = kind === 1
    const operator = operatorLength(value, at, equal)
    if (operator < 0) continue
    for (const length of operatorLengths(value, at, operator, equal)) {
      let next = at + length
      while (isFiller(value, next)) next++
      const boundary = isWord(value, next) !== isWord(value, next - 1)
      const same =
        boundary &&
        value.slice(next, next + word.length).toLowerCase() === word.toLowerCase() &&
        !isWord(value, next + word.length)
      if (equal && same) return next + word.length
      if (!equal && !same && isWord(value, next)) {
        let end = next
        while (isWord(value, end)) end++
        return end
      }
    }
  }
  return undefined
}

/** `<=`, `>=` and `<>` also begin with the shorter `<` and `>`, which PCRE tries in turn. */
function operatorLengths(value: string, at: number, length: number, equal: boolean): number[] {
  const first = value.charCodeAt(at)
  if (!equal && length === 2 && (first === 0x3c || first === 0x3e)) return [2, 1]
  return [length]
}

/**
 * 920600 (Content-Type): its possessive `\s*+` never gives a space back, so where a class that
 * admits spaces follows one, the class's first character is a non-space; everything else is
 * CRS's pattern as it stands.
 */
const CONTENT_TYPE_920600 = String.raw`^(?:(?:\*|[^"(),\/:;<=>?![\x5c\]{}]+)\/(?:\*|[^"(),\/:;<=>?![\x5c\]{}]+))(?:\s*+;\s*+(?:(?:charset\s*+=\s*+(?:"?(?:iso-8859-15?|windows-1252|utf-8)\b"?))|(?:(?:c(?:h(?:a(?:r(?:s(?:e[^t"(),\/:;<=>?![\x5c\]{}]|[^e"(),/:;<=>?![\x5c\]{}])|[^s"(),/:;<=>?![\x5c\]{}])|[^r"(),/:;<=>?![\x5c\]{}])|[^a"(),/:;<=>?![\x5c\]{}])|[^h"(),/:;<=>?![\x5c\]{}])|[^c"(),/:;<=>?![\x5c\]{}])[^"(),/:;<=>?![\x5c\]{}]*(?:)\s*+=\s*+[^(),/:;<=>?![\x5c\]{}]+)|;?))*(?:\s*+,\s*+(?:(?:\*|[^"(),\/:;<=>?![\x5c\]{}]+)\/(?:\*|[^"(),\/:;<=>?![\x5c\]{}]+))(?:\s*+;\s*+(?:(?:charset\s*+=\s*+(?:"?(?:iso-8859-15?|windows-1252|utf-8)\b"?))|(?:(?:c(?:h(?:a(?:r(?:s(?:e[^t"(),\/:;<=>?![\x5c\]{}]|[^e"(),/:;<=>?![\x5c\]{}])|[^s"(),/:;<=>?![\x5c\]{}])|[^r"(),/:;<=>?![\x5c\]{}])|[^a"(),/:;<=>?![\x5c\]{}])|[^h"(),/:;<=>?![\x5c\]{}])|[^c"(),/:;<=>?![\x5c\]{}])[^"(),/:;<=>?![\x5c\]{}]*(?:)\s*+=\s*+[^(),/:;<=>?![\x5c\]{}]+)|;?))*)*$`

function contentType920600(): CrsRegex {
  const withoutPossessive = CONTENT_TYPE_920600.replaceAll(String.raw`\s*+`, String.raw`\s*`)
    // A parameter's name after `;` and its value after `=` start with a non-space.
    .replaceAll(String.raw`|[^c"(),/:;<=>?![\x5c\]{}])`, String.raw`|[^c"(),/:;<=>?![\x5c\]{}\s])`)
    .replaceAll(
      String.raw`=\s*[^(),/:;<=>?![\x5c\]{}]+)`,
      String.raw`=\s*[^(),/:;<=>?![\x5c\]{}\s][^(),/:;<=>?![\x5c\]{}]*)`,
    )
    // So does a media type after `,`.
    .replaceAll(
      String.raw`,\s*(?:(?:\*|[^"(),\/:;<=>?![\x5c\]{}]+)`,
      String.raw`,\s*(?:(?:\*|[^"(),\/:;<=>?![\x5c\]{}\s][^"(),\/:;<=>?![\x5c\]{}]*)`,
    )
  return new RewrittenRegex(rewritePcre(withoutPossessive))
}

/**
 * 942260: `[^?\w\s=.,;)(]++` is followed by `\s*?[(@"'\`]*?\s*?\w`; giving back one of its
 * characters can only hand a quote or `(`/`@` to the lazy class before `\w`, which could equally
 * start after them, so the possessive and the greedy quantifier find the same matches.
 */
const SQL_HAVING_942260 = String.raw`(?i:["'${BACKTICK}]\s*?(?:(?:n(?:and|ot)|(?:x?x)?or|between|\|\||and|div|&&)\s+[\s\w]+=\s*?\w+\s*?having\s+|like(?:\s+[\s\w]+=\s*?\w+\s*?having\s+|\W*?["'${BACKTICK}\d])|[^?\w\s=.,;)(]++\s*?[(@"'${BACKTICK}]*?\s*?\w+\W+\w|\*\s*?\w+\W+["'${BACKTICK}])|(?:union\s*?(?:distinct|[(!@]*?|all)?\s*?[([]*?\s*?select|select\s+?[\[\]()\s\w\.,"'${BACKTICK}-]+from)\s+|\w\s+like\s+["'${BACKTICK}]|find_in_set\s*?\(|like\s*?["'${BACKTICK}]%)`

/**
 * CRS patterns that need backtracking features, hand-written with the same meaning, keyed by the
 * pattern's exact text (a changed rule falls back to the rewrite, which refuses it).
 */
const HAND_WRITTEN = new Map<string, () => CrsRegex>([
  ['^.*$', () => WHOLE_VALUE],
  [
    String.raw`(?<!&(?:[aAoOuUyY]uml)|&(?:[aAeEiIoOuU]circ)|&(?:[eEiIoOuUyY]acute)|&(?:[aAeEiIoOuU]grave)|&(?:[cC]cedil)|&(?:[aAnNoO]tilde)|&(?:amp)|&(?:apos));|['"=]`,
    () => FILE_NAME_QUOTE_OR_SEMICOLON,
  ],
  [
    String.raw`(?i:[\s'"${BACKTICK}()]*?\b([\d\w]+)\b[\s'"${BACKTICK}()]*?(?:<(?:=(?:[\s'"${BACKTICK}()]*?(?!\b\1\b)[\d\w]+|>[\s'"${BACKTICK}()]*?(?:\b\1\b))|>?[\s'"${BACKTICK}()]*?(?!\b\1\b)[\d\w]+)|(?:not\s+(?:regexp|like)|is\s+not|>=?|!=|\^)[\s'"${BACKTICK}()]*?(?!\b\1\b)[\d\w]+|(?:(?:sounds\s+)?like|r(?:egexp|like)|=)[\s'"${BACKTICK}()]*?(?:\b\1\b)))`,
    () => SQL_TAUTOLOGY,
  ],
  [CONTENT_TYPE_920600, contentType920600],
  [
    SQL_HAVING_942260,
    () => new RewrittenRegex(rewritePcre(SQL_HAVING_942260.replace(']++', ']+'))),
  ],
])

/** A CRS @rx pattern compiled for binary strings (throws UnsupportedPcre). */
export function compileCrsRegex(pattern: string): CrsRegex {
  const handWritten = HAND_WRITTEN.get(pattern)
  return handWritten ? handWritten() : new RewrittenRegex(rewritePcre(pattern))
}
