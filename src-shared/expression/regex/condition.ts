// What every match of a pattern satisfies, derived from its syntax tree: the condition the
// prefilter (prefilter.ts) tests before the automaton runs.
//
// The condition is an AND / OR tree of two kinds of atoms: "this literal occurs" (compared in ASCII
// lower case) and "some byte of this set occurs".
//
// The analysis is deliberately loose, never strict: anything it cannot bound (`.`, optional parts,
// characters whose Unicode case folding leaves ASCII, non-ASCII characters in Unicode mode) makes
// that part of the pattern require nothing rather than risk refusing a match.

import { asciiLower } from '../values/bytes'
import type { RegexNode } from './tree'
import { CASE_BIT, isLower } from '../values/chars'

/** What every match satisfies. */
export type Condition =
  | { readonly kind: 'anything' }
  | { readonly kind: 'literal'; readonly text: string }
  /** some byte of the set occurs: a 256-bit mask */
  | { readonly kind: 'byte'; readonly mask: Int32Array }
  | { readonly kind: 'all' | 'some'; readonly of: readonly Condition[] }

/** What a node matches: every string, lower-cased, when there are few; else a condition. */
interface Info {
  readonly exact: ReadonlySet<string> | null
  /** what the node's matches satisfy when `exact` is null */
  readonly condition: Condition
}

const MAX_EXACT = 16
const MAX_CLASS = 8
/** the characters of a literal kept, the last ones of a longer literal */
export const MAX_LITERAL = 8
const ANYTHING: Condition = { kind: 'anything' }
const UNKNOWN: Info = { exact: null, condition: ANYTHING }
const EMPTY_STRING: Info = { exact: new Set(['']), condition: ANYTHING }

// Under Unicode case folding, `k` and `s` also match the Kelvin sign and the long s.
const UNICODE_FOLDS = new Set(['k', 's'])

function lowerChar(cp: number): string {
  return asciiLower(String.fromCharCode(cp))
}

function allOf(conditions: readonly Condition[]): Condition {
  const of = conditions.flatMap((c) => (c.kind === 'all' ? c.of : c.kind === 'anything' ? [] : [c]))
  return of.length === 0 ? ANYTHING : of.length === 1 ? of[0]! : { kind: 'all', of }
}

function someOf(conditions: readonly Condition[]): Condition {
  if (conditions.some((c) => c.kind === 'anything')) return ANYTHING
  const flat = conditions.flatMap((c) => (c.kind === 'some' ? c.of : [c]))
  // One of several byte sets is one byte set.
  const bytes = flat.filter((c) => c.kind === 'byte')
  const of: Condition[] = flat.filter((c) => c.kind !== 'byte')
  if (bytes.length > 0) {
    const mask = new Int32Array(8)
    for (const c of bytes) for (let word = 0; word < 8; word++) mask[word]! |= c.mask[word]!
    of.push({ kind: 'byte', mask })
  }
  return of.length === 1 ? of[0]! : { kind: 'some', of }
}

/** A literal of one character is a byte set (both cases of a letter): no automaton needed. */
export function literalCondition(text: string): Condition {
  if (text.length > 1) return { kind: 'literal', text }
  const c = text.charCodeAt(0)
  const isLetter = isLower(c)
  return {
    kind: 'byte',
    mask: byteMask(
      isLetter
        ? [
            [c, c],
            [c - CASE_BIT, c - CASE_BIT],
          ]
        : [[c, c]],
    ),
  }
}

function exactCondition(exact: ReadonlySet<string>): Condition {
  if (exact.has('')) return ANYTHING
  return someOf([...exact].map(literalCondition))
}

function conditionOf(info: Info): Condition {
  return info.exact === null ? info.condition : exactCondition(info.exact)
}

function byteMask(ranges: readonly (readonly [number, number])[]): Int32Array {
  const mask = new Int32Array(8)
  for (const [from, to] of ranges)
    for (let b = from; b <= Math.min(to, 0xff); b++) mask[b >> 5]! |= 1 << (b & 31)
  return mask
}

