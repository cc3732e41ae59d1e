// What the replay routes share (the zone's replay in routes/simulate.ts, the migration's
// side-by-side replay in routes/waf-migration.ts, and the jobs of routes/replay-jobs.ts): bodies
// taken as the request's stream, never read whole, and a run through the replay's input
// (../replay/input.ts: format detected, gzip inflated), its pool of worker threads and its batches
// (../replay/run.ts), so memory is bounded by the batches out, not by the input.
//
// The routes' side (the body, the query, the answer's shapes) is in replay-body.ts and
// replay-route.ts.
//
// The migration's compare runs two pools, one compiled with the previous product alone and one
// with managed rulesets alone, each batch sent to both in the same pass: the input is read once.

import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import type {
  Outcome,
  ReplayInputSummary,
  ReplayProgress,
  SimulatedRequest,
  StreamedComparison,
  StreamedReplaySummary,
} from '@shared/api/simulate'
import type { ComparedRequest, MigrationComparison } from '@shared/api/waf'
import { ComparisonTally } from '@shared/replay/comparison-tally'
import { ReplayTally, type TalliedSimulation } from '@shared/replay/replay-tally'
import { openReplayInput, type ReplayInput } from '../replay/input'
import type { RunAnswer } from '../replay/jobs'
import { defaultThreads, ReplayPool, type PoolRun } from '../replay/pool'
import { IDLE_MS, WarmPools, type WarmLease } from '../replay/warm-pools'
import { runReplay, type ReplayEvaluator, type ReplayProgress as RunProgress } from '../replay/run'
import { rayIdOf, type ReplayVerdict } from '../replay/evaluation'
import { answerOf, itemsOf, recordsOfBatch, type JudgedRequest } from '../replay/batch'
import type { CredentialNamespace } from '../zones/credentials'
import { imageOf } from '../zones/inspector'
import type { Simulator, Variant } from '../zones/simulator'

/** How many paths a replay's summary lists, those with the most requests. */
const TOP_PATHS = 50

/** What a replay reads: its chunks, and their size when known (for the time left). */
export interface ReplaySource {
  chunks: AsyncIterable<Uint8Array>
  totalBytes?: number
}

export interface ReplayRunOptions {
  format?: string
  host?: string
  threads?: number
  /** record the events in the zone's event log */
  record?: boolean
  /** list each request's result in the summary (held: for small inputs) */
  results?: boolean
  /** each verdict line carries the request's trace */
  trace?: boolean
}

export interface ReplayRunHooks {
  signal?: AbortSignal
  /** receives one NDJSON line per request, in input order */
  verdicts?: Writable
  /** receives each request judged, one JSON line each, in the verdicts' order */
  requests?: Writable
  onProgress?: (progress: ReplayProgress) => void
  /** called once the input is open and the workers are ready */
  onOpened?: () => void
}

const progressOf = (progress: RunProgress, totalBytes: number | undefined): ReplayProgress => ({
  done: progress.requests,
  skipped: progress.skipped,
  bytes: progress.bytes,
  ...(totalBytes === undefined ? {} : { total_bytes: totalBytes }),
  rate: progress.rate,
  bytes_per_second: progress.bytes_per_second,
  ...(progress.seconds_left === undefined ? {} : { seconds_left: progress.seconds_left }),
})

/**
 * Inputs this small are evaluated on the main thread by the simulator's compiled zone (compiled
 * once per configuration): starting a pool compiles the zone again in each worker, which costs
 * more than the run. The Replay screen sends its files in chunks of this size or less. They are
 * evaluated as the simulate API evaluates, at the time of the run (a log's own times are not read).
 */
const IN_PROCESS_BYTES = 1024 * 1024

/** Whether a run is small enough for the main thread: no threads asked, and its size known. */
const isSmall = (source: ReplaySource, options: ReplayRunOptions) =>
  options.threads === undefined &&
  source.totalBytes !== undefined &&
  source.totalBytes <= IN_PROCESS_BYTES

