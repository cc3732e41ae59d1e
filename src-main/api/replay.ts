// What the replay routes share (the zone's replay in simulate.ts, the migration's side-by-side
// replay in routes/waf-migration.ts): their bodies, NDJSON (one request description a line) or a
// HAR file, every request checked before any runs; and running them in chunks, with `?stream=true`
// one NDJSON progress line after each chunk and the envelope last, so a long replay shows its
// progress.

import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { Value } from 'typebox/value'
import { badRequest } from '@shared/api/errors'
import { SimulatedRequest } from '@shared/api/simulate'
import { harEntries, trafficLines } from '@shared/replay/traffic'
import type { ZoneRegistry } from '../zones/registry'
import { ok } from './envelope'
import { API_ERRORS } from '@shared/api/error-codes'

/** A traffic file may be large: a day of a busy site's requests. */
export const REPLAY_BODY_LIMIT = 256 * 1024 * 1024

const REPLAY_CHUNK = 250

/** What a replay reads of a HAR entry (http://www.softwareishard.com/blog/har-12-spec/#entries). */
const HarEntry = Type.Object({
  request: Type.Object({
    method: Type.String(),
    url: Type.String(),
    headers: Type.Optional(Type.Array(Type.Object({ name: Type.String(), value: Type.String() }))),
    postData: Type.Optional(Type.Object({ text: Type.Optional(Type.String()) })),
  }),
})

/** The requests of a replay body (a HAR file, or NDJSON), every one checked before any runs. */
export function parseReplay(text: string): SimulatedRequest[] {
  const har = harEntries(text)
  if (har !== undefined) {
    return har.map((entry, index) => {
      if (!Value.Check(HarEntry, entry)) {
        const [first] = Value.Errors(HarEntry, entry)
        throw badRequest(
          API_ERRORS.invalidRequest,
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
  return trafficLines(text).map(({ line, number }) => {
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch (error) {
      throw badRequest(
        API_ERRORS.malformedBody,
        `Line ${number} is not JSON: ${(error as Error).message}`,
      )
    }
    if (!Value.Check(SimulatedRequest, parsed)) {
      const [first] = Value.Errors(SimulatedRequest, parsed)
      throw badRequest(
        API_ERRORS.invalidRequest,
        `Line ${number} is not a request description: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`,
      )
    }
    return parsed
  })
}

/** Lets a plugin's routes take traffic files as text; parseReplay reads them. */
export function acceptTrafficFiles(app: FastifyInstance): void {
  app.addContentTypeParser(
    ['application/x-ndjson', 'text/plain'],
    { parseAs: 'string', bodyLimit: REPLAY_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  )
}

/** A replay request as the routes receive it. */
export interface ReplayRequest {
  params: { zone_id: string }
  query: { stream?: boolean }
  body: unknown
}

/**
 * Runs `work` over the requests of a replay body chunk by chunk (`offset`: the index of the
 * chunk's first request), then answers what `answer` makes of them; with `stream`, writes a
 * progress line after each chunk and the envelope last.
 */
export async function replayInChunks<A>(
  request: ReplayRequest,
  reply: FastifyReply,
  zones: ZoneRegistry,
  work: (chunk: SimulatedRequest[], offset: number) => Promise<void>,
  answer: () => A,
): Promise<unknown> {
  const { body } = request
  const stream = request.query.stream === true
  const requests = parseReplay(typeof body === 'string' ? body : JSON.stringify(body))
  await zones.get(request.params.zone_id)
  if (stream) reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson' })
  for (let start = 0; start < requests.length; start += REPLAY_CHUNK) {
    const chunk = requests.slice(start, start + REPLAY_CHUNK)
    await work(chunk, start)
    if (stream) {
      const progress = { done: start + chunk.length, total: requests.length }
      reply.raw.write(`${JSON.stringify({ progress })}\n`)
    }
  }
  const envelope = ok(answer())
  if (!stream) return envelope
  reply.raw.end(`${JSON.stringify(envelope)}\n`)
  return reply
}
