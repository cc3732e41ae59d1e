// A lazy DFA that answers whether a byte-mode pattern matches somewhere in an input: the question
// `test` asks of every value a rule reads, which re2js answers with its NFA simulation, a step per
// live thread per byte. Here each byte is one table lookup once the states it passes through are
// built, as RE2's own DFA does (https://swtch.com/~rsc/regexp/regexp3.html, re2/dfa.cc):
//  - the tree becomes a Thompson NFA over bytes (instructions: a byte set, a fork, an empty-width
//    assertion, the match);
//  - a DFA state is the set of NFA instructions alive after a byte, with what that byte was (the
//    start of the input, `\n`, a word byte, another byte), since the assertions the set still
//    holds (`\b`, `(?m:^)`, …) are decided only when the byte after it, or the end, is known;
//  - states and transitions are built on first use, per class of bytes that every set of the
//    pattern treats alike; the search is unanchored (the start is added again after every byte)
//    and stops at the first match, so leftmost or longest does not matter.
// It keeps to the emitter's meaning (emitter.ts), which re2js runs: `$` without `m` is `\z`, `.`
// excludes `\n` (and `\r` with R), and words are ASCII's [0-9A-Za-z_]. Patterns it does not cover
// (Unicode mode, classes it cannot expand to bytes, an NFA too large) have no DFA and stay on
// re2js; a DFA whose states outgrow their budget starts over, and gives up after a few times.

import { CASE_BIT, isLower, isUpper, isWordChar } from '../values/chars'
import { utf8Of } from './emitter'
import type { AssertKind, Flags, RegexNode } from './tree'

/** A pattern's test on a binary string; undefined for an input it cannot run (code units > 0xff). */
export type DfaTest = (binary: string) => boolean | undefined

const BYTE = 0
const FORK = 1
const ASSERT = 2
const MATCH = 3

/** What the byte before a position was, or that there was none (the assertions' left side). */
const AT_START = 0
const AFTER_NEWLINE = 1
const AFTER_WORD = 2
const AFTER_OTHER = 3

/** NFA instructions beyond which a pattern stays on re2js (counted repetitions multiply it). */
const MAX_INSTRUCTIONS = 20_000
/**
 * DFA states kept before the cache starts over (fewer when the pattern has many byte classes: its
 * table stays within MAX_CELLS transitions, 256 KB), and how often it may before the DFA gives up.
 */
const MAX_STATES = 2_000
const MAX_CELLS = 65_536
const MAX_RESETS = 8

/** The DFA test of a byte-mode pattern's tree, or undefined when it has none. */
export function dfaOf(tree: RegexNode): DfaTest | undefined {
  const nfa = new NfaBuilder()
  let start: number
  try {
    start = nfa.compile(tree, nfa.match())
  } catch (e) {
    if (e instanceof NotCovered) return undefined
    throw e
  }
  const dfa = new LazyDfa(nfa, start)
  return (binary) => dfa.test(binary)
}

/** A pattern the DFA does not cover. */
class NotCovered extends Error {}

/** The assertion kinds the NFA evaluates, beyond the tree's: `^`/`$` resolved by flag m. */
type Assertion = Exclude<AssertKind, 'start' | 'end'> | 'lineStart' | 'lineEnd'

/** A Thompson NFA over bytes, built backwards: each node is compiled knowing what follows it. */
class NfaBuilder {
  readonly op: number[] = []
  readonly out: number[] = []
  readonly out1: number[] = []
  /** by instruction: its byte set's number (BYTE) or its assertion (ASSERT) */
  readonly arg: number[] = []
  readonly sets: Uint8Array[] = []
  readonly assertions: Assertion[] = []
  private readonly setNumbers = new Map<string, number>()

  private add(op: number, out: number, out1: number, arg: number): number {
    if (this.op.length >= MAX_INSTRUCTIONS) throw new NotCovered()
    this.op.push(op)
    this.out.push(out)
    this.out1.push(out1)
    this.arg.push(arg)
    return this.op.length - 1
  }

