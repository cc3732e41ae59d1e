// The previous managed-rules product (docs/vendor-behaviour.md#running-the-previous-waf), planned
// once and run per request:
//   1. the zone's `waf` setting, unless the page rule that applies to the URL (the first active
//      one in precedence that matches) says otherwise: Disable Security and WAF off turn it off,
//      WAF on turns it on;
//   2. the URI-based override that applies (the first matching one by priority) changes group and
//      rule modes for this request: a rule's entry wins over its group's, `default` stands for the
//      zone's own mode, and `rewrite_action` then maps the resulting action to another;
//   3. the traditional package's rules in order: a deny rule blocks, challenges or (simulate) only
//      logs; an allow rule lets the request past the rest of the WAF;
//   4. the anomaly (OWASP) package: matching rules add their score, and when the total reaches
//      the sensitivity's threshold (AJAX requests have higher ones) the package acts with its
//      action mode, logged under rule 981176.

import {
  compile,
  PHASE_MANAGED,
  type CompiledExpression,
  type EvaluationContext,
} from '@shared/expression'
import { OWASP_PACKAGE_BLOCK_RULE_ID, OWASP_PACKAGE_THRESHOLDS } from '@shared/api/waf'
import type { Run } from './evaluate'
import type {
  EnginePageRule,
  EnginePreviousWaf,
  EngineWafOverride,
  EngineWafPackage,
  EngineWafRule,
  TraceNode,
} from './types'

interface PlannedWafRule {
  rule: EngineWafRule
  expression: CompiledExpression
}

interface PlannedWafPackage {
  pkg: EngineWafPackage
  groupModes: ReadonlyMap<string, 'on' | 'off'>
  rules: PlannedWafRule[]
}

export interface PlannedPreviousWaf {
  enabled: boolean
  pageRules: { rule: EnginePageRule; expression: CompiledExpression }[]
  overrides: { override: EngineWafOverride; expression: CompiledExpression }[]
  packages: PlannedWafPackage[]
}

const compileManaged = (text: string) => compile(text, { phase: PHASE_MANAGED })

export function planPreviousWaf(waf: EnginePreviousWaf): PlannedPreviousWaf {
  return {
    enabled: waf.enabled,
    pageRules: waf.pageRules.map((rule) => ({ rule, expression: compileManaged(rule.expression) })),
    overrides: waf.overrides.map((override) => ({
      override,
      expression: compileManaged(override.expression),
    })),
    packages: waf.packages.map((pkg) => ({
      pkg,
      groupModes: new Map(pkg.groups.map((g) => [g.id, g.mode])),
      rules: pkg.rules.map((rule) => ({ rule, expression: compileManaged(rule.expression) })),
    })),
  }
}

const PAGE_RULE_EFFECTS = {
  disable_security: 'Disable Security: the WAF does not run for this URL',
  waf_off: 'Web Application Firewall: Off for this URL',
  waf_on: 'Web Application Firewall: On for this URL',
} as const

/** The page rule that applies to the request: the first active one that matches, whatever its actions. */
function applyingPageRule(
  waf: PlannedPreviousWaf,
  ctx: EvaluationContext,
): EnginePageRule | undefined {
  return waf.pageRules.find(({ expression }) => expression.evaluate(ctx))?.rule
}

/** Whether the WAF runs for a request with this page rule applying: its effect, or the setting. */
function wafRunsUnder(waf: PlannedPreviousWaf, rule: EnginePageRule | undefined): boolean {
  if (rule?.effect === undefined) return waf.enabled
  return rule.effect === 'waf_on'
}

/** Whether the previous WAF runs for the request (a replay's scope: evaluate.ts). */
export function previousWafRunsFor(waf: PlannedPreviousWaf, ctx: EvaluationContext): boolean {
  return wafRunsUnder(waf, applyingPageRule(waf, ctx))
}

