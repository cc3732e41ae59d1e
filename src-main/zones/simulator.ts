// What a zone would do to a request: gathers the zone's configuration from its object (and the
// account's entry point from the account's), compiles it with the engine once per configuration
// (recompiling only when the zone's or the account's configuration version moves on: no
// gathering and hashing to find out), evaluates the request
// with the credential database at hand, and records the security events it leaves when asked to
// (in the zone's event log, not in its object).
//
// Which WAF runs follows the zone's migration: the previous product alone before it, both during
// it (the managed rulesets first), managed rulesets after. `compare` runs each product alone, the
// side-by-side view a team wants before cutting over.

import { randomBytes } from 'node:crypto'
import { requestContext, PHASE_MANAGED } from '@shared/expression'
import type { Phase, RuleBody, Ruleset } from '@shared/api/rulesets'
import type { SimulatedRequest, Simulation } from '@shared/api/simulate'
import type { ComparedRequest, MigrationComparison } from '@shared/api/waf'
import { badRequest } from '@shared/api/errors'
import {
  compileZone,
  type CompiledZone,
  type Decision,
  type EngineFirewallRule,
  type EnginePreviousWaf,
  type EngineRuleset,
  type ZoneConfig,
} from '../engine'
import type { ManagedCatalog } from './rulesets/catalog'
import type { LegacyCatalog } from './previous-waf/catalog'
import { enginePreviousWaf } from './previous-waf/engine-input'
import {
  managedRulesetsRun,
  migrationConfig,
  migrationSnapshot,
  migrationState,
  previousProductRuns,
  ranPreviousProduct,
} from './previous-waf/migration'
import type { CredentialNamespace } from './credentials'
import type { NewSecurityEvent } from './events'
import { systemClock, type Clock } from '../objects'
import { ACCOUNT, type ZoneRegistry } from './registry'
import type { ZoneEvents } from './zone-events'
import { MIGRATION_ERRORS } from '@shared/api/error-codes'

/** A zone's configuration as the engine needs it, in JSON (a replay's workers compile it). */
export interface Gathered {
  zoneEntrypoint?: Ruleset
  zoneRulesets: Ruleset[]
  accountEntrypoint?: Ruleset
  accountRulesets: Ruleset[]
  firewallRules: EngineFirewallRule[]
  managedRulesets: boolean
  previousWaf?: EnginePreviousWaf
  /** the migration's configuration, while the zone has not begun its migration */
  generatedEntrypoint?: EngineRuleset
}

/** Which product a compiled zone runs: as the zone stands, or one of them alone. */
export type Variant = 'zone' | 'previous' | 'new'

interface Compiled {
  zone: CompiledZone
  /** whether its entry point is the migration's configuration rather than the zone's own */
  generated: boolean
}

const MANAGED_PHASE = PHASE_MANAGED as Phase

/** The parts of a URL an event shows. */
function urlParts(request: SimulatedRequest): { host: string; path: string } {
  const hostHeader = Object.entries(request.headers ?? {}).find(
    ([name]) => name.toLowerCase() === 'host',
  )?.[1]
  try {
    const url = new URL(
      request.url,
      `http://${typeof hostHeader === 'string' ? hostHeader : 'unknown.invalid'}`,
    )
    return { host: url.host, path: url.pathname }
  } catch {
    return { host: '', path: request.url }
  }
}

export class Simulator {
  private readonly compiled = new Map<string, { version: string; compiled: Compiled }>()

  constructor(
    private readonly zones: ZoneRegistry,
    private readonly catalog: ManagedCatalog,
    private readonly legacy: LegacyCatalog,
    private readonly credentials: CredentialNamespace,
    private readonly events: ZoneEvents,
    private readonly clock: Clock = systemClock,
  ) {}