function classInfo(node: Extract<RegexNode, { t: 'class' }>, unicode: boolean): Info {
  const { set } = node
  if (set.negated || set.opaque.length > 0) return UNKNOWN
  const unicodeFolds = node.f.i && node.f.u
  // In Unicode mode a class is tried on characters: only ASCII ones are single bytes.
  if (unicode && set.ranges.some(([, to]) => to >= 0x80)) return UNKNOWN
  const size = set.ranges.reduce((n, [from, to]) => n + to - from + 1, 0)
  // A few ASCII characters (both cases of each letter counting once) are exact strings.
  if (size <= 2 * MAX_CLASS && set.ranges.every(([, to]) => to < 0x80)) {
    const chars = new Set<string>()
    for (const [from, to] of set.ranges)
      for (let cp = from; cp <= to; cp++) chars.add(lowerChar(cp))
    if (unicodeFolds && [...chars].some((c) => UNICODE_FOLDS.has(c))) return UNKNOWN
    if (chars.size <= MAX_CLASS) return { exact: chars, condition: ANYTHING }
  }
  if (!unicodeFolds) return { exact: null, condition: { kind: 'byte', mask: byteMask(set.ranges) } }
  // Under Unicode case folding the class also holds the other case of each ASCII letter.
  const folded: [number, number][] = []
  for (const [from, to] of set.ranges) {
    for (let cp = from; cp <= to; cp++) {
      const lower = cp | CASE_BIT
      if (isLower(lower)) {
        if (UNICODE_FOLDS.has(String.fromCharCode(lower))) return UNKNOWN
        folded.push([lower, lower], [lower & ~CASE_BIT, lower & ~CASE_BIT])
      }
    }
  }
  return { exact: null, condition: { kind: 'byte', mask: byteMask([...set.ranges, ...folded]) } }
}

const longest = (strings: ReadonlySet<string>) => Math.max(...[...strings].map((s) => s.length))

function concatInfo(items: readonly RegexNode[], unicode: boolean): Info {
  const conditions: Condition[] = []
  // The exact strings of the items since the last one that was not exact enough, or that would
  // have made them longer than MAX_LITERAL: a long literal is required piece by piece, which keeps
  // the automaton small enough to stay in the processor's cache (a few characters are as rare as
  // many).
  let run: ReadonlySet<string> = new Set([''])
  let whole = true
  for (const item of items) {
    const info = analyze(item, unicode)
    if (
      info.exact !== null &&
      run.size * info.exact.size <= MAX_EXACT &&
      longest(run) + longest(info.exact) <= MAX_LITERAL
    ) {
      const product = new Set<string>()
      for (const left of run) for (const right of info.exact) product.add(left + right)
      run = product
      continue
    }
    whole = false
    conditions.push(exactCondition(run))
    if (info.exact !== null) run = info.exact
    else {
      conditions.push(info.condition)
      run = new Set([''])
    }
  }
  if (whole) return { exact: run, condition: ANYTHING }
  conditions.push(exactCondition(run))
  return { exact: null, condition: allOf(conditions) }
}

function altInfo(items: readonly RegexNode[], unicode: boolean): Info {
  const infos = items.map((item) => analyze(item, unicode))
  if (infos.every((info) => info.exact !== null)) {
    const exact = new Set<string>()
    for (const info of infos) for (const s of info.exact!) exact.add(s)
    if (exact.size <= MAX_EXACT) return { exact, condition: ANYTHING }
  }
  return { exact: null, condition: someOf(infos.map(conditionOf)) }
}

function analyze(node: RegexNode, unicode: boolean): Info {
  switch (node.t) {
    case 'empty':
    case 'assert':
      return EMPTY_STRING
    case 'lit': {
      if (node.cp >= 0x80) {
        // A raw byte (`\xHH` without Unicode) is that byte of the input.
        return !unicode && node.byte
          ? { exact: null, condition: { kind: 'byte', mask: byteMask([[node.cp, node.cp]]) } }
          : UNKNOWN
      }
      const char = lowerChar(node.cp)
      if (node.f.i && node.f.u && UNICODE_FOLDS.has(char)) return UNKNOWN
      return { exact: new Set([char]), condition: ANYTHING }
    }
    case 'class':
      return classInfo(node, unicode)
    case 'dot':
      return UNKNOWN
    case 'group':
      return analyze(node.node, unicode)
    case 'concat':
      return concatInfo(node.items, unicode)
    case 'alt':
      return altInfo(node.items, unicode)
    case 'rep': {
      const inner = analyze(node.node, unicode)
      if (node.min === 0) {
        // Optional: it may match nothing, so it requires nothing.
        return node.max === 1 && inner.exact !== null
          ? { exact: new Set(['', ...inner.exact]), condition: ANYTHING }
          : UNKNOWN
      }
      if (node.min === 1 && node.max === 1) return inner
      return { exact: null, condition: conditionOf(inner) }
    }
  }
}

/** What every match of a pattern satisfies (`unicode`: the pattern runs on decoded text). */
export function patternCondition(tree: RegexNode, unicode: boolean): Condition {
  return conditionOf(analyze(tree, unicode))
}