  match(): number {
    return this.add(MATCH, -1, -1, -1)
  }

  private bytes(set: Uint8Array, next: number): number {
    const key = set.join('')
    let number = this.setNumbers.get(key)
    if (number === undefined) {
      number = this.sets.length
      this.sets.push(set)
      this.setNumbers.set(key, number)
    }
    return this.add(BYTE, next, -1, number)
  }

  private fork(a: number, b: number): number {
    return this.add(FORK, a, b, -1)
  }

  private assertion(kind: Assertion, next: number): number {
    let number = this.assertions.indexOf(kind)
    if (number < 0) number = this.assertions.push(kind) - 1
    return this.add(ASSERT, next, -1, number)
  }

  compile(node: RegexNode, next: number): number {
    switch (node.t) {
      case 'empty':
        return next
      case 'lit':
        return this.literal(node.cp, node.byte, node.f, next)
      case 'class': {
        const { set } = node
        if (set.negated || set.opaque.length > 0) throw new NotCovered()
        const members = new Uint8Array(256)
        // Code points above 0xff never occur in a binary string: they match nothing.
        for (const [from, to] of set.ranges)
          if (from <= 0xff) members.fill(1, from, Math.min(to, 0xff) + 1)
        return this.bytes(members, next)
      }
      case 'dot': {
        const members = new Uint8Array(256).fill(1)
        if (!node.f.s) {
          members[0x0a] = 0
          if (node.f.R) members[0x0d] = 0
        }
        return this.bytes(members, next)
      }
      case 'assert':
        return this.assertion(assertionOf(node.kind, node.f), next)
      case 'group':
        return this.compile(node.node, next)
      case 'concat': {
        let entry = next
        for (let i = node.items.length - 1; i >= 0; i--) entry = this.compile(node.items[i]!, entry)
        return entry
      }
      case 'alt': {
        const entries = node.items.map((item) => this.compile(item, next))
        let entry = entries[entries.length - 1] ?? next
        for (let i = entries.length - 2; i >= 0; i--) entry = this.fork(entries[i]!, entry)
        return entry
      }
      case 'rep':
        return this.repetition(node, next)
    }
  }

  private literal(cp: number, byte: boolean, f: Flags, next: number): number {
    const bytes = byte || cp < 0x80 ? [cp] : utf8Of(cp)
    let entry = next
    for (let i = bytes.length - 1; i >= 0; i--) {
      const b = bytes[i]!
      const members = new Uint8Array(256)
      if (b <= 0xff) members[b] = 1
      if (f.i && (isUpper(b) || isLower(b))) {
        members[b & ~CASE_BIT] = 1
        members[b | CASE_BIT] = 1
      }
      entry = this.bytes(members, entry)
    }
    return entry
  }

  /** x{min,max}: min copies, then max - min nested optional ones, or a loop for no max. */
  private repetition(node: Extract<RegexNode, { t: 'rep' }>, next: number): number {
    let entry: number
    if (node.max === Infinity) {
      const loop = this.fork(-1, next)
      this.out[loop] = this.compile(node.node, loop)
      entry = loop
    } else {
      entry = next
      for (let i = node.min; i < node.max; i++)
        entry = this.fork(this.compile(node.node, entry), next)
    }
    for (let i = 0; i < node.min; i++) entry = this.compile(node.node, entry)
    return entry
  }
}

function assertionOf(kind: AssertKind, f: Flags): Assertion {
  if (kind === 'start') return f.m ? 'lineStart' : 'startText'
  if (kind === 'end') return f.m ? 'lineEnd' : 'endText'
  return kind
}

