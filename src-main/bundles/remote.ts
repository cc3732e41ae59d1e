// Pull, plan and apply against a remote: any endpoint that speaks the vendor's v4 API. A pull
// reads the remote zone into a bundle and imports it; a plan compares the remote zone with a local
// one and lists the calls that make the remote equal; an apply plans again and makes those
// calls in order, stopping at the first the remote refuses. Nothing of the remote's credentials
// is kept: they live in the RemoteClient of one request.

import {
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  type BundleContent,
  type BundleImportResult,
} from '@shared/api/bundle'
import { ApiError, badRequest } from '@shared/api/errors'
import {
  type AppliedCall,
  type RemoteApplyResult,
  type RemoteCall,
  type RemotePlan,
  type RemoteTarget,
} from '@shared/api/remote'
import type { Zone } from '@shared/api/zones'
import { DEFAULT_EVENT_LIMITS } from '../zones/events'
import type { LegacyCatalog } from '../zones/previous-waf/catalog'
import type { Clock } from '../objects'
import type { ZoneRegistry } from '../zones/registry'
import type { Bundles } from './bundles'
import { RemoteClient, remoteMessages } from './remote-client'
import { planRemote } from './remote-plan'
import { findRemoteZone, readRemote } from './remote-read'
import { BUNDLE_ERRORS, REMOTE_ERRORS } from '@shared/api/error-codes'

export interface RemoteOptions {
  bundles: Bundles
  zones: ZoneRegistry
  catalog: LegacyCatalog
  clock: Clock
}

/** One line of an apply's progress. */
export interface ApplyProgress {
  done: number
  total: number
  call: number
  outcome: AppliedCall['outcome']
}

/** The value at a JSON pointer such as `/result/0/id`. */
function at(value: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (node, key) =>
        node !== null && typeof node === 'object'
          ? (node as Record<string, unknown>)[key]
          : undefined,
      value,
    )
}

/** `value` with every string that is a key of `ids` replaced by its value. */
function withIds(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value
  if (Array.isArray(value)) return value.map((item) => withIds(item, ids))
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withIds(v, ids)]))
}

const summary = (zone: { id: string; name: string }) => ({ id: zone.id, name: zone.name })

export class Remote {
  constructor(private readonly options: RemoteOptions) {}

  /** Reads the remote zone and imports it: the answer of an import. */
  async pull(target: RemoteTarget): Promise<BundleImportResult> {
    const client = new RemoteClient(target)
    const zone = await findRemoteZone(client, target, undefined)
    const content = await readRemote(client, zone, this.options.catalog)
    // The workbench's own settings are not the vendor's to say: a zone keeps its own.
    const [local] = (await this.options.zones.list({ name: zone.name, page: 1, perPage: 1 })).zones
    const own =
      local === undefined
        ? {
            firewall_settings: { rule_quota: null },
            event_log_settings: {
              max_events: DEFAULT_EVENT_LIMITS.max_events,
              max_bytes: DEFAULT_EVENT_LIMITS.max_bytes,
            },
          }
        : await this.options.bundles.exportBundle(local.id)
    return this.options.bundles.importBundle({
      format: BUNDLE_FORMAT,
      version: BUNDLE_VERSION,
      exported_at: new Date(this.options.clock.now()).toISOString(),
      ...content,
      firewall_settings: own.firewall_settings,
      event_log_settings: own.event_log_settings,
    })
  }

  async plan(zoneId: string, target: RemoteTarget): Promise<RemotePlan> {
    const { plan } = await this.planned(zoneId, target)
    return plan
  }

  /**
   * Plans, then makes the plan's calls in order; `progress` hears of each. The answer says what
   * became of every call; `failed` is the remote's refusal that stopped it, if one did.
   */
  async apply(
    zoneId: string,
    target: RemoteTarget,
    progress: (line: ApplyProgress) => void = () => {},
  ): Promise<{ result: RemoteApplyResult; failed?: ApiError }> {
    const { plan, client } = await this.planned(zoneId, target)
    const created = new Map<string, string>()
    const calls: AppliedCall[] = plan.calls.map((call) => ({ ...call, outcome: 'not_run' }))
    let failed: ApiError | undefined
    for (const [index, call] of plan.calls.entries()) {
      const sent: RemoteCall = {
        ...call,
        path: call.path
          .split('/')
          .map((segment) => created.get(segment) ?? segment)
          .join('/'),
        ...(call.body === undefined ? {} : { body: withIds(call.body, created) }),
      }
      const outcome = await this.run(client, sent)
      calls[index] = { ...sent, ...outcome }
      progress({ done: index + 1, total: calls.length, call: index + 1, outcome: outcome.outcome })
      if (outcome.outcome === 'failed') {
        failed = new ApiError(
          400,
          REMOTE_ERRORS.applyFailed,
          `Call ${index + 1} of ${calls.length} (${sent.method} ${sent.path}) failed, ${calls.length - index - 1} not run: ${outcome.message}`,
          { meta: { remote_status: outcome.status ?? null, remote_errors: outcome.errors } },
        )
        break
      }
      for (const { id, at: pointer } of call.creates ?? []) {
        const remoteId = at(outcome.answer, pointer)
        if (typeof remoteId === 'string') created.set(id, remoteId)
      }
    }
    const result = {
      zone: plan.zone,
      remote_zone: plan.remote_zone,
      applied: calls.filter((call) => call.outcome === 'done').length,
      calls,
      changes: plan.changes,
    }
    return failed === undefined ? { result } : { result, failed }
  }

  private async run(
    client: RemoteClient,
    call: RemoteCall,
  ): Promise<
    Pick<AppliedCall, 'outcome' | 'status' | 'errors'> & { answer?: unknown; message?: string }
  > {
    try {
      const { status, envelope } = await client.call(call.method, call.path, call.body)
      if (envelope.success) return { outcome: 'done', status, answer: envelope }
      return {
        outcome: 'failed',
        status,
        errors: envelope.errors,
        message: remoteMessages(envelope.errors),
      }
    } catch (error) {
      // Unreachable, or an answer that is not the envelope: the call failed on our side.
      if (!(error instanceof ApiError)) throw error
      return { outcome: 'failed', errors: error.toMessages(), message: error.message }
    }
  }

  private async planned(zoneId: string, target: RemoteTarget) {
    const client = new RemoteClient(target)
    const {
      format: _f,
      version: _v,
      exported_at: _at,
      ...local
    } = await this.options.bundles.exportBundle(zoneId)
    const zone: Zone = await findRemoteZone(client, target, local.zone.name)
    const content = await readRemote(client, zone, this.options.catalog)
    if (content.zone.waf_product !== local.zone.waf_product) {
      throw badRequest(
        BUNDLE_ERRORS.conflict,
        `The remote zone ${zone.name} runs ${content.zone.waf_product} and ${local.zone.name} runs ${local.zone.waf_product}: a zone's WAF product is set when it is created, so no plan can make them equal.`,
      )
    }
    const { changes, calls } = planRemote(content, local as BundleContent, this.options.catalog)
    const plan: RemotePlan = {
      zone: summary(local.zone),
      remote_zone: summary(zone),
      calls,
      changes,
      empty: changes.length === 0,
    }
    return { plan, client }
  }
}
