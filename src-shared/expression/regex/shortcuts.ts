// Exact tests for two pattern shapes that managed rules use to count characters, run in one pass
// over the bytes instead of on the automaton.
//
// Anomaly rules measure how many special characters a value holds: `[^\w\s.,/]{4,}` (a run of
// at least four) and `(?:[~!@#…][^~!@#…]*?){8}` (at least eight, anything between them). They
// have no literal for the prefilter, so ordinary values (every query has `=` and `&`) reach the
// automaton, where they cost more than all other patterns together. In byte mode both reduce to
// counting bytes of one set:
//  - `C{m,}` / `C{m,n}` / `C+` matches somewhere iff some run of consecutive C bytes is m long;
//  - `(?:C D*){m}` with D exactly the bytes outside C (lazy or greedy, in a group or not) matches
//    somewhere iff the value holds m bytes of C: the D* between them absorbs whatever separates
//    consecutive ones.
// Only `test` uses a shortcut; replacements still run the automaton, which also gives groups.

import type { RegexNode } from './tree'

type ClassNode = Extract<RegexNode, { t: 'class' }>

/** A byte set as a 256-entry membership table. */
type ByteSet = Uint8Array

/** The test of a pattern of one of the shapes above, or undefined. Byte mode only. */
export function shortcutOf(tree: RegexNode): ((binary: string) => boolean) | undefined {
  const node = unwrap(tree)
  if (node.t !== 'rep' || node.min < 1) return undefined
  const item = unwrap(node.node)
  const run = byteSet(item)
  if (run !== undefined) return (binary) => longestRunAtLeast(binary, run, node.min)
  const counted = countedSet(item)
  if (counted !== undefined) return (binary) => countAtLeast(binary, counted, node.min)
  return undefined
}

/** Non-capturing and capturing groups change nothing a test sees. */
function unwrap(node: RegexNode): RegexNode {
  let current = node
  while (current.t === 'group') current = current.node
  while (current.t === 'concat' && current.items.length === 1) current = unwrap(current.items[0]!)
  return current
}

/** The bytes of a byte-mode class (exact ranges, nothing left to the automaton). */
function byteSet(node: RegexNode): ByteSet | undefined {
  if (node.t !== 'class') return undefined
  const { set } = node as ClassNode
  if (set.negated || set.opaque.length > 0) return undefined
  const members = new Uint8Array(256)
  for (const [from, to] of set.ranges) {
    if (to > 0xff) return undefined
    members.fill(1, from, to + 1)
  }
  return members
}

/** C in `C D*` where D is every byte outside C. */
function countedSet(node: RegexNode): ByteSet | undefined {
  if (node.t !== 'concat' || node.items.length !== 2) return undefined
  const [head, tail] = node.items as [RegexNode, RegexNode]
  const counted = byteSet(unwrap(head))
  const gap = unwrap(tail)
  if (counted === undefined || gap.t !== 'rep' || gap.min !== 0 || gap.max !== Infinity)
    return undefined
  const between = byteSet(unwrap(gap.node))
  if (between === undefined) return undefined
  for (let byte = 0; byte < 256; byte++) if (counted[byte] === between[byte]) return undefined
  return counted
}

function longestRunAtLeast(binary: string, members: ByteSet, length: number): boolean {
  let run = 0
  for (let i = 0; i < binary.length; i++) {
    const c = binary.charCodeAt(i)
    if (c <= 0xff && members[c] === 1) {
      if (++run >= length) return true
    } else run = 0
  }
  return false
}

function countAtLeast(binary: string, members: ByteSet, count: number): boolean {
  let seen = 0
  for (let i = 0; i < binary.length; i++) {
    const c = binary.charCodeAt(i)
    // A character above 0xff is in neither set: nothing can span it.
    if (c > 0xff) seen = 0
    else if (members[c] === 1 && ++seen >= count) return true
  }
  return false
}
