// What a compiled expression is evaluated against: field values and the lists `$name` names.
// The compiler, the values it shares between expressions and the vendor's request context all
// speak these types, so they live below each of them.

import type { Value } from './types'

/** The kind of items a `$name` list holds. */
export type ListKind = 'ip' | 'bytes' | 'int'

/** A list a `$name` resolves to at evaluation time. */
export interface ListMatcher {
  readonly kind: ListKind
  has(value: Value): boolean
}

/** What an expression is evaluated against: field values (see types.ts) and lists. */
export interface EvaluationContext {
  readonly fields: Readonly<Record<string, Value | undefined>>
  readonly lists?: Readonly<Record<string, ListMatcher | undefined>>
  /** receives notes such as "unknown list $x (treated as empty)" */
  readonly warn?: (message: string) => void
}
