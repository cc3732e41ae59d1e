// Values computed once per request and shared by every compiled expression that reads them.
//
// The rules of a ruleset read the same values over and over (`url_decode(http.request.uri.query)`
// in dozens of rules, each tried with its own pattern): every compiled expression gets the same
// SharedValue for the same pure call or field path, which computes it once per request — and, for
// the regular expressions tried on it, scans it once for the prefilter's literals.
//
// A SharedValue remembers only the context it was last asked about. That is enough because
// contexts are immutable (a value is a function of its context alone) and a request's rules are
// evaluated one after the other: asking about another context recomputes, and asking about an
// earlier one again recomputes the same value. It keeps that last context (and its values) alive
// until the next one arrives.

import type { Scheme } from '../scheme/scheme'
import type { IndexNode } from '../syntax/ast'
import type { EvaluationContext } from '../values/evaluation'
import { ScannedInput, scannedInput } from '../regex/prefilter'
import type { Value } from '../values/types'

/** element inputs a SharedValue keeps for reuse */
const POOLED_ELEMENTS = 64
/** distinct values a SharedValues shares before it starts afresh */
const LIMIT = 5000

export class SharedValue {
  private ctx: EvaluationContext | undefined
  private value: Value | undefined
  /** the value scanned, once asked for in this context */
  private input: ScannedInput | undefined
  /** the elements scanned (an array's items, a map's values), once asked for in this context */
  private elementInputs: ScannedInput[] | undefined
  // The elements' inputs are reused from context to context: allocating them costs more than
  // scanning.
  private readonly elementPool: ScannedInput[] = []

  constructor(private readonly compute: (ctx: EvaluationContext) => Value | undefined) {}

  get(ctx: EvaluationContext): Value | undefined {
    if (ctx !== this.ctx) this.refresh(ctx)
    return this.value
  }

  /**
   * The value (a Bytes value) scanned for the prefilter; undefined when it is missing. Equal values
   * (a query and its decoded form when there is nothing to decode) share one scan.
   */
  scanned(ctx: EvaluationContext): ScannedInput | undefined {
    if (ctx !== this.ctx) this.refresh(ctx)
    const value = this.value as string | undefined
    if (value === undefined) return undefined
    // Recently scanned inputs are reused for other values: once this one has been, ask again.
    if (this.input === undefined || this.input.binary !== value) this.input = scannedInput(value)
    return this.input
  }

  /** The elements of the value (an array or map of Bytes values), each scanned for the prefilter. */
  scannedElements(ctx: EvaluationContext): readonly ScannedInput[] {
    if (ctx !== this.ctx) this.refresh(ctx)
    if (this.elementInputs === undefined) {
      const value = this.value
      const elements = (
        value === undefined
          ? []
          : Array.isArray(value)
            ? value
            : [...(value as Map<string, Value>).values()]
      ) as string[]
      this.elementInputs = elements.map((element, i) => this.pooled(i).reset(element))
    }
    return this.elementInputs
  }

  private pooled(slot: number): ScannedInput {
    // The pool keeps the inputs of a usual number of elements; a value with more (a thousand
    // query arguments) gets fresh ones for the rest, which do not outlive it.
    if (slot >= POOLED_ELEMENTS) return new ScannedInput()
    return (this.elementPool[slot] ??= new ScannedInput())
  }

  private refresh(ctx: EvaluationContext): void {
    this.value = this.compute(ctx)
    this.input = undefined
    this.elementInputs = undefined
    // Set last: a compute that throws leaves nothing half-remembered.
    this.ctx = ctx
  }
}

/**
 * The SharedValue of each distinct value (by key) among expressions compiled alike. Past its
 * limit it starts afresh: expressions compiled before keep their values, unshared with later ones.
 */
export class SharedValues {
  private readonly byKey = new Map<string, SharedValue>()

  of(key: string, compute: (ctx: EvaluationContext) => Value | undefined): SharedValue {
    let shared = this.byKey.get(key)
    if (shared === undefined) {
      if (this.byKey.size >= LIMIT) this.byKey.clear()
      shared = new SharedValue(compute)
      this.byKey.set(key, shared)
    }
    return shared
  }
}

// A pure call's value, and a value tried with regular expressions, depend only on the request and
// recur across the rules of a ruleset: expressions compiled alike (same scheme, same treatment of
// missing values, which Bool arguments depend on) share one SharedValue per distinct one.
const sharedValues = new WeakMap<Scheme, [SharedValues, SharedValues]>()

export function sharedValuesOf(scheme: Scheme, nilNotEqual: boolean): SharedValues {
  let pair = sharedValues.get(scheme)
  if (pair === undefined) {
    pair = [new SharedValues(), new SharedValues()]
    sharedValues.set(scheme, pair)
  }
  return pair[nilNotEqual ? 1 : 0]
}

/** The identity of a value: its field or call and arguments, and steps, without positions. */
export function valueKey(node: IndexNode | IndexNode['target']): string {
  const value = node.kind === 'index' && node.indexes.length === 0 ? node.target : node
  return JSON.stringify(value, (key, item: unknown) =>
    key === 'span' || key.endsWith('Span')
      ? undefined
      : typeof item === 'bigint'
        ? `${item}n`
        : item,
  )
}
