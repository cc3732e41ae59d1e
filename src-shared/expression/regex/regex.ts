// Regular expressions of the Rules language, on a linear-time engine.
//
// The vendor compiles `matches` patterns with Rust's regex crate with Unicode disabled and UTF-8
// not required: matching is on raw bytes, `.` is any byte but `\n`, `\w \d \s \b` are ASCII,
// `(?i)` folds ASCII only, `\xHH` is a raw byte, and `(?u)` turns Unicode back on. There are no
// look-arounds and no back-references.
//
// This module parses the Rust dialect itself (so it accepts and rejects what the vendor does,
// including verbose mode, nested classes and class set operations, `\b{start}` and friends, and
// counted repetitions above 1000) and emits an equivalent RE2 pattern for re2js, which matches in
// linear time:
//  - byte mode (no `(?u)` anywhere): every byte is emitted as an explicit code unit 0..255 and the
//    input is the field's binary string, so classes, `.` and case folding are exactly byte-wise;
//  - Unicode mode (the pattern enables `u`): the input is decoded from UTF-8 and the pattern is
//    emitted with Unicode semantics (approximations are noted where RE2 differs from Rust).

import { RE2JS } from 're2js'
import { bytesToText, utf8Bytes } from '../values/bytes'
import {
  prefilterOf,
  scannedInput,
  type Clause,
  type Prefilter,
  type ScannedInput,
} from './prefilter'
import { shortcutOf } from './shortcuts'

export const DEFAULT_REGEX_SIZE_LIMIT = 10 * (1 << 20)
/** Approximate bytes per compiled NFA state, used to apply the vendor's size limit. */
const BYTES_PER_STATE = 32
const NEST_LIMIT = 250

export class RegexSyntaxError extends Error {
  constructor(
    message: string,
    readonly tooBig = false,
  ) {
    super(message)
  }
}

export interface CompiledRegex {
  readonly source: string
  readonly unicode: boolean
  readonly groupCount: number
  /** literals and bytes of which every match contains one (undefined: nothing is known) */
  readonly gate: Clause | undefined
  /** unanchored search, as the vendor's `is_match` */
  test(binary: string): boolean
  /**
   * `test` on an input already scanned for the prefilter (shared by every pattern tried on the
   * same value of a request).
   */
  testScanned(input: ScannedInput): boolean
  /**
   * Replaces the first (leftmost-first) match: `expand` receives the capture groups (binary
   * strings, index 0 the whole match) and returns the replacement bytes. Without a match the
   * input is returned unchanged.
   */
  replaceFirst(binary: string, expand: (groups: readonly (string | undefined)[]) => string): string
}

// ---------------------------------------------------------------------------------------------
// Syntax tree

interface Flags {
  readonly i: boolean
  readonly m: boolean
  readonly s: boolean
  readonly U: boolean
  readonly u: boolean
  readonly x: boolean
  readonly R: boolean
}

const DEFAULT_FLAGS: Flags = {
  i: false,
  m: false,
  s: false,
  U: false,
  u: false,
  x: false,
  R: false,
}

type AssertKind =
  | 'start'
  | 'end'
  | 'startText'
  | 'endText'
  | 'word'
  | 'notWord'
  | 'wordStart'
  | 'wordEnd'
  | 'wordStartHalf'
  | 'wordEndHalf'

/** A set of code points (or bytes in byte mode) as sorted disjoint inclusive ranges. */
type Ranges = [number, number][]

interface ClassSet {
  /** explicit code point / byte ranges */
  ranges: Ranges
  /** Unicode-only items that cannot be expanded here (`\pL`, Unicode `\w`), as RE2 text */
  opaque: string[]
  negated: boolean
}

/** The syntax tree of a pattern (read by regex-prefilter.ts). */
export type RegexNode = Node
type Node =
  | { t: 'empty' }
  | { t: 'lit'; cp: number; byte: boolean; f: Flags }
  | { t: 'class'; set: ClassSet; f: Flags }
  | { t: 'dot'; f: Flags }
  | { t: 'assert'; kind: AssertKind; f: Flags }
  | { t: 'rep'; node: Node; min: number; max: number; greedy: boolean }
  | { t: 'group'; node: Node; capture: boolean; name: string | undefined }
  | { t: 'concat'; items: Node[] }
  | { t: 'alt'; items: Node[] }

// ---------------------------------------------------------------------------------------------
// Range arithmetic

function normalize(r: Ranges): Ranges {
  const sorted = r.filter(([a, b]) => a <= b).sort((x, y) => x[0] - y[0])
  const out: Ranges = []
  for (const [a, b] of sorted) {
    const last = out[out.length - 1]
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b)
    else out.push([a, b])
  }
  return out
}

function negateRanges(r: Ranges, max: number): Ranges {
  const out: Ranges = []
  let next = 0
  for (const [a, b] of normalize(r)) {
    if (a > next) out.push([next, a - 1])
    next = b + 1
  }
  if (next <= max) out.push([next, max])
  return out
}

