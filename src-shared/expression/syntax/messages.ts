// Messages and hints the parser and the checker share: the vendor's wording for an index or an
// operator a type does not allow (docs/vendor-behaviour.md#parse-errors), and our hints beside it.

import type { Scheme } from '../scheme/scheme'
import { isArray, isMap, typeDebug, type Type } from '../values/types'
import type { IndexStep } from './ast'
import { WORD_OPERATORS } from './operators'

export function indexAccessMessage(step: IndexStep, actual: Type): string {
  const index =
    step.kind === 'arrayIndex'
      ? `ArrayIndex(${step.index})`
      : step.kind === 'mapKey'
        ? `MapKey(${JSON.stringify(step.key)})`
        : 'MapEach'
  return `cannot access index ${index} for type ${typeDebug(actual)}`
}

export function unsupportedOpMessage(t: Type): string {
  return `cannot perform this operation on type ${typeDebug(t)}`
}

export function unsupportedOpHint(t: Type): string | undefined {
  if (t === 'Bool')
    return 'a Bool field is a condition by itself: write it alone, or negate it with not'
  if (isArray(t) || isMap(t)) {
    return 'index the value first ([0] or ["name"]), or compare every element with [*] inside any(…) or all(…)'
  }
  return undefined
}

export function rhsHint(t: Type, op: string): string {
  if (t === 'Int') return `the right-hand side of ${op} on an Int must be an integer such as 80`
  if (t === 'Ip')
    return `the right-hand side of ${op} on an Ip must be an address such as 192.0.2.1`
  return `the right-hand side of ${op} on Bytes must be a string such as "text"`
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j] as number
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
      prev = tmp
    }
  }
  return row[b.length] as number
}

export function unknownIdentifierHint(scheme: Scheme, name: string): string | undefined {
  if (name.length > 64) return undefined
  const lower = name.toLowerCase()
  if (WORD_OPERATORS.has(lower) && lower !== name) {
    return `operators are lowercase: write "${lower}"`
  }
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of [...scheme.fields.keys(), ...scheme.functions.keys()]) {
    const d = levenshtein(name, candidate)
    if (d < bestDistance) {
      bestDistance = d
      best = candidate
    }
  }
  if (best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 4)))
    return `did you mean ${best}?`
  return undefined
}
