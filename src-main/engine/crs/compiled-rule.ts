// A CRS rule compiled for the interpreter (interpreter.ts): its transformations and operator
// resolved, and the slots of the request's caches it shares with rules reading the same targets.

import { compileOperator, compileOperatorTest } from './operators'
import type { CrsControl, CrsRule, CrsSetvar, CrsVariable } from './program'
import { transformation, type Transformation } from './transformations'
import { scopeOf } from './transformation-scope'

export type Operator = (value: string) => string[] | undefined
/** A negated operator's question: only whether it matches, never what. */
export type OperatorTest = (value: string) => boolean

export interface CompiledRule {
  rule: CrsRule
  /**
   * what a run reads of the rule, each rule's in one shape: the program's rules (parsed JSON) come
   * in as many shapes as they have optional fields, and reading them is a lookup each time
   */
  variables: readonly TargetVariable[]
  negated: boolean
  multiMatch: boolean
  capture: boolean
  controls: readonly CrsControl[]
  /** the starter's id (for %{rule.id} in the chain too) */
  id: number | undefined
  transformations: readonly Transformation[]
  /** by transformation: the classes of characters it acts on (transformation-scope.ts) */
  transformationScopes: readonly number[]
  /** what the whole chain acts on: a value with none of it comes out unchanged */
  chainScope: number
  /** each prefix of the transformation chain: its number in the transformation cache */
  prefixSlots: number[]
  operator: (parameter: string) => Operator
  /** the operator when its parameter has no macros, compiled once */
  fixedOperator: Operator | undefined
  /**
   * the same as a test, where nothing reads its captures: a negated operator's, or one whose
   * TX:0-9 no rule reads (capture-reads.ts), whose match the trace alone may ask for later
   */
  fixedTest: OperatorTest | undefined
  /**
   * the setvars a match runs: those of TX some rule may read (a score, or a name with macros, is
   * always kept), a name without macros lower-cased once
   */
  setvars: readonly CrsSetvar[]
  /** `:/regex/` selectors: whether a key is selected */
  keyPatterns: Map<string, (key: string) => boolean>
  chain: CompiledRule | undefined
  /** where skipAfter goes: the index after the marker in this phase */
  skipTo: number | undefined
  /** the level of the anomaly score this rule (or its chain) adds to */
  scoringLevel: number | undefined
  /** the rule's target list: rules with the same list share its expansion (a cache slot) */
  targetsSlot: number
  /** the target list and the transformation chain: rules with the same both share values */
  transformedSlot: number
  /** whether a target reads what rules change (TX, MATCHED_VAR…), so cannot be shared */
  dynamicTargets: boolean
  /** each target: the same target in another rule shares its values (-1: one rules change) */
  variableSlots: number[]
  /** a rule reading one TX variable (`TX:paranoia_level`): its key, lower-cased, and name */
  txKey: string | undefined
  txName: string | undefined
  /**
   * A plain @rx rule with a literal gate (literal-gate.ts): its number among the gated rules and
   * its group's, whose one scan of each value says whether the rule need run on it
   */
  gated: number | undefined
  gateGroup: number | undefined
}

/** A CrsVariable with every field present, so that all have one shape. */
export interface TargetVariable {
  collection: string
  key: string | undefined
  keyPattern: string | undefined
  exclude: boolean
  count: boolean
}

/** Collections that rules change as they run: never shared between rules. */
const DYNAMIC = new Set([
  'TX',
  'MATCHED_VAR',
  'MATCHED_VAR_NAME',
  'MATCHED_VARS',
  'MATCHED_VARS_NAMES',
  'REQBODY_PROCESSOR',
])

/** Parameters compiled and kept per rule (those with macros vary by request). */
const OPERATOR_CACHE_LIMIT = 16

/** A setvar adding to the anomaly score of a paranoia level. */
export const SCORE_VARIABLE = /^(?:inbound_)?anomaly_score_pl([1-4])$/

/**
 * What compiling a rule needs of its program: the phrase files, the cache slots by key, the links
 * whose captures some rule reads (capture-reads.ts), and the TX variables some rule reads
 * (tx-reads.ts).
 */
export interface RuleSlots {
  data: Readonly<Record<string, readonly string[]>>
  capturesRead: ReadonlySet<CrsRule>
  /** whether some rule may read the TX variable (lower case) */
  txRead: (key: string) => boolean
  /** the request's cache slot for a key (a target list, a target, both with transformations) */
  slot: (key: string) => number
  /** the transformation cache's number for a chain's prefix (`urldecodeuni,lowercase`) */
  prefix: (transformations: string) => number
}