/** The simulator's compiled zone as an evaluator; batches read and answered as the workers do. */
function inProcess(
  simulator: Simulator,
  zoneId: string,
  fields: readonly string[],
): ReplayEvaluator {
  return {
    size: 1,
    fields,
    async evaluate(batch, options) {
      const read = itemsOf(recordsOfBatch(batch, options))
      const simulations = await simulator.simulate(
        zoneId,
        read.items.map((item) => item.request),
        { trace: options.trace, record: false, scope: true },
      )
      const verdicts = simulations.map((simulation, index): ReplayVerdict => {
        const item = read.items[index]!
        return {
          line: item.line,
          ray_id: rayIdOf(item),
          outcome: simulation.outcome,
          action: simulation.action,
          events: simulation.events,
          in_scope: simulation.in_scope,
          ...(options.trace ? { trace: simulation.trace } : {}),
        }
      })
      return answerOf(read, verdicts, options)
    },
  }
}

/** The evaluator, and the events of each batch recorded in the zone's event log once answered. */
function recording(
  evaluator: ReplayEvaluator,
  simulator: Simulator,
  zoneId: string,
): ReplayEvaluator {
  return {
    size: evaluator.size,
    fields: evaluator.fields,
    async evaluate(batch, options) {
      const answer = await evaluator.evaluate(batch, { ...options, requests: true })
      await simulator.record(
        zoneId,
        answer.judged.map((judged) => judged.request!),
        answer.judged,
        options.at,
      )
      return answer
    },
  }
}

/** A request judged by the new product, with what each product did beside it. */
type ComparedVerdict = JudgedRequest & { sides: Pick<ComparedRequest, 'previous' | 'new'> }

/** Each batch to both pools; the answers paired (the lines asked for are the new product's). */
function comparing(previous: ReplayEvaluator, next: ReplayEvaluator): ReplayEvaluator {
  return {
    size: Math.min(previous.size, next.size),
    fields: [...new Set([...previous.fields, ...next.fields])],
    async evaluate(batch, options) {
      const { lines: _lines, ...judgedOnly } = options
      const [before, after] = await Promise.all([
        previous.evaluate(batch, judgedOnly),
        next.evaluate(batch, options),
      ])
      return {
        ...after,
        judged: after.judged.map((verdict, index): ComparedVerdict => ({
          ...verdict,
          sides: { previous: judged(before.judged[index]!), new: judged(verdict) },
        })),
      }
    },
  }
}

/** The simulator's side-by-side evaluation as an evaluator (small inputs: IN_PROCESS_BYTES). */
function comparingInProcess(simulator: Simulator, zoneId: string): ReplayEvaluator {
  return {
    size: 1,
    fields: [],
    async evaluate(batch, options) {
      const read = itemsOf(recordsOfBatch(batch, options))
      const { results } = await simulator.compare(
        zoneId,
        read.items.map((item) => item.request),
      )
      const verdicts = results.map((result, index): ReplayVerdict => {
        const item = read.items[index]!
        return {
          line: item.line,
          ray_id: rayIdOf(item),
          outcome: result.new.outcome,
          action: result.new.action,
          events: [],
        }
      })
      const answer = answerOf(read, verdicts, options)
      return {
        ...answer,
        judged: answer.judged.map((verdict, index): ComparedVerdict => ({
          ...verdict,
          sides: { previous: results[index]!.previous, new: results[index]!.new },
        })),
      }
    },
  }
}

const judged = (
  verdict: Pick<ReplayVerdict, 'outcome' | 'action' | 'events'>,
): ComparedRequest['previous'] => ({
  outcome: verdict.outcome,
  action: verdict.action,
  rules: verdict.events.map((event) => event.rule_id),
})

const noOutcomes = (): Record<Outcome, number> => ({ blocked: 0, challenged: 0, passed: 0 })

/**
 * runReplay adds each verdict to a ReplayTally; a compare's go to the migration's comparison
 * instead, numbered from 0 in input order, and to `verdicts` as compared requests. Without
 * `results` the requests are only counted: a job's are in its verdict file, and holding them
 * would grow with the input.
 */
class ComparisonIntake extends ReplayTally {
  private readonly held: ComparisonTally | undefined
  private readonly counted = {
    differences: 0,
    outcomes: { previous: noOutcomes(), new: noOutcomes() },
    matrix: { blocked: noOutcomes(), challenged: noOutcomes(), passed: noOutcomes() },
  }
  private index = 0

