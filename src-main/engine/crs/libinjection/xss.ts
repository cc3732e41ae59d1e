// Written here from the algorithm of libinjection's XSS detection (libinjection_xss.c, v3.9.2 as
// bundled in ModSecurity 2.9.7, the engine behind CRS's @detectXSS), Copyright (c) 2012-2016 Nick
// Galbreath, BSD-3-Clause: see LICENSE in this folder and https://github.com/client9/libinjection.
//
// The input is tokenized as HTML five times, starting in text and inside an attribute value of
// each quoting, and is XSS when any pass meets a doctype, a black-listed tag, an event handler or
// other black-listed attribute, a URL attribute whose value starts with a script scheme, or a
// comment that old browsers would not have treated as one.

import { AMPERSAND, BACK_QUOTE, HASH, LF, NUL, SEMICOLON } from './bytes'
import { Html5Context, Html5Tokenizer, Html5TokenType } from './html5'

/** How an attribute's value is judged, by the attribute's name. */
const enum AttributeKind {
  None,
  /** Black-listed whatever its value. */
  Black,
  /** Takes a URL: black when the URL's scheme runs script. */
  Url,
  /** Takes CSS: always black. */
  Style,
  /** SVG's attributeName: black when the value names a black-listed attribute. */
  Indirect,
}

type WordList<T> = ReadonlyMap<number, readonly (readonly [string, T])[]>

/** Words grouped by their first letter, so that a token is compared with few of them. */
function byInitial<T>(words: readonly (readonly [string, T])[]): WordList<T> {
  const index = new Map<number, (readonly [string, T])[]>()
  for (const entry of words) {
    const initial = entry[0].charCodeAt(0)
    index.set(initial, [...(index.get(initial) ?? []), entry])
  }
  return index
}

/** Tags that run or load content, compared with NULs in the name ignored. */
const BLACK_TAGS = byInitial(
  [
    'APPLET',
    'BASE',
    'COMMENT', // IE, https://html5sec.org/#38
    'EMBED',
    'FRAME',
    'FRAMESET',
    'HANDLER', // Opera's SVG, a script tag in effect
    'IFRAME',
    'IMPORT',
    'ISINDEX',
    'LINK',
    'LISTENER',
    'META',
    'NOSCRIPT',
    'OBJECT',
    'SCRIPT',
    'STYLE',
    'VMLFRAME',
    'XML',
    'XSS',
  ].map((tag) => [tag, true] as const),
)

const BLACK_ATTRIBUTES = byInitial<AttributeKind>([
  ['ACTION', AttributeKind.Url],
  ['ATTRIBUTENAME', AttributeKind.Indirect],
  ['BY', AttributeKind.Url],
  ['BACKGROUND', AttributeKind.Url],
  ['DATAFORMATAS', AttributeKind.Black],
  ['DATASRC', AttributeKind.Black],
  ['DYNSRC', AttributeKind.Url],
  ['FILTER', AttributeKind.Style],
  ['FORMACTION', AttributeKind.Url],
  ['FOLDER', AttributeKind.Url],
  ['FROM', AttributeKind.Url],
  ['HANDLER', AttributeKind.Url],
  ['HREF', AttributeKind.Url],
  ['LOWSRC', AttributeKind.Url],
  ['POSTER', AttributeKind.Url],
  ['SRC', AttributeKind.Url],
  ['STYLE', AttributeKind.Style],
  ['TO', AttributeKind.Url],
  ['VALUES', AttributeKind.Url],
  ['XLINK:HREF', AttributeKind.Url],
])

/** URL schemes that run script or show arbitrary content; JAVA covers javascript: too. */
const BLACK_URL_PREFIXES = ['DATA', 'VIEW-SOURCE', 'JAVA', 'VBSCRIPT']

/** ASCII lower-case letters to upper case; every other byte unchanged. */
function upper(c: number): number {
  return c >= 0x61 && c <= 0x7a ? c - 0x20 : c
}

/** Whether s[at] and s[at+1] are `c0` and `c1` in any ASCII case (c0, c1 upper-case letters). */
function pairIs(s: string, at: number, c0: number, c1: number): boolean {
  return upper(s.charCodeAt(at)) === c0 && upper(s.charCodeAt(at + 1)) === c1
}

