// A prefilter for regular expressions (the idea of RE2's prefilter): from the condition every
// match satisfies (condition.ts), on the literals and bytes an input contains. An input failing
// it cannot match and is refused without running the automaton — most request fields contain
// none of what an attack pattern needs.
//
// An input is scanned once for the atoms of every pattern (ScannedInput); each pattern's condition
// then costs a few bit tests.

import { asciiLower, isAsciiOnly } from '../values/bytes'
import { literalCondition, MAX_LITERAL, patternCondition, type Condition } from './condition'
import type { RegexNode } from './tree'
import { CASE_BIT, DELETE, isLower, SPACE } from '../values/chars'
// ---------------------------------------------------------------------------------------------
// Evaluation: a condition's atoms are bits of one set per input (bits 0..255 its bytes, bit 256 + id
// each literal of the automaton), so a disjunction of atoms (a clause) is a few word tests.

const LITERAL_BASE = 256

/** Some atom of the clause occurs: its atoms as bits of an input's set. */
/** Atoms of which an input must contain one (a disjunction of literals and bytes). */
export class Clause {
  /** (word, bits) pairs */
  readonly pairs: Int32Array
  /** the literals' largest id (-1 without any) */
  readonly maxLiteral: number

  private constructor(
    readonly words: ReadonlyMap<number, number>,
    /** the literals' ids, for when the automaton does not cover them all yet */
    readonly literals: readonly number[],
    /**
     * Roughly how often it holds, in percent of request fields (mostly text, tens of bytes): a
     * literal of three characters or more is rare, one of two less so, a printable byte common
     */
    readonly cost: number,
  ) {
    this.pairs = Int32Array.from([...words].flat())
    this.maxLiteral = Math.max(-1, ...literals)
  }

  static of(atoms: readonly Condition[]): Clause {
    const words = new Map<number, number>()
    const literals: number[] = []
    let cost = 0
    for (const atom of atoms) {
      if (atom.kind === 'literal') {
        const id = LITERALS.register(atom.text)
        literals.push(id)
        addBit(words, LITERAL_BASE + id)
        cost += atom.text.length >= 3 ? 2 : 16
      } else if (atom.kind === 'byte') {
        for (let byte = 0; byte < 256; byte++) {
          if ((atom.mask[byte >> 5]! & (1 << (byte & 31))) === 0) continue
          addBit(words, byte)
          cost += byte >= SPACE && byte < DELETE ? 80 : 1
        }
      }
    }
    return new Clause(words, literals, cost)
  }

  static union(clauses: readonly Clause[]): Clause {
    const words = new Map<number, number>()
    for (const clause of clauses)
      for (const [word, bits] of clause.words) words.set(word, (words.get(word) ?? 0) | bits)
    return new Clause(
      words,
      [...new Set(clauses.flatMap((clause) => clause.literals))],
      clauses.reduce((cost, clause) => cost + clause.cost, 0),
    )
  }
}

function addBit(words: Map<number, number>, bit: number): void {
  words.set(bit >> 5, (words.get(bit >> 5) ?? 0) | (1 << (bit & 31)))
}

/** A test of what a scanned input contains. */
type Check = (input: ScannedInput) => boolean

const isAtom = (c: Condition) => c.kind === 'literal' || c.kind === 'byte'

/**
 * The test of a condition, and its cost for ordering (an `all` tries its most selective parts
 * first, so that a failing input is refused as early as possible).
 */
function checkOf(condition: Condition): { check: Check; cost: number } {
  switch (condition.kind) {
    case 'anything':
      return { check: () => true, cost: Infinity }
    case 'literal':
    case 'byte': {
      const clause = Clause.of([condition])
      return { check: (input) => input.hasAny(clause), cost: clause.cost }
    }
    case 'some': {
      const clause = Clause.of(condition.of.filter(isAtom))
      const others = condition.of.filter((c) => !isAtom(c)).map(checkOf)
      const cost = others.reduce((sum, other) => sum + other.cost, clause.cost)
      if (others.length === 0) return { check: (input) => input.hasAny(clause), cost }
      const checks = others.map((other) => other.check)
      return {
        check: (input) => {
          if (input.hasAny(clause)) return true
          for (const check of checks) if (check(input)) return true
          return false
        },
        cost,
      }
    }
    case 'all': {
      const parts = condition.of.map(checkOf).sort((a, b) => a.cost - b.cost)
      const checks = parts.map((part) => part.check)
      return {
        check: (input) => {
          for (const check of checks) if (!check(input)) return false
          return true
        },
        cost: parts[0]!.cost,
      }
    }
  }
}

