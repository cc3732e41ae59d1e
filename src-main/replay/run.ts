// Running a replay: records read from an opened input (input.ts) in batches, evaluated by the
// pool's workers with a bounded window of batches out at once, added to the tally in input order,
// each request's verdict written as one NDJSON line when asked, and progress reported as it goes.
//
//   const input = await openReplayInput(chunks, { format, host })
//   const pool = await ReplayPool.start({ configuration, resourcesDir, threads })
//   const tally = new ReplayTally()
//   const run = await runReplay({ input, evaluator: pool, tally, verdicts, signal, onProgress })
//   // run: { requests, skipped, lacked_fields, cancelled }; tally.summary() is the summary
//
// Memory is bounded by the window (BATCH_SIZE requests per batch, WINDOW_PER_WORKER batches per
// worker), never by the input. An abort stops reading at once and drops the batches still out:
// the tally holds what was added before it. The caller closes the pool.

import { once } from 'node:events'
import type { Writable } from 'node:stream'
import type { ReplayTally } from '@shared/replay/replay-tally'
import { lackedFields } from './absent'
import type { ReplayBatchOptions, ReplayItem, ReplayVerdict } from './evaluation'
import type { ReplayInput } from './input'
import { isSkipped, type RequestPart } from './formats/types'

/** Requests per batch: enough to make a message's cost small, few enough to stop in time. */
export const BATCH_SIZE = 256
/** Batches out per worker: one it runs and one waiting, so a worker never idles for the next. */
export const WINDOW_PER_WORKER = 2

/** What evaluates batches: the worker pool (pool.ts). */
export interface ReplayEvaluator {
  readonly size: number
  readonly fields: readonly string[]
  evaluate(items: ReplayItem[], options: ReplayBatchOptions): Promise<ReplayVerdict[]>
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
  input: Pick<ReplayInput, 'records' | 'bytesRead'>
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

/** One verdict line of the NDJSON output. */
export interface ReplayVerdictLine {
  line: number
  ray_id: string
  method: string
  url: string
  outcome: ReplayVerdict['outcome']
  action: string | null
  rules: string[]
  trace?: ReplayVerdict['trace']
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
    trace: options.trace === true,
    at: options.at ?? Date.now(),
  }
  const window = evaluator.size * WINDOW_PER_WORKER
  const started = performance.now()
  const absent = new Set<RequestPart>()
  const records = input.records[Symbol.asyncIterator]()
  const out: { items: ReplayItem[]; verdicts: Promise<ReplayVerdict[]> }[] = []
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

  /** Tallies the oldest batch out (and writes its verdicts); false when aborted first. */
  const settleOldest = async (): Promise<boolean> => {
    const batch = out.shift()!
    const answered = await unlessAborted(batch.verdicts, signal)
    if (answered === ABORTED) return false
    let text = ''
    let judgedText = ''
    answered.forEach((verdict, index) => {
      const { request } = batch.items[index]!
      tally.add(request, verdict)
      requests++
      if (verdicts !== undefined) text += `${JSON.stringify(verdictLine(request, verdict))}\n`
      if (judged !== undefined) judgedText += `${JSON.stringify(request)}\n`
    })
    // A reader that stopped reading must not hold up an abort.
    const written = [
      ...(verdicts === undefined ? [] : [write(verdicts, text)]),
      ...(judged === undefined ? [] : [write(judged, judgedText)]),
    ]
    if (written.length > 0 && (await unlessAborted(Promise.all(written), signal)) === ABORTED) {
      return false
    }
    options.onProgress?.(progress())
    return true
  }

  const send = (items: ReplayItem[]) => {
    const batch = { items, verdicts: evaluator.evaluate(items, batchOptions) }
    // Settled in order by settleOldest; until then a rejection must not go unheard.
    batch.verdicts.catch(() => undefined)
    out.push(batch)
  }

  let cancelled = false
  try {
    let items: ReplayItem[] = []
    for (;;) {
      const next = await unlessAborted(records.next(), signal)
      if (next === ABORTED) {
        cancelled = true
        break
      }
      if (next.done === true) break
      const record = next.value
      if (isSkipped(record)) {
        skipped++
        continue
      }
      for (const part of record.absent) absent.add(part)
      items.push({
        line: record.line,
        request: record.request,
        ...(record.time === undefined ? {} : { time: record.time }),
        ...(record.rayId === undefined ? {} : { rayId: record.rayId }),
      })
      if (items.length < BATCH_SIZE) continue
      send(items)
      items = []
      if (out.length >= window && !(await settleOldest())) {
        cancelled = true
        break
      }
    }
    if (!cancelled && items.length > 0) send(items)
    while (!cancelled && out.length > 0) if (!(await settleOldest())) cancelled = true
  } finally {
    if (cancelled) void records.return?.()
  }
  return {
    requests,
    skipped,
    lacked_fields: lackedFields(absent, evaluator.fields),
    cancelled,
  }
}

function verdictLine(request: ReplayItem['request'], verdict: ReplayVerdict): ReplayVerdictLine {
  return {
    line: verdict.line,
    ray_id: verdict.ray_id,
    method: request.method.toUpperCase(),
    url: request.url,
    outcome: verdict.outcome,
    action: verdict.action,
    rules: verdict.events.map((event) => event.rule_id),
    ...(verdict.trace === undefined ? {} : { trace: verdict.trace }),
  }
}
