// ModSecurity 2.9.7's transformation functions (`t:…`), as the OWASP Core Rule Set 3.3 uses them,
// on binary strings (one code unit per byte). Each follows ModSecurity's own code, quirks
// included, since a rule's meaning is what ModSecurity does with it: apache2/re_tfns.c and
// apache2/msc_util.c of https://github.com/owasp-modsecurity/ModSecurity/tree/v2/master.
// Where that code reads a value as a C string (cmdLine, sqlHexDecode, utf8toUnicode,
// base64Decode), it stops at the first NUL byte, and so do these.
//
// One piece over 500 lines: the table at its end names every function above it, as
// re_tfns.c's does, and the functions share the byte-level helpers at its top (Output, at,
// hexPair, hexDigitsAt…); each is short, and what makes the file long is their number.
import { createHash } from 'node:crypto'
import { asciiLower, isAlnum, isDigit, isHexDigit } from '@shared/expression'
import { UNICODE_MAP } from './unicode-mapping'

export type Transformation = (value: string) => string

const NBSP = 0xa0

/** C's isspace() in the "C" locale: space, \t, \n, \v, \f, \r. */
const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d)
const isOctal = (c: number) => c >= 0x30 && c <= 0x37
const lower = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c)

/** A byte of `s`, or 0 past its end (ModSecurity's buffers end with a NUL). */
const at = (s: string, i: number) => (i < s.length ? s.charCodeAt(i) : 0)

/** ModSecurity's x2c(): two hexadecimal digits to a byte, unchecked. */
function hexPair(s: string, i: number): number {
  return ((hexDigit(at(s, i)) << 4) + hexDigit(at(s, i + 1))) & 0xff
}

/** ModSecurity's xsingle2c(): letters by `(c & 0xdf) - 'A' + 10`, anything else `c - '0'`. */
function hexDigit(c: number): number {
  return (c >= 0x41 ? (c & 0xdf) - 0x41 + 10 : c - 0x30) & 0xff
}

/** The part before the first NUL: what ModSecurity's C-string functions see. */
export function cString(value: string): string {
  const nul = value.indexOf('\0')
  return nul < 0 ? value : value.slice(0, nul)
}

/** Collects output bytes; far cheaper than concatenating one character at a time. */
class Output {
  private readonly codes: number[] = []

  push(c: number): void {
    this.codes.push(c & 0xff)
  }

  get length(): number {
    return this.codes.length
  }

  truncate(length: number): void {
    this.codes.length = length
  }

  /** A character of the input as it stands, a byte or not. */
  keep(c: number): void {
    this.codes.push(c)
  }

  /** Each character of an ASCII text. */
  text(ascii: string): void {
    for (let i = 0; i < ascii.length; i++) this.codes.push(ascii.charCodeAt(i))
  }

  toString(): string {
    // Spread in chunks: a call takes a bounded number of arguments.
    if (this.codes.length <= 8192) return String.fromCharCode(...this.codes)
    let text = ''
    for (let i = 0; i < this.codes.length; i += 8192)
      text += String.fromCharCode(...this.codes.slice(i, i + 8192))
    return text
  }
}

/**
 * `%HH` and `+` decoded, invalid escapes kept; with `unicode`, `%uHHHH` too (the mapped byte of
 * code page 20127, else the low byte, full-width ASCII U+FF01..U+FF5E shifted back to ASCII).
 */
function urlDecode(value: string, unicode: boolean): string {
  if (!value.includes('%') && !value.includes('+')) return value
  // The runs between escapes are copied whole; an escape becomes its byte, and so does anything
  // that is not a byte (the output holds bytes only).
  let text = ''
  let run = 0
  const n = value.length
  let i = 0
  while (i < n) {
    const c = value.charCodeAt(i)
    let byte = -1
    let length = 1
    if (c === 0x2b) byte = 0x20
    else if (c > 0xff) byte = c
    else if (c === 0x25 && unicode && (at(value, i + 1) | 0x20) === 0x75) {
      // `%u` without four hex digits stays as it is.
      length = 2
      if (hexDigitsAt(value, i + 2, 4)) {
        const mapped = UNICODE_MAP.get(parseInt(value.slice(i + 2, i + 6), 16))
        byte = mapped ?? fullWidth(hexPair(value, i + 4), value, i + 2)
        length = 6
      }
    } else if (c === 0x25 && hexDigitsAt(value, i + 1, 2)) {
      byte = hexPair(value, i + 1)
      length = 3
    }
    if (byte >= 0) {
      text += value.slice(run, i) + String.fromCharCode(byte & 0xff)
      run = i + length
    }
    i += length
  }
  return text + value.slice(run)
}