/**
 * One clause every input the condition admits satisfies: for `all`, its most selective part's;
 * for `some`, the union of its parts'. Testing it first refuses most inputs with a few word tests.
 */
function gateOf(condition: Condition): Clause | undefined {
  switch (condition.kind) {
    case 'anything':
      return undefined
    case 'literal':
    case 'byte':
      return Clause.of([condition])
    case 'some': {
      const gates = condition.of.map(gateOf)
      return gates.includes(undefined) ? undefined : Clause.union(gates as Clause[])
    }
    case 'all': {
      const gates = condition.of.map(gateOf).filter((gate) => gate !== undefined)
      return gates.sort((a, b) => a.cost - b.cost)[0]
    }
  }
}

/**
 * The gate of "the input contains one of `texts`", for conditions that are not patterns but imply
 * it (`contains`, `eq`, `in`, starts_with(), ends_with()). A text longer than MAX_LITERAL is
 * required by its last MAX_LITERAL characters, the distinctive end of most paths and names.
 * Undefined when some text rules nothing out (it is empty) or is not ASCII, which the automaton's
 * case-insensitive comparison is not written for.
 */
export function containsGate(texts: readonly string[]): Clause | undefined {
  if (texts.length === 0) return undefined
  const atoms: Condition[] = []
  for (const text of texts) {
    if (text === '' || !isAsciiOnly(text)) return undefined
    atoms.push(literalCondition(asciiLower(text.slice(-MAX_LITERAL))))
  }
  return Clause.of(atoms)
}

/**
 * A quick test that refuses inputs no match of a pattern can occur in: its gate (a few word
 * tests), then the rest of its condition.
 */
export class Prefilter {
  constructor(
    /** a clause every admitted input meets, tested first */
    readonly gate: Clause,
    /** the whole condition; undefined when the gate is all of it */
    private readonly check: Check | undefined,
  ) {}

  admits(input: ScannedInput): boolean {
    return input.hasAny(this.gate) && (this.check === undefined || this.check(input))
  }
}

/**
 * The prefilter of a pattern (undefined when it allows none). `unicode`: the pattern runs on
 * decoded text (the prefilter still reads the input's bytes).
 */
export function prefilterOf(tree: RegexNode, unicode: boolean): Prefilter | undefined {
  const condition = patternCondition(tree, unicode)
  if (condition.kind === 'anything') return undefined
  const gate = gateOf(condition)!
  const gateIsAll = isAtom(condition) || (condition.kind === 'some' && condition.of.every(isAtom))
  return new Prefilter(gate, gateIsAll ? undefined : checkOf(condition).check)
}

/**
 * An input (a binary string) with what it contains: which bytes, and which literals of the
 * automaton (scanned once, on first use, for all of them). Every pattern tried on the same value
 * of a request shares one, so the value is scanned once however many patterns look at it. One is
 * reused from input to input (`reset`): allocating its typed array costs more than most scans.
 */
export class ScannedInput {
  private input = ''
  private scanned = false
  /** the literals the automaton covered when this input was scanned */
  private covered = 0
  /** bits 0..255: the bytes; 256 + id: the literals */
  private found = new Int32Array(LITERAL_BASE >> 5)
  /** for literals the automaton does not cover yet */
  private lower: string | undefined

  get binary(): string {
    return this.input
  }

  /** Starts over on another input, scanned when first asked about. */
  reset(binary: string): this {
    this.input = binary
    this.scanned = false
    this.lower = undefined
    return this
  }

  /**
   * What the input contains, as the bits clauses test (`pairs`): scanned if it was not, or if the
   * automaton has come to cover more literals since. Literals from `coveredLiterals` on are not
   * among the bits.
   */
  bits(): Int32Array {
    if (!this.scanned || LITERALS.covered > this.covered) this.scan()
    return this.found
  }

  /** how many literals the last scan covered (ids below this have their bit) */
  get coveredLiterals(): number {
    return this.covered
  }

  /** Whether some atom of the clause occurs in the input. */
  hasAny(clause: Clause): boolean {
    if (!this.scanned) this.scan()
    if (clause.maxLiteral >= this.covered) {
      // Scanned before the automaton covered the clause: scan again if it does now.
      if (LITERALS.covered > this.covered) this.scan()
      if (clause.maxLiteral >= this.covered) return this.hasAnySearching(clause)
    }
    const { pairs } = clause
    const found = this.found
    for (let i = 0; i < pairs.length; i += 2)
      if ((found[pairs[i]!]! & pairs[i + 1]!) !== 0) return true
    return false
  }

