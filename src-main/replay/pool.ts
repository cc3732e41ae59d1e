// A replay's pool of worker threads, each holding the zone compiled from one gathered
// configuration (evaluation.ts, worker.ts), so a replay's evaluation leaves the main thread free
// for the API and the UI.
//
//   const pool = await ReplayPool.start({ configuration, resourcesDir, credentialsFile, threads })
//   const verdicts = await pool.evaluate(items, { trace: false, at })   // in the items' order
//   pool.fields      // the Rules fields the zone's rules read
//   await pool.close()
//
// Batches go round the workers; each worker answers its batches in the order it got them, so a
// caller awaiting them in the order it sent them reads verdicts in input order (run.ts does). The
// default is one worker per core less one, which the service keeps.

import { availableParallelism } from 'node:os'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { ReplayBatchOptions, ReplayItem, ReplayVerdict, ReplayWorkerSetup } from './evaluation'
import type { ReplayBatchMessage } from './worker'

/** The worker's entry: the built app's `replay-worker.js`, or worker.ts run through tsx. */
export interface ReplayWorkerEntry {
  file: string
}

export interface ReplayPoolOptions extends ReplayWorkerSetup {
  /** how many workers (default: one per core less one, at least one) */
  threads?: number
  /** where the worker's code is (default: found beside this module, built or not) */
  worker?: ReplayWorkerEntry
}

/** One worker per core less one, which the service keeps for the API and the UI. */
export const defaultThreads = (): number => Math.max(1, availableParallelism() - 1)

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
  resolve(verdicts: ReplayVerdict[]): void
  reject(error: Error): void
}

type WorkerAnswer =
  | { ready: string[] }
  | { failed: string }
  | { id: number; verdicts: ReplayVerdict[] }
  | { id: number; error: string }

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
      if ('error' in answer) pending?.reject(new Error(answer.error))
      else pending?.resolve(answer.verdicts)
    })
    worker.on('error', (error) => this.fail(error))
    worker.on('exit', (code) => this.fail(new Error(`A replay worker stopped (exit ${code})`)))
  }

  static start(setup: ReplayWorkerSetup, entry: ReplayWorkerEntry): Promise<PoolWorker> {
    const worker = new Worker(entry.file, { workerData: setup })
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

  send(message: ReplayBatchMessage): Promise<ReplayVerdict[]> {
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

export class ReplayPool {
  private nextBatch = 0
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
      ...(options.credentialsFile === undefined
        ? {}
        : { credentialsFile: options.credentialsFile }),
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

  /** The verdicts of `items`, in their order, from the next worker round the pool. */
  evaluate(items: ReplayItem[], options: ReplayBatchOptions): Promise<ReplayVerdict[]> {
    if (this.closed) return Promise.reject(new Error('The replay pool is closed'))
    const id = this.nextBatch++
    return this.workers[id % this.workers.length]!.send({ id, items, options })
  }

  /** Stops the workers; batches still out are rejected. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all(this.workers.map((w) => w.worker.terminate()))
  }
}
