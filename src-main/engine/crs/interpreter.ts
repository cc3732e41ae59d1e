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
// Compiled once per plan (compiled-rule.ts); a request's collections are built on first use
// (request-collections.ts).

import {
  compileRule,
  DYNAMIC,
  keySelector,
  SCORE_VARIABLE,
  type CompiledRule,
} from './compiled-rule'
import { constantLevelKeys, LevelGuard } from './level-guards'
import { GateIndex } from './literal-gate'
import { templateOf } from './macros'
import { isMarker, type CrsBundle, type CrsSetvar, type CrsVariable } from './program'
import type { CrsRequest, Entry } from './request'
import { readsBody, RequestCollections } from './request-collections'
import type { CrsMatch, CrsResult, CrsRunOptions } from './run-result'
import { TransformationCache } from './transformation-cache'

export type { CrsMatch, CrsResult, CrsRunOptions } from './run-result'

/** What entering phase 2 forgets: the caches of values that come from the body. */
interface PhaseChange {
  slots: readonly number[]
  /** the gate groups reading such values, by number */
  gateGroups: readonly number[]
}

interface Phase {
  rules: (CompiledRule | undefined)[]
}

/** A compiled CRS program, run on requests. */
export class CrsProgramRunner {
  private readonly phases: Phase[]
  /**
   * The request's caches are arrays indexed by slot, one slot per distinct target list, target,
   * transformation chain, or both, numbered here as the rules are compiled.
   */
  private readonly slots = new Map<string, number>()
  /** the plain @rx rules with a gate, by group (literal-gate.ts) */
  private readonly gates = new GateIndex()
  /** the cache slots of values that come from the body: phase 2 computes them again */
  private readonly bodySlots = new Set<number>()
  private readonly phaseChange: PhaseChange

  constructor(private readonly bundle: CrsBundle) {
    const constant = constantLevelKeys(bundle.program.items)
    this.phases = [1, 2].map((phase) => this.compilePhase(phase, constant))
    this.gates.seal()
    this.phaseChange = { slots: [...this.bodySlots], gateGroups: this.gates.bodyGroups }
  }

  /** Marks the slots of a rule's targets that read the body; true when it reads some. */
  private noteBody(compiled: CompiledRule): boolean {
    const variables = compiled.rule.variables
    if (!variables.some((variable) => readsBody(variable.collection))) return false
    this.bodySlots.add(compiled.targetsSlot)
    this.bodySlots.add(compiled.transformedSlot)
    variables.forEach((variable, index) => {
      if (readsBody(variable.collection)) this.bodySlots.add(compiled.variableSlots[index]!)
    })
    return true
  }

  private slot(key: string): number {
    let slot = this.slots.get(key)
    if (slot === undefined) {
      slot = this.slots.size
      this.slots.set(key, slot)
    }
    return slot
  }

  private compilePhase(phase: number, constantLevelKeys: ReadonlySet<string>): Phase {
    const items = this.bundle.program.items.filter((item) => isMarker(item) || item.phase === phase)
    const markers = new Map<string, number>()
    items.forEach((item, index) => {
      if (isMarker(item)) markers.set(item.marker, index + 1)
    })
    return {
      rules: items.map((item) => {
        if (isMarker(item)) return undefined
        const compiled = compileRule(item, item.id, {
          data: this.bundle.data,
          slot: (key) => this.slot(key),
        })
        if (item.skipAfter !== undefined) compiled.skipTo = markers.get(item.skipAfter)
        compiled.levelGuard = LevelGuard.of(compiled, constantLevelKeys)
        for (let link: CompiledRule | undefined = compiled; link; link = link.chain) {
          this.gates.add(link, this.noteBody(link))
        }
        return compiled
      }),
    }
  }

  run(request: CrsRequest, options: CrsRunOptions): CrsResult {
    const tx = new Transaction(request, options, this.slots.size, this.gates, this.phaseChange)
    for (const [index, phase] of this.phases.entries()) {
      tx.enterPhase(index + 1)
      const rules = phase.rules
      for (let i = 0; i < rules.length && !tx.stopped; i++) {
        const compiled = rules[i]
        if (compiled === undefined) continue
        if (
          compiled.id !== undefined &&
          (options.disabled.has(compiled.id) || tx.removed.has(compiled.id))
        )
          continue
        const guard = compiled.levelGuard
        if (guard !== undefined && !guard.matchesAt(options.paranoiaLevel)) {
          tx.passOver()
          continue
        }
        if (tx.runChain(compiled) && compiled.skipTo !== undefined) i = compiled.skipTo - 1
      }
    }
    return { matches: tx.matches, anomalyScore: Number(tx.tx.get('anomaly_score') ?? 0) || 0 }
  }
}

