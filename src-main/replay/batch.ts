// A replay's batch as the main thread cuts it and a worker reads it: the main thread only finds
// where lines (or HAR entries) end and sends their text, so that reading each request (JSON.parse,
// the format's mapping) runs on the workers, beside the evaluation, instead of on the thread that
// answers the API and the UI. The answer comes back as compact: what the tally needs of each
// request, and, when the run writes them, its verdict and request lines already serialized.
//
//   worker:      answerOf(itemsOf(recordsOfBatch(batch, options)), evaluateItems(…), options)
//   in process:  the same, with the simulator's evaluation in the middle (api/replay.ts)

import type { SimulatedRequest } from '@shared/api/simulate'
import { combinedRequestOfLine } from './formats/combined'
import { harRequestOf, type HarBatch } from './formats/har'
import { logpushRequestOfLine } from './formats/logpush'
import { requestOfLine } from './formats/requests'
import { isSkipped, type ReplayRecord, type RequestPart } from './formats/types'
import type { Line, LineBatch } from './lines'
import type { ReplayBatchOptions, ReplayItem, ReplayVerdict } from './evaluation'

/**
 * Lines of a line format (the bytes between two line ends, UTF-8, LF-separated, the first
 * numbered `first`), or the JSON texts of HAR entries (the first the `first`th entry, 1-based).
 * Bytes, not a string: a worker decodes them, and their clone is a copy.
 */
export type ReplayBatch = LineBatch | HarBatch

/** One request of a batch judged: its verdict, and what the tally needs of its request. */
export interface JudgedRequest extends Omit<ReplayVerdict, 'trace'> {
  method: string
  url: string
  /** the whole request, when the batch asked for it (ReplayBatchOptions.requests) */
  request?: SimulatedRequest
}

export interface ReplayBatchAnswer {
  /** the batch's requests, in input order */
  judged: JudgedRequest[]
  /** lines that recorded no request */
  skipped: number
  /** the parts of a request some of the batch's logs did not carry */
  absent: RequestPart[]
  /** one NDJSON verdict line per request, when asked (ReplayBatchOptions.lines) */
  verdictLines?: string
  /** each request as a JSON line, in the verdicts' order, when asked */
  requestLines?: string
}

/** One verdict line of a run's NDJSON output (the verdict file, ?results=true's lines). */
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

const readerOf = (
  options: Pick<ReplayBatchOptions, 'format' | 'host'>,
): ((line: Line) => ReplayRecord) => {
  switch (options.format) {
    case 'logpush':
      return logpushRequestOfLine
    case 'combined':
      return (line) => combinedRequestOfLine(line, options.host)
    default:
      return requestOfLine
  }
}

/** The records of a batch, read in the run's format; blank lines record nothing. */
export function recordsOfBatch(
  batch: ReplayBatch,
  options: Pick<ReplayBatchOptions, 'format' | 'host'>,
): ReplayRecord[] {
  if ('entries' in batch) {
    return batch.entries.map((text, index) => harRequestOf(text, batch.first - 1 + index))
  }
  const read = readerOf(options)
  const text = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength)
  const records: ReplayRecord[] = []
  let number = batch.first
  for (const line of text.toString('utf8').split('\n')) {
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line
    if (trimmed.trim() !== '') records.push(read({ text: trimmed, number }))
    number++
  }
  return records
}

/** What a batch's records give to evaluate, and what they count. */
export interface BatchItems {
  items: ReplayItem[]
  skipped: number
  absent: RequestPart[]
}

export function itemsOf(records: readonly ReplayRecord[]): BatchItems {
  const items: ReplayItem[] = []
  const absent = new Set<RequestPart>()
  let skipped = 0
  for (const record of records) {
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
  }
  return { items, skipped, absent: [...absent] }
}

export function verdictLine(
  request: Pick<SimulatedRequest, 'method' | 'url'>,
  verdict: ReplayVerdict,
): ReplayVerdictLine {
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

/** The answer to a batch whose items got `verdicts` (in their order). */
export function answerOf(
  { items, skipped, absent }: BatchItems,
  verdicts: readonly ReplayVerdict[],
  options: Pick<ReplayBatchOptions, 'lines' | 'requests'>,
): ReplayBatchAnswer {
  let verdictLines = ''
  let requestLines = ''
  const judged = verdicts.map((verdict, index): JudgedRequest => {
    const { request } = items[index]!
    if (options.lines?.verdicts === true) {
      verdictLines += `${JSON.stringify(verdictLine(request, verdict))}\n`
    }
    if (options.lines?.requests === true) requestLines += `${JSON.stringify(request)}\n`
    // The trace goes in the verdict line only: the tally reads none.
    return {
      line: verdict.line,
      ray_id: verdict.ray_id,
      outcome: verdict.outcome,
      action: verdict.action,
      events: verdict.events,
      ...(verdict.in_scope === undefined ? {} : { in_scope: verdict.in_scope }),
      method: request.method,
      url: request.url,
      ...(options.requests === true ? { request } : {}),
    }
  })
  return {
    judged,
    skipped,
    absent,
    ...(options.lines?.verdicts === true ? { verdictLines } : {}),
    ...(options.lines?.requests === true ? { requestLines } : {}),
  }
}
