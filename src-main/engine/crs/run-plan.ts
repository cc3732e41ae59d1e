// What a paranoia level and a set of disabled rules leave of the CRS program, worked out once and
// walked by every request (interpreter.ts). Disabled rules are dropped. A rule that reads only TX
// variables whose values no request can change at that point (CRS's set-up rules `&TX:x "@eq 0"`
// with their setvar defaults, its paranoia-level skips `TX:EXECUTING_PARANOIA_LEVEL "@lt N"`, its
// sampling and exclusion-package switches), or collections that hold nothing here (REQUEST-910's
// IP reputation: request-collections.ts), gives the same answer on every request: it is run here,
// once, and leaves only its TX writes behind, replayed in place (constant folding over TX,
// https://en.wikipedia.org/wiki/Constant_folding); its skipAfter jumps here too, so the rules it
// passes over are never walked. Writes before the first rule that stays become the starting TX.
// A rule nothing can observe (tx-reads.ts) is left out too.
import { SCORE_VARIABLE, type CompiledRule } from './compiled-rule'
import { templateOf } from './macros'
import type { CrsRule } from './program'
import type { Entry } from './request'
import { EMPTY_COLLECTIONS } from './request-collections'
import { removedRuleIds, type FoldedEffect, type TxStart, type TxWrite } from './transaction'

/** A phase's rules as compiled: undefined where a marker stands, `skipTo` its items' indexes. */
export type PhaseItems = readonly (CompiledRule | undefined)[]

/** The rules of a phase that requests run, and what folded rules left between them. */
export interface PhasePlan {
  rules: readonly CompiledRule[]
  /** by rule: the index in `rules` its skipAfter jumps to (rules.length: the phase's end), or -1 */
  skipTo: Int32Array
  /** by rule, and once more for the phase's end: the folded rules' effect to replay before it */
  before: (FoldedEffect | undefined)[]
}

export interface RunPlan {
  start: TxStart
  phases: readonly PhasePlan[]
}

/** A folded rule's run on the TX known at its place: whether its chain matched, and its writes. */
export interface FoldedRun {
  matched: boolean
  effect: FoldedEffect
}

export interface PlanInputs {
  phases: readonly PhaseItems[]
  paranoiaLevel: number
  disabled: ReadonlySet<number>
  /**
   * whether to fold, and leave out unobserved rules (false: every enabled rule runs per request,
   * as a reference for tests)
   */
  fold: boolean
  /** whether nothing a rule can do is observed (tx-reads.ts): it is left out */
  unobserved(rule: CrsRule): boolean
  /**
   * runs the first `links` links of a rule's chain on a TX holding `tx`, and nothing else (no
   * request); undefined when they all matched, so the links after them decide
   */
  runAhead(
    compiled: CompiledRule,
    tx: ReadonlyMap<string, string>,
    links: number,
  ): FoldedRun | undefined
}

/**
 * What crs-setup.conf sets for the golden files (scripts/crs-reference.ts): the level and the
 * thresholds.
 */
function levelTx(level: number): Map<string, string> {
  return new Map([
    ['paranoia_level', String(level)],
    ['executing_paranoia_level', String(level)],
    ['inbound_anomaly_score_threshold', '5'],
    ['outbound_anomaly_score_threshold', '4'],
  ])
}

export function planRun(inputs: PlanInputs): RunPlan {
  const known = new KnownTx(levelTx(inputs.paranoiaLevel))
  /** the ids a rule kept for requests may remove (ctl:ruleRemoveById): never folded after it */
  const removable = new Set<number>()
  const phases = inputs.phases.map((items) => planPhase(items, known, removable, inputs))
  // Writes ahead of the first rule that stays: part of the starting TX.
  const tx = new Map(known.start)
  const lead = phases[0]?.before[0]
  if (lead !== undefined) {
    for (const [key, value] of lead.writes) {
      if (value === undefined) tx.delete(key)
      else tx.set(key, value)
    }
    phases[0]!.before[0] = undefined
  }
  return { start: { tx, matchedVar: lead?.matchedVar }, phases }
}