  constructor(
    private readonly newConfiguration: MigrationComparison['new_configuration'],
    private readonly verdicts: Writable | undefined,
    results: boolean,
  ) {
    super()
    this.held = results ? new ComparisonTally(newConfiguration) : undefined
  }

  override add(request: Pick<SimulatedRequest, 'method' | 'url'>, tallied: TalliedSimulation) {
    const { previous, new: next } = (tallied as ComparedVerdict).sides
    const compared: ComparedRequest = {
      index: this.index++,
      method: request.method.toUpperCase(),
      url: request.url,
      differs: previous.outcome !== next.outcome || previous.action !== next.action,
      previous,
      new: next,
    }
    this.held?.add(compared)
    if (this.held === undefined) {
      this.counted.outcomes.previous[previous.outcome]++
      this.counted.outcomes.new[next.outcome]++
      this.counted.matrix[previous.outcome][next.outcome]++
      if (compared.differs) this.counted.differences++
    }
    this.verdicts?.write(`${JSON.stringify(compared)}\n`)
  }

  comparison(): MigrationComparison {
    if (this.held !== undefined) return this.held.comparison()
    return {
      requests: this.index,
      new_configuration: this.newConfiguration,
      ...structuredClone(this.counted),
      results: [],
    }
  }
}

/**
 * runReplay with a route's or a job's hooks; answers how to describe what was read (given the
 * threads that ran), or undefined when the signal stopped it.
 */
async function runWithHooks(
  input: ReplayInput,
  evaluator: ReplayEvaluator,
  tally: ReplayTally,
  source: ReplaySource,
  hooks: ReplayRunHooks,
  trace = false,
): Promise<((threads: number, warm?: boolean) => ReplayInputSummary) | undefined> {
  const run = await runReplay({
    input,
    evaluator,
    tally,
    trace,
    ...(hooks.verdicts === undefined ? {} : { verdicts: hooks.verdicts }),
    ...(hooks.requests === undefined ? {} : { requests: hooks.requests }),
    ...(hooks.signal === undefined ? {} : { signal: hooks.signal }),
    ...(source.totalBytes === undefined ? {} : { totalBytes: source.totalBytes }),
    onProgress: (progress) => hooks.onProgress?.(progressOf(progress, source.totalBytes)),
  })
  if (run.cancelled) return undefined
  return (threads, warm) => ({
    format: input.format,
    format_detected: input.detected,
    gzip: input.gzip,
    bytes: input.bytesRead(),
    skipped: run.skipped,
    lacked_fields: run.lacked_fields,
    threads,
    ...(warm === undefined ? {} : { warm }),
  })
}

/** Replays and compares of a zone's traffic, in pools of worker threads kept warm between runs. */
export class ReplayRunner {
  private readonly warm = new WarmPools({ maxWorkers: defaultThreads(), idleMs: IDLE_MS })

  constructor(
    private readonly simulator: Simulator,
    private readonly resourcesDir: string,
    private readonly credentials: CredentialNamespace,
    /** where a run's copy of the credential database is written, and removed after */
    private readonly tempDir: string,
  ) {
    mkdirSync(tempDir, { recursive: true })
  }

  /** Closes the pools kept warm (the service is stopping). */
  close(): Promise<void> {
    return this.warm.close()
  }

  /**
   * Runs `work` with a copy of the credential database for the workers to open
   * (docs/decisions/0008-replay-workers-read-credentials.md): the object's own file is held in
   * SQLite's exclusive locking mode, so no other connection can read it while the service runs.
   */
  private async withCredentialsCopy<R>(work: (file: string) => Promise<R>): Promise<R> {
    const image = await this.credentials.inspect(
      this.credentials.idFromName('credentials'),
      imageOf,
    )
    const file = join(this.tempDir, `credentials-${randomBytes(8).toString('hex')}.sqlite`)
    writeFileSync(file, image)
    try {
      return await work(file)
    } finally {
      rmSync(file, { force: true })
    }
  }