function intersectRanges(a: Ranges, b: Ranges, max: number): Ranges {
  return negateRanges([...negateRanges(a, max), ...negateRanges(b, max)], max)
}

function differenceRanges(a: Ranges, b: Ranges, max: number): Ranges {
  return intersectRanges(a, negateRanges(b, max), max)
}

function symdiffRanges(a: Ranges, b: Ranges, max: number): Ranges {
  return normalize([...differenceRanges(a, b, max), ...differenceRanges(b, a, max)])
}

/** Adds the other ASCII case of every ASCII letter in the set. */
function asciiFold(r: Ranges): Ranges {
  const extra: Ranges = []
  for (const [a, b] of r) {
    const lo = Math.max(a, 65)
    const hi = Math.min(b, 90)
    if (lo <= hi) extra.push([lo + 32, hi + 32])
    const lo2 = Math.max(a, 97)
    const hi2 = Math.min(b, 122)
    if (lo2 <= hi2) extra.push([lo2 - 32, hi2 - 32])
  }
  return normalize([...r, ...extra])
}

const ASCII_CLASSES: Record<string, Ranges> = {
  alnum: [
    [48, 57],
    [65, 90],
    [97, 122],
  ],
  alpha: [
    [65, 90],
    [97, 122],
  ],
  ascii: [[0, 127]],
  blank: [
    [9, 9],
    [32, 32],
  ],
  cntrl: [
    [0, 31],
    [127, 127],
  ],
  digit: [[48, 57]],
  graph: [[33, 126]],
  lower: [[97, 122]],
  print: [[32, 126]],
  punct: [
    [33, 47],
    [58, 64],
    [91, 96],
    [123, 126],
  ],
  space: [
    [9, 13],
    [32, 32],
  ],
  upper: [[65, 90]],
  word: [
    [48, 57],
    [65, 90],
    [95, 95],
    [97, 122],
  ],
  xdigit: [
    [48, 57],
    [65, 70],
    [97, 102],
  ],
}

const PERL_DIGIT: Ranges = [[48, 57]]
const PERL_SPACE: Ranges = [
  [9, 13],
  [32, 32],
]
const PERL_WORD = ASCII_CLASSES.word as Ranges

// ---------------------------------------------------------------------------------------------
// Parser of the Rust regex dialect

class Parser {
  readonly cps: number[]
  pos = 0
  depth = 0
  captureNames = new Set<string>()
  usesUnicode = false
  usesLookbehind = false

  constructor(readonly pattern: string) {
    this.cps = Array.from(pattern, (ch) => ch.codePointAt(0) ?? 0)
  }

  error(message: string): never {
    throw new RegexSyntaxError(`regex parse error: ${message}`)
  }

  peek(offset = 0): number {
    return this.cps[this.pos + offset] ?? -1
  }

  atEnd(): boolean {
    return this.pos >= this.cps.length
  }

  /** In verbose mode, skips whitespace and `#` comments. */
  skipVerbose(f: Flags): void {
    if (!f.x) return
    for (;;) {
      const c = this.peek()
      if (c === 32 || c === 9 || c === 10 || c === 11 || c === 12 || c === 13) this.pos++
      else if (c === 35) {
        while (!this.atEnd() && this.peek() !== 10) this.pos++
      } else return
    }
  }

  nest(): void {
    if (++this.depth > NEST_LIMIT) {
      this.error(`exceed the maximum number of nested parentheses/brackets (${NEST_LIMIT})`)
    }
  }

  parse(): Node {
    const node = this.parseAlternation(DEFAULT_FLAGS, true)
    return node
  }

  /** alternation until `)` (when nested) or the end; returns with `pos` at the `)` */
  parseAlternation(initial: Flags, top: boolean): Node {
    const flags = { current: initial }
    const branches: Node[] = []
    let items: Node[] = []
    for (;;) {
      this.skipVerbose(flags.current)
      if (this.atEnd()) break
      const c = this.peek()
      if (c === 41) {
        if (top) this.error('unopened group')
        break
      }
      if (c === 124) {
        this.pos++
        branches.push(concat(items))
        items = []
        continue
      }
      if (c === 42 || c === 43 || c === 63) {
        this.pos++
        this.applyRepetition(
          items,
          c === 42 ? 0 : c === 43 ? 1 : 0,
          c === 63 ? 1 : Infinity,
          flags.current,
        )
        continue
      }
      if (c === 123) {
        const last = items[items.length - 1]
        if (!last || last.t === 'empty') this.error('repetition operator missing expression')
        const [min, max] = this.tryCounted(flags.current)
        this.applyRepetition(items, min, max, flags.current)
        continue
      }
      const atom = this.parseAtom(flags)
      if (atom) items.push(atom)
    }
    branches.push(concat(items))
    return branches.length === 1 ? (branches[0] as Node) : { t: 'alt', items: branches }
  }

