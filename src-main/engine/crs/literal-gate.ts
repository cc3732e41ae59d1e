// Which @rx rules can match a value, from one scan of it: RE2's FilteredRE2 and Hyperscan's
// approach (https://github.com/google/re2/blob/main/re2/filtered_re2.h). Each pattern's prefilter
// (src-shared/expression/regex/prefilter.ts) knows literals and bytes of which every match holds
// one, its gate; the shared literal automaton scans a value once for all of them. The rules reading
// the same targets through the same transformations form a group, indexed literal → rules, so a
// value visits only the rules whose literal it holds, and a rule none of whose values does is
// passed over without running its regex. A rule without a usable gate always runs.

import { compileRegex } from '@shared/expression'
import {
  coverRegisteredLiterals,
  scannedInput,
  type Clause,
} from '@shared/expression/regex/prefilter'
import type { CompiledRule } from './compiled-rule'
import type { CrsRule } from './program'
import { rewritePcre, UnsupportedPcre } from './regex-dialect'
import type { Entry } from './request'

/**
 * The gate of a rule whose operator is a plain @rx (not negated, no macros, one value at a time):
 * every value it matches holds one of the clause's atoms. Undefined when nothing is known, or the
 * pattern is one regex-dialect.ts writes by hand (its rewrite refuses it).
 */
export function regexGate(rule: CrsRule): Clause | undefined {
  const { name, parameter, negated } = rule.operator
  if (name !== 'rx' || negated || rule.multiMatch || parameter.includes('%{')) return undefined
  let rewritten: string
  try {
    rewritten = rewritePcre(parameter)
  } catch (e) {
    if (e instanceof UnsupportedPcre) return undefined
    throw e
  }
  return compileRegex(rewritten).gate
}

/**
 * The gated rules of a program in their groups, a group per list of values (the rules' shared
 * transformedSlot); each gated rule is numbered (`gated`) and names its group (`gateGroup`).
 */
export class GateIndex {
  readonly groups: GateGroup[] = []
  /** the groups whose values may change in phase 2, which it scans again */
  readonly phase2Groups: number[] = []
  private readonly groupOf = new Map<number, number>()
  private gatedRules = 0

  /** Adds a rule if it is a plain @rx with a gate; `changesInPhase2`: its values may. */
  add(compiled: CompiledRule, changesInPhase2: boolean): void {
    const gate = compiled.dynamicTargets ? undefined : regexGate(compiled.rule)
    if (gate === undefined || compiled.fixedOperator === undefined) return
    let group = this.groupOf.get(compiled.transformedSlot)
    if (group === undefined) {
      group = this.groups.length
      this.groups.push(new GateGroup())
      this.groupOf.set(compiled.transformedSlot, group)
      if (changesInPhase2) this.phase2Groups.push(group)
    }
    compiled.gated = this.gatedRules++
    compiled.gateGroup = group
    this.groups[group]!.add(compiled.gated, gate)
  }

  seal(): void {
    for (const group of this.groups) group.seal()
  }
}

/** The bits of a prefilter's set that a clause tests: bytes 0..255, then its literals' ids. */
const BITS_PER_WORD = 32

/**
 * The gated rules reading one list of values (the same targets, the same transformations), indexed
 * by the atoms of their gates.
 */
export class GateGroup {
  /** the words of the prefilter's set some gate of the group tests, and their bits */
  private words = new Int32Array(0)
  private masks = new Int32Array(0)
  /** by word (its place in `words`) × bit: the gated rules (their numbers) holding that atom */
  private rulesAt: (number[] | undefined)[] = []
  /** every rule of the group, for a value scanned before the automaton covered the gates */
  private readonly members: number[] = []
  /** the largest literal id of the gates (-1 without literals) */
  private maxLiteral = -1
  private readonly pending = new Map<number, Map<number, number[]>>()

  /** Adds the rule numbered `gated` with its gate. */
  add(gated: number, gate: Clause): void {
    this.members.push(gated)
    this.maxLiteral = Math.max(this.maxLiteral, gate.maxLiteral)
    for (let i = 0; i < gate.pairs.length; i += 2) {
      const word = gate.pairs[i]!
      let bits = this.pending.get(word)
      if (bits === undefined) {
        bits = new Map()
        this.pending.set(word, bits)
      }
      for (let bit = 0; bit < BITS_PER_WORD; bit++) {
        if ((gate.pairs[i + 1]! & (1 << bit)) === 0) continue
        const rules = bits.get(bit)
        if (rules === undefined) bits.set(bit, [gated])
        else rules.push(gated)
      }
    }
  }

  /** Drops the group's rules' candidates (their values change with the phase). */
  forget(candidates: (number[] | undefined)[]): void {
    for (const gated of this.members) candidates[gated] = undefined
  }

  /** Builds the index once every rule is added; the literal automaton then covers every gate. */
  seal(): void {
    const words = [...this.pending.keys()].sort((a, b) => a - b)
    this.words = Int32Array.from(words)
    this.masks = new Int32Array(words.length)
    this.rulesAt = new Array<undefined>(words.length * BITS_PER_WORD)
    words.forEach((word, place) => {
      for (const [bit, rules] of this.pending.get(word)!) {
        this.masks[place]! |= 1 << bit
        this.rulesAt[place * BITS_PER_WORD + bit] = rules
      }
    })
    this.pending.clear()
    // The literal automaton covers every gate from now on (else scan() admits every rule).
    coverRegisteredLiterals()
  }

  /**
   * For each value, in order, appends its index to the list of each rule of the group whose gate
   * it meets (`candidates`, by rule number; a rule whose gate no value meets gets no list).
   */
  scan(values: readonly Entry[], candidates: (number[] | undefined)[]): void {
    const { words, masks, rulesAt } = this
    for (let index = 0; index < values.length; index++) {
      const input = scannedInput(values[index]![1])
      const found = input.bits()
      if (this.maxLiteral >= input.coveredLiterals) {
        for (const gated of this.members) admit(candidates, gated, index)
        continue
      }
      for (let place = 0; place < words.length; place++) {
        let hits = found[words[place]!]! & masks[place]!
        while (hits !== 0) {
          const bit = 31 - Math.clz32(hits)
          hits &= ~(1 << bit)
          for (const gated of rulesAt[place * BITS_PER_WORD + bit]!) admit(candidates, gated, index)
        }
      }
    }
  }
}

/** Adds a value's index to a rule's candidates once (two of its atoms may occur in one value). */
function admit(candidates: (number[] | undefined)[], gated: number, index: number): void {
  const list = candidates[gated]
  if (list === undefined) candidates[gated] = [index]
  else if (list[list.length - 1] !== index) list.push(index)
}
