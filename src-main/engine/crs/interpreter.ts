// The CRS interpreter: runs the CRS program (program.ts) on one request as ModSecurity 2.9.7 runs
// it in DetectionOnly mode with anomaly scoring, phase 1 then phase 2 (apache2/re.c of
// https://github.com/owasp-modsecurity/ModSecurity/tree/v2/master):
//   - a rule's targets are expanded in order, each `!` target removing the same keys from those
//     before it, each `&` target giving the number of its values;
//   - each value is transformed by the rule's chain, then given to the operator (multiMatch: the
//     value before the transformations and after each one that changed it);
//   - every match sets MATCHED_VAR(_NAME), adds to MATCHED_VARS, sets TX:0-9 with `capture`, and
//     runs the rule's non-disruptive actions (setvar, ctl) again, so a rule matching two
//     arguments adds its score twice, as ModSecurity 2 does;
//   - a chained rule runs once when the rule before it matched; skipAfter acts when the whole chain
//     matched, jumping past its marker.
// Compiled once per plan (compiled-rule.ts); what a level and the disabled rules leave of the
// program is worked out once (run-plan.ts); a request's run is a Transaction (transaction.ts),
// whose collections are built on first use (request-collections.ts).

import { capturesRead } from './capture-reads'
import { compileRule, type CompiledRule } from './compiled-rule'
import { GateIndex } from './literal-gate'
import { isMarker, type CrsBundle, type CrsRule } from './program'
import type { CrsRequest } from './request'
import { changesInPhase2 } from './request-collections'
import type { CrsResult, CrsRunOptions } from './run-result'
import { planRun, type FoldedRun, type PhaseItems, type RunPlan } from './run-plan'
import { Transaction, type CaptureKey, type ProgramShape, type TxWrite } from './transaction'
import { TxReads } from './tx-reads'

export type { CrsMatch, CrsResult, CrsRunOptions } from './run-result'

/** Plans kept per runner beyond those of the disabled sets in use (by their level and ids). */
const PLAN_LIMIT = 64

/** A compiled CRS program, run on requests. */
export class CrsProgramRunner {
  private readonly phases: PhaseItems[]
  /**
   * The request's caches are arrays indexed by slot, one slot per distinct target list, target,
   * transformation chain, or both, numbered here as the rules are compiled.
   */
  private readonly slots = new Map<string, number>()
  /** the transformation chains' prefixes, numbered (transformation-cache.ts) */
  private readonly prefixes = new Map<string, number>()
  /** the plain @rx rules with a gate, by group (literal-gate.ts) */
  private readonly gates = new GateIndex()
  /**
   * the cache slots of values that may change in phase 2 (the body's, the path's:
   * request-collections.ts): phase 2 computes them again
   */
  private readonly phase2Slots = new Set<number>()
  /** what each request's Transaction needs of the program */
  private readonly shape: ProgramShape
  /** the links whose TX:0-9 some rule reads: the others only test their values */
  private readonly capturesRead: ReadonlySet<CrsRule>
  /** what the program reads of TX (tx-reads.ts) */
  private readonly txReads: TxReads
  /** by disabled set (the engine's plan.ts hands each request the same one), then by level */
  private readonly plansBySet = new WeakMap<ReadonlySet<number>, Map<number, RunPlan>>()
  /** by level and sorted disabled ids, for sets made per request */
  private readonly plans = new Map<string, RunPlan>()

  constructor(
    private readonly bundle: CrsBundle,
    /** false: every enabled rule runs per request (the reference the folded plans are tested on) */
    private readonly fold = true,
  ) {
    this.capturesRead = capturesRead(bundle.program.items)
    this.txReads = new TxReads(bundle.program.items)
    this.phases = [1, 2].map((phase) => this.compilePhase(phase))
    this.gates.seal()
    this.shape = {
      slots: this.slots.size,
      prefixes: this.prefixes.size,
      gates: this.gates,
      phaseChange: { slots: [...this.phase2Slots], gateGroups: this.gates.phase2Groups },
      captureKeys: CAPTURE_KEYS.filter(([, key]) => this.txReads.reads(key)),
    }
  }

  /** Marks the slots of a rule's targets that change in phase 2; true when some do. */
  private notePhase2(compiled: CompiledRule): boolean {
    const variables = compiled.rule.variables
    if (!variables.some((variable) => changesInPhase2(variable.collection))) return false
    this.phase2Slots.add(compiled.targetsSlot)
    this.phase2Slots.add(compiled.transformedSlot)
    variables.forEach((variable, index) => {
      if (changesInPhase2(variable.collection)) this.phase2Slots.add(compiled.variableSlots[index]!)
    })
    return true
  }

