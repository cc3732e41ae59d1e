// A request's values after transformation chains (interpreter.ts). Each prefix of a chain is
// remembered per value, so chains that begin alike (t:utf8toUnicode,t:urlDecodeUni,…) share their
// first steps, as ModSecurity's own transformation cache does, and multiMatch's step-by-step
// values reuse them too. A value's results sit in one row, by prefix number: one lookup of the
// value serves a whole chain. A chain that cannot act on a value's characters
// (transformation-scope.ts) is not run on it at all.

import type { CompiledRule } from './compiled-rule'
import { reportsChange } from './transformation-changes'
import { classesOf } from './transformation-scope'

/** A value's classes of characters, and its results by prefix once a chain acts on it. */
interface Row {
  classes: number
  results: (string | undefined)[] | undefined
}

/** One request's transformed values, by value and by the number of a chain's prefix. */
export class TransformationCache {
  private readonly rows = new Map<string, Row>()

  /** `prefixes`: how many distinct chain prefixes the program's rules have */
  constructor(private readonly prefixes: number) {}

  private row(value: string): Row {
    let row = this.rows.get(value)
    if (row === undefined) {
      row = { classes: classesOf(value), results: undefined }
      this.rows.set(value, row)
    }
    return row
  }

  /** The value after the rule's transformations. */
  apply(value: string, compiled: CompiledRule): string {
    const fns = compiled.transformations
    if (fns.length === 0) return value
    const row = this.row(value)
    if ((row.classes & compiled.chainScope) === 0) return value
    const results = (row.results ??= new Array<undefined>(this.prefixes))
    const prefixes = compiled.prefixSlots
    // the longest prefix already applied to this value
    let done = fns.length
    let out: string | undefined
    while (done > 0) {
      out = results[prefixes[done - 1]!]
      if (out !== undefined) break
      done--
    }
    if (done === fns.length) return out!
    let current = done === 0 ? value : out!
    const scopes = compiled.transformationScopes
    for (let i = done; i < fns.length; i++) {
      // Until a step changes it, the value has its classes: a step beyond them leaves it be.
      if (current !== value || (row.classes & scopes[i]!) !== 0) current = fns[i]!(current)
      results[prefixes[i]!] = current
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
    const row = this.row(value)
    const values = [value]
    let current = value
    for (let i = 0; i < names.length; i++) {
      const next = this.step(row, value, compiled, i, current)
      if (reportsChange(names[i]!, current, next)) values.push(next)
      current = next
    }
    return values
  }

  /** The chain's step `i` applied to `current` (`value` after the steps before it), remembered. */
  private step(
    row: Row,
    value: string,
    compiled: CompiledRule,
    i: number,
    current: string,
  ): string {
    if (current === value && (row.classes & compiled.transformationScopes[i]!) === 0) return value
    const results = (row.results ??= new Array<undefined>(this.prefixes))
    const prefix = compiled.prefixSlots[i]!
    let next = results[prefix]
    if (next === undefined) {
      next = compiled.transformations[i]!(current)
      results[prefix] = next
    }
    return next
  }
}
