// What the Simulator's trace shows of the engine's trace, and how it names each node.

import type { NotEvaluated, SimulationEvent, TraceNode } from '@shared/api/simulate'
import type { OverrideSource } from '@shared/rulesets/overrides'
import { actionColor, actionLabel } from '../../lib/traffic-labels'
import { routeHref } from '../../lib/route'

/** A deployment (an execute rule of an entry point) whose expression did not match. */
export function unmatchedDeployment(node: TraceNode): boolean {
  return (
    node.kind === 'entrypoint_rule' &&
    node.action === 'execute' &&
    node.evaluated &&
    node.matched === false
  )
}

/** A node worth showing when only what happened is asked for. */
function happened(node: TraceNode): boolean {
  return (
    node.matched === true ||
    node.credentials !== undefined ||
    // the anomaly rule's total against its threshold explains a pass as much as a block
    (node.evaluated && node.total_score !== undefined) ||
    // a ruleset that did not run explains a pass: the same attack on another host
    unmatchedDeployment(node)
  )
}

/** A node as shown, with the children shown and how many were left out. */
export interface VisibleNode {
  node: TraceNode
  children: VisibleNode[]
  hidden: number
}

/** The trace as shown: every node, or only the ones that matched (with what led to them). */
export function visibleTrace(nodes: readonly TraceNode[], showAll: boolean): VisibleNode[] {
  return nodes.flatMap((node): VisibleNode[] => {
    const all = node.children ?? []
    const children = visibleTrace(all, showAll)
    if (!showAll && !happened(node) && children.length === 0) return []
    return [{ node, children, hidden: all.length - children.length }]
  })
}

export interface TraceCounts {
  rules: number
  evaluated: number
  matched: number
}

export function countTrace(nodes: readonly TraceNode[]): TraceCounts {
  const counts: TraceCounts = { rules: 0, evaluated: 0, matched: 0 }
  const visit = (node: TraceNode) => {
    counts.rules++
    if (node.evaluated) counts.evaluated++
    if (node.matched) counts.matched++
    node.children?.forEach(visit)
  }
  nodes.forEach(visit)
  return counts
}

export const KIND_LABELS: Record<TraceNode['kind'], string> = {
  firewall_rule: 'Firewall rule',
  entrypoint_rule: 'Entry point rule',
  ruleset_rule: 'Rule',
  page_rule: 'Page rule',
  waf_override: 'URI-based override',
  waf_package: 'WAF package',
  waf_rule: 'WAF rule',
}

/** The nodes of the previous WAF product, whose settings are edited on the Migration screen. */
const PREVIOUS_PRODUCT_KINDS: ReadonlySet<TraceNode['kind']> = new Set([
  'page_rule',
  'waf_override',
  'waf_package',
  'waf_rule',
])

/**
 * What the previous product's nodes carry as their action: a page rule's WAF setting, a package's
 * detection or action mode, a rule's mode. Other actions are the rules engine's own.
 */
const PREVIOUS_PRODUCT_ACTIONS: Record<string, string> = {
  disable_security: 'Disable Security',
  waf_off: 'WAF off',
  waf_on: 'WAF on',
  none: 'No WAF setting',
  override: 'Override',
  traditional: 'Traditional',
  anomaly: 'Anomaly scoring',
  simulate: 'Simulate',
  disable: 'Disable',
  on: 'On',
  off: 'Off',
}

/** A node's action as shown on its badge. */
export function nodeActionLabel(node: TraceNode): string {
  const previous = PREVIOUS_PRODUCT_KINDS.has(node.kind)
    ? PREVIOUS_PRODUCT_ACTIONS[node.action]
    : undefined
  return previous ?? actionLabel(node.action)
}

/** A node's action color; the previous product's simulate mode only logs, like `log`. */
export function nodeActionColor(node: TraceNode): string {
  return actionColor(node.action === 'simulate' ? 'log' : node.action)
}

/** What a node's id names. */
export function idLabel(node: TraceNode): string {
  if (node.kind === 'waf_package') return 'Package ID'
  if (node.kind === 'page_rule') return 'Page rule ID'
  if (node.kind === 'waf_override') return 'Override ID'
  return 'Rule ID'
}