  applyRepetition(items: Node[], min: number, max: number, f: Flags): void {
    const last = items.pop()
    if (!last || last.t === 'empty') this.error('repetition operator missing expression')
    let greedy = true
    if (this.peek() === 63) {
      this.pos++
      greedy = false
    }
    if (f.U) greedy = !greedy
    items.push({ t: 'rep', node: last, min, max, greedy })
  }

  /** `{n}`, `{n,}`, `{n,m}` at `pos`. */
  tryCounted(f: Flags): [number, number] {
    this.pos++ // {
    const ws = () => this.skipVerbose(f)
    ws()
    const min = this.decimal()
    ws()
    let max = min
    if (this.peek() === 44) {
      this.pos++
      ws()
      if (this.peek() === 125) max = Infinity
      else max = this.decimal()
      ws()
    }
    if (this.peek() !== 125) this.error('unclosed counted repetition')
    this.pos++
    if (max < min) this.error('invalid repetition count range, the start must be <= the end')
    return [min, max]
  }

  decimal(): number {
    const start = this.pos
    while (this.peek() >= 48 && this.peek() <= 57) this.pos++
    if (this.pos === start) {
      if (this.atEnd()) this.error('unclosed counted repetition')
      this.error('repetition quantifier expects a valid decimal')
    }
    const v = Number(String.fromCodePoint(...this.cps.slice(start, this.pos)))
    if (v > 0xffffffff) this.error('decimal literal invalid')
    return v
  }

  parseAtom(flags: { current: Flags }): Node | undefined {
    const f = flags.current
    const c = this.peek()
    switch (c) {
      case 40:
        return this.parseGroup(flags)
      case 91:
        this.pos++
        return { t: 'class', set: this.parseBracketClass(f), f }
      case 46:
        this.pos++
        return { t: 'dot', f }
      case 94:
        this.pos++
        return { t: 'assert', kind: 'start', f }
      case 36:
        this.pos++
        return { t: 'assert', kind: 'end', f }
      case 92:
        return this.parseEscapeAtom(f)
      default:
        this.pos++
        return { t: 'lit', cp: c, byte: false, f }
    }
  }

  parseGroup(flags: { current: Flags }): Node | undefined {
    this.pos++ // (
    this.nest()
    let capture = true
    let name: string | undefined
    let inner = flags.current
    if (this.peek() === 63) {
      this.pos++
      const c = this.peek()
      if (c === 61 || c === 33 || (c === 60 && (this.peek(1) === 61 || this.peek(1) === 33))) {
        this.error('look-around, including look-ahead and look-behind, is not supported')
      }
      if (c === 80 && this.peek(1) === 60) {
        this.pos += 2
        name = this.captureName()
      } else if (c === 60) {
        this.pos++
        name = this.captureName()
      } else {
        // flags: (?flags) or (?flags:re)
        const [set, ends] = this.parseFlags(flags.current)
        if (ends === 'close') {
          flags.current = set
          this.depth--
          return undefined
        }
        capture = false
        inner = set
      }
    }
    const node = this.parseAlternation(inner, false)
    if (this.peek() !== 41) this.error('unclosed group')
    this.pos++
    this.depth--
    return { t: 'group', node, capture, name }
  }

  captureName(): string {
    const start = this.pos
    while (!this.atEnd() && this.peek() !== 62) {
      const c = this.peek()
      const ok =
        c === 95 ||
        (c >= 65 && c <= 90) ||
        (c >= 97 && c <= 122) ||
        (this.pos > start && ((c >= 48 && c <= 57) || c === 46 || c === 91 || c === 93))
      if (!ok) this.error('invalid capture group character')
      this.pos++
    }
    if (this.atEnd()) this.error('unclosed capture group name')
    const name = String.fromCodePoint(...this.cps.slice(start, this.pos))
    this.pos++ // >
    if (name.length === 0) this.error('empty capture group name')
    if (this.captureNames.has(name)) this.error('duplicate capture group name')
    this.captureNames.add(name)
    return name
  }

  parseFlags(current: Flags): [Flags, 'close' | 'colon'] {
    const set: { -readonly [K in keyof Flags]: boolean } = { ...current }
    let negate = false
    let sawNegation = false
    let sawFlag = false
    const seen = new Set<number>()
    for (;;) {
      if (this.atEnd()) this.error('expected flag but got end of regex')
      const c = this.peek()
      this.pos++
      if (c === 41 || c === 58) {
        if (sawNegation && !sawFlag) this.error('expected flag but got end of regex')
        if (!sawFlag && !sawNegation && c === 41) this.error('empty flag')
        return [set, c === 41 ? 'close' : 'colon']
      }
      if (c === 45) {
        if (sawNegation) this.error('flag negation operator repeated')
        sawNegation = true
        negate = true
        sawFlag = false
        continue
      }
      const key = (
        { 105: 'i', 109: 'm', 115: 's', 85: 'U', 117: 'u', 120: 'x', 82: 'R' } as Record<
          number,
          keyof Flags | undefined
        >
      )[c]
      if (!key) this.error('unrecognized flag')
      if (seen.has(c)) this.error('duplicate flag')
      seen.add(c)
      sawFlag = true
      set[key] = !negate
      if (key === 'u' && !negate) this.usesUnicode = true
    }
  }

