// Opening a replay's input: gzip is recognised by its magic bytes and inflated as it streams,
// then the format is detected from the first line (or named), and the input is cut into batches
// of lines (or HAR entries) that a worker reads (batch.ts). Memory is bounded by a batch of the
// longest lines (or HAR entries), never by the input.

import { createGunzip } from 'node:zlib'
import { Readable } from 'node:stream'
import { badRequest } from '@shared/api/errors'
import { REPLAY_ERRORS } from '@shared/api/error-codes'
import type { ReplayBatch } from './batch'
import { lineBatches } from './lines'
import { isCombinedLine } from './formats/combined'
import { harBatches } from './formats/har'
import { LOGPUSH_REQUEST_FIELDS } from './formats/logpush'
import { REPLAY_FORMATS, type ReplayFormat } from './formats/types'

export interface ReplayInputOptions {
  /** the format, when not detected */
  format?: string
  /** the host of requests a log gives in origin form (combined logs carry none) */
  host?: string
}

export interface ReplayInput {
  format: ReplayFormat
  /** whether the input was gzip */
  gzip: boolean
  /** the format was detected (not named) */
  detected: boolean
  /** the host of requests a log gives in origin form, as the options named it */
  host?: string
  /** the input in batches of `size` lines (HAR: entries), read in `format` where evaluated */
  batches(size: number): AsyncIterable<ReplayBatch>
  /** bytes of input read so far (compressed bytes, for gzip) */
  bytesRead(): number
}

/** The format named by `name`, or the replay's refusal. */
export function replayFormatOf(name: string): ReplayFormat {
  if ((REPLAY_FORMATS as readonly string[]).includes(name)) return name as ReplayFormat
  throw badRequest(
    REPLAY_ERRORS.formatInvalid,
    `Unknown replay format "${name}": use one of ${REPLAY_FORMATS.join(', ')}`,
  )
}

/** The format of a line-based input from its first non-blank line, if it is one we read. */
export function detectFormat(firstLine: string): ReplayFormat | undefined {
  const text = firstLine.trim()
  if (text.startsWith('{')) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      // A HAR written over many lines opens with `{` and its first key alone.
      return /^\{\s*("log"\s*:.*)?$/.test(text) ? 'har' : undefined
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
    if ('log' in value) return 'har'
    if (LOGPUSH_REQUEST_FIELDS.some((field) => field in value)) return 'logpush'
    if ('method' in value && 'url' in value) return 'requests'
    return undefined
  }
  return isCombinedLine(text) ? 'combined' : undefined
}

/** Chunks that replay `first` before the rest of `rest`. */
async function* prepend(first: Uint8Array[], rest: AsyncIterator<Uint8Array>) {
  yield* first
  for (let next = await rest.next(); next.done !== true; next = await rest.next()) yield next.value
}

async function* counted(chunks: AsyncIterable<Uint8Array>, count: (n: number) => void) {
  for await (const chunk of chunks) {
    count(chunk.byteLength)
    yield chunk
  }
}

/** Reads `source` until `enough` holds of what was read, keeping what was read. */
async function peek(
  source: AsyncIterator<Uint8Array>,
  enough: (head: Buffer) => boolean,
): Promise<{ chunks: Uint8Array[]; head: Buffer }> {
  const chunks: Uint8Array[] = []
  let head = Buffer.alloc(0)
  while (!enough(head)) {
    const next = await source.next()
    if (next.done === true) break
    chunks.push(next.value)
    head = Buffer.concat([head, next.value])
  }
  return { chunks, head }
}

/** The first line that is not blank, from the start of a text input (at most 64 KiB read). */
const HEAD_LIMIT = 64 * 1024
function firstLineOf(head: Buffer): string | undefined {
  for (const line of head.toString('utf8').split('\n')) if (line.trim() !== '') return line
  return undefined
}
const hasFirstLine = (head: Buffer) =>
  head.length >= HEAD_LIMIT || /\S[^\n]*\n/.test(head.toString('latin1'))

export async function openReplayInput(
  source: AsyncIterable<Uint8Array>,
  options: ReplayInputOptions = {},
): Promise<ReplayInput> {
  const named = options.format === undefined ? undefined : replayFormatOf(options.format)
  let bytes = 0
  const raw = counted(source, (n) => (bytes += n))[Symbol.asyncIterator]()
  const magic = await peek(raw, (head) => head.length >= 2)
  const gzip = magic.head[0] === 0x1f && magic.head[1] === 0x8b
  const decoded: AsyncIterable<Uint8Array> = gzip
    ? Readable.from(prepend(magic.chunks, raw)).pipe(createGunzip())
    : prepend(magic.chunks, raw)
  const text = decoded[Symbol.asyncIterator]()
  const head = await peek(text, hasFirstLine)
  const firstLine = firstLineOf(head.head)
  const format = named ?? (firstLine === undefined ? 'requests' : detectFormat(firstLine))
  if (format === undefined) {
    // The line itself is not quoted: the input may be a file the service read at the caller's
    // word (`{"file": …}`), whose content the caller may not otherwise see.
    throw badRequest(
      REPLAY_ERRORS.formatUnknown,
      `Could not tell the replay's format from its first line (${firstLine!.length} characters, none of the formats' shapes): name one of ${REPLAY_FORMATS.join(', ')}`,
    )
  }
  const chunks = prepend(head.chunks, text)
  return {
    format,
    gzip,
    detected: named === undefined,
    ...(options.host === undefined ? {} : { host: options.host }),
    batches: (size) => (format === 'har' ? harBatches(chunks, size) : lineBatches(chunks, size)),
    bytesRead: () => bytes,
  }
}