  /** hasAny for a clause with literals the automaton does not cover yet: those are searched. */
  private hasAnySearching(clause: Clause): boolean {
    for (const [word, bits] of clause.words)
      if (word < LITERAL_BASE >> 5 && (this.found[word]! & bits) !== 0) return true
    for (const id of clause.literals) {
      if (id < this.covered) {
        const bit = LITERAL_BASE + id
        if ((this.found[bit >> 5]! & (1 << (bit & 31))) !== 0) return true
      } else {
        this.lower ??= asciiLower(this.input)
        if (LITERALS.searchUncovered(this.lower, id)) return true
      }
    }
    return false
  }

  private scan(): void {
    this.covered = LITERALS.covered
    const words = (LITERAL_BASE + this.covered + 31) >> 5
    if (this.found.length === words) this.found.fill(0)
    else this.found = new Int32Array(words)
    LITERALS.scan(this.input, this.found)
    this.scanned = true
  }
}

// Recently scanned inputs, by value: a request's values are each tried by many patterns in turn,
// and some are equal (a query and its decoded form when there is nothing to decode). Up to
// SCANNED_LIMIT are kept; then all are let go at once and their inputs reused, since allocating an
// input's typed array costs more than most scans. A map's lookup hashes a new string once (V8
// keeps the hash in the string), far less than scanning it; a ring searched by comparing strings
// thrashed once a request's values outnumbered it (multiMatch's steps, paranoia level 4).
const SCANNED_LIMIT = 256
const scanned = new Map<string, ScannedInput>()
const spareInputs: ScannedInput[] = []

/**
 * The scanned form of `binary`, shared with the patterns tried on an equal value; it holds
 * `binary` until SCANNED_LIMIT other values have been asked for (check its `binary` before
 * reusing it).
 */
export function scannedInput(binary: string): ScannedInput {
  let input = scanned.get(binary)
  if (input !== undefined) return input
  if (scanned.size >= SCANNED_LIMIT) {
    for (const kept of scanned.values()) spareInputs.push(kept)
    scanned.clear()
  }
  input = (spareInputs.pop() ?? new ScannedInput()).reset(binary)
  scanned.set(binary, input)
  return input
}

/**
 * Every literal of every prefiltered pattern, in one Aho-Corasick automaton: an input is scanned
 * once for all of them, and each pattern then only looks up its own literals. Hundreds of patterns
 * tried on the same few request fields cost one scan per field instead of one search per literal.
 *
 * The automaton is rebuilt lazily: after new patterns arrive, their literals are searched plainly
 * until enough inputs have been tried to make a rebuild worth it (so one-off patterns never pay
 * for it).
 */
class LiteralIndex {
  private readonly literals: string[] = []
  private readonly idOf = new Map<string, number>()
  /** how many literals the automaton covers (ids below this) */
  covered = 0
  /**
   * The automaton's alphabet: each byte's class, 0 for every byte no literal holds (upper-case
   * letters share their lower-case class). Few classes keep the transition table small enough to
   * stay in the processor's cache.
   */
  private classOf = new Uint8Array(256)
  private classes = 1
  /** state × class → state (16 bits while there are few enough states) */
  private delta: Uint16Array | Uint32Array = new Uint16Array(1)
  /** states from this number on complete literals */
  private firstOutputState = 1
  /**
   * The literals each such state completes, as (word, bits) pairs of ScannedInput's set: state
   * s's pairs are `outputPairs[outputStarts[s - firstOutputState]]` up to the next state's (flat
   * arrays: nested ones cost a load each).
   */
  private outputStarts = new Uint32Array(1)
  private outputPairs = new Int32Array(0)
  private triesSinceBuild = 0

  register(literal: string): number {
    let id = this.idOf.get(literal)
    if (id === undefined) {
      id = this.literals.length
      this.literals.push(literal)
      this.idOf.set(literal, id)
    }
    return id
  }

  /** Rebuilds the automaton now if some registered literal is not covered yet. */
  coverAll(): void {
    if (this.covered < this.literals.length) this.build()
  }

  /** Whether `lower` contains a literal the automaton does not cover yet. */
  searchUncovered(lower: string, id: number): boolean {
    if (this.covered < this.literals.length && ++this.triesSinceBuild >= REBUILD_AFTER) this.build()
    return lower.includes(this.literals[id]!)
  }