/**
 * Whether s[start, start+length) is `word` (upper case) in any ASCII case once its NULs are
 * dropped.
 */
function isWordIgnoringNuls(s: string, start: number, length: number, word: string): boolean {
  let w = 0
  for (let i = start; i < start + length; i++) {
    const c = s.charCodeAt(i)
    if (c === NUL) continue
    if (w >= word.length || upper(c) !== word.charCodeAt(w)) return false
    w++
  }
  return w === word.length
}

/** What `list` says of s[start, start+length), compared as isWordIgnoringNuls compares. */
function lookUp<T>(list: WordList<T>, s: string, start: number, length: number): T | undefined {
  let first = start
  while (first < start + length && s.charCodeAt(first) === NUL) first++
  const candidates = list.get(upper(s.charCodeAt(first)))
  if (candidates === undefined) return undefined
  for (const [word, value] of candidates) {
    if (isWordIgnoringNuls(s, start, length, word)) return value
  }
  return undefined
}

function isBlackTag(s: string, start: number, length: number): boolean {
  if (length < 3) return false
  if (lookUp(BLACK_TAGS, s, start, length)) return true
  // Anything SVG or XSL(T); this prefix test does not skip NULs.
  const c0 = upper(s.charCodeAt(start))
  const c1 = upper(s.charCodeAt(start + 1))
  const c2 = upper(s.charCodeAt(start + 2))
  return (c0 === 0x53 && c1 === 0x56 && c2 === 0x47) || (c0 === 0x58 && c1 === 0x53 && c2 === 0x4c)
}

function attributeKind(s: string, start: number, length: number): AttributeKind {
  if (length < 2) return AttributeKind.None
  if (length >= 5) {
    // Event handlers (on…), and xmlns/xlink, which can make arbitrary tags.
    if (pairIs(s, start, 0x4f, 0x4e)) return AttributeKind.Black
    if (isWordIgnoringNuls(s, start, 5, 'XMLNS') || isWordIgnoringNuls(s, start, 5, 'XLINK')) {
      return AttributeKind.Black
    }
  }
  return lookUp(BLACK_ATTRIBUTES, s, start, length) ?? AttributeKind.None
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30
  const letter = c | 0x20
  if (letter >= 0x61 && letter <= 0x66) return letter - 0x61 + 10
  return -1
}

/** The largest character reference libinjection decodes; beyond it the `&` stands for itself. */
const MAX_REFERENCE = 0x1000ff

/**
 * Decodes one character at s[at] for a URL check: a numeric character reference (`&#65;`,
 * `&#x41;`, the `;` optional) becomes its code point, anything else (named references included)
 * its own byte. Answers the value and sets `decoded.next` to the offset after what it read.
 * As in the C, the two bytes after `&#` are read even past `end`: a token never ends there in
 * practice, since the byte after an attribute value is its delimiter.
 */
function decodeCharAt(s: string, at: number, end: number, decoded: { next: number }): number {
  decoded.next = at + 1
  const c = s.charCodeAt(at)
  if (c !== AMPERSAND || end - at < 2) return c
  if (s.charCodeAt(at + 1) !== HASH) return AMPERSAND
  const marker = s.charCodeAt(at + 2)
  const hex = marker === 0x78 || marker === 0x58
  const radix = hex ? 16 : 10
  let i = hex ? at + 3 : at + 2
  let digit = hex ? hexDigit(s.charCodeAt(i)) : decimalDigit(s.charCodeAt(i))
  if (digit < 0) return AMPERSAND
  let value = digit
  for (i++; i < end; i++) {
    const d = s.charCodeAt(i)
    if (d === SEMICOLON) {
      decoded.next = i + 1
      return value
    }
    digit = hex ? hexDigit(d) : decimalDigit(d)
    if (digit < 0) break
    value = value * radix + digit
    if (value > MAX_REFERENCE) return AMPERSAND
  }
  decoded.next = i
  return value
}

function decimalDigit(c: number): number {
  return c >= 0x30 && c <= 0x39 ? c - 0x30 : -1
}