/** Whether a node is matched, evaluated without a match (or a package that ran), or skipped. */
export function nodeStatus(node: TraceNode): string {
  if (!node.evaluated) return NOT_EVALUATED_LABELS[node.not_evaluated ?? 'stopped']
  if (node.kind === 'waf_package') return 'Ran'
  if (unmatchedDeployment(node)) return 'Not matched: its ruleset did not run'
  return node.matched ? 'Matched' : 'Not matched'
}

export const NOT_EVALUATED_LABELS: Record<NotEvaluated, string> = {
  disabled: 'Not evaluated: the rule is disabled',
  paused: 'Not evaluated: the rule is paused',
  skipped: 'Not evaluated: a skip rule skipped it',
  stopped: 'Not evaluated: evaluation had already stopped',
}

/** Which product an event came from, as the activity log names it. */
export const EVENT_SOURCE_LABELS: Record<SimulationEvent['source'], string> = {
  firewallRules: 'Firewall rules',
  firewallManaged: 'Managed rules',
  waf: 'WAF managed rules (previous)',
}

export const SOURCE_LABELS: Record<OverrideSource, string> = {
  rule: 'rule override',
  category: 'tag override',
  ruleset: 'ruleset override',
  default: 'rule default',
}

/** A node's name: its description, else what an execute rule runs, else its id. */
export function nodeTitle(node: TraceNode, rulesetNames: Record<string, string>): string {
  if (node.description !== '') return node.description
  const executed = node.executes ?? node.children?.[0]?.ruleset_id
  if (node.action === 'execute' && executed) {
    return `Execute ${rulesetNames[executed] ?? `ruleset ${executed}`}`
  }
  return `${KIND_LABELS[node.kind]} ${node.rule_id}`
}

/** Where the rule is edited: that screen of the zone it was simulated on. */
export function editorHref(node: TraceNode, zoneId: string | null): string {
  if (PREVIOUS_PRODUCT_KINDS.has(node.kind)) return routeHref('migration', zoneId)
  return routeHref(node.kind === 'firewall_rule' ? 'firewall-rules' : 'managed-rules', zoneId)
}

/** How an action that ended evaluation is told in a sentence. */
const ACTION_OUTCOMES: Record<string, string> = {
  block: 'blocked',
  challenge: 'challenged (Interactive Challenge)',
  js_challenge: 'challenged (JS Challenge)',
  managed_challenge: 'challenged (Managed Challenge)',
  log: 'logged',
}

/**
 * The anomaly rule's verdict in words: the total against the threshold, at the paranoia level in
 * force (docs/vendor-behaviour.md#owasp-core-ruleset). Undefined for other nodes.
 */
export function anomalySentence(node: TraceNode): string | undefined {
  const { total_score: total, score_threshold: threshold } = node
  if (total === undefined || threshold === undefined) return undefined
  const level = node.paranoia_level === undefined ? '' : ` at paranoia level ${node.paranoia_level}`
  if (total < threshold)
    return `Score ${total}${level} stayed below the threshold ${threshold}: no action`
  const outcome = ACTION_OUTCOMES[node.action] ?? actionLabel(node.action)
  return `Score ${total}${level} reached the threshold ${threshold}: ${outcome}`
}

/** Whether a character cannot show as itself: a C0 or C1 control, or DEL. */
function invisible(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f)
}

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/**
 * A value the rule read, with its invisible characters written as escapes (`\n`, `\x00`), so
 * that what shows is what the rule's operator saw. Backslashes are left as they are.
 */
export function escapeValue(value: string): string {
  let escaped = ''
  for (const c of value) {
    const code = c.charCodeAt(0)
    escaped += invisible(code) ? (ESCAPES[c] ?? `\\x${code.toString(16).padStart(2, '0')}`) : c
  }
  return escaped
}

/** Values longer than this many characters show cut, with a way to see them whole. */
export const SHOWN_VALUE_LENGTH = 120

/** A value as first shown: escaped, and cut after `limit` characters (never inside one). */
export function shownValue(
  value: string,
  limit = SHOWN_VALUE_LENGTH,
): { text: string; cut: boolean } {
  const characters = Array.from(escapeValue(value))
  if (characters.length <= limit) return { text: characters.join(''), cut: false }
  return { text: `${characters.slice(0, limit).join('')}…`, cut: true }
}
