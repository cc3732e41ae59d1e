// /workbench/v1/zones/:zone_id/{simulate,replay,events}: what the zone would do to a request,
// what it would have done to recorded traffic, and the security events both leave behind.
// Replay streams its body (request descriptions, Logpush, combined logs or HAR, gzip or not)
// through the worker pool (../replay.ts): `?format=`, `?host=`, `?threads=`; with `?stream=true`
// it answers NDJSON progress lines and then the envelope, so a long replay shows its progress.
// A simulation records its events unless `?record=false`; a replay only with `?record=true`, as
// bulk traffic would otherwise crowd the capped event log (events/settings).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { badRequest } from '@shared/api/errors'
import {
  EventLogSettings,
  SimulatedRequest,
  simulatedRequestProblem,
  type EventsResultInfo,
  type SecurityEvent,
} from '@shared/api/simulate'
import type { Envelope } from '@shared/api/envelope'
import type { Simulator } from '../../zones/simulator'
import type { EventQuery } from '../../zones/events'
import type { ZoneEvents } from '../../zones/zone-events'
import { ok } from '../envelope'
import type { ReplayRunner } from '../replay'
import { ReplayInputQuery, replayInputOptions, replayRoute } from '../replay-route'
import { API_ERRORS } from '@shared/api/error-codes'

const ZoneParams = Type.Object({ zone_id: Type.String() })
const SimulateQuery = Type.Object({ record: Type.Optional(Type.Boolean()) })
const ReplayQuery = Type.Object({
  ...ReplayInputQuery.properties,
  results: Type.Optional(Type.Boolean()),
  record: Type.Optional(Type.Boolean()),
})
const EventsQuery = Type.Object({
  since: Type.Optional(Type.String()),
  until: Type.Optional(Type.String()),
  rule_id: Type.Optional(Type.String()),
  action: Type.Optional(Type.String()),
  host: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 100 })),
})

export const simulationRoutes: FastifyPluginAsyncTypebox<{
  simulator: Simulator
  events: ZoneEvents
  replays: ReplayRunner
}> = async (app, { simulator, events, replays }) => {
  app.post(
    '/zones/:zone_id/simulate',
    { schema: { params: ZoneParams, querystring: SimulateQuery, body: SimulatedRequest } },
    async (request) => {
      const problem = simulatedRequestProblem(request.body)
      if (problem !== undefined)
        throw badRequest(API_ERRORS.invalidRequest, `Invalid request: ${problem}`)
      const [simulation] = await simulator.simulate(request.params.zone_id, [request.body], {
        record: request.query.record ?? true,
      })
      return ok(simulation)
    },
  )

  await app.register(
    replayRoute('/zones/:zone_id/replay', ReplayQuery, (zoneId, query, source, hooks) =>
      replays.replay(
        zoneId,
        source,
        {
          ...replayInputOptions(query),
          record: query.record ?? false,
          // As before: the envelope lists them, unless each is a line of NDJSON instead.
          results: query.results === true && hooks.verdicts === undefined,
        },
        hooks,
      ),
    ),
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
          throw badRequest(
            API_ERRORS.invalidRequest,
            `Invalid request: ${name} is not a date and time`,
          )
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