  /** An escape outside a class: literal, class, or assertion. */
  parseEscapeAtom(f: Flags): Node {
    this.pos++ // backslash
    if (this.atEnd()) this.error('incomplete escape sequence, reached end of pattern prematurely')
    const c = this.peek()
    switch (c) {
      case 65: // \A
        this.pos++
        return { t: 'assert', kind: 'startText', f }
      case 122: // \z
        this.pos++
        return { t: 'assert', kind: 'endText', f }
      case 66: // \B
        this.pos++
        return { t: 'assert', kind: 'notWord', f }
      case 60: // \<
        this.pos++
        this.usesLookbehind = true
        return { t: 'assert', kind: 'wordStart', f }
      case 62: // \>
        this.pos++
        this.usesLookbehind = true
        return { t: 'assert', kind: 'wordEnd', f }
      case 98: {
        // \b or \b{...}
        this.pos++
        if (this.peek() === 123) {
          const save = this.pos
          let end = this.pos + 1
          while (end < this.cps.length && this.cps[end] !== 125) end++
          const name = String.fromCodePoint(...this.cps.slice(this.pos + 1, end))
          const kinds: Record<string, AssertKind> = {
            start: 'wordStart',
            end: 'wordEnd',
            'start-half': 'wordStartHalf',
            'end-half': 'wordEndHalf',
          }
          const kind = kinds[name]
          if (kind && end < this.cps.length) {
            this.pos = end + 1
            this.usesLookbehind = true
            return { t: 'assert', kind, f }
          }
          if (/^[a-z-]+$/.test(name) && end < this.cps.length) {
            this.error('unrecognized special word boundary assertion')
          }
          this.pos = save
        }
        return { t: 'assert', kind: 'word', f }
      }
      default: {
        const item = this.parseEscapeItem(f)
        if (item.kind === 'lit') return { t: 'lit', cp: item.cp, byte: item.byte, f }
        return { t: 'class', set: item.set, f }
      }
    }
  }

  /**
   * An escape that denotes a literal or a class (shared by atoms and class items); `pos` is just
   * after the backslash.
   */
  parseEscapeItem(
    f: Flags,
  ): { kind: 'lit'; cp: number; byte: boolean } | { kind: 'class'; set: ClassSet } {
    if (this.atEnd()) this.error('incomplete escape sequence, reached end of pattern prematurely')
    const c = this.peek()
    this.pos++
    const lit = (cp: number, byte = false) => ({ kind: 'lit' as const, cp, byte })
    switch (c) {
      case 97:
        return lit(7)
      case 102:
        return lit(12)
      case 116:
        return lit(9)
      case 110:
        return lit(10)
      case 114:
        return lit(13)
      case 118:
        return lit(11)
      case 120:
        return this.parseHex(2)
      case 117:
        return this.parseHex(4)
      case 85:
        return this.parseHex(8)
      case 100:
      case 68:
      case 115:
      case 83:
      case 119:
      case 87:
        return { kind: 'class', set: perlClass(c, f) }
      case 112:
      case 80:
        return { kind: 'class', set: this.parseUnicodeClass(c === 80, f) }
      default:
        break
    }
    if (c >= 48 && c <= 57) this.error('backreferences are not supported')
    if (isEscapeable(c)) return lit(c)
    this.error('unrecognized escape sequence')
  }