  /** Sets in `found` (ScannedInput's set) the bit of each byte and covered literal of `binary`. */
  scan(binary: string, found: Int32Array): void {
    const { classOf, classes, delta, firstOutputState, outputStarts, outputPairs } = this
    let state = 0
    for (let i = 0; i < binary.length; i++) {
      const c = binary.charCodeAt(i)
      // A character of no literal (every one above 0xff among them) leaves every partial match.
      if (c > 0xff) {
        state = 0
        continue
      }
      found[c >> 5]! |= 1 << (c & 31)
      state = delta[state * classes + classOf[c]!]!
      if (state < firstOutputState) continue
      const end = outputStarts[state - firstOutputState + 1]!
      for (let k = outputStarts[state - firstOutputState]!; k < end; k += 2)
        found[outputPairs[k]!]! |= outputPairs[k + 1]!
    }
  }

  private build(): void {
    const classOf = new Uint8Array(256)
    let classes = 1
    for (const literal of this.literals) {
      for (let i = 0; i < literal.length; i++) {
        const c = literal.charCodeAt(i)
        if (classOf[c] === 0) {
          classOf[c] = classes++
          if (isLower(c)) classOf[c - CASE_BIT] = classOf[c]!
        }
      }
    }
    // The trie of every literal, then breadth-first failure links folded into a full DFA.
    const next: Int32Array[] = [new Int32Array(classes).fill(-1)]
    const own: number[][] = [[]]
    this.literals.forEach((literal, id) => {
      let state = 0
      for (let i = 0; i < literal.length; i++) {
        const c = classOf[literal.charCodeAt(i)]!
        if (next[state]![c] === -1) {
          next[state]![c] = next.length
          next.push(new Int32Array(classes).fill(-1))
          own.push([])
        }
        state = next[state]![c]!
      }
      own[state]!.push(id)
    })
    const delta =
      next.length <= 0x10000
        ? new Uint16Array(next.length * classes)
        : new Uint32Array(next.length * classes)
    const fail = new Int32Array(next.length)
    const outputs: (number[] | undefined)[] = new Array(next.length)
    const queue: number[] = []
    for (let c = 1; c < classes; c++) {
      const child = next[0]![c]!
      delta[c] = child === -1 ? 0 : child
      if (child !== -1) queue.push(child)
    }
    outputs[0] = undefined
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!
      // The literals a state completes, as bits of ScannedInput's set.
      const merged = [
        ...own[state]!.map((id) => LITERAL_BASE + id),
        ...(outputs[fail[state]!] ?? []),
      ]
      outputs[state] = merged.length > 0 ? merged : undefined
      // Class 0 (bytes of no literal) always returns to the root, which the zeroed table says.
      for (let c = 1; c < classes; c++) {
        const child = next[state]![c]!
        if (child === -1) delta[state * classes + c] = delta[fail[state]! * classes + c]!
        else {
          delta[state * classes + c] = child
          fail[child] = delta[fail[state]! * classes + c]!
          queue.push(child)
        }
      }
    }
    // States are renumbered so that those completing literals come last: a scan then tells them
    // by their number alone, without reading anything for the other bytes.
    const states = next.length
    const order = [...Array(states).keys()].sort(
      (a, b) => Number(outputs[a] !== undefined) - Number(outputs[b] !== undefined) || a - b,
    )
    const renumbered = new Uint32Array(states)
    order.forEach((state, id) => (renumbered[state] = id))
    const table = delta.slice()
    for (let state = 0; state < states; state++)
      for (let c = 0; c < classes; c++)
        table[renumbered[state]! * classes + c] = renumbered[delta[state * classes + c]!]!
    const firstOutput = order.findIndex((state) => outputs[state] !== undefined)
    this.firstOutputState = firstOutput < 0 ? states : firstOutput
    this.outputStarts = new Uint32Array(states - this.firstOutputState + 1)
    const pairs: number[] = []
    for (let id = this.firstOutputState; id < states; id++) {
      this.outputStarts[id - this.firstOutputState] = pairs.length
      const words = new Map<number, number>()
      for (const bit of outputs[order[id]!]!) addBit(words, bit)
      for (const [word, bits] of words) pairs.push(word, bits)
    }
    this.outputStarts[states - this.firstOutputState] = pairs.length
    this.outputPairs = Int32Array.from(pairs)
    this.classOf = classOf
    this.classes = classes
    this.delta = table
    this.covered = this.literals.length
    this.triesSinceBuild = 0
  }
}

const REBUILD_AFTER = 2000
const LITERALS = new LiteralIndex()

/**
 * Makes the automaton cover every pattern compiled so far, for callers about to test many of
 * them on many inputs (a ruleset's plan), rather than waiting for enough tries to rebuild it.
 */
export function coverRegisteredLiterals(): void {
  LITERALS.coverAll()
}
