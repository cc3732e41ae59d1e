// /workbench/v1/zones/:zone_id/replays and …/waf_migration/compares: replays and compares run by
// the service (../../replay/jobs.ts), so they outlive the screen and the connection that started
// them. Two families of the same routes, one per kind:
//
//   POST   …/replays               the upload as the body (any format a replay reads, gzip or not),
//                                  or JSON {"file": "/abs/path", "format"?, "host"?} naming a file
//                                  on this machine; answers the job once its input is open
//   GET    …/replays               the zone's jobs, newest first
//   GET    …/replays/:job          its state, progress and, when done, its summary
//   GET    …/replays/:job/verdicts its verdicts as NDJSON (a compare's: its compared requests)
//   GET    …/replays/:job/results  a replay's first `limit` verdicts of an `outcome`, a rule
//                                  (`rule_id`) or a `path` (as the summary counts paths), each with
//                                  the request judged, in the envelope: the screen's drill-down
//   DELETE …/replays/:job          cancels a running job, removes a finished one
//
// `?format=`, `?host=` and `?threads=` as for POST …/replay.

import { accessSync, constants, createReadStream, statSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { createInterface } from 'node:readline'
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { Value } from 'typebox/value'
import { ApiError, badRequest } from '@shared/api/errors'
import { API_ERRORS } from '@shared/api/error-codes'
import {
  OUTCOMES,
  ReplayFileBody,
  type ReplayJobKind,
  type ReplayVerdictLine,
} from '@shared/api/simulate'
import { requestPath } from '@shared/replay/traffic'
import type { ReplayJobs } from '../../replay/jobs'
import type { ZoneRegistry } from '../../zones/registry'
import { ok } from '../envelope'
import type { ReplayRunner, ReplaySource } from '../replay'
import { ReplayInputQuery, replayInputOptions } from '../replay-route'
import {
  acceptReplayStreams,
  bodyChunks,
  declaredLength,
  replayBody,
  spooled,
  type SpooledBody,
} from '../replay-body'

const JobParams = Type.Object({ zone_id: Type.String(), job: Type.String({ maxLength: 64 }) })
const ZoneParams = Type.Object({ zone_id: Type.String() })
const ResultsQuery = Type.Object({
  outcome: Type.Optional(Type.Enum(OUTCOMES)),
  rule_id: Type.Optional(Type.String({ maxLength: 64 })),
  path: Type.Optional(Type.String({ maxLength: 4096 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
})

/** The JSON naming a file is small; an upload is not read further to tell them apart. */
const FILE_BODY_LIMIT = 64 * 1024

const FAMILIES: { path: string; kind: ReplayJobKind }[] = [
  { path: 'replays', kind: 'replay' },
  { path: 'waf_migration/compares', kind: 'compare' },
]

/** What a job reads: the file a JSON body names, or the upload itself, spooled. */
interface JobInput {
  source: ReplaySource
  /** the file, or "upload" */
  name: string
  format?: string
  host?: string
  /** an upload's spool (replay-body.ts: the job is answered once all of it is there) */
  spool?: SpooledBody
}

/** The JSON body naming a file, when it is one (it is read whole: at most FILE_BODY_LIMIT). */
async function namedFile(
  request: FastifyRequest,
): Promise<{ file?: ReplayFileBody; read: Uint8Array[] }> {
  const read: Uint8Array[] = []
  const isJson = (request.headers['content-type'] ?? '').startsWith('application/json')
  const length = declaredLength(request)
  if (!isJson || length === undefined || length > FILE_BODY_LIMIT) return { read }
  for await (const chunk of bodyChunks(request)) read.push(chunk)
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.concat(read).toString('utf8'))
  } catch {
    return { read }
  }
  // The bridge's callApi sends a text (the Migration screen's pasted traffic) as a JSON string.
  if (typeof parsed === 'string') return { read: [Buffer.from(parsed)] }
  if (parsed === null || typeof parsed !== 'object' || !('file' in parsed)) return { read }
  if (!Value.Check(ReplayFileBody, parsed)) {
    const [first] = Value.Errors(ReplayFileBody, parsed)
    throw badRequest(
      API_ERRORS.invalidRequest,
      `Invalid request: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`,
      { source: { pointer: first?.instancePath || '/' } },
    )
  }
  return { file: parsed, read }
}

/** A file the service can read as a replay's input, or the refusal naming why not. */
function readableFile(path: string): number {
  const refuse = (why: string) =>
    badRequest(API_ERRORS.invalidRequest, `Invalid request: ${path} ${why}`, {
      source: { pointer: '/file' },
    })
  if (!isAbsolute(path)) throw refuse('is not an absolute path')
  let size: number
  try {
    const stat = statSync(path)
    if (!stat.isFile()) throw refuse('is not a regular file')
    size = stat.size
    accessSync(path, constants.R_OK)
  } catch (error) {
    if (error instanceof ApiError) throw error
    throw refuse('cannot be read')
  }
  return size
}

async function jobInput(request: FastifyRequest, spoolFile: string): Promise<JobInput> {
  const { file, read } = await namedFile(request)
  if (file !== undefined) {
    const totalBytes = readableFile(file.file)
    return {
      source: { chunks: createReadStream(file.file), totalBytes },
      name: file.file,
      ...(file.format === undefined ? {} : { format: file.format }),
      ...(file.host === undefined ? {} : { host: file.host }),
    }
  }
  const totalBytes = read.length > 0 ? Buffer.concat(read).byteLength : declaredLength(request)
  const spool = spooled(
    (async function* () {
      yield* read
      // what was not read above: a JSON string's text, as the bridge sends a longer one
      yield* replayBody(request)
    })(),
    spoolFile,
  )
  return {
    source: { chunks: spool.chunks, ...(totalBytes === undefined ? {} : { totalBytes }) },
    name: 'upload',
    spool,
  }
}

/** The lines of a file as it stands, read as a stream: a job's files grow with its input. */
function linesOf(file: string) {
  const input = createReadStream(file)
  const lines = createInterface({ input, crlfDelay: Infinity })
  return {
    lines: lines[Symbol.asyncIterator](),
    close: () => {
      lines.close()
      input.destroy()
    },
  }
}

/**
 * The first `limit` verdicts of a job that `wanted` keeps, each with its request, read from the
 * verdict file and the requests file line for line. A line the job is still writing does not
 * parse, and ends the reading.
 */
async function matchingVerdicts(
  files: { verdicts: string; requests: string },
  wanted: (verdict: ReplayVerdictLine) => boolean,
  limit: number,
): Promise<ReplayVerdictLine[]> {
  const found: ReplayVerdictLine[] = []
  const verdicts = linesOf(files.verdicts)
  const requests = linesOf(files.requests)
  try {
    for (;;) {
      const [verdict, request] = await Promise.all([verdicts.lines.next(), requests.lines.next()])
      if (verdict.done === true || request.done === true) break
      let parsed: ReplayVerdictLine
      try {
        parsed = { ...JSON.parse(verdict.value), request: JSON.parse(request.value) }
      } catch {
        break
      }
      if (!wanted(parsed)) continue
      found.push(parsed)
      if (found.length >= limit) break
    }
  } finally {
    verdicts.close()
    requests.close()
  }
  return found
}

export const replayJobRoutes: FastifyPluginAsyncTypebox<{
  jobs: ReplayJobs
  replays: ReplayRunner
  zones: ZoneRegistry
}> = async (app, { jobs, replays, zones }) => {
  const pathOf = (request: FastifyRequest) =>
    (request.url.split('?')[0] ?? '/').replace(/^\/workbench\/v1/, '')

  for (const { path, kind } of FAMILIES) {
    await app.register(async (uploads) => {
      acceptReplayStreams(uploads)
      uploads.withTypeProvider<TypeBoxTypeProvider>().post(
        `/zones/:zone_id/${path}`,
        {
          // The headless shell's page sends the file it picked as the body itself, with its
          // session (README.md#security-model): a bridge call would read it into the page.
          config: { access: 'session' },
          schema: { params: ZoneParams, querystring: ReplayInputQuery },
        },
        async (request, reply) => {
          const zoneId = request.params.zone_id
          await zones.get(zoneId)
          const input = await jobInput(request, jobs.uploadFile())
          const options = {
            ...replayInputOptions(request.query),
            ...(input.format === undefined ? {} : { format: input.format }),
            ...(input.host === undefined ? {} : { host: input.host }),
          }
          const job = await jobs.start(zoneId, kind, input.name, (work) =>
            (kind === 'replay'
              ? replays.replay(zoneId, input.source, options, work)
              : replays.compare(zoneId, input.source, { ...options, results: false }, work)
            )
              // The spool, not the run, takes what is left of the body (replay-body.ts).
              .finally(() => input.spool?.stop()),
          )
          await input.spool?.received
          return reply.code(202).send(ok(job))
        },
      )
    })

    app.get(`/zones/:zone_id/${path}`, { schema: { params: ZoneParams } }, async (request) => {
      await zones.get(request.params.zone_id)
      return ok(jobs.list(request.params.zone_id, kind))
    })

    app.get(`/zones/:zone_id/${path}/:job`, { schema: { params: JobParams } }, async (request) =>
      ok(jobs.get(request.params.zone_id, kind, request.params.job, pathOf(request))),
    )

    app.get(
      `/zones/:zone_id/${path}/:job/verdicts`,
      { schema: { params: JobParams } },
      async (request, reply) => {
        const { zone_id, job } = request.params
        const file = jobs.verdictsFile(zone_id, kind, job, pathOf(request))
        return reply
          .type('application/x-ndjson')
          .header('content-disposition', `attachment; filename="${kind}-${job}.ndjson"`)
          .send(createReadStream(file))
      },
    )

    if (kind === 'replay') {
      app.get(
        `/zones/:zone_id/${path}/:job/results`,
        { schema: { params: JobParams, querystring: ResultsQuery } },
        async (request) => {
          const { zone_id, job } = request.params
          const { outcome, rule_id, path: wantedPath, limit = 50 } = request.query
          const files = {
            verdicts: jobs.verdictsFile(zone_id, kind, job, pathOf(request)),
            requests: jobs.requestsFile(zone_id, kind, job, pathOf(request)),
          }
          const wanted = (verdict: ReplayVerdictLine) =>
            (outcome === undefined || verdict.outcome === outcome) &&
            (rule_id === undefined || verdict.rules.includes(rule_id)) &&
            (wantedPath === undefined || requestPath(verdict.url) === wantedPath)
          return ok(await matchingVerdicts(files, wanted, limit))
        },
      )
    }

    app.delete(`/zones/:zone_id/${path}/:job`, { schema: { params: JobParams } }, async (request) =>
      ok(await jobs.cancel(request.params.zone_id, kind, request.params.job, pathOf(request))),
    )
  }
}