/** One request's run: its collections, TX, and what the scoring rules did. */
class Transaction {
  phase = 1
  /** a target list's values after a transformation chain, by list and chain, this phase */
  private transformedTargets: (Entry[] | undefined)[]
  private expandedTargets: (Entry[] | undefined)[]
  private variableCache: (Entry[] | undefined)[]
  stopped = false
  readonly tx = new Map<string, string>()
  readonly removed = new Set<number>()
  readonly matches = new Map<number, CrsMatch>()
  private matchedVar: Entry | undefined
  private matchedVars: Entry[] = []
  private readonly transformations: TransformationCache
  private readonly collections: RequestCollections
  /** by gated rule: the indexes of the values its gate admits, this phase (literal-gate.ts) */
  private candidates: (number[] | undefined)[] = []
  /** by gate group: whether its values were scanned this phase */
  private scannedGroups: Uint8Array

  constructor(
    request: CrsRequest,
    options: CrsRunOptions,
    private readonly slots: number,
    private readonly gates: GateIndex,
    private readonly phaseChange: PhaseChange,
  ) {
    this.scannedGroups = new Uint8Array(gates.groups.length)
    this.transformedTargets = new Array<undefined>(slots)
    this.expandedTargets = new Array<undefined>(slots)
    this.variableCache = new Array<undefined>(slots)
    this.transformations = new TransformationCache(slots)
    const level = String(options.paranoiaLevel)
    // What crs-setup.conf sets for the golden files (scripts/crs-reference.ts): level, threshold.
    this.tx.set('paranoia_level', level)
    this.tx.set('executing_paranoia_level', level)
    this.tx.set('inbound_anomaly_score_threshold', '5')
    this.tx.set('outbound_anomaly_score_threshold', '4')
    this.collections = new RequestCollections(request)
  }

  enterPhase(phase: number): void {
    if (phase === this.phase) return
    this.phase = phase
    const { slots, gateGroups } = this.phaseChange
    for (const slot of slots) {
      this.transformedTargets[slot] = undefined
      this.expandedTargets[slot] = undefined
      this.variableCache[slot] = undefined
    }
    for (const group of gateGroups) {
      this.gates.groups[group]!.forget(this.candidates)
      this.scannedGroups[group] = 0
    }
  }

  /** Before a rule: MATCHED_VARS holds only what it (or its chain) matches. */
  passOver(): void {
    if (this.matchedVars.length > 0) this.matchedVars = []
  }

  /** Runs a rule and its chain; true when every link matched. */
  runChain(starter: CompiledRule): boolean {
    this.passOver()
    for (let link: CompiledRule | undefined = starter; link !== undefined; link = link.chain) {
      if (!this.runRule(link)) return false
    }
    return true
  }

  private runRule(compiled: CompiledRule): boolean {
    if (compiled.gated !== undefined) return this.runGated(compiled)
    const { rule } = compiled
    const targets = this.targets(compiled)
    const test = compiled.fixedTest
    if (test !== undefined) {
      let matched = false
      for (const target of this.transformedTargetsOf(compiled, targets)) {
        if (test(target[1])) continue
        matched = true
        this.onMatch(compiled, target, undefined)
      }
      return matched
    }
    const operator =
      compiled.fixedOperator ?? compiled.operator(this.expand(rule.operator.parameter, compiled))
    const negated = rule.operator.negated
    let matched = false
    if (!rule.multiMatch) {
      for (const target of this.transformedTargetsOf(compiled, targets)) {
        const result = operator(target[1])
        if ((result === undefined) !== negated) continue
        matched = true
        this.onMatch(compiled, target, negated ? undefined : result)
      }
      return matched
    }
    for (const target of targets) {
      for (const value of this.transformations.each(target[1], compiled)) {
        const result = operator(value)
        if ((result === undefined) !== negated) continue
        matched = true
        this.onMatch(compiled, [target[0], value], negated ? undefined : result)
      }
    }
    return matched
  }

  /** A plain @rx rule with a gate: run on the values its group's scan admits, if any. */
  private runGated(compiled: CompiledRule): boolean {
    const group = compiled.gateGroup!
    if (this.scannedGroups[group] === 0) {
      this.scannedGroups[group] = 1
      const values = this.transformedTargetsOf(compiled, this.targets(compiled))
      this.gates.groups[group]!.scan(values, this.candidates)
    }
    const admitted = this.candidates[compiled.gated!]
    if (admitted === undefined) return false
    const values = this.transformedTargetsOf(compiled, this.targets(compiled))
    const operator = compiled.fixedOperator!
    let matched = false
    for (const index of admitted) {
      const target = values[index]!
      const result = operator(target[1])
      if (result === undefined) continue
      matched = true
      this.onMatch(compiled, target, result)
    }
    return matched
  }

