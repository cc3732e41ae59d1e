// One request's run of the CRS program (interpreter.ts runs its plan's rules through it, in
// order): its collections, TX, MATCHED_VAR, and what the scoring rules did, as ModSecurity 2.9.7
// keeps them (apache2/re.c of https://github.com/owasp-modsecurity/ModSecurity/tree/v2/master).

import {
  keySelector,
  SCORE_VARIABLE,
  type CompiledRule,
  type Operator,
  type OperatorTest,
} from './compiled-rule'
import type { GateIndex } from './literal-gate'
import { templateOf } from './macros'
import type { CrsSetvar, CrsVariable } from './program'
import type { CrsRequest, Entry } from './request'
import { namedEntries, namesOf, RequestCollections } from './request-collections'
import type { CrsMatch } from './run-result'
import { TransformationCache } from './transformation-cache'
import { cString } from './transformations'

/** What entering phase 2 forgets: the caches of values that change in it (the body's, the path's). */
export interface PhaseChange {
  slots: readonly number[]
  /** the gate groups reading such values, by number */
  gateGroups: readonly number[]
}

/** What a request's run needs of the compiled program (interpreter.ts), the same for every run. */
export interface ProgramShape {
  /** how many cache slots and transformation prefixes the program has */
  slots: number
  prefixes: number
  gates: GateIndex
  phaseChange: PhaseChange
  /**
   * the TX:0-9 that some rule may read (tx-reads.ts), those `capture` writes: a capture no rule
   * reads changes nothing anyone sees (CRS reads TX:0, TX:1 and TX:2 only)
   */
  captureKeys: readonly CaptureKey[]
}

/** A TX capture variable: its index among the operator's match and groups, and its TX key. */
export type CaptureKey = readonly [index: number, key: string]

/** TX and MATCHED_VAR before a request's first rule (run-plan.ts). */
export interface TxStart {
  tx: ReadonlyMap<string, string>
  matchedVar: Entry | undefined
}

/** A TX write: a value set, or undefined for a variable removed. */
export type TxWrite = readonly [key: string, value: string | undefined]

/**
 * What rules run ahead of a request did (run-plan.ts): their TX writes in order, and the
 * MATCHED_VAR the last match left.
 */
export interface FoldedEffect {
  writes: readonly TxWrite[]
  matchedVar: Entry | undefined
}

/** One request's run: its collections, TX, and what the scoring rules did. */
export class Transaction {
  phase = 1
  /**
   * by cache slot (interpreter.ts numbers them apart): a target list's values, a target's, or a
   * list's after a transformation chain, this phase
   */
  private readonly lists: (Entry[] | undefined)[]
  stopped = false
  readonly tx: Map<string, string>
  readonly removed = new Set<number>()
  readonly matches = new Map<number, CrsMatch>()
  private matchedVar: Entry | undefined
  private matchedVars: Entry[] = []
  private readonly transformations: TransformationCache
  private readonly collections: RequestCollections
  /** by gated rule: the indexes of the values its gate admits, this phase (literal-gate.ts) */
  private candidates: (number[] | undefined)[] = []
  /** collections' entries by lower-cased key, by collection (withKey) */
  private readonly keyIndexes = new Map<Entry[], Map<string, Entry[]>>()
  /** by gate group: whether its values were scanned this phase */
  private scannedGroups: Uint8Array

  /** when set, every TX write in order (run-plan.ts records a rule run ahead of requests) */
  writeLog: TxWrite[] | undefined

  constructor(
    request: CrsRequest,
    start: TxStart,
    private readonly program: ProgramShape,
  ) {
    this.scannedGroups = new Uint8Array(program.gates.groups.length)
    this.lists = new Array<undefined>(program.slots)
    this.transformations = new TransformationCache(program.prefixes)
    this.tx = new Map(start.tx)
    this.matchedVar = start.matchedVar
    this.collections = new RequestCollections(request)
  }

  /** The last match's variable (MATCHED_VAR_NAME and MATCHED_VAR). */
  get lastMatched(): Entry | undefined {
    return this.matchedVar
  }

  /** Replays what rules run ahead of the request did at this point. */
  applyFolded(effect: FoldedEffect): void {
    for (const [key, value] of effect.writes) this.write(key, value)
    if (effect.matchedVar !== undefined) this.matchedVar = effect.matchedVar
  }

  private write(key: string, value: string | undefined): void {
    if (value === undefined) this.tx.delete(key)
    else this.tx.set(key, value)
    this.writeLog?.push([key, value])
  }