/** Whether `count` hex digits stand from `from` on (past the end is no digit: `at` gives NUL). */
function hexDigitsAt(value: string, from: number, count: number): boolean {
  for (let k = from; k < from + count; k++) if (!isHexDigit(at(value, k))) return false
  return true
}

/** How many octal digits, at most three, stand from `from` on, where one does. */
function octalLength(value: string, from: number): number {
  let length = 1
  while (length < 3 && isOctal(at(value, from + length))) length++
  return length
}

/** The low byte of a `ffHH` escape (digits at `high`) in the full-width ASCII block, shifted. */
function fullWidth(byte: number, value: string, high: number): number {
  const full = (at(value, high) | 0x20) === 0x66 && (at(value, high + 1) | 0x20) === 0x66
  return full && byte > 0 && byte < 0x5f ? byte + 0x20 : byte
}

/** Digits to a byte as C's strtol() and a cast to unsigned char do: past LONG_MAX, 0xff. */
function strtolByte(digits: string, radix: number): number {
  const value = BigInt(radix === 16 ? `0x${digits}` : digits)
  return value > 0x7fffffffffffffffn ? 0xff : Number(value & 0xffn)
}

/** `&quot; &amp; &lt; &gt; &nbsp;`, `&#DDD;` and `&#xHH;`, the semicolon optional. */
function htmlEntityDecode(value: string): string {
  if (!value.includes('&')) return value
  const out = new Output()
  const n = value.length
  let i = 0
  while (i < n) {
    let copy = 1
    if (value.charCodeAt(i) === 0x26 && i + 1 < n) {
      let j = i + 1
      if (value.charCodeAt(j) === 0x23) {
        copy++
        if (j + 1 < n) {
          j++
          const hex = (value.charCodeAt(j) | 0x20) === 0x78
          if (hex) copy++
          if (!hex || j + 1 < n) {
            if (hex) j++
            const start = j
            while (j < n && (hex ? isHexDigit : isDigit)(value.charCodeAt(j))) j++
            if (j > start) {
              out.push(strtolByte(value.slice(start, j), hex ? 16 : 10))
              i = j < n && value.charCodeAt(j) === 0x3b ? j + 1 : j
              continue
            }
          }
        }
      } else {
        const start = j
        while (j < n && isAlnum(value.charCodeAt(j))) j++
        if (j > start) {
          const byte = NAMED_ENTITIES.get(value.slice(start, j).toLowerCase())
          if (byte !== undefined) {
            out.push(byte)
            i = j < n && value.charCodeAt(j) === 0x3b ? j + 1 : j
            continue
          }
          copy = j - start + 1
        }
      }
    }
    for (let z = 0; z < copy && i < n; z++) out.push(value.charCodeAt(i++))
  }
  return out.toString()
}

const NAMED_ENTITIES = new Map([
  ['quot', 0x22],
  ['amp', 0x26],
  ['lt', 0x3c],
  ['gt', 0x3e],
  ['nbsp', NBSP],
])

/** The single-letter escapes of C and JavaScript (`\n` → newline); others stand for themselves. */
const LETTER_ESCAPES = new Map([
  [0x61, 0x07],
  [0x62, 0x08],
  [0x66, 0x0c],
  [0x6e, 0x0a],
  [0x72, 0x0d],
  [0x74, 0x09],
  [0x76, 0x0b],
])

