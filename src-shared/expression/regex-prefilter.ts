// A literal prefilter for regular expressions (the idea of RE2's prefilter): from the syntax tree,
// a set of strings at least one of which every match must contain. An input containing none of
// them cannot match, and is refused with a few `includes` instead of a run of the automaton —
// most request fields contain none of the literals an attack pattern needs.
//
// The check is deliberately loose, never strict: literals and input are both compared in ASCII
// lower case, and anything the analysis cannot bound (non-ASCII characters, large classes, `.`,
// optional parts) makes the pattern unfiltered rather than risk refusing a match.

import { asciiLower } from './bytes'
import type { RegexNode } from './regex'

/** The strings a node can match in full (when few), and the strings any match must contain. */
interface Info {
  /** every string the node can match, lower-cased; null when too many or unbounded */
  exact: Set<string> | null
  /** at least one of these occurs in every match; null when nothing is known */
  required: Set<string> | null
}

const MAX_EXACT = 16
const MAX_CLASS = 8
const UNKNOWN: Info = { exact: null, required: null }

// Under Unicode case folding, `k` and `s` also match the Kelvin sign and the long s.
const UNICODE_FOLDS = new Set(['k', 's'])

function lowerChar(cp: number): string {
  return asciiLower(String.fromCharCode(cp))
}

function classInfo(node: Extract<RegexNode, { t: 'class' }>): Info {
  const { set } = node
  if (set.negated || set.opaque.length > 0) return UNKNOWN
  const chars = new Set<string>()
  for (const [from, to] of set.ranges) {
    if (to >= 0x80 || to - from >= MAX_CLASS) return UNKNOWN
    for (let cp = from; cp <= to; cp++) chars.add(lowerChar(cp))
    if (chars.size > MAX_CLASS) return UNKNOWN
  }
  if (node.f.i && [...chars].some((c) => UNICODE_FOLDS.has(c))) return UNKNOWN
  return { exact: chars, required: null }
}

/** The best "one of these must occur" set: the one whose shortest string is longest. */
function stronger(a: Set<string> | null, b: Set<string> | null): Set<string> | null {
  if (a === null) return b
  if (b === null) return a
  const shortest = (set: Set<string>) => Math.min(...[...set].map((s) => s.length))
  return shortest(b) > shortest(a) ? b : a
}

/** What `info` requires: its own requirement, or its exact strings when none can be empty. */
function requiredOf(info: Info): Set<string> | null {
  const fromExact = info.exact !== null && !info.exact.has('') ? info.exact : null
  return stronger(info.required, fromExact)
}

function concatInfo(items: readonly RegexNode[]): Info {
  let exact: Set<string> | null = new Set([''])
  let required: Set<string> | null = null
  for (const item of items) {
    const info = analyze(item)
    required = stronger(required, requiredOf(info))
    if (exact !== null && info.exact !== null && exact.size * info.exact.size <= MAX_EXACT) {
      const product = new Set<string>()
      for (const left of exact) for (const right of info.exact) product.add(left + right)
      exact = product
    } else {
      // The run of exact strings so far is as much as can be said of it: keep it as required.
      if (exact !== null) required = stronger(required, requiredOf({ exact, required: null }))
      exact = null
      required = stronger(required, requiredOf(info))
    }
  }
  return { exact, required: stronger(required, exact && requiredOf({ exact, required: null })) }
}

function altInfo(items: readonly RegexNode[]): Info {
  const infos = items.map(analyze)
  let exact: Set<string> | null = new Set()
  for (const info of infos) {
    if (exact === null || info.exact === null) exact = null
    else for (const s of info.exact) exact.add(s)
  }
  if (exact !== null && exact.size > MAX_EXACT) exact = null
  const required = new Set<string>()
  for (const info of infos) {
    const own = requiredOf(info)
    if (own === null) return { exact, required: null }
    for (const s of own) required.add(s)
  }
  return { exact, required }
}

function analyze(node: RegexNode): Info {
  switch (node.t) {
    case 'empty':
    case 'assert':
      return { exact: new Set(['']), required: null }
    case 'lit': {
      if (node.cp >= 0x80) return UNKNOWN
      const char = lowerChar(node.cp)
      if (node.f.i && UNICODE_FOLDS.has(char)) return UNKNOWN
      return { exact: new Set([char]), required: null }
    }
    case 'class':
      return classInfo(node)
    case 'dot':
      return UNKNOWN
    case 'group':
      return analyze(node.node)
    case 'concat':
      return concatInfo(node.items)
    case 'alt':
      return altInfo(node.items)
    case 'rep': {
      const inner = analyze(node.node)
      if (node.min === 0) {
        // Optional: it may match nothing, so it requires nothing.
        return node.max === 1 && inner.exact !== null
          ? { exact: new Set(['', ...inner.exact]), required: null }
          : { exact: null, required: null }
      }
      if (node.min === 1 && node.max === 1) return inner
      return { exact: null, required: requiredOf(inner) }
    }
  }
}

