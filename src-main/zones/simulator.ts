// What a zone would do to a request: gathers the zone's configuration from its object (and the
// account's entry point from the account's), compiles it with the engine once per configuration
// (recompiling only when a ruleset version or a firewall rule changes), evaluates the request
// with the credential database at hand, and records the security events it leaves.

import { createHash, randomBytes } from 'node:crypto'
import { requestContext, PHASE_MANAGED } from '@shared/expression'
import type { Phase, Ruleset } from '@shared/api/rulesets'
import type { SimulatedRequest, Simulation } from '@shared/api/simulate'
import {
  compileZone,
  type CompiledZone,
  type EngineFirewallRule,
  type EngineRuleset,
} from '../engine'
import type { ManagedCatalog } from './catalog'
import type { CredentialNamespace } from './credentials'
import type { NewSecurityEvent } from './events'
import { ACCOUNT, type ZoneRegistry } from './registry'

interface Gathered {
  zoneEntrypoint?: Ruleset
  zoneRulesets: Ruleset[]
  accountEntrypoint?: Ruleset
  accountRulesets: Ruleset[]
  firewallRules: EngineFirewallRule[]
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
  private readonly compiled = new Map<string, { key: string; zone: CompiledZone }>()

  constructor(
    private readonly zones: ZoneRegistry,
    private readonly catalog: ManagedCatalog,
    private readonly credentials: CredentialNamespace,
    private readonly now: () => number = Date.now,
  ) {}

  private async gather(zoneId: string): Promise<Gathered> {
    const zone = await this.zones.inZone(zoneId, (z) => ({
      zoneEntrypoint: z.rulesets.entrypoint(MANAGED_PHASE, 'zone'),
      zoneRulesets: z.rulesets.list(),
      firewallRules: z.firewall.rules().flatMap((rule): EngineFirewallRule[] => {
        const filter = z.firewall.filter(rule.filter_id)
        return filter === undefined ? [] : [{ ...rule, filter }]
      }),
    }))
    const account = await this.zones.inAccount(ACCOUNT.id, (a) => ({
      accountEntrypoint: a.rulesets.entrypoint(MANAGED_PHASE, 'root'),
      accountRulesets: a.rulesets.list(),
    }))
    return { ...zone, ...account }
  }

  /** The compiled zone for its current configuration (compiled again only after a change). */
  private async compiledZone(zoneId: string): Promise<CompiledZone> {
    const gathered = await this.gather(zoneId)
    const key = createHash('sha1').update(JSON.stringify(gathered)).digest('hex')
    const cached = this.compiled.get(zoneId)
    if (cached?.key === key) return cached.zone
    const own = new Map(
      [...gathered.accountRulesets, ...gathered.zoneRulesets].map((r) => [r.id, r]),
    )
    const zone = compileZone({
      zoneEntrypoint: gathered.zoneEntrypoint as EngineRuleset | undefined,
      accountEntrypoint: gathered.accountEntrypoint as EngineRuleset | undefined,
      firewallRules: gathered.firewallRules,
      resolveRuleset: (id, version) =>
        this.catalog.resolve(id, version) ??
        (own.get(id)?.kind === 'custom' ? (own.get(id) as EngineRuleset) : undefined),
    })
    this.compiled.set(zoneId, { key, zone })
    return zone
  }

  /** Evaluates `requests` against the zone as configured now; events are recorded if asked. */
  async simulate(
    zoneId: string,
    requests: readonly SimulatedRequest[],
    options: { trace?: boolean; record?: boolean } = {},
  ): Promise<Simulation[]> {
    const zone = await this.compiledZone(zoneId)
    const at = this.now()
    const simulations = await this.credentials.call(
      this.credentials.idFromName('credentials'),
      (db) =>
        requests.map((request): Simulation => ({
          ray_id: randomBytes(8).toString('hex'),
          ...zone.evaluate(requestContext({ ...request, timestamp: at }), {
            trace: options.trace,
            credentials: (username, password) =>
              db.lookup(username, password) === 'pair' ? 'pair' : undefined,
          }),
        })),
    )
    if (options.record !== false) {
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
      if (events.length > 0) {
        await this.zones.inZone(zoneId, (z) => z.change(() => z.recordEvents(events)))
      }
    }
    return simulations
  }
}