/** Whether an assertion holds between what came before (AT_START, AFTER_…) and a byte, or the end. */
function holds(kind: Assertion, before: number, after: number, atEnd: boolean): boolean {
  const wordBefore = before === AFTER_WORD
  const wordAfter = !atEnd && isWordChar(after)
  switch (kind) {
    case 'startText':
      return before === AT_START
    case 'endText':
      return atEnd
    case 'lineStart':
      return before === AT_START || before === AFTER_NEWLINE
    case 'lineEnd':
      return atEnd || after === 0x0a
    case 'word':
      return wordBefore !== wordAfter
    case 'notWord':
      return wordBefore === wordAfter
    case 'wordStart':
      return !wordBefore && wordAfter
    case 'wordEnd':
      return wordBefore && !wordAfter
    case 'wordStartHalf':
      return !wordBefore
    case 'wordEndHalf':
      return !wordAfter
  }
}

/** The transition that means "matched": the test stops there. */
const MATCHED = -1
/** The initial state of a pattern that matches the empty string at the start, so every input. */
const ALWAYS = -2
/** A transition not built yet. */
const UNKNOWN = 0

class LazyDfa {
  private readonly op: Int8Array
  private readonly out: Int32Array
  private readonly out1: Int32Array
  private readonly arg: Int32Array
  private readonly sets: Uint8Array[]
  private readonly assertions: Assertion[]
  /** each byte's class: bytes every byte set, `\n` and the word bytes treat alike */
  private readonly classOf = new Uint8Array(256)
  /** a byte of each class, to ask the sets about */
  private readonly classByte: number[] = []
  private readonly classes: number
  private readonly maxStates: number
  /**
   * by a state's row (its number × classes) + class: the next state's row + 1, MATCHED, or
   * UNKNOWN (rows rather than numbers spare the loop a multiplication per byte)
   */
  private table = new Int32Array(0)
  private readonly stateKeys = new Map<string, number>()
  /** each state's instructions (forks followed, assertions kept) and the byte before it */
  private statePcs: Int32Array[] = []
  private stateBefore: number[] = []
  /** each state's answer at the end of the input: 0 not known, 1 no, 2 yes */
  private endAnswers: number[] = []
  /** the state before the first byte: -1 until built, ALWAYS when the empty match is in it */
  private initial = -1
  private resets = 0
  /** the working sets of the closures: a sparse set of instructions */
  private readonly dense: Int32Array
  private readonly sparse: Int32Array
  private size = 0
  private readonly stack: number[] = []

  constructor(
    nfa: NfaBuilder,
    private readonly start: number,
  ) {
    this.op = Int8Array.from(nfa.op)
    this.out = Int32Array.from(nfa.out)
    this.out1 = Int32Array.from(nfa.out1)
    this.arg = Int32Array.from(nfa.arg)
    this.sets = nfa.sets
    this.assertions = nfa.assertions
    const count = this.op.length
    this.dense = new Int32Array(count)
    this.sparse = new Int32Array(count)
    const signatures = new Map<string, number>()
    for (let b = 0; b < 256; b++) {
      let signature = `${b === 0x0a ? 'n' : isWordChar(b) ? 'w' : 'o'}`
      for (const set of this.sets) signature += set[b]
      let cls = signatures.get(signature)
      if (cls === undefined) {
        cls = signatures.size
        signatures.set(signature, cls)
        this.classByte.push(b)
      }
      this.classOf[b] = cls
    }
    this.classes = signatures.size
    this.maxStates = Math.min(MAX_STATES, Math.floor(MAX_CELLS / this.classes))
  }

  test(binary: string): boolean | undefined {
    if (this.resets > MAX_RESETS) return undefined
    if (this.initial === -1) {
      const first = this.stateOf(this.closure([this.start], AT_START, -1, false), AT_START)
      this.initial = first < 0 ? ALWAYS : first
    }
    if (this.initial === ALWAYS) return true
    const { classOf, classes } = this
    let table = this.table
    let row = this.initial * classes
    for (let i = 0; i < binary.length; i++) {
      const c = binary.charCodeAt(i)
      if (c > 0xff) return undefined
      let next = table[row + classOf[c]!]!
      if (next <= UNKNOWN) {
        if (next === MATCHED) return true
        next = this.transition(row, classOf[c]!)
        // The cache started over: its states are gone, this input goes back to re2js.
        if (next === UNKNOWN) return undefined
        if (next === MATCHED) return true
        table = this.table
      }
      row = next - 1
    }
    return this.matchesAtEnd(row / classes)
  }

