// What the engine takes and what it answers. The engine is pure: it is handed a zone's
// configuration (rulesets with expressions, firewall rules with their filters) and a way to ask
// whether credentials are exposed, and it touches no storage itself.

import type { FirewallAction, FirewallProduct } from '@shared/api/firewall'
import type { Rule, Ruleset } from '@shared/api/rulesets'
import type { CredentialMatch, SimulationEvent } from '@shared/api/simulate'
import type { CrsBundle } from './crs/program'

// What the engine answers is the simulate API's answer, declared once in src-shared.
export type {
  CredentialMatch,
  Decision,
  MatchedData,
  NotEvaluated,
  Outcome,
  TraceNode,
} from '@shared/api/simulate'

/** A rule of a ruleset the engine runs: managed rules carry their (private) expressions. */
export interface EngineRule extends Rule {
  expression: string
  /** what a matching `score` rule adds to the anomaly score (else action_parameters.increment) */
  score?: number
}

export interface EngineRuleset extends Ruleset {
  rules: EngineRule[]
  /** the CRS program the OWASP ruleset's scoring rules stand for (matched by their CRS ids) */
  crs?: CrsBundle
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
  /** whether the managed phase runs (false for a zone that has not begun its migration) */
  managedRulesets?: boolean
  /** the previous managed-rules product, while it runs for the zone (after the managed phase) */
  previousWaf?: EnginePreviousWaf
}

/** A security event the engine reports (the simulate API's event). */
export type EngineEvent = SimulationEvent

/** A rule of the previous product, with the mode the zone's settings give it. */
export interface EngineWafRule {
  id: string
  description: string
  group_id: string
  kind: 'deny' | 'allow' | 'anomaly'
  /** deny rules: disable | simulate | block | challenge; allow and anomaly rules: on | off */
  mode: string
  /** deny rules: the action `default` stands for */
  default_mode: string
  /** anomaly rules: what a match adds to the score */
  score?: number
  expression: string
}

export interface EngineWafGroup {
  id: string
  name: string
  mode: 'on' | 'off'
}

export interface EngineWafPackage {
  id: string
  name: string
  detection_mode: 'traditional' | 'anomaly'
  /** anomaly packages */
  sensitivity?: 'high' | 'medium' | 'low' | 'off'
  action_mode?: 'simulate' | 'block' | 'challenge'
  groups: EngineWafGroup[]
  /** in the order they run */
  rules: EngineWafRule[]
}

/** A URI-based override: for requests its URLs match, other modes for some groups and rules. */
export interface EngineWafOverride {
  id: string
  description: string | null
  /** matches the override's URLs */
  expression: string
  rules: Record<string, string>
  groups: Record<string, string>
  rewrite_action: Record<string, string>
}

/** An active page rule: what it does to the previous WAF, where its URL pattern matches. */
export interface EnginePageRule {
  id: string
  pattern: string
  expression: string
  effect?: 'disable_security' | 'waf_off' | 'waf_on'
}

/** The previous managed-rules product as one zone has it set up. */
export interface EnginePreviousWaf {
  /** the zone's `waf` setting */
  enabled: boolean
  /** active page rules, the one that wins first */
  pageRules: EnginePageRule[]
  /** overrides that are not paused, the one that wins (lowest priority number) first */
  overrides: EngineWafOverride[]
  packages: EngineWafPackage[]
}
