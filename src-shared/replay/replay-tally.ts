// The summary of a replay, added up one request at a time: the replay route feeds it each
// simulation as it runs, and the Replay screen feeds it the summary each chunk of the file answers.
// Both read the same counts, so a file replayed whole or in chunks sums to the same outcomes,
// rules and paths.

import type {
  Outcome,
  ReplayPathCount,
  ReplayResult,
  ReplayRuleCount,
  ReplaySummary,
  SimulatedRequest,
  Simulation,
} from '@shared/api/simulate'
import { requestPath } from './traffic'

/** What a summary keeps of one simulation. */
export type TalliedSimulation = Pick<Simulation, 'ray_id' | 'outcome' | 'action' | 'events'> & {
  /** whether a deployment's expression matched the request; unknown when absent */
  in_scope?: boolean
}

const byRequests = (a: { requests: number }, b: { requests: number }) => b.requests - a.requests

/**
 * How many distinct paths a tally counts at most: a day of logs has millions. Past twice this
 * many, only this many of the most requested are kept (lossy counting: a path dropped and seen
 * again counts from zero, so the top paths' counts are exact unless `paths_approximate` says
 * some were dropped; https://www.vldb.org/conf/2002/S10P03.pdf).
 */
export const TALLIED_PATHS = 1000

export class ReplayTally {
  private requests = 0
  private readonly outcomes: Record<Outcome, number> = { blocked: 0, challenged: 0, passed: 0 }
  /** keyed by ruleset, rule and action: a rule that logs and blocks counts twice */
  private readonly rules = new Map<string, ReplayRuleCount>()
  private paths = new Map<string, ReplayPathCount>()
  /** whether paths were dropped to keep the count of distinct paths bounded */
  private pathsDropped = false
  /** each request's result, when the summary lists them */
  private readonly results: ReplayResult[] | undefined
  private readonly pathCapacity: number
  /** requests no deployment's expression matched; undefined until a request says whether */
  private outOfScope: number | undefined

  constructor(options: { results?: boolean; paths?: number } = {}) {
    this.results = options.results === true ? [] : undefined
    this.pathCapacity = options.paths ?? TALLIED_PATHS
  }

  /** Counts one request and what the zone did to it. */
  add(request: Pick<SimulatedRequest, 'method' | 'url'>, simulation: TalliedSimulation): void {
    this.requests++
    this.outcomes[simulation.outcome]++
    for (const event of simulation.events) {
      this.countRule({
        ruleset_id: event.ruleset_id,
        rule_id: event.rule_id,
        description: event.description,
        action: event.action,
        requests: 1,
      })
    }
    if (simulation.in_scope !== undefined)
      this.outOfScope = (this.outOfScope ?? 0) + (simulation.in_scope ? 0 : 1)
    this.countPath(request.url, simulation.outcome)
    this.results?.push({
      ray_id: simulation.ray_id,
      method: request.method,
      url: request.url,
      outcome: simulation.outcome,
      action: simulation.action,
      rules: simulation.events.map((event) => event.rule_id),
    })
  }

  /**
   * Counts the requests of a summary answered for part of the traffic. Its paths are counted from
   * its results: its own path list keeps only its top entries, which would not add up.
   */
  addSummary(part: ReplaySummary): void {
    this.requests += part.requests
    for (const [outcome, count] of Object.entries(part.outcomes) as [Outcome, number][]) {
      this.outcomes[outcome] += count
    }
    for (const rule of part.rules) this.countRule(rule)
    if (part.out_of_scope !== undefined)
      this.outOfScope = (this.outOfScope ?? 0) + part.out_of_scope
    for (const result of part.results ?? []) {
      this.countPath(result.url, result.outcome)
      this.results?.push(result)
    }
  }

  /** The summary so far, rules and paths by requests; `paths` keeps only that many of the top. */
  summary(options: { paths?: number } = {}): ReplaySummary {
    const paths = [...this.paths.values()].sort(byRequests).map((path) => ({ ...path }))
    return {
      requests: this.requests,
      outcomes: { ...this.outcomes },
      rules: [...this.rules.values()].sort(byRequests).map((rule) => ({ ...rule })),
      paths: options.paths === undefined ? paths : paths.slice(0, options.paths),
      ...(this.pathsDropped ? { paths_approximate: true } : {}),
      ...(this.outOfScope === undefined ? {} : { out_of_scope: this.outOfScope }),
      ...(this.results === undefined ? {} : { results: [...this.results] }),
    }
  }

  private countRule(rule: ReplayRuleCount): void {
    const key = `${rule.ruleset_id}/${rule.rule_id}/${rule.action}`
    const known = this.rules.get(key)
    if (known === undefined) this.rules.set(key, { ...rule })
    else known.requests += rule.requests
  }

  private countPath(url: string, outcome: Outcome): void {
    const path = requestPath(url)
    let counts = this.paths.get(path)
    if (counts === undefined) {
      if (this.paths.size >= 2 * this.pathCapacity) this.dropLeastRequestedPaths()
      counts = { path, requests: 0, blocked: 0, challenged: 0, passed: 0 }
      this.paths.set(path, counts)
    }
    counts.requests++
    counts[outcome]++
  }

  private dropLeastRequestedPaths(): void {
    const kept = [...this.paths.values()].sort(byRequests).slice(0, this.pathCapacity)
    this.paths = new Map(kept.map((counts) => [counts.path, counts]))
    this.pathsDropped = true
  }
}
