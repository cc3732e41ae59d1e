// A replay route: its query, its body taken as a stream and run (replay.ts), and its answer in
// the shape the client asked for. `?stream=true` answers NDJSON: a progress line after each batch
// (ReplayProgress), then `{"progress": {"done": n, "total": n}}` once the input is read through,
// then the envelope. With `?results=true` and `Accept: application/x-ndjson`, each request's
// verdict is a line of that NDJSON as it is evaluated (held nowhere); without that Accept the
// envelope lists them.

import { Writable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static, type TSchema } from 'typebox'
import { ApiError } from '@shared/api/errors'
import type { RunAnswer } from '../replay/jobs'
import { failed, ok } from './envelope'
import type { ReplayRunHooks, ReplayRunOptions, ReplaySource } from './replay'
import { acceptReplayStreams, declaredLength, discardRest, replayBody } from './replay-body'

/** The most worker threads a run may ask for. */
const MAX_THREADS = 64

/** A replay route's query as validated, and what its run does with the zone and the body. */
export type ReplayRouteQuery = ReplayQuery & { record?: boolean }
type ReplayRouteWork = (
  zoneId: string,
  query: ReplayRouteQuery,
  source: ReplaySource,
  hooks: ReplayRunHooks,
) => Promise<RunAnswer<{ requests: number }>>

/**
 * A plugin holding the one POST route `url` (under a zone: `:zone_id`) that runs `work` over its
 * body as a stream and answers it as answerReplay does; a plugin of its own because its body
 * parser takes every type.
 */
export function replayRoute(url: string, querystring: TSchema, work: ReplayRouteWork) {
  return async (app: FastifyInstance) => {
    acceptReplayStreams(app)
    app.post(
      url,
      { schema: { params: Type.Object({ zone_id: Type.String() }), querystring } },
      async (request, reply) => {
        const { zone_id } = request.params as { zone_id: string }
        const query = request.query as ReplayRouteQuery
        return answerReplay(request, query, reply, (source, hooks) =>
          work(zone_id, query, source, hooks),
        )
      },
    )
  }
}

/** What every replay route's query may say of its input and its run. */
export const ReplayInputQuery = Type.Object({
  stream: Type.Optional(Type.Boolean()),
  format: Type.Optional(Type.String({ maxLength: 32 })),
  host: Type.Optional(Type.String({ maxLength: 253 })),
  threads: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_THREADS })),
})
export type ReplayQuery = Static<typeof ReplayInputQuery> & { results?: boolean }

/** The run's options of a replay route's query. */
export function replayInputOptions(query: ReplayQuery): ReplayRunOptions {
  return {
    ...(query.format === undefined ? {} : { format: query.format }),
    ...(query.host === undefined ? {} : { host: query.host }),
    ...(query.threads === undefined ? {} : { threads: query.threads }),
  }
}

/**
 * Answers a replay route: runs `work` over the request's body with its hooks, then the envelope,
 * or (with `?stream=true`, or verdicts asked as NDJSON) NDJSON lines and the envelope last. A
 * client that disconnects cancels the run. Until the first line is written, a refusal is the
 * usual 4xx; after it, the last line is the refusal's envelope.
 */
export async function answerReplay<S extends { requests: number }>(
  request: FastifyRequest,
  query: ReplayQuery,
  reply: FastifyReply,
  work: (source: ReplaySource, hooks: ReplayRunHooks) => Promise<RunAnswer<S>>,
): Promise<unknown> {
  const stream = query.stream === true
  const verdictLines =
    query.results === true && (request.headers.accept ?? '').includes('application/x-ndjson')
  const lines = stream || verdictLines
  const controller = new AbortController()
  const disconnected = () => {
    if (!reply.raw.writableFinished) controller.abort()
  }
  reply.raw.on('close', disconnected)
  let started = false
  const start = () => {
    if (started) return
    started = true
    reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson' })
  }
  const totalBytes = declaredLength(request)
  try {
    const answer = await work(
      { chunks: replayBody(request), ...(totalBytes === undefined ? {} : { totalBytes }) },
      {
        signal: controller.signal,
        ...(verdictLines ? { verdicts: lineWriter(reply, start) } : {}),
        ...(stream
          ? {
              onProgress: (progress) => {
                start()
                reply.raw.write(`${JSON.stringify({ progress })}\n`)
              },
            }
          : {}),
      },
    )
    if (answer.cancelled) return reply
    const { requests } = answer.summary
    if (!lines) return ok(answer.summary)
    start()
    if (stream)
      reply.raw.write(`${JSON.stringify({ progress: { done: requests, total: requests } })}\n`)
    reply.raw.end(`${JSON.stringify(ok(answer.summary))}\n`)
    return reply
  } catch (error) {
    if (!started || !(error instanceof ApiError)) throw error
    reply.raw.end(`${JSON.stringify(failed(error.toMessages()))}\n`)
    return reply
  } finally {
    reply.raw.off('close', disconnected)
    discardRest(request)
  }
}

/** The response as a Writable for verdict lines, its head written before the first. */
function lineWriter(reply: FastifyReply, start: () => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      start()
      if (reply.raw.write(chunk)) callback()
      else reply.raw.once('drain', () => callback())
    },
  })
}