/**
 * A quick test that refuses inputs no match can occur in (undefined when the pattern allows no
 * such test). The input is a binary string.
 */
export function prefilterOf(tree: RegexNode): ((binary: string) => boolean) | undefined {
  const required = requiredOf(analyze(tree))
  if (required === null || required.has('')) return undefined
  const literals = [...required]
  const ids = LITERALS.register(literals)
  return (binary) => LITERALS.anyPresent(lowered(binary), ids, literals)
}

// Recently lowered inputs: a request's few fields are tried by many patterns in turn.
const recentlyLowered = new Map<string, string>()
const RECENT = 32

function lowered(binary: string): string {
  let lower = recentlyLowered.get(binary)
  if (lower === undefined) {
    if (recentlyLowered.size >= RECENT) recentlyLowered.clear()
    lower = asciiLower(binary)
    recentlyLowered.set(binary, lower)
  }
  return lower
}

/**
 * Every literal of every prefiltered pattern, in one Aho-Corasick automaton: an input is scanned
 * once for all of them, and each pattern then only looks up its own literals. Hundreds of patterns
 * tried on the same few request fields cost one scan per field instead of one search per literal.
 *
 * The automaton is rebuilt lazily: after new patterns arrive, they use plain searches until enough
 * inputs have been tried to make a rebuild worth it (so one-off patterns never pay for it).
 */
class LiteralIndex {
  private readonly literals: string[] = []
  private readonly idOf = new Map<string, number>()
  /** how many literals the automaton covers */
  private covered = 0
  private delta = new Int32Array(0)
  private outputs: (number[] | undefined)[] = []
  private triesSinceBuild = 0
  private readonly found = new Map<string, Uint8Array>()

  register(literals: readonly string[]): number[] {
    return literals.map((literal) => {
      let id = this.idOf.get(literal)
      if (id === undefined) {
        id = this.literals.length
        this.literals.push(literal)
        this.idOf.set(literal, id)
      }
      return id
    })
  }

  anyPresent(lower: string, ids: readonly number[], literals: readonly string[]): boolean {
    if (this.covered < this.literals.length && ++this.triesSinceBuild >= REBUILD_AFTER) this.build()
    let indexed = true
    for (const id of ids) if (id >= this.covered) indexed = false
    if (!indexed) {
      for (const literal of literals) if (lower.includes(literal)) return true
      return false
    }
    let found = this.found.get(lower)
    if (found === undefined) {
      if (this.found.size >= RECENT) this.found.clear()
      found = this.scan(lower)
      this.found.set(lower, found)
    }
    for (const id of ids) if (found[id] === 1) return true
    return false
  }

  private scan(lower: string): Uint8Array {
    const found = new Uint8Array(this.covered)
    const { delta, outputs } = this
    let state = 0
    for (let i = 0; i < lower.length; i++) {
      const c = lower.charCodeAt(i)
      // Literals are ASCII: any other character leaves every partial match.
      state = c < ALPHABET ? delta[state * ALPHABET + c]! : 0
      const out = outputs[state]
      if (out !== undefined) for (const id of out) found[id] = 1
    }
    return found
  }

  private build(): void {
    // The trie of every literal, then breadth-first failure links folded into a full DFA.
    const next: Int32Array[] = [new Int32Array(ALPHABET).fill(-1)]
    const own: number[][] = [[]]
    this.literals.forEach((literal, id) => {
      let state = 0
      for (let i = 0; i < literal.length; i++) {
        const c = literal.charCodeAt(i)
        if (next[state]![c] === -1) {
          next[state]![c] = next.length
          next.push(new Int32Array(ALPHABET).fill(-1))
          own.push([])
        }
        state = next[state]![c]!
      }
      own[state]!.push(id)
    })
    const delta = new Int32Array(next.length * ALPHABET)
    const fail = new Int32Array(next.length)
    const outputs: (number[] | undefined)[] = new Array(next.length)
    const queue: number[] = []
    for (let c = 0; c < ALPHABET; c++) {
      const child = next[0]![c]!
      delta[c] = child === -1 ? 0 : child
      if (child !== -1) queue.push(child)
    }
    outputs[0] = undefined
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!
      const merged = [...own[state]!, ...(outputs[fail[state]!] ?? [])]
      outputs[state] = merged.length > 0 ? merged : undefined
      for (let c = 0; c < ALPHABET; c++) {
        const child = next[state]![c]!
        if (child === -1) delta[state * ALPHABET + c] = delta[fail[state]! * ALPHABET + c]!
        else {
          delta[state * ALPHABET + c] = child
          fail[child] = delta[fail[state]! * ALPHABET + c]!
          queue.push(child)
        }
      }
    }
    this.delta = delta
    this.outputs = outputs
    this.covered = this.literals.length
    this.triesSinceBuild = 0
    this.found.clear()
  }
}

const ALPHABET = 128
const REBUILD_AFTER = 2000
const LITERALS = new LiteralIndex()
