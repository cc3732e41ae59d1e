// A replay's pool of worker threads, each holding the zone compiled from one gathered
// configuration (evaluation.ts, worker.ts), so a replay's evaluation leaves the main thread free
// for the API and the UI.
//
//   const pool = await ReplayPool.start({ configuration, resourcesDir, threads })
//   const run = pool.withCredentials(credentialsFile)  // an evaluator for one run
//   const answer = await run.evaluate(batch, { format, trace: false, at })   // batch.ts
//   await run.release()   // the workers close their connections to credentialsFile
//   pool.fields      // the Rules fields the zone's rules read
//   await pool.close()
//
// Batches go round the workers; each worker answers its messages in the order it got them, so a
// caller awaiting them in the order it sent them reads verdicts in input order (run.ts does). A
// worker's refusal of a batch (a line that is not a request) comes back as the same ApiError. A
// pool outlives a run when the service keeps it warm (warm-pools.ts).
//
// Memory: a worker holding all three managed rulesets (CRS interpreted) is ~85 MB once compiled
// and ~110 MB once its caches have warmed, so the default thread count is capped by the service's
// memory bound and the memory free as well as by the cores, and each worker's heap is limited
// (WORKER_HEAP_LIMIT_MB): a run that outgrows it fails alone instead of taking the machine's.

import { availableParallelism, freemem } from 'node:os'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { ApiError } from '@shared/api/errors'
import type { ReplayBatch, ReplayBatchAnswer } from './batch'
import type { ReplayBatchOptions, ReplayWorkerSetup } from './evaluation'
import type { ReplayEvaluator } from './run'
import type { ReplayWorkerMessage, WorkerError } from './worker'

/** The worker's entry: the built app's `replay-worker.js`, or worker.ts run through tsx. */
export interface ReplayWorkerEntry {
  file: string
}

export interface ReplayPoolOptions extends ReplayWorkerSetup {
  /** how many workers (default: defaultThreads()) */
  threads?: number
  /** where the worker's code is (default: found beside this module, built or not) */
  worker?: ReplayWorkerEntry
}

/** What one worker holding a zone may cost: measured ~110 MB with all three managed rulesets. */
export const WORKER_MEMORY_MB = 128
/** Each worker's heap limit (its old generation): twice what the biggest zone was measured at. */
export const WORKER_HEAP_LIMIT_MB = 256
/** The share of the machine's free memory a replay's workers take by default. */
const MEMORY_SHARE = 0.5

/** The service's peak resident memory, its replay's workers included (issue 20's bound). */
export const SERVICE_MEMORY_LIMIT_MB = 400
/**
 * The service's own memory at a replay's peak, beside its workers: its peak was 280 MB with one
 * worker holding all three managed rulesets, 391 MB with two and 503 MB with three
 * (tests/api/replay-memory.test.ts's child on 40 MB of requests), ~111 MB a worker, so ~170 MB.
 */
export const SERVICE_MEMORY_MB = 170
/**
 * The workers the bound holds beside the service at WORKER_MEMORY_MB each (at least one): one. Two
 * measured 391 MB, too near the bound for a longer input, and more cores do not raise it.
 */
export const WORKERS_UNDER_LIMIT = Math.max(
  1,
  Math.floor((SERVICE_MEMORY_LIMIT_MB - SERVICE_MEMORY_MB) / WORKER_MEMORY_MB),
)

/**
 * One worker per core less one, which the service keeps for the API and the UI, but no more than
 * the service's memory bound holds (WORKERS_UNDER_LIMIT) nor half the free memory at
 * WORKER_MEMORY_MB each; at least one. A run that wants more threads asks for them (the API's
 * `threads`, the command's `--threads`), paying ~110 MB a worker beyond the bound.
 */
export const defaultThreads = (freeBytes = freemem(), cores = availableParallelism()): number =>
  Math.max(
    1,
    Math.min(
      cores - 1,
      WORKERS_UNDER_LIMIT,
      Math.floor((freeBytes * MEMORY_SHARE) / (WORKER_MEMORY_MB * 1024 * 1024)),
    ),
  )

/**
 * Beside this module: the electron-vite build writes the worker as its own entry
 * (electron.vite.config.ts) next to the entries, and this module may be in one of their chunks.
 * From the sources (tests, tsx), worker-from-source.mjs registers tsx and runs worker.ts.
 */
function defaultWorkerEntry(): ReplayWorkerEntry {
  const here = fileURLToPath(import.meta.url)
  if (here.endsWith('.ts')) return { file: join(dirname(here), 'worker-from-source.mjs') }
  for (const dir of [dirname(here), dirname(dirname(here))]) {
    const file = join(dir, 'replay-worker.js')
    if (existsSync(file)) return { file }
  }
  throw new Error(`The replay worker (replay-worker.js) is not beside ${here}: rebuild the app`)
}

interface Pending {
  resolve(result: unknown): void
  reject(error: Error): void
}

type WorkerAnswer =
  | { ready: string[] }
  | { failed: string }
  | { id: number; result: unknown }
  | { id: number; error: WorkerError }

/** A worker's message without its id, which the pool gives. */
type Unnumbered<M> = M extends { id: number } ? Omit<M, 'id'> : never

