// /workbench/v1/zones/:zone_id/{simulate,replay,events}: what the zone would do to a request,
// what it would have done to recorded traffic, and the security events both leave behind.
// Replay takes NDJSON (one request description per line) or a HAR file; with `?stream=true` it
// answers NDJSON progress lines and then the envelope, so a long replay shows its progress. The
// migration's side-by-side replay (waf_migration/compare) takes the same bodies.
// A simulation records its events unless `?record=false`; a replay only with `?record=true`, as
// bulk traffic would otherwise crowd the capped event log (events/settings).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { Value } from 'typebox/value'
import { badRequest } from '@shared/api/errors'
import {
  EventLogSettings,
  SimulatedRequest,
  type EventsResultInfo,
  type ReplaySummary,
  type SecurityEvent,
  type Simulation,
} from '@shared/api/simulate'
import type { Envelope } from '@shared/api/envelope'
import type { MigrationComparison } from '@shared/api/waf'
import { comparisonOf, type Simulator } from '../../zones/simulator'
import type { EventQuery } from '../../zones/events'
import type { ZoneEvents } from '../../zones/zone-events'
import type { ZoneRegistry } from '../../zones/registry'
import { ok } from '../envelope'

const ZoneParams = Type.Object({ zone_id: Type.String() })
const SimulateQuery = Type.Object({ record: Type.Optional(Type.Boolean()) })
const ReplayQuery = Type.Object({
  stream: Type.Optional(Type.Boolean()),
  results: Type.Optional(Type.Boolean()),
  record: Type.Optional(Type.Boolean()),
})
const CompareQuery = Type.Object({ stream: Type.Optional(Type.Boolean()) })
const EventsQuery = Type.Object({
  since: Type.Optional(Type.String()),
  until: Type.Optional(Type.String()),
  rule_id: Type.Optional(Type.String()),
  action: Type.Optional(Type.String()),
  host: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 100 })),
})

const REPLAY_CHUNK = 250

const replayOf = (request: {
  params: { zone_id: string }
  query: { stream?: boolean }
  body: unknown
}) => ({
  zoneId: request.params.zone_id,
  body: request.body,
  stream: request.query.stream === true,
})

/** What a replay reads of a HAR entry (http://www.softwareishard.com/blog/har-12-spec/#entries). */
const HarEntry = Type.Object({
  request: Type.Object({
    method: Type.String(),
    url: Type.String(),
    headers: Type.Optional(Type.Array(Type.Object({ name: Type.String(), value: Type.String() }))),
    postData: Type.Optional(Type.Object({ text: Type.Optional(Type.String()) })),
  }),
})

/** The entries of `text` if it is one HAR document (a JSON object whose `log` has `entries`). */
function harOf(text: string): unknown[] | undefined {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch {
    return undefined
  }
  const entries = (document as { log?: { entries?: unknown } } | null)?.log?.entries
  return Array.isArray(entries) ? entries : undefined
}

/** The requests of a replay body (a HAR file, or NDJSON), every one checked before any runs. */
export function parseReplay(text: string): SimulatedRequest[] {
  const har = harOf(text)
  if (har !== undefined) {
    return har.map((entry, index) => {
      if (!Value.Check(HarEntry, entry)) {
        const [first] = Value.Errors(HarEntry, entry)
        throw badRequest(
          1001,
          `HAR entry ${index} is not a request: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`,
        )
      }
      const request = entry.request
      const headers: Record<string, string[]> = {}
      for (const { name, value } of request.headers ?? []) {
        // HTTP/2 pseudo-headers (":authority") are not request headers.
        if (name.startsWith(':')) continue
        ;(headers[name.toLowerCase()] ??= []).push(value)
      }
      return {
        method: request.method,
        url: request.url,
        headers,
        ...(request.postData?.text === undefined ? {} : { body: request.postData.text }),
      }
    })
  }
  return text
    .split('\n')
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '')
    .map(({ line, number }) => {
      let parsed: unknown
      try {
        parsed = JSON.parse(line)
      } catch (error) {
        throw badRequest(6007, `Line ${number} is not JSON: ${(error as Error).message}`)
      }
      if (!Value.Check(SimulatedRequest, parsed)) {
        const [first] = Value.Errors(SimulatedRequest, parsed)
        throw badRequest(
          1001,
          `Line ${number} is not a request description: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`,
        )
      }
      return parsed
    })
}

function summarize(
  requests: SimulatedRequest[],
  simulations: Simulation[],
  withResults: boolean,
): ReplaySummary {
  const outcomes: Record<string, number> = { blocked: 0, challenged: 0, passed: 0 }
  const rules = new Map<string, ReplaySummary['rules'][number]>()
  const paths = new Map<string, ReplaySummary['paths'][number]>()
  simulations.forEach((simulation, index) => {
    outcomes[simulation.outcome] = (outcomes[simulation.outcome] ?? 0) + 1
    for (const event of simulation.events) {
      const key = `${event.ruleset_id}/${event.rule_id}/${event.action}`
      const entry = rules.get(key) ?? { ...event, requests: 0 }
      entry.requests++
      rules.set(key, {
        ruleset_id: entry.ruleset_id,
        rule_id: entry.rule_id,
        description: entry.description,
        action: entry.action,
        requests: entry.requests,
      })
    }
    const url = requests[index]!.url
    const path = url.replace(/^[a-z]+:\/\/[^/]+/i, '').split('?')[0] || '/'
    const counts = paths.get(path) ?? { path, requests: 0, blocked: 0, challenged: 0, passed: 0 }
    counts.requests++
    counts[simulation.outcome]++
    paths.set(path, counts)
  })
  return {
    requests: simulations.length,
    outcomes,
    rules: [...rules.values()].sort((a, b) => b.requests - a.requests),
    paths: [...paths.values()].sort((a, b) => b.requests - a.requests).slice(0, 50),
    ...(withResults
      ? {
          results: simulations.map((s, index) => ({
            ray_id: s.ray_id,
            method: requests[index]!.method,
            url: requests[index]!.url,
            outcome: s.outcome,
            action: s.action,
            rules: s.events.map((e) => e.rule_id),
          })),
        }
      : {}),
  }
}