  private async gather(zoneId: string, variant: Variant): Promise<Gathered> {
    const zone = await this.zones.inZone(zoneId, (z, record) => {
      const snapshot = migrationSnapshot(z, record, this.legacy)
      const state = migrationState(record, snapshot.settings)
      if (variant !== 'zone' && !ranPreviousProduct(snapshot)) {
        throw badRequest(
          MIGRATION_ERRORS.nothingToMigrate,
          'This zone never ran the previous WAF managed rules: there is nothing to compare.',
        )
      }
      const previous = variant === 'previous' || (variant === 'zone' && previousProductRuns(state))
      return {
        zoneEntrypoint: z.rulesets.entrypoint(MANAGED_PHASE, 'zone'),
        zoneRulesets: z.rulesets.list(),
        firewallRules: z.firewallRulesWithFilters(),
        managedRulesets: variant === 'new' || (variant === 'zone' && managedRulesetsRun(state)),
        ...(previous ? { previousWaf: enginePreviousWaf(snapshot, this.legacy) } : {}),
        ...(variant === 'new' && state === 'start'
          ? { generatedEntrypoint: generatedEntrypoint(migrationConfig(snapshot).rules) }
          : {}),
      }
    })
    const account = await this.zones.inAccount(ACCOUNT.id, (a) => ({
      accountEntrypoint: a.rulesets.entrypoint(MANAGED_PHASE, 'root'),
      accountRulesets: a.rulesets.list(),
    }))
    return { ...zone, ...account }
  }

  /**
   * The version of what a zone's simulation reads, its own configuration and the account's: read
   * before a compilation, so that a change during one makes the next request compile again.
   */
  async configurationVersion(zoneId: string): Promise<string> {
    const zone = await this.zones.inZone(zoneId, (z) => z.configurationVersion())
    const account = await this.zones.inAccount(ACCOUNT.id, (a) => a.configurationVersion())
    return `${zone}/${account}`
  }

  /** The compiled zone for its current configuration (compiled again only after a change). */
  private async compiledZone(zoneId: string, variant: Variant = 'zone'): Promise<Compiled> {
    const version = await this.configurationVersion(zoneId)
    const cacheKey = `${zoneId}/${variant}`
    const cached = this.compiled.get(cacheKey)
    if (cached?.version === version) return cached.compiled
    const gathered = await this.gather(zoneId, variant)
    const compiled = {
      zone: compileZone(zoneConfigOf(gathered, this.catalog)),
      generated: gathered.generatedEntrypoint !== undefined,
    }
    this.compiled.set(cacheKey, { version, compiled })
    return compiled
  }

  /** The zone's configuration (or one product alone), for a replay to compile in its workers. */
  configuration(zoneId: string, variant: Variant = 'zone'): Promise<Gathered> {
    return this.gather(zoneId, variant)
  }

  /** The Rules fields the zone's rules read, as configured now. */
  async fields(zoneId: string): Promise<readonly string[]> {
    return (await this.compiledZone(zoneId)).zone.fields
  }

  /** Runs `work` with a lookup in the credential database (only whole pairs count as exposed). */
  private withCredentials<R>(
    work: (lookup: (username: string, password: string) => 'pair' | undefined) => R,
  ): Promise<Awaited<R>> {
    return this.credentials.call(this.credentials.idFromName('credentials'), (db) =>
      work((username, password) => (db.lookup(username, password) === 'pair' ? 'pair' : undefined)),
    )
  }

  /**
   * What the previous product alone and managed rulesets alone would do to each request (the
   * managed rulesets as the zone's entry point has them once its migration has begun, else as
   * the migration would deploy them). Records no events.
   */
  async compare(
    zoneId: string,
    requests: readonly SimulatedRequest[],
    offset = 0,
  ): Promise<{
    results: ComparedRequest[]
    newConfiguration: MigrationComparison['new_configuration']
  }> {
    const { zone: previous } = await this.compiledZone(zoneId, 'previous')
    const { zone: next, generated } = await this.compiledZone(zoneId, 'new')
    const at = this.clock.now()
    const results = await this.withCredentials((credentials) =>
      requests.map((request, index): ComparedRequest => {
        const ctx = requestContext({ ...request, timestamp: at })
        const before = summarizeDecision(previous.evaluate(ctx, { trace: false, credentials }))
        const after = summarizeDecision(next.evaluate(ctx, { trace: false, credentials }))
        return {
          index: offset + index,
          method: request.method.toUpperCase(),
          url: request.url,
          differs: before.outcome !== after.outcome || before.action !== after.action,
          previous: before,
          new: after,
        }
      }),
    )
    return {
      results,
      newConfiguration: generated ? 'generated' : 'entrypoint',
    }
  }