function planPhase(
  items: PhaseItems,
  known: KnownTx,
  removable: Set<number>,
  inputs: PlanInputs,
): PhasePlan {
  const rules: CompiledRule[] = []
  /** by rule: its index among the items, and where its skip lands among them */
  const places: number[] = []
  const targets: number[] = []
  const before: (FoldedEffect | undefined)[] = []
  let pending: { writes: TxWrite[]; matchedVar: Entry | undefined } | undefined
  /** the item indexes of markers that rules kept for requests may jump to, not yet reached */
  let open: number[] = []
  for (let i = 0; i < items.length; i++) {
    if (open.length > 0) open = open.filter((target) => target > i)
    const compiled = items[i]
    if (compiled === undefined) continue
    if (compiled.id !== undefined && inputs.disabled.has(compiled.id)) continue
    // Between a kept skip and its marker a rule may or may not run: none is folded there.
    const links = inputs.fold && open.length === 0 ? known.constantLinks(compiled, removable) : 0
    const run = links > 0 ? inputs.runAhead(compiled, known.values, links) : undefined
    if (run !== undefined) {
      if (run.effect.writes.length > 0 || run.effect.matchedVar !== undefined) {
        pending ??= { writes: [], matchedVar: undefined }
        pending.writes.push(...run.effect.writes)
        pending.matchedVar = run.effect.matchedVar ?? pending.matchedVar
        known.record(run.effect.writes)
      }
      if (run.matched && compiled.skipTo !== undefined) i = compiled.skipTo - 1
      continue
    }
    if (inputs.fold && inputs.unobserved(compiled.rule)) continue
    before[rules.length] = pending
    pending = undefined
    rules.push(compiled)
    places.push(i)
    targets.push(compiled.skipTo ?? -1)
    if (compiled.skipTo !== undefined && compiled.skipTo > i) open.push(compiled.skipTo)
    known.forgetWrites(compiled.rule)
    for (let link: CrsRule | undefined = compiled.rule; link !== undefined; link = link.chain) {
      for (const control of link.controls ?? [])
        if (control.name.toLowerCase() === 'ruleremovebyid')
          for (const id of removedRuleIds(control.value)) removable.add(id)
    }
  }
  before[rules.length] = pending
  const skipTo = Int32Array.from(targets, (target) => {
    if (target < 0) return -1
    const landing = places.findIndex((place) => place >= target)
    return landing < 0 ? rules.length : landing
  })
  return { rules, skipTo, before }
}

/**
 * The TX variables whose values are the same for every request at a point of the program: all of
 * them at first (the level's, and absent ones), less those rules kept for requests may write.
 */
class KnownTx {
  readonly values: Map<string, string>
  /** the TX before any rule */
  readonly start: ReadonlyMap<string, string>
  private readonly unknown = new Set<string>()
  /** names starting so are unknown (setvar names with a macro: `tx.%{rule.id}-…`) */
  private readonly unknownPrefixes: string[] = []

  constructor(start: Map<string, string>) {
    this.start = new Map(start)
    this.values = start
  }

  private knows(key: string): boolean {
    return !this.unknown.has(key) && !this.unknownPrefixes.some((prefix) => key.startsWith(prefix))
  }

  private knowsAll(): boolean {
    return this.unknown.size === 0 && this.unknownPrefixes.length === 0
  }

  /** A folded rule's writes, now known. */
  record(writes: readonly TxWrite[]): void {
    for (const [key, value] of writes) {
      if (value === undefined) this.values.delete(key)
      else this.values.set(key, value)
      this.unknown.delete(key)
    }
  }

  /** A rule kept for requests: what its setvars and captures may write becomes unknown. */
  forgetWrites(rule: CrsRule): void {
    for (let link: CrsRule | undefined = rule; link !== undefined; link = link.chain) {
      if (link.capture) for (let i = 0; i < 10; i++) this.unknown.add(String(i))
      for (const setvar of link.setvars ?? []) {
        if (setvar.collection !== 'TX') continue
        const macro = setvar.name.indexOf('%{')
        if (macro < 0) this.unknown.add(setvar.name.toLowerCase())
        else this.unknownPrefixes.push(setvar.name.slice(0, macro).toLowerCase())
      }
    }
  }

  /**
   * How many links of a rule's chain, from the first, run the same on every request here: each
   * reads only known TX variables and collections that hold nothing (targets and macros), and
   * does nothing but write TX (no ctl,
   * no score: a score names the request's match in the trace). A chain whose constant links do
   * not all match is decided by them alone.
   */
  constantLinks(compiled: CompiledRule, removable: ReadonlySet<number>): number {
    if (compiled.id !== undefined && removable.has(compiled.id)) return 0
    let links = 0
    for (let link: CrsRule | undefined = compiled.rule; link !== undefined; link = link.chain) {
      if (!this.isConstant(link)) break
      links++
    }
    return links
  }

  private isConstant(link: CrsRule): boolean {
    if ((link.controls ?? []).length > 0) return false
    for (const variable of link.variables) {
      if (EMPTY_COLLECTIONS.has(variable.collection)) continue
      if (variable.collection !== 'TX') return false
      if (variable.key === undefined ? !this.knowsAll() : !this.knows(variable.key.toLowerCase()))
        return false
    }
    if (!this.knowsMacros(link.operator.parameter, false)) return false
    for (const setvar of link.setvars ?? []) {
      if (setvar.collection !== 'TX') continue
      if (setvar.name.includes('%{') || !this.knowsMacros(setvar.value, true)) return false
      if (setvar.operation === 'add' || setvar.operation === 'subtract') {
        if (SCORE_VARIABLE.test(setvar.name) || !this.knows(setvar.name)) return false
      }
    }
    return true
  }

  /** Whether a macro text reads only known TX, the rule's id, and (in setvars) its own match. */
  private knowsMacros(text: string, inSetvar: boolean): boolean {
    if (!text.includes('%{')) return true
    return templateOf(text).every((part) => {
      if (typeof part === 'string') return true
      switch (part.collection) {
        case 'TX':
          return this.knows(part.key)
        case 'RULE':
          return true
        case 'MATCHED_VAR':
        case 'MATCHED_VAR_NAME':
          return inSetvar
        default:
          return false
      }
    })
  }
}