  /**
   * The instructions reached from `pcs` through forks, and through assertions when the right side
   * is known (`after`, or `atEnd`); -1 in place of the list when the match is among them.
   */
  private closure(
    pcs: readonly number[] | Int32Array,
    before: number,
    after: number,
    atEnd: boolean,
  ): number[] | -1 {
    const { op, out, out1, arg, dense, sparse, stack } = this
    const decide = after >= 0 || atEnd
    this.size = 0
    for (let i = pcs.length - 1; i >= 0; i--) stack.push(pcs[i]!)
    while (stack.length > 0) {
      const pc = stack.pop()!
      const at = sparse[pc]!
      if (at < this.size && dense[at] === pc) continue
      sparse[pc] = this.size
      dense[this.size++] = pc
      switch (op[pc]) {
        case MATCH:
          stack.length = 0
          return -1
        case FORK:
          stack.push(out1[pc]!, out[pc]!)
          break
        case ASSERT:
          if (decide && holds(this.assertions[arg[pc]!]!, before, after, atEnd))
            stack.push(out[pc]!)
          break
      }
    }
    const kept: number[] = []
    for (let i = 0; i < this.size; i++) {
      const pc = dense[i]!
      // Forks are followed; assertions wait for their right side unless it was decided here.
      if (op[pc] === BYTE || (op[pc] === ASSERT && !decide)) kept.push(pc)
    }
    return kept
  }

  /** The number of the state for a closure and the byte before it; -1 when it is the match. */
  private stateOf(pcs: number[] | -1, before: number): number {
    if (pcs === -1) return -1
    const key = `${before} ${pcs.join(',')}`
    const known = this.stateKeys.get(key)
    if (known !== undefined) return known
    const number = this.statePcs.length
    this.stateKeys.set(key, number)
    this.statePcs.push(Int32Array.from(pcs))
    this.stateBefore.push(before)
    this.endAnswers.push(0)
    if ((number + 1) * this.classes > this.table.length) {
      const grown = new Int32Array(Math.max(16, (number + 1) * 2) * this.classes)
      grown.set(this.table)
      this.table = grown
    }
    return number
  }

  /** Builds the transition of the state at `row` on the bytes of class `cls`; UNKNOWN after a reset. */
  private transition(row: number, cls: number): number {
    const state = row / this.classes
    if (this.statePcs.length >= this.maxStates) {
      this.reset()
      return UNKNOWN
    }
    const byte = this.classByte[cls]!
    const before = this.stateBefore[state]!
    const alive = this.closure(this.statePcs[state]!, before, byte, false)
    let next: number
    if (alive === -1) next = MATCHED
    else {
      const stepped: number[] = []
      for (const pc of alive) {
        if (this.op[pc] === BYTE && this.sets[this.arg[pc]!]![byte] === 1)
          stepped.push(this.out[pc]!)
      }
      stepped.push(this.start)
      const after = byte === 0x0a ? AFTER_NEWLINE : isWordChar(byte) ? AFTER_WORD : AFTER_OTHER
      const target = this.stateOf(this.closure(stepped, after, -1, false), after)
      next = target < 0 ? MATCHED : target * this.classes + 1
    }
    this.table[row + cls] = next
    return next
  }

  private matchesAtEnd(state: number): boolean {
    let answer = this.endAnswers[state]!
    if (answer === 0) {
      answer =
        this.closure(this.statePcs[state]!, this.stateBefore[state]!, -1, true) === -1 ? 2 : 1
      this.endAnswers[state] = answer
    }
    return answer === 2
  }

  /** Forgets every state: a pattern whose inputs keep making new ones is not worth the memory. */
  private reset(): void {
    this.resets++
    this.table = new Int32Array(0)
    this.stateKeys.clear()
    this.statePcs = []
    this.stateBefore = []
    this.endAnswers = []
    this.initial = -1
  }
}