  enterPhase(phase: number): void {
    if (phase === this.phase) return
    this.phase = phase
    const { gates, phaseChange } = this.program
    for (const slot of phaseChange.slots) this.lists[slot] = undefined
    for (const group of phaseChange.gateGroups) {
      // A group no rule of phase 1 read has no candidates to forget.
      if (this.scannedGroups[group] === 0) continue
      gates.groups[group]!.forget(this.candidates)
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

  /**
   * Runs the first `links` links of a chain (run-plan.ts, ahead of requests): whether the chain
   * matched, or undefined when they all matched and the rest would decide.
   */
  runChainStart(starter: CompiledRule, links: number): boolean | undefined {
    this.passOver()
    let link: CompiledRule | undefined = starter
    for (let run = 0; link !== undefined; run++, link = link.chain) {
      if (run === links) return undefined
      if (!this.runRule(link)) return false
    }
    return true
  }

  private runRule(compiled: CompiledRule): boolean {
    if (compiled.gated !== undefined) return this.runGated(compiled)
    const { rule } = compiled
    const targets = this.targets(compiled)
    const test = compiled.fixedTest
    const operator =
      test !== undefined
        ? undefined
        : (compiled.fixedOperator ??
          compiled.operator(this.expand(rule.operator.parameter, compiled)))
    let matched = false
    if (!compiled.multiMatch) {
      for (const target of this.transformedTargetsOf(compiled, targets))
        if (this.tryValue(compiled, test, operator, target[0], target[1], target)) matched = true
      return matched
    }
    for (const target of targets)
      for (const value of this.transformations.each(target[1], compiled))
        if (this.tryValue(compiled, test, operator, target[0], value, undefined)) matched = true
    return matched
  }

  /**
   * Gives one value to the rule's test, or else its operator, and runs the rule's actions when it
   * matches; `entry`: the value's entry when there is one already.
   */
  private tryValue(
    compiled: CompiledRule,
    test: OperatorTest | undefined,
    operator: Operator | undefined,
    name: string,
    value: string,
    entry: Entry | undefined,
  ): boolean {
    const negated = compiled.negated
    let captures: string[] | undefined
    if (test !== undefined) {
      if (test(value) === negated) return false
    } else {
      captures = operator!(value)
      if ((captures === undefined) !== negated) return false
      if (negated) captures = undefined
    }
    this.onMatch(compiled, entry ?? [name, value], captures)
    return true
  }

  /** A plain @rx rule with a gate: run on the values its group's scan admits, if any. */
  private runGated(compiled: CompiledRule): boolean {
    const group = compiled.gateGroup!
    if (this.scannedGroups[group] === 0) {
      this.scannedGroups[group] = 1
      const values = this.transformedTargetsOf(compiled, this.targets(compiled))
      this.program.gates.groups[group]!.scan(values, this.candidates)
    }
    const admitted = this.candidates[compiled.gated!]
    if (admitted === undefined) return false
    const values = this.transformedTargetsOf(compiled, this.targets(compiled))
    const test = compiled.fixedTest
    const operator = test === undefined ? compiled.fixedOperator : undefined
    let matched = false
    for (const index of admitted) {
      const target = values[index]!
      if (this.tryValue(compiled, test, operator, target[0], target[1], target)) matched = true
    }
    return matched
  }

  private onMatch(compiled: CompiledRule, variable: Entry, captures: string[] | undefined): void {
    this.matchedVar = variable
    this.matchedVars.push(variable)
    if (compiled.capture && captures !== undefined) {
      for (const [index, key] of this.program.captureKeys) this.write(key, captures[index])
    }
    for (const setvar of compiled.setvars) this.setvar(setvar, compiled, variable, captures)
    for (const control of compiled.controls) this.control(control.name, control.value)
  }

  private setvar(
    setvar: CrsSetvar,
    compiled: CompiledRule,
    variable: Entry,
    captures: string[] | undefined,
  ): void {
    // compiled-rule.ts keeps TX's alone, their names without macros already lower-cased.
    const name = setvar.name.includes('%{')
      ? this.expand(setvar.name, compiled).toLowerCase()
      : setvar.name
    if (setvar.operation === 'delete') {
      this.write(name, undefined)
      return
    }
    const value = this.expand(setvar.value, compiled)
    if (setvar.operation === 'set') {
      this.write(name, value)
      return
    }
    const delta = (parseInt(value, 10) || 0) * (setvar.operation === 'add' ? 1 : -1)
    this.write(name, String((parseInt(this.tx.get(name) ?? '0', 10) || 0) + delta))
    const level = SCORE_VARIABLE.exec(name)?.[1]
    if (level !== undefined && compiled.id !== undefined && delta !== 0) {
      const seen = this.matches.get(compiled.id)
      if (seen) seen.score += delta
      else {
        this.matches.set(
          compiled.id,
          new ScoredMatch(
            compiled.id,
            variable,
            delta,
            captures?.[0],
            captures === undefined && !compiled.negated ? compiled.fixedOperator : undefined,
          ),
        )
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
        for (const id of removedRuleIds(value)) this.removed.add(id)
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
          out += this.tx.get(key) ?? ''
          break
        case 'RULE':
          out += key === 'id' ? String(compiled.id ?? '') : ''
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
    if (compiled.dynamicTargets) return this.transform(compiled, targets)
    let transformed = this.lists[compiled.transformedSlot]
    if (transformed === undefined) {
      transformed = this.transform(compiled, targets)
      this.lists[compiled.transformedSlot] = transformed
    }
    return transformed
  }

  /**
   * The targets with their values transformed. Most values come out of a chain as they went in:
   * their entries, and the list when all do, are the same (entries are never changed).
   */
  private transform(compiled: CompiledRule, targets: Entry[]): Entry[] {
    let transformed: Entry[] | undefined
    for (let i = 0; i < targets.length; i++) {
      const target = targets[i]!
      const value = this.transformations.apply(target[1], compiled)
      if (transformed === undefined) {
        if (value === target[1]) continue
        transformed = targets.slice(0, i)
      }
      transformed.push(value === target[1] ? target : [target[0], value])
    }
    return transformed ?? targets
  }

  /** The rule's targets, in order, after exclusions; counts for `&` targets. */
  private targets(compiled: CompiledRule): Entry[] {
    const variables = compiled.variables
    if (variables.length === 0) return NO_TARGET
    const txKey = compiled.txKey
    if (txKey !== undefined) {
      // `TX:name` alone, as the paranoia-level skips and most control rules read it.
      const value = this.tx.get(txKey)
      return value === undefined ? NO_TARGETS : [[compiled.txName!, value]]
    }
    if (compiled.dynamicTargets) return this.expandTargets(compiled)
    let targets = this.lists[compiled.targetsSlot]
    if (targets === undefined) {
      targets = this.expandTargets(compiled)
      this.lists[compiled.targetsSlot] = targets
    }
    return targets
  }

  private expandTargets(compiled: CompiledRule): Entry[] {
    const variables = compiled.variables
    const first = variables[0]!
    if (variables.length === 1 && !first.count && !first.exclude)
      return this.variableValues(first, compiled.variableSlots[0]!, compiled)
    let targets: Entry[] = []
    for (let index = 0; index < variables.length; index++) {
      const variable = variables[index]!
      const values = this.variableValues(variable, compiled.variableSlots[index]!, compiled)
      if (variable.count) targets.push(countOf(variable.collection, values.length))
      else if (variable.exclude) {
        if (values.length > 0) targets = withoutKeys(targets, values)
      } else for (let i = 0; i < values.length; i++) targets.push(values[i]!)
    }
    return targets
  }

  /** One target's values; those of the request's own collections are shared between rules. */
  private variableValues(variable: CrsVariable, slot: number, compiled: CompiledRule): Entry[] {
    if (slot < 0) return this.collection(variable, compiled)
    let values = this.lists[slot]
    if (values === undefined) {
      values = this.collection(variable, compiled)
      this.lists[slot] = values
    }
    return values
  }

  /** A variable's values, named as ModSecurity names them (`ARGS:q`). */
  private collection(variable: CrsVariable, compiled: CompiledRule): Entry[] {
    const name = variable.collection
    if (name === 'TX' && variable.key !== undefined) {
      const key = lowerKey(variable.key)
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
    const all = this.namedEntries(name)
    if (variable.key === undefined && variable.keyPattern === undefined) return all
    if (name === 'XML') {
      const named: Entry[] = []
      for (let i = 0; i < all.length; i++)
        if (all[i]![2] === variable.key) named.push(['XML', all[i]![1]])
      return named
    }
    if (variable.keyPattern !== undefined) {
      const selects = keySelector(variable.keyPattern, compiled)
      return all.filter((entry) => selects(entry[2]!))
    }
    return this.withKey(all, lowerKey(variable.key!))
  }

  /**
   * The named entries whose key is `lowerKey` without case, as ModSecurity selects `:name`; each
   * collection is indexed by key once (many rules read one header or another).
   */
  private withKey(entries: Entry[], lowerKey: string): Entry[] {
    let index = this.keyIndexes.get(entries)
    if (index === undefined) {
      index = new Map()
      for (const entry of entries) {
        const key = entry[2]!.toLowerCase()
        const same = index.get(key)
        if (same === undefined) index.set(key, [entry])
        else same.push(entry)
      }
      this.keyIndexes.set(entries, index)
    }
    return index.get(lowerKey) ?? NO_TARGETS
  }

  /** A collection's entries, named; the request's own built and named on first use. */
  private namedEntries(name: string): Entry[] {
    switch (name) {
      case 'TX':
        return namedEntries(name, [...this.tx])
      case 'MATCHED_VAR':
        return this.matchedVar === undefined ? [] : [[name, this.matchedVar[1], '']]
      case 'MATCHED_VAR_NAME':
        return this.matchedVar === undefined ? [] : [[name, this.matchedVar[0], '']]
      case 'MATCHED_VARS':
        // var_matched_vars_generate() copies each value with apr_pstrndup: it ends at a NUL.
        return namedEntries(
          name,
          this.matchedVars.map(([k, v]) => [k, cString(v)]),
        )
      case 'MATCHED_VARS_NAMES':
        return namedEntries(name, namesOf(this.matchedVars))
      case 'REQBODY_PROCESSOR':
        // Without a processor ModSecurity still has the variable, empty.
        return [[name, this.collections.bodyProcessor ?? '', '']]
    }
    return this.collections.named(name, this.phase)
  }
}

/**
 * A scoring rule's first match. What its operator matched is found again only when asked for (the
 * trace, payload logging): a rule whose captures nobody reads only tested its values.
 */
class ScoredMatch implements CrsMatch {
  readonly variable: string
  readonly value: string

  constructor(
    readonly crsId: number,
    [variable, value]: Entry,
    public score: number,
    private operatorMatch: string | undefined,
    /** the operator to run again for it, when it only tested the value */
    private readonly operator: Operator | undefined,
  ) {
    this.variable = variable
    this.value = value
  }

  get match(): string {
    if (this.operatorMatch === undefined && this.operator !== undefined)
      this.operatorMatch = this.operator(this.value)?.[0]
    return this.operatorMatch ?? this.value
  }
}

/** The ids `ctl:ruleRemoveById=920300,920400-920420` names. */
export function removedRuleIds(value: string): number[] {
  const ids: number[] = []
  for (const part of value.split(/[\s,]+/)) {
    const [from, to] = part.split('-').map(Number)
    if (from === undefined || Number.isNaN(from)) continue
    for (let id = from; id <= (to ?? from); id++) ids.push(id)
  }
  return ids
}

/** The targets whose names are none of the excluded values' names, without case. */
function withoutKeys(targets: Entry[], excluded: Entry[]): Entry[] {
  const keys = new Set<string>()
  for (let i = 0; i < excluded.length; i++) keys.add(excluded[i]![0].toLowerCase())
  const kept: Entry[] = []
  for (let i = 0; i < targets.length; i++) {
    const target = targets[i]!
    if (!keys.has(target[0].toLowerCase())) kept.push(target)
  }
  return kept
}

/**
 * A `:name` of the program (a selector's, a macro's) lower-cased once: the same few come back
 * request after request, and a new string would be hashed anew by every lookup.
 */
const lowerKeys = new Map<string, string>()
function lowerKey(key: string): string {
  let lower = lowerKeys.get(key)
  if (lower === undefined) {
    lower = key.toLowerCase()
    lowerKeys.set(key, lower)
  }
  return lower
}

/** `&COLLECTION`'s target: its name and the number of values, both made once. */
const countNames = new Map<string, string>()
const COUNTS = Array.from({ length: 64 }, (_, n) => String(n))
function countOf(collection: string, count: number): Entry {
  let name = countNames.get(collection)
  if (name === undefined) {
    name = `&${collection}`
    countNames.set(collection, name)
  }
  return [name, COUNTS[count] ?? String(count)]
}

/** SecAction's one target: the operator always matches it. */
const NO_TARGET: Entry[] = [['', '']]
const NO_TARGETS: Entry[] = []
