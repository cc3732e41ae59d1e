// What an expression needs of a request before it can be true: a quick, conservative test run
// before its closures.
//
// Managed rules are mostly disjunctions of patterns over a few request values
// (`url_decode(http.request.uri.query) matches "…" or url_decode(http.request.body.raw) matches
// "…"`). On ordinary traffic every pattern's prefilter refuses its value, but finding that out
// through the compiled closures walks a dozen small objects per rule, and with hundreds of rules
// that walk is bound by memory latency. An expression's needs list, for each pattern it cannot be
// true without, the shared value the pattern reads and its prefilter's gate (a clause of literals
// and bytes, one of which every match contains). A RequirementTable lays the needs of every rule
// a zone runs out in one typed array and resolves each shared value's scanned bits once per
// request: a rule none of whose gates is met is false without running its closures.
//
// The derivation only ever weakens: `a or b` needs what a needs or what b needs (both must have
// needs), `a and b` needs what either needs (the most selective is kept; none when a needs none,
// see needsOfAll), a comparison with text (`contains`, `eq`, `in`, starts_with(), ends_with())
// needs its value to contain that text, and everything else (`not`, `xor`, `all()`, other
// comparisons) needs nothing a table can express.

import type { EvaluationContext } from '../values/evaluation'
import { coverRegisteredLiterals, type Clause, type ScannedInput } from '../regex/prefilter'
import type { SharedValue } from './shared-value'

/** One way an expression can become true: `source` (or one of its elements) meets `gate`. */
export interface Need {
  readonly source: SharedValue
  /** the pattern is tried on each element of the value (`any(x[*] matches …)`) */
  readonly elements: boolean
  readonly gate: Clause
}

/** Needs of which at least one holds whenever the expression is true (alternatives). */
export type Needs = readonly Need[]

/** Alternatives of an `or`: one of them holds; undefined when some item needs nothing. */
export function needsOfAny(items: readonly (Needs | undefined)[]): Needs | undefined {
  if (items.some((needs) => needs === undefined)) return undefined
  return (items as Needs[]).flat()
}

/**
 * Needs of an `and`: those of its most selective item (the gates least often met; the earliest of
 * equals). None when its first item has none: that item (a size, a header's presence) usually
 * decides alone, before the values the others read are computed, which resolving their needs
 * would compute anyway.
 */
export function needsOfAll(items: readonly (Needs | undefined)[]): Needs | undefined {
  if (items[0] === undefined) return undefined
  let best: Needs | undefined
  let bestCost = Infinity
  for (const needs of items) {
    if (needs === undefined) continue
    const cost = needs.reduce((sum, need) => sum + need.gate.cost, 0)
    if (cost < bestCost) {
      best = needs
      bestCost = cost
    }
  }
  return best
}

// A need in the table: its source's index, the gate's largest literal id, its number of
// (word, bits) pairs, then the pairs.
const NEED_HEADER = 3
const UNRESOLVED = 0
const ABSENT = 1
const RESOLVED = 2

/**
 * The needs of a list of expressions (the rules of every ruleset a zone runs), tested per
 * request. Expressions are added in groups (`add` says where a group starts); the table is laid
 * out on first use, after which nothing more can be added. One table for all of a zone's rulesets
 * resolves each value they share once per request.
 */
export class RequirementTable {
  private readonly pending: (Needs | undefined)[] = []
  /** every need of every expression, back to back (see NEED_HEADER) */
  private needs: Int32Array | undefined
  /** per expression, where its needs start and end in `needs`; start -1: it needs nothing */
  private starts = new Int32Array(0)
  private ends = new Int32Array(0)
  private readonly sources: SharedValue[] = []
  private readonly elementWise: boolean[] = []
  /** per source, the words of its bits that some need tests (the only ones copied) */
  private testedWords: Int32Array[] = []
  // Per request: each source's state, its bits (for an element-wise source, the union of its
  // elements'; only the tested words) and the literals its scans covered.
  private ctx: EvaluationContext | undefined
  private state = new Uint8Array(0)
  private bits: Int32Array[] = []
  private covered = new Int32Array(0)