/**
 * A value with its backslash escapes decoded: `escape` reads the one whose backslash is at `i`,
 * writes what it means and answers where the text after it resumes.
 */
function decodeEscapes(
  value: string,
  escape: (value: string, i: number, out: Output) => number,
): string {
  if (!value.includes('\\')) return value
  const out = new Output()
  let i = 0
  while (i < value.length) {
    const c = value.charCodeAt(i)
    if (c === 0x5c) {
      i = escape(value, i, out)
    } else {
      out.push(c)
      i++
    }
  }
  return out.toString()
}

/** `\uHHHH` (low byte, full width shifted), `\xHH`, `\OOO` (one byte) and `\C`. */
function jsEscape(value: string, i: number, out: Output): number {
  const next = at(value, i + 1)
  if (next === 0x75 && hexDigitsAt(value, i + 2, 4)) {
    out.push(fullWidth(hexPair(value, i + 4), value, i + 2))
    return i + 6
  }
  if (next === 0x78 && hexDigitsAt(value, i + 2, 2)) {
    out.push(hexPair(value, i + 2))
    return i + 4
  }
  if (i + 1 >= value.length) {
    out.push(0x5c)
    return i + 1
  }
  if (isOctal(next)) {
    let j = octalLength(value, i + 1)
    // Three digits only while they fit in a byte (\377).
    if (j === 3 && next > 0x33) j = 2
    out.push(parseInt(value.slice(i + 1, i + 1 + j), 8))
    return i + 1 + j
  }
  out.push(LETTER_ESCAPES.get(next) ?? next)
  return i + 2
}

/** CSS 2 escapes: `\` and 1–6 hex digits (the last byte kept, full width shifted), `\` newline. */
function cssEscape(value: string, backslash: number, out: Output): number {
  const n = value.length
  const i = backslash + 1
  if (i >= n) return i
  let j = 0
  while (j < 6 && i + j < n && isHexDigit(value.charCodeAt(i + j))) j++
  if (j > 0) {
    let byte = j === 1 ? hexDigit(value.charCodeAt(i)) : hexPair(value, i + j - 2)
    const fullCheck =
      j === 4 ||
      (j === 5 && value.charCodeAt(i) === 0x30) ||
      (j === 6 && value.charCodeAt(i) === 0x30 && value.charCodeAt(i + 1) === 0x30)
    if (fullCheck) byte = fullWidth(byte, value, i + j - 4)
    out.push(byte)
    // One whitespace after a hex escape belongs to it.
    if (i + j < n && isSpace(value.charCodeAt(i + j))) j++
    return i + j
  }
  if (value.charCodeAt(i) !== 0x0a) out.push(value.charCodeAt(i))
  return i + 1
}

/** C escapes: `\a \b \f \n \r \t \v \\ \? \' \"`, `\xHH`, `\OOO`; any other `\C` becomes C. */
function escapeSeqEscape(value: string, i: number, out: Output): number {
  if (i + 1 >= value.length) {
    out.push(0x5c)
    return i + 1
  }
  const next = value.charCodeAt(i + 1)
  const letter = LETTER_ESCAPES.get(next) ?? (SELF_ESCAPES.has(next) ? next : -1)
  if (letter !== -1) {
    out.push(letter)
    return i + 2
  }
  if ((next | 0x20) === 0x78 && hexDigitsAt(value, i + 2, 2)) {
    out.push(hexPair(value, i + 2))
    return i + 4
  }
  if (isOctal(next)) {
    const j = octalLength(value, i + 1)
    out.push(parseInt(value.slice(i + 1, i + 1 + j), 8))
    return i + 1 + j
  }
  out.push(next)
  return i + 2
}

const SELF_ESCAPES = new Set([0x5c, 0x3f, 0x27, 0x22])

/**
 * UTF-8 sequences to `%uHHHH` (lower-case hex, at least four digits). As ModSecurity's does, a
 * sequence cut short or with a bad continuation byte loses its lead byte, an overlong or surrogate
 * one keeps its lead byte after the escape, other bytes stay but NULs, which it drops.
 */
