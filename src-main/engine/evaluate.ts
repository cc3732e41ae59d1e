// Running a plan against one request (docs/vendor-behaviour.md#evaluating-one-phase and
// docs/vendor-behaviour.md#running-firewall-rules):
//   1. the previous product's firewall rules, in their order: `log` records and goes on, `bypass`
//      records the products it bypasses (`waf` skips the managed phase), `allow` ends the firewall
//      rules, the challenges and `block` end everything;
//   2. the managed phase, account entry point then zone entry point: rules in order, disabled
//      ones not evaluated; `skip` acts on the rules after it only (`ruleset: current` ends the
//      level, `rulesets` and `rules` remove later executions); `execute` runs its ruleset with the
//      overrides resolved, scoring rules adding to the anomaly score that the ruleset's anomaly
//      rule compares with its threshold; a terminating action ends everything, `log` and `rewrite`
//      do not;
//   3. the previous managed-rules product (previous.ts), while it runs for the zone: alone before
//      the zone's migration, after the managed phase during it.

import { bytesToText, type EvaluationContext, type Value } from '@shared/expression'
import type { CrsMatch, CrsResult } from './crs/interpreter'
import { crsRequestOf, type CrsRequest } from './crs/request'
import { previousWafRunsFor, runPreviousWaf } from './previous'
import {
  TERMINATING,
  type Plan,
  type PlannedCrs,
  type PlannedEntry,
  type PlannedRule,
  type PlannedRuleset,
} from './plan'
import type {
  CredentialLookup,
  CredentialMatch,
  Decision,
  EngineEvent,
  MatchedData,
  Outcome,
  TraceNode,
} from './types'

export interface EvaluateOptions {
  /** build the trace (default true); off for throughput */
  trace?: boolean
  credentials: CredentialLookup
}

const TEST_USERNAMES = new Set(['CF_EXPOSED_USERNAME', 'CF_EXPOSED_USERNAME@example.com'])
const TEST_PASSWORD = 'CF_EXPOSED_PASSWORD'

/** The vendor's test credentials count as exposed whatever the database holds. */
function lookupCredentials(
  run: Run,
  username: string,
  password: string,
): CredentialMatch | undefined {
  if (TEST_USERNAMES.has(username) && password === TEST_PASSWORD) return 'test-credentials'
  return run.options.credentials(username, password)
}

/** One request's evaluation: what it has logged, traced and added so far, and whether it ended. */
export class Run {
  readonly events: EngineEvent[] = []
  readonly trace: TraceNode[] = []
  readonly originHeaders: Record<string, string> = {}
  terminal: { action: string; stopped: string } | undefined
  /** CRS runs of this request, by deployment (one per deployment without skipped rules) */
  private readonly crsRuns = new Map<PlannedCrs, CrsResult>()
  private crsRequest: CrsRequest | undefined

  constructor(
    readonly ctx: EvaluationContext,
    readonly options: EvaluateOptions,
  ) {}

  get tracing(): boolean {
    return this.options.trace !== false
  }

  stop(action: string, stopped: string): void {
    this.terminal = { action, stopped }
  }

  /** The CRS program's run for a deployment, skipped rules counted as disabled. */
  crs(
    target: PlannedRuleset,
    crs: PlannedCrs,
    skipped: ReadonlySet<string> | undefined,
  ): CrsResult {
    const skippedIds =
      skipped === undefined
        ? []
        : target.rules
            .filter((planned) => planned.crsId !== undefined && skipped.has(planned.rule.id))
            .map((planned) => planned.crsId!)
    const cached = skippedIds.length === 0 ? this.crsRuns.get(crs) : undefined
    if (cached !== undefined) return cached
    this.crsRequest ??= crsRequestOf(this.ctx)
    const result = crs.runner.run(this.crsRequest, {
      paranoiaLevel: crs.paranoiaLevel,
      disabled: skippedIds.length === 0 ? crs.disabled : new Set([...crs.disabled, ...skippedIds]),
    })
    if (skippedIds.length === 0) this.crsRuns.set(crs, result)
    return result
  }
}

/** A rule as outcomes name it: its description, quoted, or its id when it has none. */
function ruleName(description: string | undefined, id: string): string {
  return description ? `“${description}”` : id
}

function text(value: Value | undefined): string {
  return typeof value === 'string' ? bytesToText(value) : ''
}

const CONTEXT = 24

/**
 * Payload logging: for each text field the rule reads, the first literal of the rule's
 * expression found in it, with some context either side; the whole (shortened) value when none
 * of the literals occurs in it (a regular expression matched).
 */
