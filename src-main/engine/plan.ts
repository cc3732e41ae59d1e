// Compiling a zone's configuration into a plan: every expression compiled once, every executed
// ruleset's overrides resolved once per deployment (a rule's effective action, enabled state and
// score threshold do not depend on the request), and the previous product's firewall rules put in
// the order the vendor runs them. Evaluating a request then only runs closures.

import {
  compile,
  compileCredentialExpression,
  PHASE_LEGACY_FIREWALL,
  PHASE_MANAGED,
  RequirementTable,
  type CompiledExpression,
  type CompiledValueExpression,
} from '@shared/expression'
import type { Overrides } from '@shared/api/rulesets'
import { resolveOverrides, type EffectiveRule } from '@shared/rulesets/overrides'
import { CrsProgramRunner } from './crs/interpreter'
import type { CrsBundle } from './crs/program'
import { planPreviousWaf, type PlannedPreviousWaf } from './previous'
import type { EngineFirewallRule, EngineRule, EngineRuleset, ZoneConfig } from './types'

export const TERMINATING = new Set(['block', 'challenge', 'js_challenge', 'managed_challenge'])

/**
 * A rule of an executed ruleset, with its overrides resolved. Every planned rule has every
 * property (undefined when it does not apply): a request reads them from hundreds of rules, and
 * objects of one shape keep those reads cheap.
 */
export interface PlannedRule {
  rule: EngineRule
  expression: CompiledExpression
  effective: EffectiveRule
  /** what a match adds to the anomaly score (scoring rules) */
  score: number | undefined
  credentials: { username: CompiledValueExpression; password: CompiledValueExpression } | undefined
  /** headers a `rewrite` sets toward the origin */
  headers: Record<string, string> | undefined
  /** the CRS rule a scoring rule of a CRS ruleset stands for */
  crsId: number | undefined
}

/** A deployment of a CRS ruleset: the program, and what its overrides leave running. */
export interface PlannedCrs {
  runner: CrsProgramRunner
  /** tx.paranoia_level: the highest level of an enabled scoring rule */
  paranoiaLevel: number
  /** CRS ids of the scoring rules its overrides disable */
  disabled: ReadonlySet<number>
  /** by CRS id: the index of the ruleset's scoring rule standing for it */
  scoringRules: ReadonlyMap<number, number>
  /** the indexes of the ruleset's other rules (the anomaly rule), which every request runs */
  otherRules: readonly number[]
}

export interface PlannedRuleset {
  id: string
  /** what outcomes call it (docs/vendor-behaviour.md#evaluating-one-phase) */
  name: string
  rules: PlannedRule[]
  /**
   * The needs of the zone's rules, which rule out most of them on ordinary traffic without
   * running them; this ruleset's rule i is expression `firstRequirement + i` of the table.
   */
  requirements: RequirementTable
  firstRequirement: number
  crs: PlannedCrs | undefined
}

export interface PlannedSkip {
  current: boolean
  rulesets: ReadonlySet<string>
  rules: ReadonlyMap<string, ReadonlySet<string>>
}

/** A rule of an entry point. */
export interface PlannedEntry {
  rule: EngineRule
  expression: CompiledExpression
  /** the ruleset an enabled execute rule runs (undefined when it names none the zone has) */
  target?: PlannedRuleset
  skip?: PlannedSkip
  payloadLogging: boolean
}

export interface PlannedLevel {
  ruleset: EngineRuleset
  entries: PlannedEntry[]
}

export interface PlannedFirewallRule {
  rule: EngineFirewallRule
  expression: CompiledExpression
}

export interface Plan {
  firewallRules: PlannedFirewallRule[]
  /** the managed phase's entry points (none while the zone has not begun its migration) */
  levels: PlannedLevel[]
  /** the previous product, run after the managed phase while it still runs for the zone */
  previousWaf?: PlannedPreviousWaf
}

// The vendor's action precedence among firewall rules of equal priority (1 runs first).
const FIREWALL_PRECEDENCE: Record<string, number> = {
  log: 1,
  bypass: 2,
  allow: 3,
  challenge: 4,
  managed_challenge: 5,
  js_challenge: 6,
  block: 7,
}

/** Lower priority first, rules without one last; ties by action precedence, then list order. */
export function orderFirewallRules(rules: readonly EngineFirewallRule[]): EngineFirewallRule[] {
  return rules
    .map((rule, index) => ({ rule, index }))
    .sort(
      (a, b) =>
        (a.rule.priority ?? Infinity) - (b.rule.priority ?? Infinity) ||
        (FIREWALL_PRECEDENCE[a.rule.action] ?? 8) - (FIREWALL_PRECEDENCE[b.rule.action] ?? 8) ||
        a.index - b.index,
    )
    .map(({ rule }) => rule)
}

function rewriteHeaders(rule: EngineRule): Record<string, string> | undefined {
  const headers = rule.action_parameters?.headers as
    Record<string, { operation?: string; value?: string }> | undefined
  if (headers === undefined) return undefined
  return Object.fromEntries(
    Object.entries(headers)
      .filter(([, change]) => change.operation === 'set' && typeof change.value === 'string')
      .map(([name, change]) => [name, change.value!]),
  )
}

// One compiled program per bundle, shared by every plan and deployment that runs it.
const runners = new WeakMap<CrsBundle, CrsProgramRunner>()

/** The CRS id a managed rule's description starts with (`942100: …`). */
function crsIdOf(rule: EngineRule): number | undefined {
  const id = /^(\d{6}):/.exec(rule.description ?? '')?.[1]
  return id === undefined ? undefined : Number(id)
}