  parseHex(digits: number): { kind: 'lit'; cp: number; byte: boolean } {
    let hex = ''
    let braced = false
    if (this.peek() === 123) {
      braced = true
      this.pos++
      while (!this.atEnd() && this.peek() !== 125) {
        hex += String.fromCodePoint(this.peek())
        this.pos++
      }
      if (this.atEnd()) this.error('hexadecimal literal is missing a closing brace')
      this.pos++
      if (hex.length === 0) this.error('hexadecimal literal empty')
    } else {
      for (let i = 0; i < digits; i++) {
        if (this.atEnd())
          this.error('incomplete escape sequence, reached end of pattern prematurely')
        hex += String.fromCodePoint(this.peek())
        this.pos++
      }
    }
    if (!/^[0-9a-fA-F]+$/.test(hex)) this.error('invalid hexadecimal digit')
    if (hex.length > 8) this.error('hexadecimal literal is not a Unicode scalar value')
    const cp = parseInt(hex, 16)
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      this.error('hexadecimal literal is not a Unicode scalar value')
    }
    // only a fixed-width `\xHH` denotes a raw byte when Unicode is off
    return { kind: 'lit', cp, byte: !braced && digits === 2 }
  }

  parseUnicodeClass(negated: boolean, f: Flags): ClassSet {
    let name: string
    if (this.peek() === 123) {
      const start = this.pos + 1
      let end = start
      while (end < this.cps.length && this.cps[end] !== 125) end++
      if (end >= this.cps.length) this.error('Unicode class missing closing brace')
      name = String.fromCodePoint(...this.cps.slice(start, end))
      this.pos = end + 1
    } else {
      if (this.atEnd()) this.error('incomplete escape sequence, reached end of pattern prematurely')
      name = String.fromCodePoint(this.peek())
      this.pos++
    }
    if (!f.u) this.error('Unicode not allowed here')
    let neg = negated
    if (name.startsWith('^')) {
      neg = !neg
      name = name.slice(1)
    }
    const text = `\\p{${name.replace(/[\s_-]/g, '').replace(/^(script|sc|generalcategory|gc)[=:]/i, '')}}`
    return { ranges: [], opaque: [neg ? text.replace('\\p', '\\P') : text], negated: false }
  }

  /** A bracketed class; `pos` is just after `[`. */
  parseBracketClass(f: Flags): ClassSet {
    this.nest()
    let negated = false
    if (this.peek() === 94) {
      negated = true
      this.pos++
    }
    const max = f.u ? 0x10ffff : 0xff
    let lhs: ClassSet | undefined
    let op: 'and' | 'minus' | 'xor' | undefined
    let union: ClassSet = { ranges: [], opaque: [], negated: false }
    let first = true
    const combine = () => {
      if (!lhs || !op) return union
      if (lhs.opaque.length > 0 || union.opaque.length > 0) {
        this.error('class set operations on Unicode properties are not supported by this simulator')
      }
      const r =
        op === 'and'
          ? intersectRanges(lhs.ranges, union.ranges, max)
          : op === 'minus'
            ? differenceRanges(lhs.ranges, union.ranges, max)
            : symdiffRanges(lhs.ranges, union.ranges, max)
      return { ranges: r, opaque: [], negated: false }
    }
    for (;;) {
      this.skipVerbose(f)
      if (this.atEnd()) this.error('unclosed character class')
      const c = this.peek()
      if (c === 93 && !first) {
        this.pos++
        break
      }
      first = false
      if (
        (c === 38 && this.peek(1) === 38) ||
        (c === 45 && this.peek(1) === 45) ||
        (c === 126 && this.peek(1) === 126)
      ) {
        this.pos += 2
        lhs = combine()
        op = c === 38 ? 'and' : c === 45 ? 'minus' : 'xor'
        union = { ranges: [], opaque: [], negated: false }
        continue
      }
      if (c === 91) {
        const posix = this.tryPosixClass(f)
        if (posix) {
          addToUnion(union, posix)
          continue
        }
        this.pos++
        addToUnion(union, this.parseBracketClass(f))
        continue
      }
      const start = this.classPrimitive(f)
      this.skipVerbose(f)
      if (
        start.kind === 'lit' &&
        this.peek() === 45 &&
        this.peek(1) !== 93 &&
        this.peek(1) !== 45 &&
        this.peek(1) !== -1
      ) {
        this.pos++
        this.skipVerbose(f)
        const end = this.classPrimitive(f)
        if (end.kind !== 'lit')
          this.error('invalid character class range, the start must be <= the end')
        const a = this.classCodePoint(start, f)
        const b = this.classCodePoint(end, f)
        if (a > b) this.error('invalid character class range, the start must be <= the end')
        union.ranges.push([a, b])
      } else if (start.kind === 'lit') {
        const a = this.classCodePoint(start, f)
        union.ranges.push([a, a])
      } else {
        addToUnion(union, start.set)
      }
    }
    this.depth--
    let result = combine()
    if (f.i && !f.u) result = { ...result, ranges: asciiFold(result.ranges) }
    if (f.i && f.u) result = { ...result, opaque: [...result.opaque], ranges: result.ranges }
    result.ranges = normalize(result.ranges)
    if (negated) {
      if (result.opaque.length === 0)
        return { ranges: negateRanges(result.ranges, max), opaque: [], negated: false }
      return { ...result, negated: !result.negated }
    }
    return result
  }

  classPrimitive(
    f: Flags,
  ): { kind: 'lit'; cp: number; byte: boolean } | { kind: 'class'; set: ClassSet } {
    const c = this.peek()
    if (c === 92) {
      this.pos++
      const b = this.peek()
      if (b === 98 || b === 66 || b === 65 || b === 122 || b === 60 || b === 62) {
        this.error('unrecognized escape sequence')
      }
      return this.parseEscapeItem(f)
    }
    this.pos++
    return { kind: 'lit', cp: c, byte: false }
  }

  /** The class member of a literal: a byte (0..255) in byte mode, a code point otherwise. */
  classCodePoint(lit: { cp: number; byte: boolean }, f: Flags): number {
    if (f.u) return lit.cp
    if (lit.byte || lit.cp <= 0x7f) return lit.cp
    this.error('Unicode not allowed here')
  }

  tryPosixClass(f: Flags): ClassSet | undefined {
    // [:name:] or [:^name:]
    if (this.peek(1) !== 58) return undefined
    let end = this.pos + 2
    while (end < this.cps.length && this.cps[end] !== 58 && end - this.pos < 16) end++
    if (this.cps[end] !== 58 || this.cps[end + 1] !== 93) return undefined
    let name = String.fromCodePoint(...this.cps.slice(this.pos + 2, end))
    let negated = false
    if (name.startsWith('^')) {
      negated = true
      name = name.slice(1)
    }
    const ranges = ASCII_CLASSES[name]
    if (!ranges) return undefined
    this.pos = end + 2
    let r = ranges.map(([a, b]) => [a, b] as [number, number])
    if (f.i && (name === 'lower' || name === 'upper')) r = asciiFold(r)
    return {
      ranges: negated ? negateRanges(r, f.u ? 0x10ffff : 0xff) : r,
      opaque: [],
      negated: false,
    }
  }
}