  /**
   * Evaluates `requests` against the zone as configured now; events are recorded if asked. With
   * `scope`, each simulation says whether some managed rules saw its request (`in_scope`, for a
   * replay's summary: CompiledZone.inDeploymentScope).
   */
  async simulate(
    zoneId: string,
    requests: readonly SimulatedRequest[],
    options: { trace?: boolean; record?: boolean; scope?: boolean } = {},
  ): Promise<(Simulation & { in_scope?: boolean })[]> {
    const { zone } = await this.compiledZone(zoneId)
    const at = this.clock.now()
    const simulations = await this.withCredentials((credentials) =>
      requests.map((request) => {
        const ctx = requestContext({ ...request, timestamp: at })
        return {
          ray_id: randomBytes(8).toString('hex'),
          ...zone.evaluate(ctx, { trace: options.trace, credentials }),
          ...(options.scope === true ? { in_scope: zone.inDeploymentScope(ctx) } : {}),
        }
      }),
    )
    if (options.record === true) await this.record(zoneId, requests, simulations, at)
    return simulations
  }

  /** Records the events of `simulations` of `requests` (made at `at`) in the zone's event log. */
  async record(
    zoneId: string,
    requests: readonly SimulatedRequest[],
    simulations: readonly Pick<Simulation, 'ray_id' | 'outcome' | 'events'>[],
    at: number,
  ): Promise<void> {
    const events = simulations.flatMap((simulation, index) => {
      const request = requests[index]!
      const { host, path } = urlParts(request)
      return simulation.events.map((event): NewSecurityEvent => ({
        time: at,
        ray_id: simulation.ray_id,
        method: request.method.toUpperCase(),
        host,
        path,
        client_ip: request.ip ?? null,
        country: request.country ?? null,
        outcome: simulation.outcome,
        source: event.source,
        ruleset_id: event.ruleset_id,
        rule_id: event.rule_id,
        action: event.action,
        description: event.description,
      }))
    })
    await this.events.record(zoneId, events)
  }
}

/** The engine's input from a gathered configuration, managed rulesets resolved in `catalog`. */
export function zoneConfigOf(
  gathered: Gathered,
  catalog: Pick<ManagedCatalog, 'resolve'>,
): ZoneConfig {
  const own = new Map([...gathered.accountRulesets, ...gathered.zoneRulesets].map((r) => [r.id, r]))
  return {
    zoneEntrypoint: (gathered.generatedEntrypoint ?? gathered.zoneEntrypoint) as
      EngineRuleset | undefined,
    accountEntrypoint: gathered.accountEntrypoint as EngineRuleset | undefined,
    firewallRules: gathered.firewallRules,
    managedRulesets: gathered.managedRulesets,
    ...(gathered.previousWaf === undefined ? {} : { previousWaf: gathered.previousWaf }),
    resolveRuleset: (id, version) =>
      catalog.resolve(id, version) ??
      (own.get(id)?.kind === 'custom' ? (own.get(id) as EngineRuleset) : undefined),
  }
}

/** The migration's configuration as an entry point the engine can run. */
function generatedEntrypoint(rules: RuleBody[]): EngineRuleset {
  return {
    id: 'waf-migration-configuration',
    name: 'default',
    description: 'What the migration would deploy',
    kind: 'zone',
    phase: MANAGED_PHASE,
    version: '1',
    last_updated: '',
    rules: rules.map((rule, index) => {
      const id = `waf-migration-rule-${index + 1}`
      return {
        id,
        ref: id,
        version: '1',
        last_updated: '',
        action: rule.action ?? '',
        expression: rule.expression ?? 'true',
        description: rule.description ?? '',
        enabled: rule.enabled ?? true,
        ...(rule.action_parameters === undefined
          ? {}
          : { action_parameters: rule.action_parameters }),
      }
    }),
  }
}

function summarizeDecision(decision: Decision): ComparedRequest['previous'] {
  return {
    outcome: decision.outcome,
    action: decision.action,
    rules: decision.events.map((event) => event.rule_id),
  }
}
