// What the workbench's simulate, replay and events routes answer, as the renderer reads them. The
// renderer cannot import the service's own types (src-main), so these mirror them.

import type { OverrideSource } from '@shared/rulesets/overrides'

export const OUTCOMES = ['blocked', 'challenged', 'passed'] as const
export type Outcome = (typeof OUTCOMES)[number]

export type NotEvaluated = 'disabled' | 'paused' | 'skipped' | 'stopped'

/** One rule the engine considered, and what came of it. */
export interface TraceNode {
  kind: 'firewall_rule' | 'entrypoint_rule' | 'ruleset_rule'
  ruleset_id: string | null
  rule_id: string
  description: string
  action: string
  from?: { action: OverrideSource; enabled: OverrideSource; score_threshold?: OverrideSource }
  evaluated: boolean
  not_evaluated?: NotEvaluated
  matched?: boolean
  score?: number
  total_score?: number
  score_threshold?: number
  credentials?: { username: string; exposed: boolean; match?: 'pair' | 'test-credentials' }
  effect?: string
  children?: TraceNode[]
}

export interface MatchedData {
  before: string
  content: string
  after: string
}

/** A rule that acted on a simulated request. */
export interface SimulationEvent {
  ruleset_id: string | null
  rule_id: string
  rule_ref?: string
  action: string
  description: string
  source: 'firewallRules' | 'firewallManaged'
  score?: number
  matched_data?: Record<string, MatchedData>
}

export interface Simulation {
  ray_id: string
  outcome: Outcome
  action: string | null
  challenge?: 'challenge' | 'js_challenge' | 'managed_challenge'
  origin_headers: Record<string, string>
  events: SimulationEvent[]
  trace: TraceNode[]
  stopped: string
}

export interface ReplayRuleCount {
  ruleset_id: string | null
  rule_id: string
  description: string
  action: string
  requests: number
}

export interface ReplayPathCount {
  path: string
  requests: number
  blocked: number
  challenged: number
  passed: number
}

export interface ReplayResult {
  ray_id: string
  method: string
  url: string
  outcome: Outcome
  action: string | null
  rules: string[]
}

export interface ReplaySummary {
  requests: number
  outcomes: Record<Outcome, number>
  rules: ReplayRuleCount[]
  paths: ReplayPathCount[]
  results?: ReplayResult[]
}

/** A recorded security event. */
export interface SecurityEvent {
  id: number
  /** ISO 8601 */
  time: string
  ray_id: string
  method: string
  host: string
  path: string
  client_ip: string | null
  country: string | null
  outcome: Outcome
  source: string
  ruleset_id: string | null
  rule_id: string
  action: string
  description: string
}