function planCrs(bundle: CrsBundle, rules: readonly PlannedRule[]): PlannedCrs {
  let runner = runners.get(bundle)
  if (runner === undefined) {
    runner = new CrsProgramRunner(bundle)
    runners.set(bundle, runner)
  }
  const disabled = new Set<number>()
  const scoringRules = new Map<number, number>()
  const otherRules: number[] = []
  let paranoiaLevel = 1
  for (const [index, planned] of rules.entries()) {
    if (planned.crsId === undefined || planned.score === undefined) {
      otherRules.push(index)
      continue
    }
    scoringRules.set(planned.crsId, index)
    if (!planned.effective.enabled) {
      disabled.add(planned.crsId)
      continue
    }
    const level = planned.rule.categories
      ?.find((c) => c.startsWith('paranoia-level-'))
      ?.slice('paranoia-level-'.length)
    paranoiaLevel = Math.max(paranoiaLevel, Number(level) || 1)
  }
  return { runner, paranoiaLevel, disabled, scoringRules, otherRules }
}

function planRuleset(
  ruleset: EngineRuleset,
  overrides: Overrides | undefined,
  requirements: RequirementTable,
): PlannedRuleset {
  const rules = ruleset.rules.map((rule): PlannedRule => {
    const check = rule.exposed_credential_check
    const increment = rule.action_parameters?.increment
    return {
      rule,
      expression: compile(rule.expression, { phase: ruleset.phase }),
      effective: resolveOverrides(rule, overrides),
      score:
        rule.action === 'score'
          ? (rule.score ?? (typeof increment === 'number' ? increment : 0))
          : undefined,
      credentials:
        check === undefined
          ? undefined
          : {
              username: compileCredentialExpression(check.username_expression),
              password: compileCredentialExpression(check.password_expression),
            },
      // An exposed-credentials rule overridden to `rewrite` still sets its header.
      headers:
        rewriteHeaders(rule) ??
        (check === undefined ? undefined : { 'Exposed-Credential-Check': '1' }),
      crsId: ruleset.crs === undefined ? undefined : crsIdOf(rule),
    }
  })
  return {
    id: ruleset.id,
    name: ruleset.name,
    rules,
    requirements,
    firstRequirement: requirements.add(rules.map((planned) => planned.expression.needs)),
    crs: ruleset.crs === undefined ? undefined : planCrs(ruleset.crs, rules),
  }
}

function planSkip(parameters: Record<string, unknown> | undefined): PlannedSkip {
  const rules = (parameters?.rules ?? {}) as Record<string, string[]>
  return {
    current: parameters?.ruleset === 'current',
    rulesets: new Set((parameters?.rulesets as string[] | undefined) ?? []),
    rules: new Map(Object.entries(rules).map(([id, ids]) => [id, new Set(ids)])),
  }
}

function planLevel(
  ruleset: EngineRuleset,
  config: ZoneConfig,
  requirements: RequirementTable,
): PlannedLevel {
  return {
    ruleset,
    entries: ruleset.rules.map((rule) => {
      const parameters = rule.action_parameters
      const entry: PlannedEntry = {
        rule,
        expression: compile(rule.expression, { phase: PHASE_MANAGED }),
        payloadLogging: parameters?.matched_data !== undefined,
      }
      if (rule.action === 'execute' && typeof parameters?.id === 'string') {
        const target = config.resolveRuleset(
          parameters.id,
          typeof parameters.version === 'string' ? parameters.version : undefined,
        )
        if (target !== undefined) {
          entry.target = planRuleset(
            target,
            parameters.overrides as Overrides | undefined,
            requirements,
          )
        }
      }
      if (rule.action === 'skip') entry.skip = planSkip(parameters)
      return entry
    }),
  }
}

export function planZone(config: ZoneConfig): Plan {
  const requirements = new RequirementTable()
  return {
    firewallRules: orderFirewallRules(config.firewallRules).map((rule) => ({
      rule,
      expression: compile(rule.filter.expression, { phase: PHASE_LEGACY_FIREWALL }),
    })),
    levels:
      config.managedRulesets === false
        ? []
        : [config.accountEntrypoint, config.zoneEntrypoint]
            .filter((ruleset) => ruleset !== undefined)
            .map((ruleset) => planLevel(ruleset, config, requirements)),
    ...(config.previousWaf === undefined
      ? {}
      : { previousWaf: planPreviousWaf(config.previousWaf) }),
  }
}

/**
 * The CRS program reads the request's headers, cookies and body (its targets are ModSecurity's
 * collections, not Rules fields): a replay names these when its log lacks them.
 */
const CRS_FIELDS = ['http.request.headers', 'http.cookie', 'http.request.body.raw']

/** Every Rules field the plan's expressions read (and those a CRS deployment stands for), sorted. */
export function planFields(plan: Plan): string[] {
  const fields = new Set<string>()
  const read = (expression: { fields: ReadonlySet<string> }) => {
    for (const field of expression.fields) fields.add(field)
  }
  for (const { expression } of plan.firewallRules) read(expression)
  for (const level of plan.levels) {
    for (const entry of level.entries) {
      read(entry.expression)
      for (const planned of entry.target?.rules ?? []) {
        read(planned.expression)
        if (planned.credentials !== undefined) {
          read(planned.credentials.username)
          read(planned.credentials.password)
        }
      }
      if (entry.target?.crs !== undefined) for (const field of CRS_FIELDS) fields.add(field)
    }
  }
  const waf = plan.previousWaf
  if (waf !== undefined) {
    for (const { expression } of [...waf.pageRules, ...waf.overrides]) read(expression)
    for (const pkg of waf.packages) for (const { expression } of pkg.rules) read(expression)
  }
  return [...fields].sort()
}