function addToUnion(union: ClassSet, set: ClassSet): void {
  if (set.negated) {
    union.opaque.push(`[^${set.opaque.join('')}${rangesText(set.ranges)}]`)
    return
  }
  union.ranges.push(...set.ranges)
  union.opaque.push(...set.opaque)
}

function isEscapeable(c: number): boolean {
  if (c < 0 || c > 0x7f) return false
  if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return false
  if (c === 60 || c === 62) return false
  return true
}

function perlClass(c: number, f: Flags): ClassSet {
  const lower = c | 0x20
  const negated = c < 97
  if (f.u) {
    const text =
      lower === 100
        ? '\\p{Nd}'
        : lower === 115
          ? '[\\t\\n\\v\\f\\r \\x{85}\\p{Z}]'
          : '[\\p{L}\\p{M}\\p{Nd}\\p{Pc}]'
    return { ranges: [], opaque: [text], negated }
  }
  const base = lower === 100 ? PERL_DIGIT : lower === 115 ? PERL_SPACE : PERL_WORD
  const ranges = base.map(([a, b]) => [a, b] as [number, number])
  return { ranges: negated ? negateRanges(ranges, 0xff) : ranges, opaque: [], negated: false }
}

function concat(items: Node[]): Node {
  if (items.length === 0) return { t: 'empty' }
  if (items.length === 1) return items[0] as Node
  return { t: 'concat', items }
}

// ---------------------------------------------------------------------------------------------
// Emitter (RE2 syntax for re2js)

function cpText(cp: number): string {
  if ((cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122))
    return String.fromCharCode(cp)
  return `\\x{${cp.toString(16)}}`
}

function rangesText(r: Ranges): string {
  let out = ''
  for (const [a, b] of r) out += a === b ? cpText(a) : `${cpText(a)}-${cpText(b)}`
  return out
}

function utf8Of(cp: number): number[] {
  return Array.from(new TextEncoder().encode(String.fromCodePoint(cp)))
}

/** Approximate NFA size in states (for the vendor's compiled size limit). */
function sizeOf(n: Node): number {
  switch (n.t) {
    case 'empty':
      return 0
    case 'lit':
      return n.byte || n.cp < 0x80 || n.f.u ? 1 : utf8Of(n.cp).length
    case 'class':
      return Math.max(1, n.set.ranges.length) + n.set.opaque.length * 8
    case 'dot':
    case 'assert':
      return 1
    case 'rep': {
      const inner = sizeOf(n.node)
      const copies = n.max === Infinity ? Math.max(n.min, 1) + 1 : Math.max(n.max, 1)
      return inner * copies + copies
    }
    case 'group':
      return sizeOf(n.node) + (n.capture ? 2 : 0)
    case 'concat':
      return n.items.reduce((s, i) => s + sizeOf(i), 0)
    case 'alt':
      return n.items.reduce((s, i) => s + sizeOf(i), 0) + n.items.length
  }
}

/** The largest product of nested counted repetitions (RE2 refuses products above 1000). */
function repeatProduct(n: Node): number {
  switch (n.t) {
    case 'rep': {
      const count = n.max === Infinity ? Math.max(n.min, 1) : Math.max(n.max, 1)
      return count * repeatProduct(n.node)
    }
    case 'group':
      return repeatProduct(n.node)
    case 'concat':
    case 'alt':
      return n.items.reduce((m, i) => Math.max(m, repeatProduct(i)), 1)
    default:
      return 1
  }
}

class Emitter {
  constructor(readonly unicode: boolean) {}