  private onMatch(compiled: CompiledRule, variable: Entry, captures: string[] | undefined): void {
    const { rule } = compiled
    this.matchedVar = variable
    this.matchedVars.push(variable)
    if (rule.capture && captures !== undefined) {
      for (let i = 0; i < 10; i++) {
        if (i < captures.length) this.tx.set(String(i), captures[i]!)
        else this.tx.delete(String(i))
      }
    }
    for (const setvar of rule.setvars ?? []) this.setvar(setvar, compiled, variable, captures)
    for (const control of rule.controls ?? []) this.control(control.name, control.value)
  }

  private setvar(
    setvar: CrsSetvar,
    compiled: CompiledRule,
    variable: Entry,
    captures: string[] | undefined,
  ): void {
    if (setvar.collection !== 'TX') return
    const name = this.expand(setvar.name, compiled).toLowerCase()
    if (setvar.operation === 'delete') {
      this.tx.delete(name)
      return
    }
    const value = this.expand(setvar.value, compiled)
    if (setvar.operation === 'set') {
      this.tx.set(name, value)
      return
    }
    const delta = (parseInt(value, 10) || 0) * (setvar.operation === 'add' ? 1 : -1)
    this.tx.set(name, String((parseInt(this.tx.get(name) ?? '0', 10) || 0) + delta))
    const level = SCORE_VARIABLE.exec(name)?.[1]
    if (level !== undefined && compiled.id !== undefined && delta !== 0) {
      const seen = this.matches.get(compiled.id)
      if (seen) seen.score += delta
      else {
        this.matches.set(compiled.id, {
          crsId: compiled.id,
          variable: variable[0],
          value: variable[1],
          match: captures?.[0] ?? variable[1],
          score: delta,
        })
      }
    }
  }

  /**
   * ctl as CRS's own rules use it. ruleRemoveTargetById/ByTag and ruleRemoveByTag appear only in
   * its application exclusion packages (REQUEST-903.*), which stay off as in the reference, and
   * auditLogParts/auditEngine change no score.
   */
  private control(name: string, value: string): void {
    switch (name.toLowerCase()) {
      case 'requestbodyprocessor':
        this.collections.bodyProcessor = value.toUpperCase()
        break
      case 'forcerequestbodyvariable':
        this.collections.forceBody = value.toLowerCase() === 'on'
        break
      case 'ruleengine':
        if (value.toLowerCase() === 'off') this.stopped = true
        break
      case 'ruleremovebyid':
        for (const part of value.split(/[\s,]+/)) {
          const [from, to] = part.split('-').map(Number)
          if (from === undefined || Number.isNaN(from)) continue
          for (let id = from; id <= (to ?? from); id++) this.removed.add(id)
        }
        break
    }
  }

  /** `%{tx.name}`, `%{rule.id}`, `%{matched_var}`, `%{request_headers.host}`, … */
  private expand(text: string, compiled: CompiledRule): string {
    if (!text.includes('%{')) return text
    let out = ''
    for (const part of templateOf(text)) {
      if (typeof part === 'string') {
        out += part
        continue
      }
      const { collection, key } = part
      switch (collection) {
        case 'TX':
          out += this.tx.get(key.toLowerCase()) ?? ''
          break
        case 'RULE':
          out += key.toLowerCase() === 'id' ? String(compiled.id ?? '') : ''
          break
        case 'MATCHED_VAR':
          out += this.matchedVar?.[1] ?? ''
          break
        case 'MATCHED_VAR_NAME':
          out += this.matchedVar?.[0] ?? ''
          break
        default: {
          const values = this.collection({ collection, ...(key ? { key } : {}) }, compiled)
          out += values[0]?.[1] ?? ''
        }
      }
    }
    return out
  }

  /** The targets after the rule's transformations, shared by rules with the same both. */
  private transformedTargetsOf(compiled: CompiledRule, targets: Entry[]): Entry[] {
    if (compiled.transformations.length === 0) return targets
    if (compiled.dynamicTargets)
      return targets.map(([name, value]) => [name, this.transformations.apply(value, compiled)])
    let transformed = this.transformedTargets[compiled.transformedSlot]
    if (transformed === undefined) {
      transformed = targets.map(([name, value]) => [
        name,
        this.transformations.apply(value, compiled),
      ])
      this.transformedTargets[compiled.transformedSlot] = transformed
    }
    return transformed
  }

