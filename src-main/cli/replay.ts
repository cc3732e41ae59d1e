// `zone-workbench replay`: a zone's verdicts on the requests read from stdin, one NDJSON line
// each on stdout, and the summary on stderr, without a running service: a pure filter, which is
// what a distributed engine (Spark's RDD.pipe, Hadoop Streaming) runs on each partition of logs
// that outgrow one machine. The zone comes from a bundle, compiled in a data dir of its own made
// for the run, or from a zone of a data dir (opened in this process, or, while its service runs,
// exported through that service's API as a bundle). Either way the zone's gathered configuration
// goes to the worker pool (replay/pool.ts) and the input streams through replay/run.ts.
//
// The `--json` summary is mergeable: every count adds across partitions (requests, skipped,
// bytes, outcomes, rules by ruleset, rule and action, paths by path), `lacked_fields` is a union.
// Paths are each run's top paths, so merged path counts are approximate (README: Replaying
// traffic).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import type { ReplaySummary } from '@shared/api/simulate'
import { ReplayTally } from '@shared/replay/replay-tally'
import { API_PREFIX, WORKBENCH_PREFIX } from '../api/server'
import { generateApiKey, generateApiToken } from '../preferences'
import { openReplayInput } from '../replay/input'
import { defaultThreads, ReplayPool } from '../replay/pool'
import { runReplay, type ReplayRun } from '../replay/run'
import { runningService } from '../running-service'
import { createService, type Service } from '../service'
import type { Gathered } from '../zones/simulator'
import { UsageError, type Command, type Invocation } from './commands'

/** What the workers are given: the zone, and where its credential database is. */
interface ReplaySource {
  configuration: Gathered
  resourcesDir: string
  credentialsFile: string
  /** a data dir made for the run, removed after it */
  temporary?: string
}

/** The summary `--json` prints: counts that add up across runs, and what the run read. */
export interface ReplayCommandSummary extends ReplaySummary {
  format: string
  gzip: boolean
  skipped: number
  bytes: number
  lacked_fields: string[]
  threads: number
  cancelled?: true
}

/** How many paths a run's summary lists: enough for a merge of many runs to find the top ones. */
const SUMMARY_PATHS = 100

/** A service opened in this process, with the token its routes take. */
interface LocalService {
  service: Service
  token: string
}

async function openService(dataDir: string): Promise<LocalService> {
  // Its routes are called in this process only: credentials made for the run are never shown.
  const credentials = {
    apiToken: generateApiToken(),
    email: 'replay@zone-workbench.local',
    apiKey: generateApiKey(),
  }
  const service = await createService({ dataDir, api: { credentials, port: 0 }, shell: 'headless' })
  return { service, token: credentials.apiToken }
}

async function inject<T>(
  { service, token }: LocalService,
  method: 'GET' | 'POST',
  url: string,
  body?: string,
): Promise<T> {
  const response = await service.server.inject({
    method,
    url,
    headers: {
      host: '127.0.0.1',
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: body }),
  })
  const envelope = response.json() as {
    success: boolean
    errors: { code: number; message: string }[]
    result: T
  }
  if (!envelope.success) {
    throw new Error(envelope.errors.map((e) => `error ${e.code}: ${e.message}`).join('\n'))
  }
  return envelope.result
}

/** The zone of `service` named `name` (or with that id): its configuration, then the service closed. */
async function sourceIn(
  local: LocalService,
  name: string,
): Promise<Omit<ReplaySource, 'temporary'>> {
  const { service } = local
  try {
    const zones = await inject<{ id: string; name: string }[]>(
      local,
      'GET',
      `${API_PREFIX}/zones?name=${encodeURIComponent(name)}`,
    )
    const id = zones.find((zone) => zone.name === name || zone.id === name)?.id ?? name
    return {
      configuration: await service.simulator.configuration(id),
      resourcesDir: service.resourcesDir,
      credentialsFile: service.credentials.fileOf(service.credentials.idFromName('credentials')),
    }
  } finally {
    // Closed before the workers open the credential database: the object holds its file in
    // exclusive locking mode while it is open (docs/decisions/0008-replay-workers-read-credentials.md).
    await service.close()
  }
}

/** A bundle's zone, imported into a data dir made for the run. */
async function sourceOfBundle(text: string): Promise<ReplaySource> {
  const temporary = mkdtempSync(join(tmpdir(), 'zone-workbench-replay-'))
  try {
    const local = await openService(temporary)
    let zone: { id: string }
    try {
      ;({ zone } = await inject<{ zone: { id: string } }>(
        local,
        'POST',
        `${WORKBENCH_PREFIX}/zones/import`,
        text,
      ))
    } catch (error) {
      await local.service.close()
      throw error
    }
    return { ...(await sourceIn(local, zone.id)), temporary }
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true })
    throw error
  }
}

/**
 * A zone of the data dir: opened in this process, or, while a service holds the data dir, its
 * bundle exported by that service. Then the account's entry point, which a bundle does not carry,
 * is not applied, and the credential database is the sample one of a bundle's run: the service
 * holds the data dir's file locked.
 */
async function sourceOfDataDir(invocation: Invocation, zone: string): Promise<ReplaySource> {
  const { dataDir } = invocation
  if (runningService(dataDir) === undefined) return sourceIn(await openService(dataDir), zone)
  const { workbench } = invocation
  const listed = JSON.parse(
    (
      await workbench.request({
        method: 'GET',
        path: `${API_PREFIX}/zones?name=${encodeURIComponent(zone)}`,
      })
    ).text,
  ) as { result?: { id: string; name: string }[] }
  const id = listed.result?.find((z) => z.name === zone)?.id ?? zone
  const exported = await workbench.request({
    method: 'GET',
    path: `${WORKBENCH_PREFIX}/zones/${id}/export?format=bundle`,
  })
  if (exported.status !== 200) throw new Error(`No zone ${zone} in ${workbench.description}`)
  invocation.stderr(
    `The data dir is open in a running service: replaying zone ${zone} as its bundle (without the account's entry point, and with the sample credential lists only)`,
  )
  return sourceOfBundle(exported.text)
}