function matchedData(
  planned: PlannedRule | PlannedEntry,
  ctx: EvaluationContext,
): Record<string, MatchedData> {
  const literals = [...planned.expression.text.matchAll(/"((?:[^"\\]|\\.)*)"/g)]
    .map((m) => m[1]!.replace(/\\(.)/g, '$1').toLowerCase())
    .filter((literal) => literal.length > 1)
  const data: Record<string, MatchedData> = {}
  for (const field of planned.expression.fields) {
    const value = ctx.fields[field]
    const values =
      typeof value === 'string'
        ? [value]
        : Array.isArray(value)
          ? value
          : value instanceof Map
            ? [...value.values()].flat()
            : []
    for (const item of values) {
      const content = text(item as Value)
      if (content === '') continue
      const lower = content.toLowerCase()
      const literal = literals.find((l) => lower.includes(l))
      if (literal === undefined) {
        data[field] = { before: '', content: content.slice(0, 2 * CONTEXT), after: '' }
        continue
      }
      const at = lower.indexOf(literal)
      data[field] = {
        before: content.slice(Math.max(0, at - CONTEXT), at),
        content: content.slice(at, at + literal.length),
        after: content.slice(at + literal.length, at + literal.length + CONTEXT),
      }
      break
    }
  }
  return data
}

/** Payload logging for a CRS ruleset: each matched variable (`ARGS:q`) with what matched in it. */
function crsMatchedData(matches: readonly CrsMatch[]): Record<string, MatchedData> {
  const data: Record<string, MatchedData> = {}
  for (const { variable, value, match } of matches) {
    if (data[variable] !== undefined) continue
    const at = Math.max(0, value.indexOf(match))
    const length = match === '' ? Math.min(value.length, 2 * CONTEXT) : match.length
    data[variable] = {
      before: bytesToText(value.slice(Math.max(0, at - CONTEXT), at)),
      content: bytesToText(value.slice(at, at + length)),
      after: bytesToText(value.slice(at + length, at + length + CONTEXT)),
    }
  }
  return data
}

function runFirewallRules(plan: Plan, run: Run): { bypassWaf: boolean } {
  let bypassWaf = false
  let allowed = false
  for (const { rule, expression } of plan.firewallRules) {
    const node: TraceNode | undefined = run.tracing
      ? {
          kind: 'firewall_rule',
          ruleset_id: null,
          rule_id: rule.id,
          description: rule.description ?? '',
          action: rule.action,
          evaluated: false,
        }
      : undefined
    if (node) run.trace.push(node)
    if (run.terminal !== undefined || allowed) {
      if (node) node.not_evaluated = 'stopped'
      continue
    }
    if (rule.paused || rule.filter.paused) {
      if (node) node.not_evaluated = 'paused'
      continue
    }
    const matched = expression.evaluate(run.ctx)
    if (node) {
      node.evaluated = true
      node.matched = matched
    }
    if (!matched) continue
    run.events.push({
      ruleset_id: null,
      rule_id: rule.id,
      action: rule.action,
      description: rule.description ?? '',
      source: 'firewallRules',
    })
    if (rule.action === 'bypass') {
      if (rule.products?.includes('waf')) bypassWaf = true
      if (node) node.effect = `bypassed ${rule.products?.join(', ') ?? 'nothing'}`
    } else if (rule.action === 'allow') {
      allowed = true
      if (node) node.effect = 'allowed the request past the remaining firewall rules'
    } else if (TERMINATING.has(rule.action)) {
      run.stop(
        rule.action,
        `Firewall rule ${ruleName(rule.description, rule.id)} (${rule.action}) ended evaluation`,
      )
      if (node) node.effect = 'terminated the request'
    } else if (node) node.effect = 'logged'
  }
  return { bypassWaf }
}

interface Skipped {
  rulesets: Set<string>
  rules: Map<string, Set<string>>
}

