// What the engine takes and what it answers. The engine is pure: it is handed a zone's
// configuration (rulesets with expressions, firewall rules with their filters) and a way to ask
// whether credentials are exposed, and it touches no storage itself.

import type { FirewallAction, FirewallProduct } from '@shared/api/firewall'
import type { Rule, Ruleset } from '@shared/api/rulesets'
import type { CredentialMatch, SimulationEvent } from '@shared/api/simulate'

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
}

/** A security event the engine reports (the simulate API's event). */
export type EngineEvent = SimulationEvent
