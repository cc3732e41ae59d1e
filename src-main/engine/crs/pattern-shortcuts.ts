// Exact tests for the CRS patterns that need no regex engine (regex-dialect.ts runs them instead
// of the automaton and its prefilter, which cost more on such patterns than the test itself):
//  - only literals, as an alternation or a concatenation of alternations (`(?:runtime|processbuilder)`,
//    `java\.lang\.(?:runtime|processbuilder)`, `\xac\xed\x00\x05`), compared with or without case:
//    an @pm in disguise, answered by the phrase automaton; anchored at the value's start or end
//    (`^(?i)application/x-www-form-urlencoded`), a prefix or suffix; at both (`^(?:GET|HEAD)$`,
//    `^$`), the whole value;
//  - one byte class (`[\n\r]`): whether the value holds one of its bytes.
// Only whether a pattern matches comes from here; its captures still come from the automaton.

import { asciiLower, isLetter } from '@shared/expression'
import type { RegexNode } from '@shared/expression/regex/tree'
import { PhraseAutomaton } from './phrase-automaton'

/** The most literals a pattern may expand to (CRS's largest literal alternation has 21). */
const MAX_LITERALS = 256

/** How a pattern's letters compare: all with case, all without, or it has none. */
type LetterCase = 'caseless' | 'exact' | 'none'

interface Literals {
  texts: string[]
  letterCase: LetterCase
}

/** Two parts' cases together; undefined when one compares letters with case and one without. */
function bothCases(a: LetterCase, b: LetterCase): LetterCase | undefined {
  if (a === 'none') return b
  if (b === 'none' || a === b) return a
  return undefined
}

/** The byte strings a pattern without anchors, classes or repetitions matches exactly. */
function literalsOf(node: RegexNode): Literals | undefined {
  switch (node.t) {
    case 'empty':
      return { texts: [''], letterCase: 'none' }
    case 'lit': {
      // Above 0x7f, a literal that is not a byte stands for its UTF-8 sequence: left to the engine.
      if (!node.byte && node.cp > 0x7f) return undefined
      const letterCase = !isLetter(node.cp) ? 'none' : node.f.i ? 'caseless' : 'exact'
      const text = String.fromCharCode(node.cp)
      return { texts: [letterCase === 'caseless' ? asciiLower(text) : text], letterCase }
    }
    case 'group':
      return literalsOf(node.node)
    case 'alt':
    case 'concat': {
      let result: Literals | undefined = { texts: [''], letterCase: 'none' }
      if (node.t === 'alt') result = { texts: [], letterCase: 'none' }
      for (const item of node.items) {
        const part = literalsOf(item)
        if (part === undefined || result === undefined) return undefined
        const letterCase = bothCases(result.letterCase, part.letterCase)
        if (letterCase === undefined) return undefined
        const texts: string[] =
          node.t === 'alt'
            ? [...result.texts, ...part.texts]
            : result.texts.flatMap((head) => part.texts.map((tail) => head + tail))
        if (texts.length > MAX_LITERALS) return undefined
        result = { texts, letterCase }
      }
      return result
    }
    default:
      return undefined
  }
}

/** `^` and `$` without multi-line mode are the value's start and end (`$` as DOLLAR_ENDONLY). */
function anchorOf(node: RegexNode | undefined): 'start' | 'end' | undefined {
  if (node?.t !== 'assert') return undefined
  if (node.kind === 'startText' || (node.kind === 'start' && !node.f.m)) return 'start'
  if (node.kind === 'endText' || (node.kind === 'end' && !node.f.m)) return 'end'
  return undefined
}

function literalTest(tree: RegexNode): ((value: string) => boolean) | undefined {
  const items = tree.t === 'concat' ? tree.items : [tree]
  const start = anchorOf(items[0]) === 'start'
  const end = items.length > (start ? 1 : 0) && anchorOf(items[items.length - 1]) === 'end'
  const middle = items.slice(start ? 1 : 0, end ? -1 : undefined)
  if (middle.some((item) => anchorOf(item) !== undefined)) return undefined
  const literals = literalsOf({ t: 'concat', items: middle })
  if (literals === undefined) return undefined
  const { texts, letterCase } = literals
  const fold = letterCase === 'caseless' ? asciiLower : (value: string) => value
  if (start && end) {
    const whole = new Set(texts)
    return (value) => whole.has(fold(value))
  }
  // An empty literal is found in every value, anchored at one end or not.
  if (texts.includes('')) return () => true
  if (start) return (value) => texts.some((text) => fold(value.slice(0, text.length)) === text)
  if (end) return (value) => texts.some((text) => fold(value.slice(-text.length)) === text)
  const automaton = new PhraseAutomaton(texts, letterCase === 'caseless' ? 'caseless' : 'exact')
  return (value) => automaton.firstMatch(value) !== -1
}

/** A class of bytes only (its case already folded into its ranges by the parser). */
function classTest(tree: RegexNode): ((value: string) => boolean) | undefined {
  let node = tree
  while (node.t === 'group') node = node.node
  if (node.t !== 'class' || node.set.negated || node.set.opaque.length > 0) return undefined
  const members = new Uint8Array(256)
  for (const [from, to] of node.set.ranges) {
    if (to > 0xff) return undefined
    members.fill(1, from, to + 1)
  }
  return (value) => {
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i)
      if (c <= 0xff && members[c] === 1) return true
    }
    return false
  }
}

/** The exact test of a pattern of one of the shapes above (parsed in byte mode), or undefined. */
export function patternShortcut(tree: RegexNode): ((value: string) => boolean) | undefined {
  return literalTest(tree) ?? classTest(tree)
}