  /**
   * The zone's pool for `variant` as configured now, warm when its configuration has not changed
   * since a run kept one: the version is read before the configuration is gathered, so a change
   * in between only makes the next run compile again.
   */
  private async pool(zoneId: string, variant: Variant, threads: number): Promise<WarmLease> {
    const version = await this.simulator.configurationVersion(zoneId)
    return this.warm.acquire({ slot: `${zoneId}/${variant}`, version, threads }, async () =>
      ReplayPool.start({
        configuration: await this.simulator.configuration(zoneId, variant),
        resourcesDir: this.resourcesDir,
        threads,
      }),
    )
  }

  /** `work` on the leases' pools with the run's credentials, the leases released after. */
  private async onPools<R>(
    leases: WarmLease[],
    credentialsFile: string,
    work: (runs: PoolRun[]) => Promise<R>,
  ): Promise<R> {
    const runs = leases.map((lease) => lease.pool.withCredentials(credentialsFile))
    try {
      return await work(runs)
    } finally {
      await Promise.all(runs.map((run) => run.release()))
      for (const lease of leases) lease.release()
    }
  }

  /** The zone's verdict on each request of `source`, summed up. */
  async replay(
    zoneId: string,
    source: ReplaySource,
    options: ReplayRunOptions,
    hooks: ReplayRunHooks = {},
  ): Promise<RunAnswer<StreamedReplaySummary>> {
    // The zone first: an unknown one is refused before its body is read.
    await this.simulator.configurationVersion(zoneId)
    const input = await openReplayInput(source.chunks, options)
    const run = async (evaluator: ReplayEvaluator, threads: number, warm?: boolean) => {
      hooks.onOpened?.()
      const tally = new ReplayTally({ results: options.results === true })
      const counted =
        options.record === true ? recording(evaluator, this.simulator, zoneId) : evaluator
      const read = await runWithHooks(input, counted, tally, source, hooks, options.trace)
      if (read === undefined) return { cancelled: true as const }
      return {
        cancelled: false as const,
        summary: { ...tally.summary({ paths: TOP_PATHS }), ...read(threads, warm) },
      }
    }
    if (isSmall(source, options))
      return run(inProcess(this.simulator, zoneId, await this.simulator.fields(zoneId)), 0)
    const threads = options.threads ?? defaultThreads()
    return this.withCredentialsCopy(async (credentialsFile) => {
      const lease = await this.pool(zoneId, 'zone', threads)
      return this.onPools([lease], credentialsFile, ([pool]) => run(pool!, threads, lease.warm))
    })
  }

  /**
   * The migration's side-by-side replay: each request through the previous product alone and
   * managed rulesets alone, `threads` shared between the two pools (at least one each).
   */
  async compare(
    zoneId: string,
    source: ReplaySource,
    options: Omit<ReplayRunOptions, 'record' | 'trace'>,
    hooks: ReplayRunHooks = {},
  ): Promise<RunAnswer<StreamedComparison>> {
    const generated =
      (await this.simulator.configuration(zoneId, 'new')).generatedEntrypoint !== undefined
    const input = await openReplayInput(source.chunks, options)
    const run = async (evaluator: ReplayEvaluator, threads: number, warm?: boolean) => {
      const intake = new ComparisonIntake(
        generated ? 'generated' : 'entrypoint',
        hooks.verdicts,
        options.results !== false,
      )
      hooks.onOpened?.()
      // The intake writes the compared requests; runReplay writes none.
      const read = await runWithHooks(input, evaluator, intake, source, {
        ...hooks,
        verdicts: undefined,
      })
      if (read === undefined) return { cancelled: true as const }
      return {
        cancelled: false as const,
        summary: { ...intake.comparison(), ...read(threads, warm) },
      }
    }
    if (isSmall(source, options)) return run(comparingInProcess(this.simulator, zoneId), 0)
    const perProduct = Math.max(1, Math.floor((options.threads ?? defaultThreads()) / 2))
    return this.withCredentialsCopy(async (credentialsFile) => {
      const previous = await this.pool(zoneId, 'previous', perProduct)
      const next = await this.pool(zoneId, 'new', perProduct).catch((error: unknown) => {
        previous.release()
        throw error
      })
      return this.onPools([previous, next], credentialsFile, ([before, after]) =>
        run(comparing(before!, after!), perProduct * 2, previous.warm && next.warm),
      )
    })
  }
}