export const simulationRoutes: FastifyPluginAsyncTypebox<{
  simulator: Simulator
  zones: ZoneRegistry
  events: ZoneEvents
}> = async (app, { simulator, zones, events }) => {
  // Replay bodies are text (NDJSON) or a HAR file; both are parsed by parseReplay.
  app.addContentTypeParser(
    ['application/x-ndjson', 'text/plain'],
    { parseAs: 'string', bodyLimit: 256 * 1024 * 1024 },
    (_request, body, done) => done(null, body),
  )

  app.post(
    '/zones/:zone_id/simulate',
    { schema: { params: ZoneParams, querystring: SimulateQuery, body: SimulatedRequest } },
    async (request) => {
      const [simulation] = await simulator.simulate(request.params.zone_id, [request.body], {
        record: request.query.record ?? true,
      })
      return ok(simulation)
    },
  )

  /**
   * Runs `work` over the requests of a replay body chunk by chunk; with `stream`, writes a
   * progress line after each chunk and the envelope last.
   */
  const replayInChunks = async <T, A>(
    replay: { zoneId: string; body: unknown; stream: boolean },
    reply: FastifyReply,
    work: (chunk: SimulatedRequest[], offset: number) => Promise<T[]>,
    answer: (requests: SimulatedRequest[], results: T[]) => A,
  ) => {
    const { body, stream } = replay
    const requests = parseReplay(typeof body === 'string' ? body : JSON.stringify(body))
    await zones.get(replay.zoneId)
    const results: T[] = []
    if (stream) reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson' })
    for (let start = 0; start < requests.length; start += REPLAY_CHUNK) {
      results.push(...(await work(requests.slice(start, start + REPLAY_CHUNK), start)))
      if (stream) {
        reply.raw.write(
          `${JSON.stringify({ progress: { done: results.length, total: requests.length } })}\n`,
        )
      }
    }
    const envelope = ok(answer(requests, results))
    if (!stream) return envelope
    reply.raw.end(`${JSON.stringify(envelope)}\n`)
    return reply
  }

  app.post(
    '/zones/:zone_id/replay',
    { schema: { params: ZoneParams, querystring: ReplayQuery }, bodyLimit: 256 * 1024 * 1024 },
    async (request, reply) =>
      replayInChunks(
        replayOf(request),
        reply,
        (chunk) =>
          simulator.simulate(request.params.zone_id, chunk, {
            trace: false,
            record: request.query.record ?? false,
          }),
        (requests, simulations) => summarize(requests, simulations, request.query.results === true),
      ),
  )

  // The migration's side-by-side replay: each request through the previous product alone and
  // managed rulesets alone (nothing recorded).
  app.post(
    '/zones/:zone_id/waf_migration/compare',
    { schema: { params: ZoneParams, querystring: CompareQuery }, bodyLimit: 256 * 1024 * 1024 },
    async (request, reply) => {
      let source: MigrationComparison['new_configuration'] = 'entrypoint'
      return replayInChunks(
        replayOf(request),
        reply,
        async (chunk, offset) => {
          const compared = await simulator.compare(request.params.zone_id, chunk, offset)
          source = compared.newConfiguration
          return compared.results
        },
        (_requests, results) => comparisonOf(results, source),
      )
    },
  )

  app.get(
    '/zones/:zone_id/events',
    { schema: { params: ZoneParams, querystring: EventsQuery } },
    async (
      request,
    ): Promise<
      Omit<Envelope<SecurityEvent[]>, 'result_info'> & { result_info: EventsResultInfo }
    > => {
      const { since, until, limit, ...rest } = request.query
      const time = (name: string, value: string | undefined) => {
        if (value === undefined) return undefined
        const ms = Date.parse(value)
        if (Number.isNaN(ms))
          throw badRequest(1001, `Invalid request: ${name} is not a date and time`)
        return ms
      }
      const query: EventQuery = {
        ...rest,
        limit: limit ?? 100,
        since: time('since', since),
        until: time('until', until),
      }
      const answer = await events.query(request.params.zone_id, query)
      return {
        ...ok(answer.events),
        result_info: {
          count: answer.events.length,
          stored_events: answer.status.stored_events,
          dropped: answer.status.dropped,
        },
      }
    },
  )

  app.get('/zones/:zone_id/events/settings', { schema: { params: ZoneParams } }, async (request) =>
    ok(await events.status(request.params.zone_id)),
  )

  app.patch(
    '/zones/:zone_id/events/settings',
    { schema: { params: ZoneParams, body: EventLogSettings } },
    async (request) => ok(await events.setLimits(request.params.zone_id, request.body)),
  )
}