export function compileRule(
  rule: CrsRule,
  id: number | undefined,
  program: RuleSlots,
): CompiledRule {
  const transformations = rule.transformations.map((name) => {
    const fn = transformation(name)
    if (fn === undefined) throw new Error(`CRS rule ${id}: unknown transformation t:${name}`)
    return fn
  })
  const transformationScopes = rule.transformations.map(scopeOf)
  const cache = new Map<string, Operator>()
  const context = {
    ruleId: id ?? 0,
    dataFile: (name: string) => {
      const data = program.data[name]
      if (data === undefined) throw new Error(`CRS rule ${id}: missing phrase file ${name}`)
      return data
    },
  }
  const name = rule.operator.name
  const operator = (parameter: string): Operator => {
    let op = cache.get(parameter)
    if (op === undefined) {
      op = compileOperator(name, parameter, context)
      // A parameter made of the request (`%{request_headers.host}`) is compiled each time.
      if (cache.size < OPERATOR_CACHE_LIMIT) cache.set(parameter, op)
    }
    return op
  }
  // Operators without macros compile now, so a program with an unknown one fails at once.
  const fixed = !rule.operator.parameter.includes('%{')
  const fixedOperator = fixed ? operator(rule.operator.parameter) : undefined
  const fixedTest =
    fixed && (rule.operator.negated || !program.capturesRead.has(rule)) && !rule.multiMatch
      ? compileOperatorTest(name, rule.operator.parameter, context)
      : undefined
  const chain = rule.chain === undefined ? undefined : compileRule(rule.chain, id, program)
  const level = (rule.setvars ?? [])
    .map((s) =>
      s.collection === 'TX' && s.operation === 'add' ? SCORE_VARIABLE.exec(s.name) : null,
    )
    .find((m) => m !== null)?.[1]
  return {
    rule,
    variables: rule.variables.map((variable) => ({
      collection: variable.collection,
      key: variable.key,
      keyPattern: variable.keyPattern,
      exclude: variable.exclude === true,
      count: variable.count === true,
    })),
    negated: rule.operator.negated,
    multiMatch: rule.multiMatch === true,
    capture: rule.capture === true,
    controls: rule.controls ?? [],
    id,
    transformations,
    transformationScopes,
    chainScope: transformationScopes.reduce((all, scope) => all | scope, 0),
    prefixSlots: rule.transformations.map((_, i) =>
      program.prefix(rule.transformations.slice(0, i + 1).join(',')),
    ),
    operator,
    fixedOperator,
    fixedTest,
    setvars: observedSetvars(rule, program),
    keyPatterns: new Map(),
    chain,
    skipTo: undefined,
    scoringLevel: level === undefined ? chain?.scoringLevel : Number(level),
    targetsSlot: program.slot(`v ${JSON.stringify(rule.variables)}`),
    transformedSlot: program.slot(
      `vt ${JSON.stringify(rule.variables)} ${rule.transformations.join(',')}`,
    ),
    dynamicTargets: rule.variables.some((v) => DYNAMIC.has(v.collection)),
    variableSlots: rule.variables.map((v) =>
      DYNAMIC.has(v.collection) ? -1 : program.slot(`v1 ${JSON.stringify(v)}`),
    ),
    ...singleTxVariable(rule.variables),
    gated: undefined,
    gateGroup: undefined,
  }
}

/**
 * A rule's setvars whose writes can be seen: the other collections' are not kept here (IP, GLOBAL
 * and SESSION hold nothing, as in the reference), and a TX variable no rule reads (CRS's
 * per-family scores, tx.sql_injection_score…) changes nothing the result shows.
 */
function observedSetvars(rule: CrsRule, program: RuleSlots): CrsSetvar[] {
  const observed: CrsSetvar[] = []
  for (const setvar of rule.setvars ?? []) {
    if (setvar.collection !== 'TX') continue
    if (setvar.name.includes('%{')) {
      observed.push(setvar)
      continue
    }
    const name = setvar.name.toLowerCase()
    if (SCORE_VARIABLE.test(name) || program.txRead(name)) observed.push({ ...setvar, name })
  }
  return observed
}

/** A rule whose one target is `TX:name`: its key and name, read straight from TX. */
function singleTxVariable(variables: readonly CrsVariable[]): {
  txKey: string | undefined
  txName: string | undefined
} {
  const [only, ...rest] = variables
  if (only === undefined || rest.length > 0 || only.collection !== 'TX') return NO_TX
  if (only.key === undefined || only.count || only.exclude) return NO_TX
  const key = only.key.toLowerCase()
  return { txKey: key, txName: `TX:${key}` }
}
const NO_TX = { txKey: undefined, txName: undefined }

/** Keys whose selection by a `:/regex/` is remembered, per selector. */
const KEY_ANSWERS_LIMIT = 4096

/** Whether a `:/regex/` selector selects a key. */
export function keySelector(keyPattern: string, compiled: CompiledRule): (key: string) => boolean {
  let selects = compiled.keyPatterns.get(keyPattern)
  if (selects === undefined) {
    const pattern = compileOperatorTest('rx', `(?i)${keyPattern}`, {
      ruleId: compiled.id ?? 0,
      dataFile: () => [],
    })
    // The same keys come back request after request (TX's above all): each is tested once.
    const answers = new Map<string, boolean>()
    selects = (key) => {
      let answer = answers.get(key)
      if (answer === undefined) {
        answer = pattern(key)
        if (answers.size < KEY_ANSWERS_LIMIT) answers.set(key, answer)
      }
      return answer
    }
    compiled.keyPatterns.set(keyPattern, selects)
  }
  return selects
}