  /** Adds a group of expressions' needs; returns the index of the group's first expression. */
  add(expressions: readonly (Needs | undefined)[]): number {
    if (this.needs !== undefined) throw new Error('a requirement table cannot grow once in use')
    this.pending.push(...expressions)
    return this.pending.length - expressions.length
  }

  private layOut(): Int32Array {
    const expressions = this.pending
    const sourceIndex = new Map<SharedValue, [number, number]>()
    const indexOf = (need: Need): number => {
      const pair = sourceIndex.get(need.source) ?? [-1, -1]
      const slot = need.elements ? 1 : 0
      if (pair[slot] === -1) {
        pair[slot] = this.sources.length
        this.sources.push(need.source)
        this.elementWise.push(need.elements)
        sourceIndex.set(need.source, pair)
      }
      return pair[slot]
    }
    const flat: number[] = []
    const words: Set<number>[] = []
    this.starts = new Int32Array(expressions.length).fill(-1)
    this.ends = new Int32Array(expressions.length)
    expressions.forEach((needs, i) => {
      if (needs === undefined) return
      this.starts[i] = flat.length
      for (const need of needs) {
        const { pairs, maxLiteral } = need.gate
        const source = indexOf(need)
        flat.push(source, maxLiteral, pairs.length >> 1, ...pairs)
        words[source] ??= new Set()
        for (let j = 0; j < pairs.length; j += 2) words[source].add(pairs[j]!)
      }
      this.ends[i] = flat.length
    })
    // Literals the automaton does not cover cannot rule anything out: cover them now.
    coverRegisteredLiterals()
    const count = this.sources.length
    this.testedWords = Array.from({ length: count }, (_, source) =>
      Int32Array.from(words[source] ?? []),
    )
    this.state = new Uint8Array(count)
    this.bits = this.testedWords.map((tested) => new Int32Array(Math.max(0, ...tested) + 1))
    this.covered = new Int32Array(count)
    this.needs = Int32Array.from(flat)
    return this.needs
  }

  /** Whether expression `i` may be true for the request: false only when it cannot be. */
  mayHold(i: number, ctx: EvaluationContext): boolean {
    const needs = this.needs ?? this.layOut()
    let k = this.starts[i]!
    if (k < 0) return true
    if (ctx !== this.ctx) {
      this.state.fill(UNRESOLVED)
      this.ctx = ctx
    }
    const { state, bits, covered } = this
    const end = this.ends[i]!
    while (k < end) {
      const source = needs[k]!
      const maxLiteral = needs[k + 1]!
      const last = k + NEED_HEADER + 2 * needs[k + 2]!
      if (state[source] === UNRESOLVED) this.resolve(source, ctx)
      if (state[source] === RESOLVED) {
        // A literal the automaton did not cover when the value was scanned cannot be ruled out.
        if (maxLiteral >= covered[source]!) return true
        const found = bits[source]!
        for (let j = k + NEED_HEADER; j < last; j += 2)
          if ((found[needs[j]!]! & needs[j + 1]!) !== 0) return true
      }
      k = last
    }
    return false
  }

  // The tested words of a source's bits are copied into the table: a scanned input belongs to a
  // ring shared by every pattern and may be reused for another value before the request is done.
  private resolve(source: number, ctx: EvaluationContext): void {
    const shared = this.sources[source]!
    const tested = this.testedWords[source]!
    const bits = this.bits[source]!
    this.state[source] = ABSENT
    bits.fill(0)
    let covered = Number.MAX_SAFE_INTEGER
    if (this.elementWise[source]) {
      const inputs = shared.scannedElements(ctx)
      if (inputs.length === 0) return
      for (const input of inputs) covered = Math.min(covered, copyBits(input, tested, bits))
    } else {
      const input = shared.scanned(ctx)
      if (input === undefined) return
      covered = copyBits(input, tested, bits)
    }
    this.covered[source] = covered
    this.state[source] = RESOLVED
  }
}

/** ORs the tested words of the input's bits into `bits`; returns the literals its scan covered. */
function copyBits(input: ScannedInput, tested: Int32Array, bits: Int32Array): number {
  const found = input.bits()
  // Words past a scan's end hold literals its `covered` already leaves untested.
  for (let t = 0; t < tested.length; t++) {
    const w = tested[t]!
    if (w < found.length) bits[w]! |= found[w]!
  }
  return input.coveredLiterals
}
