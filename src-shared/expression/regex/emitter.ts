// The emitter: a parsed pattern as an equivalent RE2 pattern for re2js, and its approximate size
// in automaton states.

import { cpText, rangesText } from './ranges'
import type { AssertKind, ClassSet, Flags, RegexNode } from './tree'
import { CASE_BIT, isLower, isUpper } from '../values/chars'

/** The UTF-8 bytes of a code point (a literal above 0x7f in byte mode). */
export function utf8Of(cp: number): number[] {
  return Array.from(new TextEncoder().encode(String.fromCodePoint(cp)))
}

/** Approximate NFA size in states (for the vendor's compiled size limit). */
export function sizeOf(n: RegexNode): number {
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
function repeatProduct(n: RegexNode): number {
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

export class Emitter {
  constructor(readonly unicode: boolean) {}

  emit(n: RegexNode): string {
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
  atomic(n: RegexNode): string {
    return n.t === 'alt' ? `(?:${this.emit(n)})` : this.emit(n)
  }

  lit(cp: number, byte: boolean, f: Flags): string {
    if (this.unicode) {
      if (f.u && f.i) return `(?i:${cpText(cp)})`
      if (!f.u && f.i && (isUpper(cp) || isLower(cp)))
        return `[${cpText(cp & ~CASE_BIT)}${cpText(cp | CASE_BIT)}]`
      return cpText(cp)
    }
    const bytes = byte || cp < 0x80 ? [cp] : utf8Of(cp)
    let out = ''
    for (const b of bytes) {
      if (f.i && (isUpper(b) || isLower(b)))
        out += `[${cpText(b & ~CASE_BIT)}${cpText(b | CASE_BIT)}]`
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

  rep(n: Extract<RegexNode, { t: 'rep' }>): string {
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
