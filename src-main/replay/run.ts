// Running a replay: an opened input (input.ts) cut into batches of lines, read and evaluated by the
// pool's workers (batch.ts) with a bounded window of batches out at once, their answers added to
// the tally in input order, each request's verdict written as one NDJSON line when asked (the
// workers serialize the lines), and progress reported as it goes.
//
//   const input = await openReplayInput(chunks, { format, host })
//   const pool = await ReplayPool.start({ configuration, resourcesDir, threads })
//   const tally = new ReplayTally()
//   const run = await runReplay({ input, evaluator: pool, tally, verdicts, signal, onProgress })
//   // run: { requests, skipped, lacked_fields, cancelled }; tally.summary() is the summary
//
// Memory is bounded by the window (BATCH_SIZE lines per batch, WINDOW_PER_WORKER batches per
// worker), never by the input. An abort stops reading at once and drops the batches still out:
// the tally holds what was added before it. The caller closes the pool.

import { once } from 'node:events'
import type { Writable } from 'node:stream'
import type { ReplayTally } from '@shared/replay/replay-tally'
import { lackedFields } from './absent'
import type { ReplayBatch, ReplayBatchAnswer } from './batch'
import type { ReplayBatchOptions } from './evaluation'
import type { ReplayInput } from './input'
import type { RequestPart } from './formats/types'

/** Lines per batch: enough to make a message's cost small, few enough to stop in time. */
export const BATCH_SIZE = 256
/** Batches out per worker: one it runs and one waiting, so a worker never idles for the next. */
export const WINDOW_PER_WORKER = 2

/** What reads and evaluates batches: the worker pool (pool.ts). */
export interface ReplayEvaluator {
  readonly size: number
  readonly fields: readonly string[]
  evaluate(batch: ReplayBatch, options: ReplayBatchOptions): Promise<ReplayBatchAnswer>
}

export interface ReplayProgress {
  /** requests evaluated and tallied */
  requests: number
  /** lines that recorded no request */
  skipped: number
  /** bytes of input read (compressed, for gzip) */
  bytes: number
  /** requests per second since the start */
  rate: number
  /** bytes of input per second since the start */
  bytes_per_second: number
  /** seconds left at this rate, when the input's size is known */
  seconds_left?: number
}

export interface ReplayRunOptions {
  input: Pick<ReplayInput, 'format' | 'host' | 'batches' | 'bytesRead'>
  evaluator: ReplayEvaluator
  tally: ReplayTally
  /** receives one NDJSON verdict per request, in input order */
  verdicts?: Writable
  /** each verdict line carries the request's trace */
  trace?: boolean
  /** receives the request of each verdict, one JSON line each, in the verdicts' order */
  requests?: Writable
  signal?: AbortSignal
  /** called after each batch is tallied */
  onProgress?: (progress: ReplayProgress) => void
  /** the input's size in bytes (as bytesRead counts them), for the time left */
  totalBytes?: number
  /** the time of requests whose log gives none (ms since the epoch; default: the start) */
  at?: number
}

export interface ReplayRun {
  requests: number
  skipped: number
  /** the Rules fields the zone's rules read that some request's log did not carry */
  lacked_fields: string[]
  /** stopped by the signal before the input's end */
  cancelled: boolean
}

const ABORTED = Symbol('aborted')

/**
 * `promise`, or ABORTED if `signal` aborts first. Not Promise.race against one promise for the
 * whole run: each race would leave a reaction on it holding its result until the run ends
 * (https://github.com/nodejs/node/issues/17469), which is the whole input.
 */
function unlessAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | typeof ABORTED> {
  if (signal === undefined) return promise
  if (signal.aborted) return Promise.resolve(ABORTED)
  return new Promise((resolve, reject) => {
    const aborted = () => resolve(ABORTED)
    signal.addEventListener('abort', aborted, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', aborted)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', aborted)
        reject(error)
      },
    )
  })
}

/** Writes `text`, waiting for the stream to drain when its buffer is full (rejects on its error). */
async function write(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain')
}

export async function runReplay(options: ReplayRunOptions): Promise<ReplayRun> {
  const { input, evaluator, tally, verdicts, requests: judged, signal } = options
  const batchOptions: ReplayBatchOptions = {
    format: input.format,
    ...(input.host === undefined ? {} : { host: input.host }),
    trace: options.trace === true,
    at: options.at ?? Date.now(),
    ...(verdicts === undefined && judged === undefined
      ? {}
      : { lines: { verdicts: verdicts !== undefined, requests: judged !== undefined } }),
  }
  const window = evaluator.size * WINDOW_PER_WORKER
  const started = performance.now()
  const absent = new Set<RequestPart>()
  const batches = input.batches(BATCH_SIZE)[Symbol.asyncIterator]()
  const out: Promise<ReplayBatchAnswer>[] = []
  let requests = 0
  let skipped = 0

  const progress = (): ReplayProgress => {
    const seconds = Math.max((performance.now() - started) / 1000, 1e-3)
    const bytes = input.bytesRead()
    const bytesPerSecond = bytes / seconds
    return {
      requests,
      skipped,
      bytes,
      rate: requests / seconds,
      bytes_per_second: bytesPerSecond,
      ...(options.totalBytes === undefined || bytesPerSecond === 0
        ? {}
        : { seconds_left: Math.max(0, options.totalBytes - bytes) / bytesPerSecond }),
    }
  }

  /** Tallies the oldest batch out (and writes its lines); false when aborted first. */
  const settleOldest = async (): Promise<boolean> => {
    const answer = await unlessAborted(out.shift()!, signal)
    if (answer === ABORTED) return false
    for (const request of answer.judged) tally.add(request, request)
    requests += answer.judged.length
    skipped += answer.skipped
    for (const part of answer.absent) absent.add(part)
    // A reader that stopped reading must not hold up an abort.
    const written = [
      ...(verdicts === undefined ? [] : [write(verdicts, answer.verdictLines ?? '')]),
      ...(judged === undefined ? [] : [write(judged, answer.requestLines ?? '')]),
    ]
    if (written.length > 0 && (await unlessAborted(Promise.all(written), signal)) === ABORTED) {
      return false
    }
    options.onProgress?.(progress())
    return true
  }

  let cancelled = false
  try {
    for (;;) {
      const next = await unlessAborted(batches.next(), signal)
      if (next === ABORTED) {
        cancelled = true
        break
      }
      if (next.done === true) break
      const answer = evaluator.evaluate(next.value, batchOptions)
      // Settled in order by settleOldest; until then a rejection must not go unheard.
      answer.catch(() => undefined)
      out.push(answer)
      if (out.length >= window && !(await settleOldest())) {
        cancelled = true
        break
      }
    }
    while (!cancelled && out.length > 0) if (!(await settleOldest())) cancelled = true
  } finally {
    if (cancelled) void batches.return?.()
  }
  return {
    requests,
    skipped,
    lacked_fields: lackedFields(absent, evaluator.fields),
    cancelled,
  }
}