/** previousWafRunsFor, saying in the trace which page rule decided. */
function wafRunsFor(waf: PlannedPreviousWaf, run: Run): boolean {
  const rule = applyingPageRule(waf, run.ctx)
  if (rule !== undefined && run.tracing) {
    run.trace.push({
      kind: 'page_rule',
      ruleset_id: null,
      rule_id: rule.id,
      description: rule.pattern,
      action: rule.effect ?? 'none',
      evaluated: true,
      matched: true,
      effect:
        rule.effect === undefined
          ? 'applies to this URL; its actions do not concern the WAF'
          : PAGE_RULE_EFFECTS[rule.effect],
    })
  }
  return wafRunsUnder(waf, rule)
}

/**
 * A rule's mode for this request: an action (`disable`, `simulate`, `block`, `challenge`) for a
 * deny rule, `on` or `off` for the others.
 */
function ruleMode(
  planned: PlannedWafPackage,
  rule: EngineWafRule,
  override: EngineWafOverride | undefined,
): string {
  const own = rule.mode === 'default' ? rule.default_mode : rule.mode
  const off = rule.kind === 'deny' ? 'disable' : 'off'
  let mode = (planned.groupModes.get(rule.group_id) ?? 'on') === 'on' ? own : off
  const overridden = override?.rules[rule.id] ?? override?.groups[rule.group_id]
  if (overridden === 'default') mode = own
  else if (overridden !== undefined) {
    mode = rule.kind === 'deny' ? overridden : overridden === 'disable' ? off : 'on'
  }
  const rewritten = rule.kind === 'deny' ? override?.rewrite_action[mode] : undefined
  if (rewritten !== undefined) mode = rewritten === 'default' ? own : rewritten
  return mode
}

/** A package's trace node before it runs; its action is the anomaly package's action mode. */
function packageNode(pkg: EngineWafPackage): TraceNode {
  return {
    kind: 'waf_package',
    ruleset_id: pkg.id,
    rule_id: pkg.id,
    description: pkg.name,
    action: pkg.detection_mode === 'anomaly' ? (pkg.action_mode ?? 'challenge') : 'traditional',
    evaluated: false,
  }
}

function runPackage(
  planned: PlannedWafPackage,
  override: EngineWafOverride | undefined,
  run: Run,
): 'allowed' | undefined {
  const { pkg } = planned
  const node: TraceNode | undefined = run.tracing
    ? { ...packageNode(pkg), children: [] }
    : undefined
  if (node) run.trace.push(node)
  if (run.terminal !== undefined) {
    if (node) node.not_evaluated = 'stopped'
    return undefined
  }
  if (pkg.detection_mode === 'anomaly' && pkg.sensitivity === 'off') {
    if (node) {
      node.not_evaluated = 'disabled'
      node.effect = 'sensitivity off: the package does not run'
    }
    return undefined
  }
  if (node) node.evaluated = true
  let score = 0
  for (const { rule, expression } of planned.rules) {
    const mode = ruleMode(planned, rule, override)
    const child: TraceNode | undefined = node
      ? {
          kind: 'waf_rule',
          ruleset_id: pkg.id,
          rule_id: rule.id,
          description: rule.description,
          action: mode,
          evaluated: false,
        }
      : undefined
    if (child) node!.children!.push(child)
    if (run.terminal !== undefined) {
      if (child) child.not_evaluated = 'stopped'
      continue
    }
    if (mode === 'disable' || mode === 'off') {
      if (child) child.not_evaluated = 'disabled'
      continue
    }
    const matched = expression.evaluate(run.ctx)
    if (child) {
      child.evaluated = true
      child.matched = matched
    }
    if (!matched) continue
    if (rule.kind === 'anomaly') {
      score += rule.score ?? 0
      if (child) child.score = rule.score ?? 0
      continue
    }
    if (rule.kind === 'allow') {
      if (child) child.effect = 'allowed the request past the rest of the WAF'
      return 'allowed'
    }
    run.events.push({
      ruleset_id: pkg.id,
      rule_id: rule.id,
      action: mode,
      description: rule.description,
      source: 'waf',
    })
    if (mode === 'block' || mode === 'challenge') {
      run.stop(mode, `WAF rule ${rule.id} of the ${pkg.name} package (${mode}) ended evaluation`)
      if (child) child.effect = 'terminated the request'
    } else if (child) child.effect = 'logged (simulate)'
  }
  if (pkg.detection_mode === 'anomaly' && run.terminal === undefined) {
    anomalyVerdict(pkg, score, run, node)
  }
  return undefined
}