  emit(n: Node): string {
    switch (n.t) {
      case 'empty':
        return '(?:)'
      case 'lit':
        return this.lit(n.cp, n.byte, n.f)
      case 'class':
        return this.cls(n.set, n.f)
      case 'dot':
        if (this.unicode) return n.f.s ? '(?s:.)' : n.f.R ? '[^\\n\\r]' : '[^\\n]'
        return n.f.s ? '[\\x{0}-\\x{ff}]' : n.f.R ? '[^\\n\\r]' : '[^\\n]'
      case 'assert':
        return this.assertion(n.kind, n.f)
      case 'group': {
        const inner = this.emit(n.node)
        if (!n.capture) return `(?:${inner})`
        return n.name !== undefined ? `(?P<${n.name}>${inner})` : `(${inner})`
      }
      case 'concat':
        return n.items.map((i) => this.atomic(i)).join('')
      case 'alt':
        return n.items.map((i) => this.emit(i)).join('|')
      case 'rep':
        return this.rep(n)
    }
  }

  /** Emits a node so that it can be followed by other items in a concatenation. */
  atomic(n: Node): string {
    return n.t === 'alt' ? `(?:${this.emit(n)})` : this.emit(n)
  }

  lit(cp: number, byte: boolean, f: Flags): string {
    if (this.unicode) {
      if (f.u && f.i) return `(?i:${cpText(cp)})`
      if (!f.u && f.i && ((cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122)))
        return `[${cpText(cp & ~0x20)}${cpText(cp | 0x20)}]`
      return cpText(cp)
    }
    const bytes = byte || cp < 0x80 ? [cp] : utf8Of(cp)
    let out = ''
    for (const b of bytes) {
      if (f.i && ((b >= 65 && b <= 90) || (b >= 97 && b <= 122)))
        out += `[${cpText(b & ~0x20)}${cpText(b | 0x20)}]`
      else out += cpText(b)
    }
    return bytes.length > 1 ? `(?:${out})` : out
  }

  cls(set: ClassSet, f: Flags): string {
    if (set.opaque.length === 0 && !set.negated) {
      if (set.ranges.length === 0) return '[^\\x{0}-\\x{10ffff}]'
      return `[${rangesText(set.ranges)}]`
    }
    const body = `${set.opaque.map((o) => (o.startsWith('[') ? o.slice(1, -1) : o)).join('')}${rangesText(set.ranges)}`
    const negatedOpaque = set.opaque.some((o) => o.startsWith('[^'))
    const text = negatedOpaque
      ? `(?:${[...set.opaque, ...(set.ranges.length ? [`[${rangesText(set.ranges)}]`] : [])].join('|')})`
      : `[${set.negated ? '^' : ''}${body}]`
    return f.i && f.u ? `(?i:${text})` : text
  }

  assertion(kind: AssertKind, f: Flags): string {
    const w = this.unicode && f.u ? '[\\p{L}\\p{M}\\p{Nd}\\p{Pc}]' : '[0-9A-Za-z_]'
    switch (kind) {
      case 'start':
        return f.m ? '(?m:^)' : '\\A'
      case 'end':
        return f.m ? '(?m:$)' : '\\z'
      case 'startText':
        return '\\A'
      case 'endText':
        return '\\z'
      case 'word':
        return '\\b'
      case 'notWord':
        return '\\B'
      case 'wordStart':
        return `(?<!${w})\\b`
      case 'wordEnd':
        return `(?<=${w})\\b`
      case 'wordStartHalf':
        return `(?<!${w})`
      case 'wordEndHalf':
        return `(?:(?<=${w})\\b|(?<!${w})\\B)`
    }
  }

  rep(n: Extract<Node, { t: 'rep' }>): string {
    const inner = this.emit(n.node)
    const atom =
      n.node.t === 'lit' && inner.length <= 12 && !inner.startsWith('(?:') ? inner : `(?:${inner})`
    const lazy = n.greedy ? '' : '?'
    const { min, max } = n
    const innerProduct = repeatProduct(n.node)
    const fits = (max === Infinity ? min : max) * innerProduct <= 1000
    if (fits) {
      if (min === 0 && max === Infinity) return `${atom}*${lazy}`
      if (min === 1 && max === Infinity) return `${atom}+${lazy}`
      if (min === 0 && max === 1) return `${atom}?${lazy}`
      if (max === Infinity) return `${atom}{${min},}${lazy}`
      if (min === max) return `${atom}{${min}}`
      return `${atom}{${min},${max}}${lazy}`
    }
    // RE2 caps repetition counts at 1000 (also for nested products): expand into a sequence.
    const chunk = Math.max(1, Math.floor(1000 / innerProduct))
    const parts: string[] = []
    let remaining = min
    while (remaining > 0) {
      const k = Math.min(chunk, remaining)
      parts.push(k === 1 ? atom : chunk === 1 ? atom : `${atom}{${k}}`)
      remaining -= k
    }
    if (max === Infinity) {
      parts.push(`${atom}*${lazy}`)
    } else {
      let optional = max - min
      while (optional > 0) {
        const k = Math.min(chunk, optional)
        parts.push(k === 1 || chunk === 1 ? `${atom}?${lazy}` : `${atom}{0,${k}}${lazy}`)
        optional -= k
      }
    }
    return `(?:${parts.join('')})`
  }
}