function runRuleset(
  entry: PlannedEntry,
  target: PlannedRuleset,
  skipped: Skipped,
  run: Run,
  parent: TraceNode | undefined,
): void {
  let score = 0
  const skippedRules = skipped.rules.get(target.id)
  const { rules, requirements, firstRequirement } = target
  const crs =
    target.crs === undefined || run.terminal !== undefined
      ? undefined
      : run.crs(target, target.crs, skippedRules)
  const crsMatches: CrsMatch[] = []
  // Untraced, a CRS scoring rule without a match does nothing: only the others are visited.
  const visited = parent === undefined && crs !== undefined ? rulesToVisit(target, crs) : undefined
  const count = visited?.length ?? rules.length
  for (let k = 0; k < count; k++) {
    const i = visited === undefined ? k : visited[k]!
    const planned = rules[i]!
    const { rule, effective } = planned
    const node: TraceNode | undefined = parent
      ? {
          kind: 'ruleset_rule',
          ruleset_id: target.id,
          rule_id: rule.id,
          description: rule.description,
          action: effective.action,
          from: effective.from,
          evaluated: false,
        }
      : undefined
    if (node) parent!.children!.push(node)
    if (run.terminal !== undefined) {
      if (node) node.not_evaluated = 'stopped'
      continue
    }
    if (!effective.enabled) {
      if (node) node.not_evaluated = 'disabled'
      continue
    }
    if (skippedRules?.has(rule.id)) {
      if (node) node.not_evaluated = 'skipped'
      continue
    }
    if (crs !== undefined && planned.crsId !== undefined && planned.score !== undefined) {
      // A CRS scoring rule adds what the program's run added for it (a match per variable).
      const match = crs.matches.get(planned.crsId)
      if (match !== undefined) {
        score += match.score
        crsMatches.push(match)
      }
      if (node) {
        node.evaluated = true
        node.matched = match !== undefined
        if (match !== undefined) {
          node.score = match.score
          node.crs = {
            rule_id: match.crsId,
            variable: match.variable,
            value: bytesToText(match.value),
            match: bytesToText(match.match),
          }
        }
      }
      continue
    }
    let matched =
      requirements.mayHold(firstRequirement + i, run.ctx) && planned.expression.evaluate(run.ctx)
    if (node) node.evaluated = true
    if (planned.score !== undefined) {
      if (matched) score += planned.score
      if (node) {
        node.matched = matched
        if (matched) node.score = planned.score
      }
      continue
    }
    if (matched && effective.score_threshold !== undefined) {
      matched = score >= effective.score_threshold
      if (node) {
        node.total_score = score
        node.score_threshold = effective.score_threshold
        if (target.crs !== undefined) node.paranoia_level = target.crs.paranoiaLevel
      }
    }
    if (matched && planned.credentials !== undefined) {
      const username = text(planned.credentials.username.evaluate(run.ctx))
      const password = text(planned.credentials.password.evaluate(run.ctx))
      const match =
        username === '' && password === '' ? undefined : lookupCredentials(run, username, password)
      matched = match !== undefined
      if (node) node.credentials = { username, exposed: matched, ...(match ? { match } : {}) }
    }
    if (node) node.matched = matched
    if (!matched) continue
    const event: EngineEvent = {
      ruleset_id: target.id,
      rule_id: rule.id,
      rule_ref: rule.ref,
      action: effective.action,
      description: rule.description,
      source: 'firewallManaged',
      ...(effective.score_threshold === undefined ? {} : { score }),
    }
    // Payload logging records what matched, except for rules that only log (as the vendor does).
    if (entry.payloadLogging && effective.action !== 'log')
      event.matched_data =
        crs !== undefined ? crsMatchedData(crsMatches) : matchedData(planned, run.ctx)
    run.events.push(event)
    if (effective.action === 'rewrite') {
      Object.assign(run.originHeaders, planned.headers ?? {})
      if (node)
        node.effect = `added ${Object.keys(planned.headers ?? {}).join(', ')} toward the origin`
    } else if (TERMINATING.has(effective.action)) {
      run.stop(
        effective.action,
        `Rule ${ruleName(rule.description, rule.id)} of ${target.name} (${effective.action}) ended evaluation`,
      )
      if (node) node.effect = 'terminated the request'
    } else if (node) node.effect = 'logged'
  }
}

/** The indexes, in order, of a CRS ruleset's rules that its program's matches and the rest name. */
function rulesToVisit(target: PlannedRuleset, crs: CrsResult): readonly number[] {
  const { scoringRules, otherRules } = target.crs!
  if (crs.matches.size === 0) return otherRules
  const visited = [...otherRules]
  for (const crsId of crs.matches.keys()) {
    const index = scoringRules.get(crsId)
    if (index !== undefined) visited.push(index)
  }
  return visited.sort((a, b) => a - b)
}