/**
 * Whether s[start, end), its character references decoded, starts with `prefix` (upper case) in
 * any ASCII case, ignoring leading whitespace and control characters, and NULs and line feeds
 * anywhere. A decoded code point is compared by its low byte, as C's `char` cast does.
 */
function startsWithDecoded(
  s: string,
  start: number,
  end: number,
  prefix: string,
  decoded: { next: number },
): boolean {
  let p = 0
  let leading = true
  let at = start
  while (at < end) {
    if (p === prefix.length) return true
    const c = decodeCharAt(s, at, end, decoded)
    at = decoded.next
    if (leading && c <= 0x20) continue
    leading = false
    if (c === NUL || c === LF) continue
    if ((upper(c) & 0xff) !== prefix.charCodeAt(p)) return false
    p++
  }
  return p === prefix.length
}

function isBlackUrl(s: string, start: number, length: number): boolean {
  const end = start + length
  let at = start
  // Control bytes, spaces, DEL and every byte above ASCII are skipped (Opera took UTF-8 spaces).
  while (at < end) {
    const c = s.charCodeAt(at)
    if (c > 0x20 && c < 0x7f) break
    at++
  }
  const decoded = { next: 0 }
  return BLACK_URL_PREFIXES.some((prefix) => startsWithDecoded(s, at, end, prefix, decoded))
}

function includesBackQuote(s: string, start: number, length: number): boolean {
  for (let i = start; i < start + length; i++) if (s.charCodeAt(i) === BACK_QUOTE) return true
  return false
}

/** Comments that old IE read as markup: `[if …]`, `xml…`, `<?import`, and XML entity definitions. */
function isBlackComment(s: string, start: number, length: number): boolean {
  // IE ends a tag at a back quote.
  if (includesBackQuote(s, start, length)) return true
  if (length > 3) {
    if (s.charCodeAt(start) === 0x5b && pairIs(s, start + 1, 0x49, 0x46)) return true
    if (pairIs(s, start, 0x58, 0x4d) && upper(s.charCodeAt(start + 2)) === 0x4c) return true
  }
  return (
    length > 5 &&
    (isWordIgnoringNuls(s, start, 6, 'IMPORT') || isWordIgnoringNuls(s, start, 6, 'ENTITY'))
  )
}

function isXssIn(tokens: Html5Tokenizer, input: string, context: Html5Context): boolean {
  tokens.reset(input, context)
  let attribute = AttributeKind.None
  while (tokens.next()) {
    const { type, start, length } = tokens
    if (type !== Html5TokenType.ATTR_VALUE) attribute = AttributeKind.None
    switch (type) {
      case Html5TokenType.DOCTYPE:
        return true
      case Html5TokenType.TAG_NAME_OPEN:
        if (isBlackTag(input, start, length)) return true
        break
      case Html5TokenType.ATTR_NAME:
        attribute = attributeKind(input, start, length)
        break
      case Html5TokenType.ATTR_VALUE:
        switch (attribute) {
          case AttributeKind.Black:
          case AttributeKind.Style:
            return true
          case AttributeKind.Url:
            if (isBlackUrl(input, start, length)) return true
            break
          case AttributeKind.Indirect:
            if (attributeKind(input, start, length) !== AttributeKind.None) return true
            break
        }
        attribute = AttributeKind.None
        break
      case Html5TokenType.TAG_COMMENT:
        if (isBlackComment(input, start, length)) return true
        break
    }
  }
  return false
}

/** One tokenizer, reset for each pass: detection is synchronous, so passes never overlap. */
const tokenizer = new Html5Tokenizer()

const CONTEXTS = [
  Html5Context.DATA,
  Html5Context.VALUE_NO_QUOTE,
  Html5Context.VALUE_SINGLE_QUOTE,
  Html5Context.VALUE_DOUBLE_QUOTE,
  Html5Context.VALUE_BACK_QUOTE,
]

/**
 * libinjection's `libinjection_xss`: whether the binary string `input` holds HTML that could run
 * script, in text or inside an attribute value of any quoting (CRS's @detectXSS, rule 941100).
 */
export function detectXss(input: string): boolean {
  for (const context of CONTEXTS) if (isXssIn(tokenizer, input, context)) return true
  return false
}
