// The longest run of bytes every match of a pattern holds, compared exactly: a value without it
// cannot match, and a native substring search (String.prototype.includes) says so for a fraction
// of what the automaton's pass over the value costs. This is the "must" string of GNU grep's
// kwset and RE2's required prefix, kept to the simplest case: literals in sequence at the
// pattern's top level (groups without repetition opened, zero-width assertions passed over), so
// `(?:^|[\\/])\.\.(?:[\\/]|$)` requires `..`. Letters compared without case, and characters above
// 0x7f that stand for their UTF-8 sequence, end a run. Byte mode only.

import { isLetter } from '../values/chars'
import type { RegexNode } from './tree'

/** Shorter runs rule out too little to pay for the search. */
const MIN_LENGTH = 2

/** The pattern's items in sequence, groups opened where they hold a sequence or one item. */
function sequence(node: RegexNode): RegexNode[] {
  while (node.t === 'group') node = node.node
  return node.t === 'concat' ? node.items.flatMap(sequence) : [node]
}

/** The longest exact run of bytes every match holds, when it is MIN_LENGTH long or more. */
export function requiredLiteral(tree: RegexNode): string | undefined {
  let longest = ''
  let run = ''
  for (const item of sequence(tree)) {
    if (item.t === 'assert') continue
    const exact =
      item.t === 'lit' &&
      (item.byte || item.cp <= 0x7f) &&
      item.cp <= 0xff &&
      !(item.f.i && isLetter(item.cp))
    if (!exact) {
      run = ''
      continue
    }
    run += String.fromCharCode(item.cp)
    if (run.length > longest.length) longest = run
  }
  return longest.length >= MIN_LENGTH ? longest : undefined
}