function utf8toUnicode(value: string): string {
  if (!holdsNulOrHighByte(value)) return value
  const n = value.length
  const out = new Output()
  let i = 0
  while (i < n) {
    const c = value.charCodeAt(i)
    let length = 0
    let code = 0
    if (c < 0x80) {
      if (c !== 0) out.keep(c)
    } else if ((c & 0xe0) === 0xc0 || (c & 0xf0) === 0xe0 || (c & 0xf8) === 0xf0) {
      const size = (c & 0xe0) === 0xc0 ? 2 : (c & 0xf0) === 0xe0 ? 3 : 4
      // ModSecurity writes a lead byte above U+10FFFF's before looking at the rest.
      if (size === 4 && c >= 0xf5) out.keep(c)
      // ModSecurity checks the whole value's length, then finds the terminating NUL.
      let valid = n >= size
      for (let k = 1; k < size && valid; k++) valid = (at(value, i + k) & 0xc0) === 0x80
      if (valid) {
        length = size
        code = c & (size === 2 ? 0x1f : size === 3 ? 0x0f : 0x07)
        for (let k = 1; k < size; k++) code = (code << 6) | (at(value, i + k) & 0x3f)
        out.text(`%u${code.toString(16).padStart(4, '0')}`)
      } else {
        length = -1
      }
    } else {
      out.keep(c)
    }
    if (code >= 0xd800 && code <= 0xdfff) out.keep(c)
    if (
      (length === 4 && code < 0x10000) ||
      (length === 3 && code < 0x800) ||
      (length === 2 && code < 0x80)
    )
      out.keep(c)
    i += length > 0 ? length : 1
  }
  return out.toString()
}

function holdsNulOrHighByte(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c === 0 || c >= 0x80) return true
  }
  return false
}

/** cmdLine: quotes, `\` and `^` removed, separators to one space, none before `/` or `(`, lower case. */
function cmdLine(input: string): string {
  if (cmdLineKeeps(input)) return input
  const value = cString(input)
  const out = new Output()
  let space = false
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    switch (c) {
      case 0x22:
      case 0x27:
      case 0x5c:
      case 0x5e:
        continue
      case 0x20:
      case 0x2c:
      case 0x3b:
      case 0x09:
      case 0x0d:
      case 0x0a:
        if (!space) {
          out.push(0x20)
          space = true
        }
        break
      case 0x2f:
      case 0x28:
        if (space) out.truncate(out.length - 1)
        space = false
        out.push(c)
        break
      default:
        out.push(lower(c))
        space = false
    }
  }
  return out.toString()
}

/**
 * Whether cmdLine leaves a value as it is: nothing it removes or lower-cases, no separator but
 * single spaces, none of them before `/` or `(` (a NUL, where the value would end, is removed).
 */
function cmdLineKeeps(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c === 0x20) {
      const next = at(value, i + 1)
      if (next === 0x20 || next === 0x2f || next === 0x28) return false
    } else if (c > 0xff || CMDLINE_CHANGES[c] === 1) return false
  }
  return true
}

/** The bytes cmdLine removes, turns into a space or lower-cases, NUL among them. */
const CMDLINE_CHANGES = new Uint8Array(256)
for (const c of [0x00, 0x22, 0x27, 0x5c, 0x5e, 0x2c, 0x3b, 0x09, 0x0d, 0x0a]) CMDLINE_CHANGES[c] = 1
CMDLINE_CHANGES.fill(1, 0x41, 0x5b)

function compressWhitespace(value: string): string {
  if (!whitespaceToCompress(value)) return value
  const out = new Output()
  let spaces = 0
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (isSpace(c) || c === NBSP) {
      spaces++
      continue
    }
    if (spaces > 0) out.push(0x20)
    spaces = 0
    out.push(c)
  }
  if (spaces > 0) out.push(0x20)
  return out.toString()
}

/**
 * Whether a value holds whitespace other than single spaces (NBSP counts as whitespace), or
 * anything that is not a byte, which the output's bytes would change.
 */