/** A worker's error as it was thrown there: an ApiError keeps its status and code. */
const fromWorkerError = (error: WorkerError): Error =>
  error.api === undefined
    ? new Error(error.message)
    : new ApiError(
        error.api.status,
        error.api.code,
        error.message,
        error.api.details,
        error.api.alongside,
      )

class PoolWorker {
  readonly pending = new Map<number, Pending>()
  private failure: Error | undefined

  constructor(
    readonly worker: Worker,
    readonly fields: readonly string[],
  ) {
    worker.on('message', (answer: WorkerAnswer) => {
      if (!('id' in answer)) return
      const pending = this.pending.get(answer.id)
      this.pending.delete(answer.id)
      if ('error' in answer) pending?.reject(fromWorkerError(answer.error))
      else pending?.resolve(answer.result)
    })
    worker.on('error', (error) => this.fail(error))
    worker.on('exit', (code) => this.fail(new Error(`A replay worker stopped (exit ${code})`)))
  }

  static start(setup: ReplayWorkerSetup, entry: ReplayWorkerEntry): Promise<PoolWorker> {
    const worker = new Worker(entry.file, {
      workerData: setup,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_LIMIT_MB },
    })
    return new Promise((resolve, reject) => {
      const started = (answer: WorkerAnswer) => {
        worker.off('error', reject)
        if ('ready' in answer) resolve(new PoolWorker(worker, answer.ready))
        else if ('failed' in answer) {
          reject(new Error(answer.failed))
          void worker.terminate()
        }
      }
      worker.once('message', started)
      worker.once('error', reject)
    })
  }

  /** Whether it has stopped (an error, its heap's limit, a terminate). */
  get failed(): boolean {
    return this.failure !== undefined
  }

  send(message: ReplayWorkerMessage): Promise<unknown> {
    if (this.failure !== undefined) return Promise.reject(this.failure)
    return new Promise((resolve, reject) => {
      this.pending.set(message.id, { resolve, reject })
      this.worker.postMessage(message)
    })
  }

  private fail(error: Error): void {
    this.failure ??= error
    for (const pending of this.pending.values()) pending.reject(error)
    this.pending.clear()
  }
}

/** An evaluator for one run on a pool, and the end of the run. */
export interface PoolRun extends ReplayEvaluator {
  /** closes the workers' connections to the run's credential database (resolves when closed) */
  release(): Promise<void>
}

export class ReplayPool {
  private nextMessage = 0
  private closed = false

  private constructor(private readonly workers: PoolWorker[]) {}

  /** Starts the workers and waits until each has compiled the zone (its errors reject). */
  static async start(options: ReplayPoolOptions): Promise<ReplayPool> {
    const threads = options.threads ?? defaultThreads()
    if (!Number.isInteger(threads) || threads < 1) {
      throw new RangeError(`A replay needs at least one thread, not ${threads}`)
    }
    const entry = options.worker ?? defaultWorkerEntry()
    const setup: ReplayWorkerSetup = {
      configuration: options.configuration,
      resourcesDir: options.resourcesDir,
    }
    const started = await Promise.allSettled(
      Array.from({ length: threads }, () => PoolWorker.start(setup, entry)),
    )
    const workers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
    const failed = started.find((s) => s.status === 'rejected')
    if (failed !== undefined) {
      await Promise.all(workers.map((w) => w.worker.terminate()))
      throw failed.reason
    }
    return new ReplayPool(workers)
  }

  get size(): number {
    return this.workers.length
  }

  /** The Rules fields the zone's rules read (the same in every worker). */
  get fields(): readonly string[] {
    return this.workers[0]!.fields
  }

  /** Whether every worker still runs and the pool is open: what a warm pool must be to serve. */
  get usable(): boolean {
    return !this.closed && this.workers.every((w) => !w.failed)
  }

  /** The answer to `batch` (its requests' verdicts in their order), from the next worker round the pool. */
  evaluate(batch: ReplayBatch, options: ReplayBatchOptions): Promise<ReplayBatchAnswer> {
    return this.send({ batch, options }) as Promise<ReplayBatchAnswer>
  }

  /**
   * An evaluator whose batches look credentials up in `credentialsFile`, the run's copy of the
   * database (docs/decisions/0008-replay-workers-read-credentials.md); its release() closes the
   * workers' connections to it, after the batches sent before.
   */
  withCredentials(credentialsFile: string | undefined): PoolRun {
    return {
      size: this.size,
      fields: this.fields,
      evaluate: (batch, options) =>
        this.evaluate(
          batch,
          credentialsFile === undefined ? options : { ...options, credentialsFile },
        ),
      release: async () => {
        if (credentialsFile === undefined || this.closed) return
        await Promise.allSettled(
          this.workers.map((w) => w.send({ id: this.nextMessage++, release: credentialsFile })),
        )
      },
    }
  }

  /** Stops the workers; batches still out are rejected. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all(this.workers.map((w) => w.worker.terminate()))
  }

  private send(message: Unnumbered<ReplayWorkerMessage>): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('The replay pool is closed'))
    const id = this.nextMessage++
    return this.workers[id % this.workers.length]!.send({ id, ...message } as ReplayWorkerMessage)
  }
}