function isAjax(run: Run): boolean {
  const values = run.ctx.fields['http.request.headers']
  const header = values instanceof Map ? values.get('x-requested-with') : undefined
  return Array.isArray(header) && header.some((v) => String(v).toLowerCase() === 'xmlhttprequest')
}

function anomalyVerdict(
  pkg: EngineWafPackage,
  score: number,
  run: Run,
  node: TraceNode | undefined,
): void {
  const sensitivity = pkg.sensitivity ?? 'high'
  if (sensitivity === 'off') return
  const thresholds = OWASP_PACKAGE_THRESHOLDS[sensitivity]
  const threshold = isAjax(run) ? thresholds.ajax : thresholds.normal
  const action = pkg.action_mode ?? 'challenge'
  const reached = score >= threshold
  if (node) {
    node.children!.push({
      kind: 'waf_rule',
      ruleset_id: pkg.id,
      rule_id: OWASP_PACKAGE_BLOCK_RULE_ID,
      description: `Anomaly score reached the ${sensitivity} sensitivity threshold`,
      action,
      evaluated: true,
      matched: reached,
      total_score: score,
      score_threshold: threshold,
      ...(reached
        ? { effect: action === 'simulate' ? 'logged (simulate)' : 'terminated the request' }
        : {}),
    })
  }
  if (!reached) return
  run.events.push({
    ruleset_id: pkg.id,
    rule_id: OWASP_PACKAGE_BLOCK_RULE_ID,
    action,
    description: `${pkg.name}: anomaly score ${score} reached the threshold ${threshold}`,
    source: 'waf',
    score,
  })
  if (action !== 'simulate') {
    run.stop(action, `The ${pkg.name} package's anomaly score (${score}) reached ${threshold}`)
  }
}

/** Traces each package as not run, and why. */
function traceNotRun(waf: PlannedPreviousWaf, run: Run, why: 'stopped' | 'disabled'): void {
  if (!run.tracing) return
  for (const { pkg } of waf.packages) {
    run.trace.push({
      ...packageNode(pkg),
      not_evaluated: why,
      ...(why === 'disabled' ? { effect: 'the WAF is off for this request' } : {}),
    })
  }
}

/** An override created with only its URLs (as the vendor's create body allows) changes nothing. */
const changesNothing = (override: EngineWafOverride) =>
  [override.rules, override.groups, override.rewrite_action].every(
    (modes) => Object.keys(modes).length === 0,
  )

/** Runs the previous product for the request (after whatever ran before it). */
export function runPreviousWaf(waf: PlannedPreviousWaf, run: Run): void {
  if (run.terminal !== undefined) return traceNotRun(waf, run, 'stopped')
  if (!wafRunsFor(waf, run)) return traceNotRun(waf, run, 'disabled')
  const applied = waf.overrides.find(({ expression }) => expression.evaluate(run.ctx))
  if (applied !== undefined && run.tracing) {
    run.trace.push({
      kind: 'waf_override',
      ruleset_id: null,
      rule_id: applied.override.id,
      description: applied.override.description ?? '',
      action: 'override',
      evaluated: true,
      matched: true,
      effect: changesNothing(applied.override)
        ? 'changes no rule or group mode (the override has no rules, groups or rewrite_action)'
        : 'changed rule and group modes for this URL',
    })
  }
  for (const planned of waf.packages) {
    if (runPackage(planned, applied?.override, run) === 'allowed') break
  }
}