function whitespaceToCompress(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c === 0x20) {
      const next = at(value, i + 1)
      if (isSpace(next) || next === NBSP) return true
    } else if (isSpace(c) || c === NBSP || c > 0xff) return true
  }
  return false
}

function removeWhitespace(value: string): string {
  const out = new Output()
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (!isSpace(c) && c !== NBSP) out.push(c)
  }
  return out.toString()
}

/** What a comment transformation reads as comments and what it leaves of one. */
interface CommentSyntax {
  /** `<!--` opens a comment as `/*` does, and `-->` closes one as `*\/` does */
  html: boolean
  /** `--` or `#` outside a comment ends the value */
  lineComments: boolean
  /** what stands for a closed comment: a space, or the byte after it copied unexamined */
  closed: 'space' | 'nextByte'
}

/**
 * A value with its comments out, as ModSecurity's replaceComments and removeComments read them
 * (either closing marker closes either kind of comment); an unclosed comment becomes a space.
 */
function withoutComments(value: string, syntax: CommentSyntax): string {
  const out = new Output()
  const n = value.length
  let inComment = false
  let i = 0
  while (i < n) {
    const c = value.charCodeAt(i)
    if (!inComment) {
      if (c === 0x2f && i + 1 < n && value.charCodeAt(i + 1) === 0x2a) {
        inComment = true
        i += 2
      } else if (syntax.html && c === 0x3c && i + 3 < n && value.startsWith('!--', i + 1)) {
        inComment = true
        i += 4
      } else if (
        syntax.lineComments &&
        ((c === 0x2d && i + 1 < n && value.charCodeAt(i + 1) === 0x2d) || c === 0x23)
      ) {
        break
      } else {
        out.push(c)
        i++
      }
      continue
    }
    const close =
      c === 0x2a && i + 1 < n && value.charCodeAt(i + 1) === 0x2f
        ? 2
        : syntax.html && c === 0x2d && i + 2 < n && value.startsWith('->', i + 1)
          ? 3
          : 0
    if (close === 0) {
      i++
      continue
    }
    inComment = false
    i += close
    if (syntax.closed === 'space') out.push(0x20)
    else out.push(at(value, i++))
  }
  if (inComment) out.push(0x20)
  return out.toString()
}

/** `/* … *\/` comments to one space each (an unclosed one too). */
function replaceComments(value: string): string {
  if (!value.includes('/*')) return value
  return withoutComments(value, { html: false, lineComments: false, closed: 'space' })
}

/**
 * `/* *\/` and `<!-- -->` comments removed (an unclosed one becomes a space); `--` or `#` outside a
 * comment ends the value. ModSecurity copies the byte after a comment's end unexamined, a NUL when
 * the comment closes the value.
 */
function removeComments(value: string): string {
  return withoutComments(value, { html: true, lineComments: true, closed: 'nextByte' })
}

/** The comment markers `/*`, `*\/`, `<!--`, `-->`, `--` and `#` removed, what they enclose kept. */
function removeCommentsChar(value: string): string {
  const out = new Output()
  const n = value.length
  let i = 0
  while (i < n) {
    const c = value.charCodeAt(i)
    const next = at(value, i + 1)
    if ((c === 0x2f && next === 0x2a && i + 1 < n) || (c === 0x2a && next === 0x2f && i + 1 < n))
      i += 2
    else if (c === 0x3c && i + 3 < n && value.startsWith('!--', i + 1)) i += 4
    else if (c === 0x2d && i + 2 < n && value.startsWith('->', i + 1)) i += 3
    else if (c === 0x2d && next === 0x2d && i + 1 < n) i += 2
    else if (c === 0x23) i++
    else {
      out.push(c)
      i++
    }
  }
  return out.toString()
}

/**
 * Self (`./`) and back (`../`) references and repeated slashes removed, a path never climbing above
 * its root; with `windows`, backslashes are slashes. A port of normalize_path_inplace(), whose
 * edge cases (a relative path that climbs stays as it is) decide what rules see.
 */