  /** The rule's targets, in order, after exclusions; counts for `&` targets. */
  private targets(compiled: CompiledRule): Entry[] {
    const variables = compiled.rule.variables
    if (variables.length === 0) return NO_TARGET
    const txKey = compiled.txKey
    if (txKey !== undefined) {
      // `TX:name` alone, as the paranoia-level skips and most control rules read it.
      const value = this.tx.get(txKey)
      return value === undefined ? NO_TARGETS : [[compiled.txName!, value]]
    }
    if (compiled.dynamicTargets) return this.expandTargets(compiled)
    let targets = this.expandedTargets[compiled.targetsSlot]
    if (targets === undefined) {
      targets = this.expandTargets(compiled)
      this.expandedTargets[compiled.targetsSlot] = targets
    }
    return targets
  }

  private expandTargets(compiled: CompiledRule): Entry[] {
    const variables = compiled.rule.variables
    let targets: Entry[] = []
    variables.forEach((variable, index) => {
      const values = this.variableValues(variable, compiled.variableSlots[index]!, compiled)
      if (variable.count) targets.push([`&${variable.collection}`, String(values.length)])
      else if (variable.exclude) {
        if (values.length === 0) return
        const keys = new Set(values.map(([k]) => k.toLowerCase()))
        targets = targets.filter(([k]) => !keys.has(k.toLowerCase()))
      } else for (const entry of values) targets.push(entry)
    })
    return targets
  }

  /** One target's values; those of the request's own collections are shared between rules. */
  private variableValues(variable: CrsVariable, slot: number, compiled: CompiledRule): Entry[] {
    if (DYNAMIC.has(variable.collection)) return this.collection(variable, compiled)
    let values = this.variableCache[slot]
    if (values === undefined) {
      values = this.collection(variable, compiled)
      this.variableCache[slot] = values
    }
    return values
  }

  /** A variable's values, named as ModSecurity names them (`ARGS:q`). */
  private collection(variable: CrsVariable, compiled: CompiledRule): Entry[] {
    const name = variable.collection
    if (name === 'TX' && variable.key !== undefined) {
      const key = variable.key.toLowerCase()
      const value = this.tx.get(key)
      return value === undefined ? [] : [[`TX:${key}`, value]]
    }
    if (name === 'TX' && variable.keyPattern !== undefined) {
      // TX holds a hundred variables; CRS's selectors pick a few of them.
      const selects = keySelector(variable.keyPattern, compiled)
      const selected: Entry[] = []
      for (const [k, v] of this.tx) if (selects(k)) selected.push([`TX:${k}`, v])
      return selected
    }
    const all = this.entries(name)
    if (variable.key === undefined && variable.keyPattern === undefined) {
      return all.map(([k, v]) => [k === '' ? name : `${name}:${k}`, v])
    }
    let selected: Entry[]
    if (name === 'XML') selected = all.filter(([k]) => k === variable.key)
    else if (variable.keyPattern !== undefined) {
      const selects = keySelector(variable.keyPattern, compiled)
      selected = all.filter(([k]) => selects(k))
    } else {
      const key = variable.key!.toLowerCase()
      selected = all.filter(([k]) => k.toLowerCase() === key)
    }
    return selected.map(([k, v]) => [name === 'XML' ? 'XML' : `${name}:${k}`, v])
  }

  /** A collection's keys and values ('' for a scalar); the request's own built on first use. */
  private entries(name: string): Entry[] {
    switch (name) {
      case 'TX':
        return [...this.tx]
      case 'MATCHED_VAR':
        return this.matchedVar === undefined ? [] : [['', this.matchedVar[1]]]
      case 'MATCHED_VAR_NAME':
        return this.matchedVar === undefined ? [] : [['', this.matchedVar[0]]]
      case 'MATCHED_VARS':
        return this.matchedVars.map(([k, v]) => [k, v])
      case 'MATCHED_VARS_NAMES':
        return this.matchedVars.map(([k]) => [k, k])
      case 'REQBODY_PROCESSOR':
        // Without a processor ModSecurity still has the variable, empty.
        return [['', this.collections.bodyProcessor ?? '']]
    }
    return this.collections.entries(name, this.phase)
  }
}

/** SecAction's one target: the operator always matches it. */
const NO_TARGET: Entry[] = [['', '']]
const NO_TARGETS: Entry[] = []