  private slot(key: string): number {
    return numberOf(this.slots, key)
  }

  private compilePhase(phase: number): PhaseItems {
    const items = this.bundle.program.items.filter((item) => isMarker(item) || item.phase === phase)
    const markers = new Map<string, number>()
    items.forEach((item, index) => {
      if (isMarker(item)) markers.set(item.marker, index + 1)
    })
    return items.map((item) => {
      if (isMarker(item)) return undefined
      const compiled = compileRule(item, item.id, {
        data: this.bundle.data,
        capturesRead: this.capturesRead,
        txRead: (key) => this.txReads.reads(key),
        slot: (key) => this.slot(key),
        prefix: (transformations) => numberOf(this.prefixes, transformations),
      })
      if (item.skipAfter !== undefined) compiled.skipTo = markers.get(item.skipAfter)
      for (let link: CompiledRule | undefined = compiled; link; link = link.chain) {
        this.gates.add(link, this.notePhase2(link))
      }
      return compiled
    })
  }

  /** The plan for a level and disabled set, made on first use. */
  private planFor(options: CrsRunOptions): RunPlan {
    const { paranoiaLevel, disabled } = options
    let byLevel = this.plansBySet.get(disabled)
    if (byLevel === undefined) {
      byLevel = new Map()
      this.plansBySet.set(disabled, byLevel)
    }
    let plan = byLevel.get(paranoiaLevel)
    if (plan !== undefined) return plan
    const key = `${paranoiaLevel} ${[...disabled].sort((a, b) => a - b).join(',')}`
    plan = this.plans.get(key)
    if (plan === undefined) {
      plan = planRun({
        phases: this.phases,
        paranoiaLevel,
        disabled,
        fold: this.fold,
        unobserved: (rule) => this.txReads.unobserved(rule, this.capturesRead),
        runAhead: (compiled, tx, links) => this.runAhead(compiled, tx, links),
      })
      if (this.plans.size >= PLAN_LIMIT) this.plans.delete(this.plans.keys().next().value!)
      this.plans.set(key, plan)
    }
    byLevel.set(paranoiaLevel, plan)
    return plan
  }

  /** A rule run on TX alone (run-plan.ts folds the rules whose outcome it decides). */
  private runAhead(
    compiled: CompiledRule,
    tx: ReadonlyMap<string, string>,
    links: number,
  ): FoldedRun | undefined {
    const run = new Transaction(NO_REQUEST, { tx, matchedVar: undefined }, this.shape)
    const writes: TxWrite[] = []
    run.writeLog = writes
    const matched = run.runChainStart(compiled, links)
    return matched === undefined
      ? undefined
      : { matched, effect: { writes, matchedVar: run.lastMatched } }
  }

  run(request: CrsRequest, options: CrsRunOptions): CrsResult {
    const plan = this.planFor(options)
    const tx = new Transaction(request, plan.start, this.shape)
    for (let p = 0; p < plan.phases.length && !tx.stopped; p++) {
      const { rules, skipTo, before } = plan.phases[p]!
      tx.enterPhase(p + 1)
      for (let i = 0; i < rules.length; i++) {
        const effect = before[i]
        if (effect !== undefined) tx.applyFolded(effect)
        const compiled = rules[i]!
        if (tx.removed.size > 0 && compiled.id !== undefined && tx.removed.has(compiled.id))
          continue
        if (tx.runChain(compiled) && skipTo[i]! >= 0) i = skipTo[i]! - 1
        if (tx.stopped) break
      }
      const end = before[rules.length]
      if (end !== undefined && !tx.stopped) tx.applyFolded(end)
    }
    return { matches: tx.matches, anomalyScore: Number(tx.tx.get('anomaly_score') ?? 0) || 0 }
  }
}

/** The number of a key among those numbered so far, a new one for a new key. */
function numberOf(numbers: Map<string, number>, key: string): number {
  let number = numbers.get(key)
  if (number === undefined) {
    number = numbers.size
    numbers.set(key, number)
  }
  return number
}

/** TX:0 to TX:9, as `capture` writes them (ModSecurity's Reference Manual, "capture"). */
const CAPTURE_KEYS: readonly CaptureKey[] = Array.from({ length: 10 }, (_, i) => [i, String(i)])

/** What a rule folded ahead of requests sees of the request: nothing (it reads only TX). */
const NO_REQUEST: CrsRequest = {
  method: '',
  uri: '',
  protocol: '',
  headers: [],
  body: '',
  remoteAddr: '',
}