function normalizePath(value: string, windows: boolean): string {
  const n = value.length
  // Only a `.` ending a segment, slashes in a row and (on Windows) backslashes change anything.
  if (!value.includes('.') && !value.includes('//') && !(windows && value.includes('\\')))
    return value
  const b: number[] = new Array<number>(n)
  for (let k = 0; k < n; k++) b[k] = value.charCodeAt(k)
  const isSlash = (c: number | undefined) => c === 0x2f || (windows && c === 0x5c)
  const end = n - 1
  const relative = !isSlash(b[0])
  const trailing = isSlash(b[end])
  let src = 0
  let dst = 0
  let length = 0
  let done = false
  let hitRoot = false
  while (!done && src <= end && dst <= end) {
    if (windows) {
      if (b[src] === 0x5c) b[src] = 0x2f
      if (src < end && b[src + 1] === 0x5c) b[src + 1] = 0x2f
    }
    // Only the end of a segment (the value's end, or before a slash) is normalised.
    let copy = true
    if (src === end) done = true
    if ((done || b[src + 1] === 0x2f) && !(!done && b[src] === 0x2f)) {
      if (b[src] === 0x2e) {
        if (dst > 0 && b[dst - 1] === 0x2e) {
          if (relative && (hitRoot || dst - 2 <= 0)) {
            hitRoot = true
          } else {
            // A back-reference: drop it and the segment before it, never above the root.
            dst -= 3
            while (dst > 0 && b[dst] !== 0x2f) dst--
            if (dst <= 0) {
              hitRoot = true
              dst = 0
              if (!relative && src === end) dst++
            }
            if (done) copy = false
            else src++
          }
        } else if (dst === 0) {
          if (done) copy = false
          else src++
        } else if (b[dst - 1] === 0x2f) {
          if (done) copy = false
          else {
            dst--
            src++
          }
        }
      } else if (dst > 0) {
        hitRoot = false
      }
    }
    if (copy) {
      if (b[src] === 0x2f) {
        while (src < end && isSlash(b[src + 1])) src++
        if (relative && dst === 0) {
          src++
          length = dst
          continue
        }
      }
      b[dst++] = b[src++]!
    }
    length = dst
  }
  if (!trailing && dst > 0 && b[dst - 1] === 0x2f) length--
  return String.fromCharCode(...b.slice(0, length))
}

/** `0xHHHH…` runs decoded (pairs of hex digits); ModSecurity's result ends at the first NUL. */
function sqlHexDecode(input: string): string {
  const value = cString(input)
  if (value.length === 0) return value
  const out = new Output()
  let i = 0
  while (i < value.length) {
    if (
      value.charCodeAt(i) === 0x30 &&
      (at(value, i + 1) | 0x20) === 0x78 &&
      hexDigitsAt(value, i + 2, 2)
    ) {
      i += 2
      while (isHexDigit(at(value, i)) && isHexDigit(at(value, i + 1))) {
        out.push(hexPair(value, i))
        i += 2
      }
      // ModSecurity's loop copies the byte after a run without looking at it.
      if (i >= value.length) break
    }
    out.push(value.charCodeAt(i++))
  }
  return cString(out.toString())
}

function hexDecode(value: string): string {
  const out = new Output()
  for (let i = 0; i + 1 < value.length; i += 2) out.push(hexPair(value, i))
  return out.toString()
}

