// Parser of the vendor's regex dialect (Rust's regex crate syntax): a pattern to its syntax tree,
// accepting and refusing what the vendor does (https://docs.rs/regex/latest/regex/#syntax).
//
// One piece over 500 lines: a recursive-descent parser whose methods (alternation, groups and
// flags, escapes, bracket classes with their set operations) call each other and share the
// cursor and flag state of one class.

import {
  asciiFold,
  ASCII_CLASSES,
  differenceRanges,
  intersectRanges,
  negateRanges,
  normalize,
  PERL_DIGIT,
  PERL_SPACE,
  PERL_WORD,
  rangesText,
  symdiffRanges,
} from './ranges'
import {
  DEFAULT_FLAGS,
  RegexSyntaxError,
  type AssertKind,
  type ClassSet,
  type Flags,
  type RegexNode,
} from './tree'
import {
  AMPERSAND,
  ASTERISK,
  BACKSLASH,
  BELL,
  CARET,
  CARRIAGE_RETURN,
  CASE_BIT,
  COLON,
  COMMA,
  DIGIT_0,
  DIGIT_9,
  DOLLAR,
  DOT,
  EQUALS,
  EXCLAMATION_MARK,
  FORM_FEED,
  GREATER_THAN,
  HASH,
  HYPHEN,
  isAlnum,
  isDigit,
  isLower,
  isUpper,
  LEFT_BRACE,
  LEFT_BRACKET,
  LEFT_PAREN,
  LESS_THAN,
  LINE_FEED,
  LOWER_A,
  LOWER_B,
  LOWER_D,
  LOWER_F,
  LOWER_I,
  LOWER_M,
  LOWER_N,
  LOWER_P,
  LOWER_R,
  LOWER_S,
  LOWER_T,
  LOWER_U,
  LOWER_V,
  LOWER_W,
  LOWER_X,
  LOWER_Z,
  PLUS,
  QUESTION_MARK,
  RIGHT_BRACE,
  RIGHT_BRACKET,
  RIGHT_PAREN,
  SPACE,
  TAB,
  TILDE,
  UNDERSCORE,
  UPPER_A,
  UPPER_B,
  UPPER_D,
  UPPER_P,
  UPPER_R,
  UPPER_S,
  UPPER_U,
  UPPER_W,
  VERTICAL_BAR,
  VERTICAL_TAB,
} from '../values/chars'

const NEST_LIMIT = 250

