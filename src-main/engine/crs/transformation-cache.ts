// A request's values after transformation chains (interpreter.ts). Each prefix of a chain is
// remembered per value, so chains that begin alike (t:utf8toUnicode,t:urlDecodeUni,…) share their
// first steps, as ModSecurity's own transformation cache does, and multiMatch's step-by-step
// values reuse them too.

import type { CompiledRule } from './compiled-rule'
import { reportsChange } from './transformation-changes'

/** One request's transformed values, by the cache slot of a chain's prefix and by value. */
export class TransformationCache {
  private readonly byPrefix: (Map<string, string> | undefined)[]

  constructor(slots: number) {
    this.byPrefix = new Array<undefined>(slots)
  }

  /** The value after the rule's transformations. */
  apply(value: string, compiled: CompiledRule): string {
    const fns = compiled.transformations
    if (fns.length === 0) return value
    const slots = compiled.prefixSlots
    // the longest prefix already applied to this value
    let done = fns.length
    let out: string | undefined
    while (done > 0) {
      out = this.byPrefix[slots[done - 1]!]?.get(value)
      if (out !== undefined) break
      done--
    }
    if (done === fns.length) return out!
    // The longer prefixes are not remembered for this value (the search above): each is computed.
    let current = done === 0 ? value : out!
    for (let i = done; i < fns.length; i++) {
      current = fns[i]!(current)
      this.remember(slots[i]!, value, current)
    }
    return current
  }

  /**
   * multiMatch: the value, then the value after each transformation that says it changed it
   * (ModSecurity's own flag, which is not always a difference: re_tfns.c).
   */
  each(value: string, compiled: CompiledRule): string[] {
    const names = compiled.rule.transformations
    if (names.length === 0) return []
    const values = [value]
    let current = value
    for (let i = 0; i < names.length; i++) {
      const next = this.step(value, compiled, i, current)
      if (reportsChange(names[i]!, current, next)) values.push(next)
      current = next
    }
    return values
  }

  /** The chain's step `i` applied to `current` (`value` after the steps before it), remembered. */
  private step(value: string, compiled: CompiledRule, i: number, current: string): string {
    const slot = compiled.prefixSlots[i]!
    let next = this.byPrefix[slot]?.get(value)
    if (next === undefined) {
      next = compiled.transformations[i]!(current)
      this.remember(slot, value, next)
    }
    return next
  }

  private remember(slot: number, value: string, transformed: string): void {
    let cache = this.byPrefix[slot]
    if (cache === undefined) {
      cache = new Map()
      this.byPrefix[slot] = cache
    }
    cache.set(value, transformed)
  }
}