// ---------------------------------------------------------------------------------------------
// Compilation and cache

const cache = new Map<string, CompiledRegex>()
const CACHE_LIMIT = 2000

function translateRe2Error(e: unknown): RegexSyntaxError {
  const msg = e instanceof Error ? e.message : String(e)
  if (/invalid character class range: `\\[pP]/.test(msg) || /invalid .*\\p/.test(msg)) {
    return new RegexSyntaxError('regex parse error: Unicode property not found')
  }
  return new RegexSyntaxError(`regex parse error: ${msg.replace(/^error parsing regexp: /, '')}`)
}

/** The syntax tree of a pattern of the vendor's dialect (throws RegexSyntaxError). */
export function parseRegex(pattern: string): RegexNode {
  return new Parser(pattern).parse()
}

/**
 * Compiles a pattern of the vendor's dialect (cached by pattern text and size limit). Throws
 * RegexSyntaxError with a one-line version of the vendor's message.
 */
export function compileRegex(pattern: string, sizeLimit = DEFAULT_REGEX_SIZE_LIMIT): CompiledRegex {
  const key = `${sizeLimit}\u0000${pattern}`
  const hit = cache.get(key)
  if (hit) return hit
  const parser = new Parser(pattern)
  const tree = parser.parse()
  const states = sizeOf(tree)
  if (states * BYTES_PER_STATE > sizeLimit) {
    throw new RegexSyntaxError(`Compiled regex exceeds size limit of ${sizeLimit} bytes.`, true)
  }
  const unicode = parser.usesUnicode
  const emitted = new Emitter(unicode).emit(tree)
  let re: RE2JS
  try {
    re = RE2JS.compile(emitted, parser.usesLookbehind ? RE2JS.LOOKBEHINDS : 0)
  } catch (e) {
    throw translateRe2Error(e)
  }
  const compiled = new Re2Regex(
    pattern,
    unicode,
    re,
    prefilterOf(tree, unicode),
    unicode ? undefined : shortcutOf(tree),
  )
  if (cache.size >= CACHE_LIMIT) {
    const first = cache.keys().next()
    if (!first.done) cache.delete(first.value)
  }
  cache.set(key, compiled)
  return compiled
}

/** A pattern on re2js, behind its prefilter. A class, so that calls to it stay monomorphic. */
class Re2Regex implements CompiledRegex {
  readonly groupCount: number

  constructor(
    readonly source: string,
    readonly unicode: boolean,
    private readonly re: RE2JS,
    /** most inputs lack what a match needs: they are refused without running the automaton */
    private readonly prefilter: Prefilter | undefined,
    /** an exact one-pass test for the shapes regex-shortcuts.ts knows */
    private readonly shortcut: ((binary: string) => boolean) | undefined,
  ) {
    this.groupCount = re.groupCount()
  }

  get gate(): Clause | undefined {
    return this.prefilter?.gate
  }

  test(binary: string): boolean {
    return (
      (this.prefilter === undefined || this.prefilter.admits(scannedInput(binary))) &&
      this.run(binary)
    )
  }

  testScanned(input: ScannedInput): boolean {
    return (this.prefilter === undefined || this.prefilter.admits(input)) && this.run(input.binary)
  }

  replaceFirst(
    binary: string,
    expand: (groups: readonly (string | undefined)[]) => string,
  ): string {
    if (this.unicode) {
      const text = bytesToText(binary)
      const m = this.re.exec(text)
      if (!m) return binary
      const groups = groupsOf(m).map((g) => (g === undefined ? undefined : utf8Bytes(g)))
      const index = matchIndex(m)
      const whole = groupsOf(m)[0] ?? ''
      return (
        utf8Bytes(text.slice(0, index)) +
        expand(groups) +
        utf8Bytes(text.slice(index + whole.length))
      )
    }
    const m = this.re.exec(binary)
    if (!m) return binary
    const groups = groupsOf(m)
    const index = matchIndex(m)
    const whole = groups[0] ?? ''
    return binary.slice(0, index) + expand(groups) + binary.slice(index + whole.length)
  }

  private run(binary: string): boolean {
    if (this.shortcut !== undefined) return this.shortcut(binary)
    return this.re.test(this.unicode ? bytesToText(binary) : binary)
  }
}

function groupsOf(m: unknown[]): (string | undefined)[] {
  return Array.from(m, (g) => (typeof g === 'string' ? g : undefined))
}

function matchIndex(m: unknown[]): number {
  const index = (m as { index?: unknown }).index
  return typeof index === 'number' ? index : 0
}

/** Validates a pattern without keeping the compiled form; returns the error message or undefined. */
export function regexError(
  pattern: string,
  sizeLimit = DEFAULT_REGEX_SIZE_LIMIT,
): string | undefined {
  try {
    compileRegex(pattern, sizeLimit)
    return undefined
  } catch (e) {
    if (e instanceof RegexSyntaxError) return e.message
    throw e
  }
}