function threadsOf(value: string | boolean | undefined): number {
  if (value === undefined) return defaultThreads()
  const threads = Number(value)
  if (!Number.isInteger(threads) || threads < 1) {
    throw new UsageError(`--threads takes a whole number of threads, at least 1, not ${value}`)
  }
  return threads
}

const text = (value: string | boolean | undefined) =>
  typeof value === 'string' ? value : undefined

function humanSummary(summary: ReplayCommandSummary, seconds: number): string[] {
  const n = (value: number) => value.toLocaleString('en-US')
  const lines = [
    `${summary.cancelled ? 'Cancelled after' : 'Replayed'} ${n(summary.requests)} requests (${summary.format}${summary.gzip ? ', gzip' : ''}; ${n(summary.skipped)} lines skipped) from ${n(summary.bytes)} bytes in ${seconds.toFixed(1)} s on ${summary.threads} thread${summary.threads === 1 ? '' : 's'}: ${n(Math.round(summary.requests / Math.max(seconds, 1e-3)))} requests/s`,
    `blocked ${n(summary.outcomes.blocked)}, challenged ${n(summary.outcomes.challenged)}, passed ${n(summary.outcomes.passed)}`,
  ]
  for (const rule of summary.rules.slice(0, 10)) {
    lines.push(
      `  ${n(rule.requests).padStart(10)}  ${rule.action.padEnd(17)} ${rule.rule_id}  ${rule.description}`,
    )
  }
  if (summary.lacked_fields.length > 0) {
    lines.push(`Fields the rules read that the log lacked: ${summary.lacked_fields.join(', ')}`)
  }
  return lines
}

export const replayCommand: Command = {
  usage:
    'replay (--bundle FILE | --zone NAME) [--format requests|logpush|har|combined] [--host H] [--threads N] [--trace] [--summary stderr|stdout] < requests > verdicts.ndjson',
  summary:
    "a zone's verdict on each request from stdin (a bundle's zone, or one of the data dir), one NDJSON line each on stdout, without the service; the summary on stderr",
  operands: [],
  standalone: true,
  options: {
    bundle: { type: 'string' },
    zone: { type: 'string' },
    format: { type: 'string' },
    host: { type: 'string' },
    threads: { type: 'string' },
    trace: { type: 'boolean', default: false },
    summary: { type: 'string', default: 'stderr' },
  },
  async run(invocation) {
    const { values } = invocation
    const bundle = text(values.bundle)
    const zone = text(values.zone)
    if ((bundle === undefined) === (zone === undefined)) {
      throw new UsageError('Name the zone: --bundle FILE or --zone NAME (not both)')
    }
    const summaryTo = text(values.summary)
    if (summaryTo !== 'stderr' && summaryTo !== 'stdout') {
      throw new UsageError(`--summary is stderr or stdout, not ${summaryTo}`)
    }
    const threads = threadsOf(values.threads)
    const format = text(values.format)
    const host = text(values.host)
    // The input is opened first: a format it cannot be is refused before the zone is compiled.
    const input = await openReplayInput(invocation.stdin, {
      ...(format === undefined ? {} : { format }),
      ...(host === undefined ? {} : { host }),
    })
    const source =
      bundle === undefined
        ? await sourceOfDataDir(invocation, zone!)
        : await sourceOfBundle(readFileSync(bundle, 'utf8'))
    const controller = new AbortController()
    const interrupt = () => controller.abort()
    process.once('SIGINT', interrupt)
    const tally = new ReplayTally()
    let run: ReplayRun
    // Timed from the workers' start: the rate is the evaluation's, not the zone's compilation's.
    let started: number
    try {
      const pool = await ReplayPool.start({
        configuration: source.configuration,
        resourcesDir: source.resourcesDir,
        threads,
      })
      started = performance.now()
      try {
        run = await runReplay({
          input,
          evaluator: pool.withCredentials(source.credentialsFile),
          tally,
          verdicts: invocation.output,
          trace: values.trace === true,
          signal: controller.signal,
        })
      } finally {
        await pool.close()
      }
    } finally {
      process.off('SIGINT', interrupt)
      if (source.temporary !== undefined) rmSync(source.temporary, { recursive: true, force: true })
    }
    const summary: ReplayCommandSummary = {
      format: input.format,
      gzip: input.gzip,
      ...tally.summary({ paths: SUMMARY_PATHS }),
      skipped: run.skipped,
      bytes: input.bytesRead(),
      lacked_fields: run.lacked_fields,
      threads,
      ...(run.cancelled ? { cancelled: true as const } : {}),
    }
    if (summaryTo === 'stdout') {
      await writeLine(invocation.output, JSON.stringify({ summary }))
    } else if (invocation.json) {
      invocation.stderr(JSON.stringify(summary))
    } else {
      for (const line of humanSummary(summary, (performance.now() - started) / 1000)) {
        invocation.stderr(line)
      }
    }
    return run.cancelled ? 1 : 0
  },
}

function writeLine(stream: Writable, line: string): Promise<void> {
  return new Promise((resolve, reject) =>
    stream.write(`${line}\n`, (error) => (error ? reject(error) : resolve())),
  )
}