export class Parser {
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
      if (
        c === SPACE ||
        c === TAB ||
        c === LINE_FEED ||
        c === VERTICAL_TAB ||
        c === FORM_FEED ||
        c === CARRIAGE_RETURN
      )
        this.pos++
      else if (c === HASH) {
        while (!this.atEnd() && this.peek() !== LINE_FEED) this.pos++
      } else return
    }
  }

  nest(): void {
    if (++this.depth > NEST_LIMIT) {
      this.error(`exceed the maximum number of nested parentheses/brackets (${NEST_LIMIT})`)
    }
  }

  parse(): RegexNode {
    const node = this.parseAlternation(DEFAULT_FLAGS, true)
    return node
  }

  /** alternation until `)` (when nested) or the end; returns with `pos` at the `)` */
  parseAlternation(initial: Flags, top: boolean): RegexNode {
    const flags = { current: initial }
    const branches: RegexNode[] = []
    let items: RegexNode[] = []
    for (;;) {
      this.skipVerbose(flags.current)
      if (this.atEnd()) break
      const c = this.peek()
      if (c === RIGHT_PAREN) {
        if (top) this.error('unopened group')
        break
      }
      if (c === VERTICAL_BAR) {
        this.pos++
        branches.push(concat(items))
        items = []
        continue
      }
      if (c === ASTERISK || c === PLUS || c === QUESTION_MARK) {
        this.pos++
        this.applyRepetition(
          items,
          c === ASTERISK ? 0 : c === PLUS ? 1 : 0,
          c === QUESTION_MARK ? 1 : Infinity,
          flags.current,
        )
        continue
      }
      if (c === LEFT_BRACE) {
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
    return branches.length === 1 ? (branches[0] as RegexNode) : { t: 'alt', items: branches }
  }

  applyRepetition(items: RegexNode[], min: number, max: number, f: Flags): void {
    const last = items.pop()
    if (!last || last.t === 'empty') this.error('repetition operator missing expression')
    let greedy = true
    if (this.peek() === QUESTION_MARK) {
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
    if (this.peek() === COMMA) {
      this.pos++
      ws()
      if (this.peek() === RIGHT_BRACE) max = Infinity
      else max = this.decimal()
      ws()
    }
    if (this.peek() !== RIGHT_BRACE) this.error('unclosed counted repetition')
    this.pos++
    if (max < min) this.error('invalid repetition count range, the start must be <= the end')
    return [min, max]
  }

  decimal(): number {
    const start = this.pos
    while (this.peek() >= DIGIT_0 && this.peek() <= DIGIT_9) this.pos++
    if (this.pos === start) {
      if (this.atEnd()) this.error('unclosed counted repetition')
      this.error('repetition quantifier expects a valid decimal')
    }
    const v = Number(String.fromCodePoint(...this.cps.slice(start, this.pos)))
    if (v > 0xffffffff) this.error('decimal literal invalid')
    return v
  }

  parseAtom(flags: { current: Flags }): RegexNode | undefined {
    const f = flags.current
    const c = this.peek()
    switch (c) {
      case LEFT_PAREN:
        return this.parseGroup(flags)
      case LEFT_BRACKET:
        this.pos++
        return { t: 'class', set: this.parseBracketClass(f), f }
      case DOT:
        this.pos++
        return { t: 'dot', f }
      case CARET:
        this.pos++
        return { t: 'assert', kind: 'start', f }
      case DOLLAR:
        this.pos++
        return { t: 'assert', kind: 'end', f }
      case BACKSLASH:
        return this.parseEscapeAtom(f)
      default:
        this.pos++
        return { t: 'lit', cp: c, byte: false, f }
    }
  }

  parseGroup(flags: { current: Flags }): RegexNode | undefined {
    this.pos++ // (
    this.nest()
    let capture = true
    let name: string | undefined
    let inner = flags.current
    if (this.peek() === QUESTION_MARK) {
      this.pos++
      const c = this.peek()
      if (
        c === EQUALS ||
        c === EXCLAMATION_MARK ||
        (c === LESS_THAN && (this.peek(1) === EQUALS || this.peek(1) === EXCLAMATION_MARK))
      ) {
        this.error('look-around, including look-ahead and look-behind, is not supported')
      }
      if (c === UPPER_P && this.peek(1) === LESS_THAN) {
        this.pos += 2
        name = this.captureName()
      } else if (c === LESS_THAN) {
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
    if (this.peek() !== RIGHT_PAREN) this.error('unclosed group')
    this.pos++
    this.depth--
    return { t: 'group', node, capture, name }
  }

  captureName(): string {
    const start = this.pos
    while (!this.atEnd() && this.peek() !== GREATER_THAN) {
      const c = this.peek()
      const ok =
        c === UNDERSCORE ||
        isUpper(c) ||
        isLower(c) ||
        (this.pos > start && (isDigit(c) || c === DOT || c === LEFT_BRACKET || c === RIGHT_BRACKET))
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
      if (c === RIGHT_PAREN || c === COLON) {
        if (sawNegation && !sawFlag) this.error('expected flag but got end of regex')
        if (!sawFlag && !sawNegation && c === RIGHT_PAREN) this.error('empty flag')
        return [set, c === RIGHT_PAREN ? 'close' : 'colon']
      }
      if (c === HYPHEN) {
        if (sawNegation) this.error('flag negation operator repeated')
        sawNegation = true
        negate = true
        sawFlag = false
        continue
      }
      const key = (
        {
          [LOWER_I]: 'i',
          [LOWER_M]: 'm',
          [LOWER_S]: 's',
          [UPPER_U]: 'U',
          [LOWER_U]: 'u',
          [LOWER_X]: 'x',
          [UPPER_R]: 'R',
        } as Record<number, keyof Flags | undefined>
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
  parseEscapeAtom(f: Flags): RegexNode {
    this.pos++ // backslash
    if (this.atEnd()) this.error('incomplete escape sequence, reached end of pattern prematurely')
    const c = this.peek()
    switch (c) {
      case UPPER_A: // \A
        this.pos++
        return { t: 'assert', kind: 'startText', f }
      case LOWER_Z: // \z
        this.pos++
        return { t: 'assert', kind: 'endText', f }
      case UPPER_B: // \B
        this.pos++
        return { t: 'assert', kind: 'notWord', f }
      case LESS_THAN: // \<
        this.pos++
        this.usesLookbehind = true
        return { t: 'assert', kind: 'wordStart', f }
      case GREATER_THAN: // \>
        this.pos++
        this.usesLookbehind = true
        return { t: 'assert', kind: 'wordEnd', f }
      case LOWER_B: {
        // \b or \b{...}
        this.pos++
        if (this.peek() === LEFT_BRACE) {
          const save = this.pos
          let end = this.pos + 1
          while (end < this.cps.length && this.cps[end] !== RIGHT_BRACE) end++
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
      case LOWER_A:
        return lit(BELL)
      case LOWER_F:
        return lit(FORM_FEED)
      case LOWER_T:
        return lit(TAB)
      case LOWER_N:
        return lit(LINE_FEED)
      case LOWER_R:
        return lit(CARRIAGE_RETURN)
      case LOWER_V:
        return lit(VERTICAL_TAB)
      case LOWER_X:
        return this.parseHex(2)
      case LOWER_U:
        return this.parseHex(4)
      case UPPER_U:
        return this.parseHex(8)
      case LOWER_D:
      case UPPER_D:
      case LOWER_S:
      case UPPER_S:
      case LOWER_W:
      case UPPER_W:
        return { kind: 'class', set: perlClass(c, f) }
      case LOWER_P:
      case UPPER_P:
        return { kind: 'class', set: this.parseUnicodeClass(c === UPPER_P, f) }
      default:
        break
    }
    if (isDigit(c)) this.error('backreferences are not supported')
    if (isEscapeable(c)) return lit(c)
    this.error('unrecognized escape sequence')
  }

  parseHex(digits: number): { kind: 'lit'; cp: number; byte: boolean } {
    let hex = ''
    let braced = false
    if (this.peek() === LEFT_BRACE) {
      braced = true
      this.pos++
      while (!this.atEnd() && this.peek() !== RIGHT_BRACE) {
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
    if (this.peek() === LEFT_BRACE) {
      const start = this.pos + 1
      let end = start
      while (end < this.cps.length && this.cps[end] !== RIGHT_BRACE) end++
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
    if (this.peek() === CARET) {
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
      if (c === RIGHT_BRACKET && !first) {
        this.pos++
        break
      }
      first = false
      if (
        (c === AMPERSAND && this.peek(1) === AMPERSAND) ||
        (c === HYPHEN && this.peek(1) === HYPHEN) ||
        (c === TILDE && this.peek(1) === TILDE)
      ) {
        this.pos += 2
        lhs = combine()
        op = c === AMPERSAND ? 'and' : c === HYPHEN ? 'minus' : 'xor'
        union = { ranges: [], opaque: [], negated: false }
        continue
      }
      if (c === LEFT_BRACKET) {
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
        this.peek() === HYPHEN &&
        this.peek(1) !== RIGHT_BRACKET &&
        this.peek(1) !== HYPHEN &&
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
    if (c === BACKSLASH) {
      this.pos++
      const b = this.peek()
      if (
        b === LOWER_B ||
        b === UPPER_B ||
        b === UPPER_A ||
        b === LOWER_Z ||
        b === LESS_THAN ||
        b === GREATER_THAN
      ) {
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
    if (this.peek(1) !== COLON) return undefined
    let end = this.pos + 2
    while (end < this.cps.length && this.cps[end] !== COLON && end - this.pos < 16) end++
    if (this.cps[end] !== COLON || this.cps[end + 1] !== RIGHT_BRACKET) return undefined
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
  if (isAlnum(c)) return false
  if (c === LESS_THAN || c === GREATER_THAN) return false
  return true
}

function perlClass(c: number, f: Flags): ClassSet {
  const lower = c | CASE_BIT
  const negated = c < LOWER_A
  if (f.u) {
    const text =
      lower === LOWER_D
        ? '\\p{Nd}'
        : lower === LOWER_S
          ? '[\\t\\n\\v\\f\\r \\x{85}\\p{Z}]'
          : '[\\p{L}\\p{M}\\p{Nd}\\p{Pc}]'
    return { ranges: [], opaque: [text], negated }
  }
  const base = lower === LOWER_D ? PERL_DIGIT : lower === LOWER_S ? PERL_SPACE : PERL_WORD
  const ranges = base.map(([a, b]) => [a, b] as [number, number])
  return { ranges: negated ? negateRanges(ranges, 0xff) : ranges, opaque: [], negated: false }
}

function concat(items: RegexNode[]): RegexNode {
  if (items.length === 0) return { t: 'empty' }
  if (items.length === 1) return items[0] as RegexNode
  return { t: 'concat', items }
}

/** The syntax tree of a pattern of the vendor's dialect (throws RegexSyntaxError). */
export function parseRegex(pattern: string): RegexNode {
  return new Parser(pattern).parse()
}
