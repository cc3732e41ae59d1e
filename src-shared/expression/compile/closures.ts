// The closures a compiled expression is made of, and the pieces the compiler builds them from:
// constants, index steps over arrays and maps (with `[*]` expanded), short-circuiting `and` /
// `or`, and set membership for `in {…}`.

import type { IndexNode, IndexStep, SetNode } from '../syntax/ast'
import { ipSetItemRange } from '../syntax/lexer'
import { utf8Bytes } from '../values/bytes'
import type { EvaluationContext } from '../values/evaluation'
import { IpRangeSet } from '../values/ip'
import { inRanges, mergeSortedRanges } from '../values/sorted-ranges'
import type { IpAddress, Value } from '../values/types'
import type { Needs } from './requirement'

export type BoolFn = (ctx: EvaluationContext) => boolean
export type VecFn = (ctx: EvaluationContext) => boolean[]
export type ValFn = (ctx: EvaluationContext) => Value | undefined

export type CompiledLogical =
  | {
      readonly kind: 'one'
      readonly fn: BoolFn
      readonly constant?: boolean
      /** what the condition needs of a request to be true (requirement.ts) */
      readonly needs?: Needs
    }
  | { readonly kind: 'vec'; readonly fn: VecFn }

export interface CompiledValue {
  readonly fn: ValFn
  /** set when the value is known at compile time */
  readonly constant?: { readonly value: Value | undefined }
}

export function constOne(value: boolean): CompiledLogical {
  return { kind: 'one', fn: value ? () => true : () => false, constant: value }
}

export function constValue(value: Value | undefined): CompiledValue {
  return { fn: () => value, constant: { value } }
}

/** The elements a `[*]` iterates: array items, or map values in the map's order. */
export function elementsOf(v: Value): readonly Value[] {
  if (Array.isArray(v)) return v as readonly Value[]
  if (v instanceof Map) return Array.from((v as ReadonlyMap<string, Value>).values())
  return []
}

export type StepFn = (v: Value) => Value | undefined

export function stepFn(step: IndexStep): StepFn {
  if (step.kind === 'arrayIndex') {
    const i = step.index
    return (v) => (v as readonly Value[])[i]
  }
  if (step.kind === 'mapKey') {
    const key = utf8Bytes(step.key)
    return (v) => (v as ReadonlyMap<string, Value>).get(key)
  }
  throw new Error('mapEach is not a simple step')
}

/** Follows `steps` from each of `items`, expanding `[*]`; drops missing values. */
export function flatten(root: Value, steps: readonly IndexStep[]): Value[] {
  let items: Value[] = [root]
  for (const step of steps) {
    const next: Value[] = []
    if (step.kind === 'mapEach') {
      for (const item of items) for (const el of elementsOf(item)) next.push(el)
    } else {
      const f = stepFn(step)
      for (const item of items) {
        const v = f(item)
        if (v !== undefined) next.push(v)
      }
    }
    items = next
  }
  return items
}

export type ElementWalker = (ctx: EvaluationContext, visit: (v: Value) => boolean) => boolean
export type StepWalker = (v: Value, visit: (v: Value) => boolean) => boolean

/** Applies `steps` to a value, expanding `[*]`, and visits the results until one says stop. */
export function walkSteps(steps: readonly IndexStep[]): StepWalker {
  if (steps.length === 0) return (v, visit) => visit(v)
  const [step, ...rest] = steps as [IndexStep, ...IndexStep[]]
  const next = walkSteps(rest)
  if (step.kind === 'mapEach') {
    return (v, visit) => {
      for (const el of elementsOf(v)) if (next(el, visit)) return true
      return false
    }
  }
  const f = stepFn(step)
  return (v, visit) => {
    const w = f(v)
    return w !== undefined && next(w, visit)
  }
}

export function mapEachCount(n: IndexNode): number {
  let c = 0
  for (const s of n.indexes) if (s.kind === 'mapEach') c++
  return c
}

/** `and` / `or` of conditions, evaluated left to right until one decides. */
export function shortCircuit(rest: readonly BoolFn[], isAnd: boolean): BoolFn {
  if (rest.length === 2) {
    const [a, b] = rest as [BoolFn, BoolFn]
    return isAnd ? (ctx) => a(ctx) && b(ctx) : (ctx) => a(ctx) || b(ctx)
  }
  if (rest.length === 3) {
    const [a, b, c] = rest as [BoolFn, BoolFn, BoolFn]
    return isAnd ? (ctx) => a(ctx) && b(ctx) && c(ctx) : (ctx) => a(ctx) || b(ctx) || c(ctx)
  }
  return isAnd
    ? (ctx) => {
        for (const f of rest) if (!f(ctx)) return false
        return true
      }
    : (ctx) => {
        for (const f of rest) if (f(ctx)) return true
        return false
      }
}

export function setPredicate(set: SetNode): (v: Value) => boolean {
  if (set.of === 'Bytes') {
    const values = new Set(set.items.map((i) => (i.kind === 'bytes' ? i.value : '')))
    return (v) => values.has(v as string)
  }
  if (set.of === 'Int') {
    const ranges = set.items
      .map((i) => (i.kind === 'intRange' ? [Number(i.start), Number(i.end)] : [0, -1]))
      .filter(([a, b]) => (a as number) <= (b as number))
      .sort((x, y) => (x[0] as number) - (y[0] as number))
    const merged = mergeSortedRanges(ranges as [number, number][])
    const starts = merged.map((r) => r[0])
    const ends = merged.map((r) => r[1])
    if (starts.length <= 8) {
      return (v) => {
        const x = v as number
        for (let i = 0; i < starts.length; i++)
          if (x >= (starts[i] as number) && x <= (ends[i] as number)) return true
        return false
      }
    }
    return (v) => inRanges(starts, ends, v as number)
  }
  const ips = new IpRangeSet(
    set.items.flatMap((i) => (i.kind === 'ipItem' ? [ipSetItemRange(i.item)] : [])),
  )
  return (v) => ips.has(v as IpAddress)
}
