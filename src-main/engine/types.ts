// What the engine takes and what it answers. The engine is pure: it is handed a zone's
// configuration (rulesets with expressions, firewall rules with their filters) and a way to ask
// whether credentials are exposed, and it touches no storage itself.

import type { FirewallAction, FirewallProduct } from '@shared/api/firewall'
import type { Rule, Ruleset } from '@shared/api/rulesets'
import type { OverrideSource } from '@shared/rulesets/overrides'

/** A rule of a ruleset the engine runs: managed rules carry their (private) expressions. */
export interface EngineRule extends Rule {
  expression: string
  /** what a matching `score` rule adds to the anomaly score (else action_parameters.increment) */
  score?: number
}

export interface EngineRuleset extends Ruleset {
  rules: EngineRule[]
}

/** A firewall rule of the previous product, with its filter's expression. */
export interface EngineFirewallRule {
  id: string
  action: FirewallAction
  priority: number | null
  paused: boolean
  description?: string
  products?: FirewallProduct[]
  filter: { id: string; expression: string; paused: boolean }
}

export type CredentialMatch = 'pair' | 'test-credentials'

/** Asks the leaked-credential database about one username and password. */
export type CredentialLookup = (username: string, password: string) => CredentialMatch | undefined

export interface ZoneConfig {
  /** the account's entry point of the managed phase (runs first), if any */
  accountEntrypoint?: EngineRuleset
  /** the zone's entry point of the managed phase, if any */
  zoneEntrypoint?: EngineRuleset
  /** the ruleset an execute rule names, at the version it names ('latest' when unset) */
  resolveRuleset: (id: string, version: string | undefined) => EngineRuleset | undefined
  /** the previous product's firewall rules, run before the managed phase */
  firewallRules: EngineFirewallRule[]
}

export type Outcome = 'blocked' | 'challenged' | 'passed'

/** A security event, as the vendor's activity log shows one. */
export interface EngineEvent {
  ruleset_id: string | null
  rule_id: string
  rule_ref?: string
  action: string
  description: string
  /** firewallRules (the previous product) or firewallManaged */
  source: 'firewallRules' | 'firewallManaged'
  /** the OWASP anomaly score when the anomaly rule acted */
  score?: number
  /** payload logging: what matched, per field */
  matched_data?: Record<string, MatchedData>
}

export interface MatchedData {
  before: string
  content: string
  after: string
}

/** Why a rule was not evaluated. */
export type NotEvaluated = 'disabled' | 'paused' | 'skipped' | 'stopped'

/** One rule the engine considered, and what came of it. */
export interface TraceNode {
  kind: 'firewall_rule' | 'entrypoint_rule' | 'ruleset_rule'
  ruleset_id: string | null
  rule_id: string
  description: string
  /** the action the rule takes (after overrides) */
  action: string
  /** which override decided the action and the enabled state (rules of executed rulesets) */
  from?: { action: OverrideSource; enabled: OverrideSource; score_threshold?: OverrideSource }
  /** false when the rule was not evaluated; see `not_evaluated` */
  evaluated: boolean
  not_evaluated?: NotEvaluated
  matched?: boolean
  /** a scoring rule's contribution, and the anomaly rule's total and threshold */
  score?: number
  total_score?: number
  score_threshold?: number
  credentials?: { username: string; exposed: boolean; match?: CredentialMatch }
  /** what the rule did: e.g. "terminated the request", "skipped the rest of the ruleset" */
  effect?: string
  children?: TraceNode[]
}

export interface Decision {
  outcome: Outcome
  /** the terminating action, or null when the request passed */
  action: string | null
  /** the challenge shown, when the outcome is `challenged` */
  challenge?: 'challenge' | 'js_challenge' | 'managed_challenge'
  /** headers added to the request passed to the origin */
  origin_headers: Record<string, string>
  events: EngineEvent[]
  /** every rule considered, in order; empty when evaluated without a trace */
  trace: TraceNode[]
  /** why evaluation stopped, in a sentence */
  stopped: string
}