function runManagedPhase(plan: Plan, run: Run): void {
  for (const level of plan.levels) {
    // A skip at one level never reaches the other's rules.
    const skipped: Skipped = { rulesets: new Set(), rules: new Map() }
    let endOfLevel = false
    for (const entry of level.entries) {
      const { rule } = entry
      const node: TraceNode | undefined = run.tracing
        ? {
            kind: 'entrypoint_rule',
            ruleset_id: level.ruleset.id,
            rule_id: rule.id,
            description: rule.description,
            action: rule.action,
            evaluated: false,
          }
        : undefined
      if (node) run.trace.push(node)
      if (run.terminal !== undefined || endOfLevel) {
        if (node) node.not_evaluated = run.terminal !== undefined ? 'stopped' : 'skipped'
        continue
      }
      if (!rule.enabled) {
        if (node) node.not_evaluated = 'disabled'
        continue
      }
      const target = entry.target
      if (target !== undefined && skipped.rulesets.has(target.id)) {
        if (node) node.not_evaluated = 'skipped'
        continue
      }
      const matched = entry.expression.evaluate(run.ctx)
      if (node) {
        node.evaluated = true
        node.matched = matched
        // A deployment that did not match says why its ruleset did not run on the request.
        if (!matched) {
          node.expression = rule.expression
          if (target !== undefined) node.executes = target.id
        }
      }
      if (!matched) continue
      if (rule.action === 'execute') {
        if (target === undefined) {
          if (node) node.effect = 'named a ruleset the zone does not have; nothing ran'
          continue
        }
        if (node) node.children = []
        runRuleset(entry, target, skipped, run, node)
      } else if (rule.action === 'skip' && entry.skip !== undefined) {
        const skip = entry.skip
        if (rule.logging?.enabled !== false) {
          run.events.push({
            ruleset_id: level.ruleset.id,
            rule_id: rule.id,
            rule_ref: rule.ref,
            action: 'skip',
            description: rule.description,
            source: 'firewallManaged',
          })
        }
        if (skip.current) endOfLevel = true
        for (const id of skip.rulesets) skipped.rulesets.add(id)
        for (const [id, ids] of skip.rules) {
          const set = skipped.rules.get(id) ?? new Set()
          for (const ruleId of ids) set.add(ruleId)
          skipped.rules.set(id, set)
        }
        if (node)
          node.effect = skip.current ? 'skipped the rest of the ruleset' : 'skipped later rules'
      } else {
        run.events.push({
          ruleset_id: level.ruleset.id,
          rule_id: rule.id,
          rule_ref: rule.ref,
          action: rule.action,
          description: rule.description,
          source: 'firewallManaged',
        })
        if (TERMINATING.has(rule.action)) {
          run.stop(
            rule.action,
            `Rule ${ruleName(rule.description, rule.id)} of the entry point (${rule.action}) ended evaluation`,
          )
        }
        if (node) node.effect = TERMINATING.has(rule.action) ? 'terminated the request' : 'logged'
      }
    }
  }
}

/**
 * Whether a request is in the scope of some managed rules, whatever ended evaluation before: an
 * enabled execute rule of an entry point, naming a ruleset the zone has, whose expression matches
 * it, or the previous WAF, where the zone still runs it, being on for it (its setting, or the page
 * rule that applies). A replay counts the requests that are not, to warn that no managed rules saw
 * them.
 */
export function inDeploymentScope(plan: Plan, ctx: EvaluationContext): boolean {
  const deployed = plan.levels.some((level) =>
    level.entries.some(
      ({ rule, target, expression }) =>
        rule.enabled &&
        rule.action === 'execute' &&
        target !== undefined &&
        expression.evaluate(ctx),
    ),
  )
  return deployed || (plan.previousWaf !== undefined && previousWafRunsFor(plan.previousWaf, ctx))
}

function outcomeOf(action: string | undefined): Outcome {
  if (action === undefined) return 'passed'
  return action === 'block' ? 'blocked' : 'challenged'
}

export function evaluatePlan(
  plan: Plan,
  ctx: EvaluationContext,
  options: EvaluateOptions,
): Decision {
  const run = new Run(ctx, options)
  const { bypassWaf } = runFirewallRules(plan, run)
  if (!bypassWaf) {
    runManagedPhase(plan, run)
    if (plan.previousWaf !== undefined) runPreviousWaf(plan.previousWaf, run)
  }
  const action = run.terminal?.action
  const outcome = outcomeOf(action)
  return {
    outcome,
    action: action ?? null,
    ...(outcome === 'challenged' ? { challenge: action as Decision['challenge'] } : {}),
    origin_headers: action === undefined ? run.originHeaders : {},
    events: run.events,
    trace: run.trace,
    stopped:
      run.terminal?.stopped ??
      (bypassWaf
        ? 'A firewall rule bypassed the WAF: the managed rules did not run; the request passed'
        : 'No rule ended evaluation: the request passed'),
  }
}