function hexEncode(value: string): string {
  let out = ''
  for (let i = 0; i < value.length; i++) out += value.charCodeAt(i).toString(16).padStart(2, '0')
  return out
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const base64Value = (c: number) => (c < 128 ? BASE64.indexOf(String.fromCharCode(c)) : -1)

/**
 * APR's apr_base64_decode: the leading run of base64 characters decoded (it stops at `=` or any
 * other character), a last lone character ignored.
 */
function base64Decode(value: string): string {
  const digits: number[] = []
  for (let i = 0; i < value.length; i++) {
    const d = base64Value(value.charCodeAt(i))
    if (d < 0) break
    digits.push(d)
  }
  return decodeDigits(digits)
}

function decodeDigits(digits: readonly number[]): string {
  const out = new Output()
  for (let i = 0; i + 1 < digits.length; i += 4) {
    const [a = 0, b = 0, c, d] = digits.slice(i, i + 4)
    out.push((a << 2) | (b >> 4))
    if (c !== undefined) out.push((b << 4) | (c >> 2))
    if (c !== undefined && d !== undefined) out.push((c << 6) | d)
  }
  return out.toString()
}

/**
 * RFC 2045 base64 (decode_base64_ext): characters outside the alphabet skipped, `=` skipped, but a
 * single `=` after a group's first character gives an empty value; stops at a NUL.
 */
function base64DecodeExt(input: string): string {
  const value = cString(input)
  const digits: number[] = []
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c === 0x3d) {
      if (at(value, i + 1) !== 0x3d && digits.length % 4 === 1) return ''
      continue
    }
    const d = base64Value(c)
    if (d >= 0) digits.push(d)
  }
  return decodeDigits(digits)
}

const digest = (algorithm: string) => (value: string) =>
  createHash(algorithm).update(value, 'latin1').digest().toString('latin1')

function trimLeft(value: string): string {
  let i = 0
  while (i < value.length && isSpace(value.charCodeAt(i))) i++
  return value.slice(i)
}

function trimRight(value: string): string {
  let i = value.length
  while (i > 0 && isSpace(value.charCodeAt(i - 1))) i--
  return value.slice(0, i)
}

/** URL encoding as ModSecurity's url_encode(): space to `+`, all but `*`, digits and letters escaped. */
function urlEncode(value: string): string {
  let out = ''
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c === 0x20) out += '+'
    else if (c === 0x2a || isAlnum(c)) out += value[i]
    else out += `%${c.toString(16).padStart(2, '0')}`
  }
  return out
}

const TRANSFORMATIONS = new Map<string, Transformation>([
  ['urldecode', (v) => urlDecode(v, false)],
  ['urldecodeuni', (v) => urlDecode(v, true)],
  ['urlencode', urlEncode],
  ['htmlentitydecode', htmlEntityDecode],
  ['jsdecode', (value) => decodeEscapes(value, jsEscape)],
  ['cssdecode', (value) => decodeEscapes(value, cssEscape)],
  ['escapeseqdecode', (value) => decodeEscapes(value, escapeSeqEscape)],
  ['utf8tounicode', utf8toUnicode],
  ['removenulls', (v) => (v.includes('\0') ? v.replaceAll('\0', '') : v)],
  ['replacenulls', (v) => (v.includes('\0') ? v.replaceAll('\0', ' ') : v)],
  ['cmdline', cmdLine],
  ['compresswhitespace', compressWhitespace],
  ['removewhitespace', removeWhitespace],
  ['replacecomments', replaceComments],
  ['removecomments', removeComments],
  ['removecommentschar', removeCommentsChar],
  ['normalisepath', (v) => normalizePath(v, false)],
  ['normalizepath', (v) => normalizePath(v, false)],
  ['normalisepathwin', (v) => normalizePath(v, true)],
  ['normalizepathwin', (v) => normalizePath(v, true)],
  ['lowercase', asciiLower],
  ['length', (v) => String(v.length)],
  ['sha1', digest('sha1')],
  ['md5', digest('md5')],
  ['hexencode', hexEncode],
  ['hexdecode', hexDecode],
  ['sqlhexdecode', sqlHexDecode],
  ['base64decode', base64Decode],
  ['base64decodeext', base64DecodeExt],
  ['base64encode', (v) => Buffer.from(v, 'latin1').toString('base64')],
  ['trim', (v) => trimRight(trimLeft(v))],
  ['trimleft', trimLeft],
  ['trimright', trimRight],
])

/**
 * ModSecurity 2.9.7's transformation of that name (case-insensitive), or undefined for `none`
 * (which the caller handles: it clears the rule's inherited transformations) and unknown names.
 */
export function transformation(name: string): Transformation | undefined {
  return TRANSFORMATIONS.get(name.toLowerCase())
}
