// A request's values after transformation chains (interpreter.ts). Each prefix of a chain is
// remembered per value, so chains that begin alike (t:utf8toUnicode,t:urlDecodeUni,…) share their
// first steps, as ModSecurity's own transformation cache does, and multiMatch's step-by-step
// values reuse them too. A value's results sit in one row, by prefix number: one lookup of the
// value serves a whole chain.

import type { CompiledRule } from './compiled-rule'
import { reportsChange } from './transformation-changes'

/** One request's transformed values, by value and by the number of a chain's prefix. */
export class TransformationCache {
  private readonly rows = new Map<string, (string | undefined)[]>()

  /** `prefixes`: how many distinct chain prefixes the program's rules have */
  constructor(private readonly prefixes: number) {}

  /** The results of every prefix remembered for a value. */
  private row(value: string): (string | undefined)[] {
    let row = this.rows.get(value)
    if (row === undefined) {
      row = new Array<undefined>(this.prefixes)
      this.rows.set(value, row)
    }
    return row
  }

  /** The value after the rule's transformations. */
  apply(value: string, compiled: CompiledRule): string {
    const fns = compiled.transformations
    if (fns.length === 0) return value
    const prefixes = compiled.prefixSlots
    const row = this.row(value)
    // the longest prefix already applied to this value
    let done = fns.length
    let out: string | undefined
    while (done > 0) {
      out = row[prefixes[done - 1]!]
      if (out !== undefined) break
      done--
    }
    if (done === fns.length) return out!
    let current = done === 0 ? value : out!
    for (let i = done; i < fns.length; i++) {
      current = fns[i]!(current)
      row[prefixes[i]!] = current
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
    const row = this.row(value)
    const prefix = compiled.prefixSlots[i]!
    let next = row[prefix]
    if (next === undefined) {
      next = compiled.transformations[i]!(current)
      row[prefix] = next
    }
    return next
  }
}
