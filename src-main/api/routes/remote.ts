// /workbench/v1: a zone's round trip with a remote that speaks the vendor's v4 API (production,
// or another workbench). Each request names the remote in its body (src-shared/api/remote.ts);
// its credentials are used for that request and kept nowhere. An apply with `?stream=true`
// answers NDJSON progress lines, one per call, and then the envelope.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { RemoteTarget, refuseEmptyRemoteFields } from '@shared/api/remote'
import type { Envelope } from '@shared/api/envelope'
import type { Remote } from '../../bundles'
import { ok } from '../envelope'

const ZoneParams = Type.Object({ zone_id: Type.String() })
const StreamQuery = Type.Object({ stream: Type.Optional(Type.Boolean()) })

export const remoteRoutes: FastifyPluginAsyncTypebox<{ remote: Remote }> = async (
  app,
  { remote },
) => {
  app.post(
    '/remote/pull',
    { schema: { body: RemoteTarget }, preValidation: refuseEmptyRemoteFields },
    async (request) => ok(await remote.pull(request.body)),
  )

  app.post(
    '/zones/:zone_id/remote/plan',
    { schema: { params: ZoneParams, body: RemoteTarget }, preValidation: refuseEmptyRemoteFields },
    async (request) => ok(await remote.plan(request.params.zone_id, request.body)),
  )

  app.post(
    '/zones/:zone_id/remote/apply',
    {
      schema: { params: ZoneParams, querystring: StreamQuery, body: RemoteTarget },
      preValidation: refuseEmptyRemoteFields,
    },
    async (request, reply) => {
      const stream = request.query.stream === true
      const writeLine = (line: unknown) => {
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson' })
        }
        reply.raw.write(`${JSON.stringify(line)}\n`)
      }
      const { result, failed } = await remote.apply(
        request.params.zone_id,
        request.body,
        (progress) => {
          if (stream) writeLine({ progress })
        },
      )
      // A refused call stops the apply: the envelope carries the remote's refusal and, as its
      // result, what ran, what failed and what did not run.
      const envelope: Envelope<typeof result> =
        failed === undefined
          ? ok(result)
          : { success: false, errors: failed.toMessages(), messages: [], result }
      if (!reply.raw.headersSent) return reply.code(failed === undefined ? 200 : 400).send(envelope)
      reply.raw.end(`${JSON.stringify(envelope)}\n`)
      return reply
    },
  )
}
