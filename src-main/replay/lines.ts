// Lines of a byte stream, read as they arrive and cut into batches of lines: a replay never holds
// more than a batch and the chunk it came in, whatever the size of the input. Only the line ends
// are looked for here (the main thread's share of a replay); the lines are read where the batch
// is evaluated (batch.ts).

import { badRequest } from '@shared/api/errors'
import { REPLAY_ERRORS } from '@shared/api/error-codes'

export interface Line {
  /** the line's text (UTF-8; an invalid sequence reads as U+FFFD), without its end of line */
  text: string
  /** 1-based */
  number: number
}

/** Lines of the input, the first numbered `first`: their bytes, LF-separated, without the last LF. */
export interface LineBatch {
  first: number
  bytes: Uint8Array
}

/** The longest line read: a Logpush line with every header is some kilobytes. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024

/** `pieces` in one array of its own (not a view on Buffer's shared pool, which a clone copies whole). */
function joined(pieces: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.byteLength, 0))
  let at = 0
  for (const piece of pieces) {
    bytes.set(piece, at)
    at += piece.byteLength
  }
  return bytes
}

/**
 * Cuts `chunks` into batches of `size` lines at LF (a line's CR before it is left for the reader
 * to drop); the last line needs no LF. A decoded line may not straddle batches: LF is never part of
 * a UTF-8 sequence, so each batch decodes as its lines would one by one.
 */
export async function* lineBatches(
  chunks: AsyncIterable<Uint8Array>,
  size: number,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<LineBatch> {
  /** the bytes of the batch so far, from earlier chunks (copies) */
  let held: Uint8Array[] = []
  let first = 1
  /** complete lines in the batch so far */
  let lines = 0
  /** bytes of the line being read */
  let lineBytes = 0
  for await (const chunk of chunks) {
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    let start = 0
    let from = 0
    for (let at = buffer.indexOf(0x0a, from); at !== -1; at = buffer.indexOf(0x0a, from)) {
      if (lineBytes + at - from > maxLineBytes) throw tooLong(first + lines, maxLineBytes)
      lineBytes = 0
      lines++
      from = at + 1
      if (lines < size) continue
      const bytes = joined([...held, buffer.subarray(start, at)])
      yield { first, bytes }
      first += lines
      lines = 0
      held = []
      start = from
    }
    lineBytes += buffer.length - from
    if (lineBytes > maxLineBytes) throw tooLong(first + lines, maxLineBytes)
    // A copy: the stream may reuse the chunk's memory once we return.
    if (start < buffer.length) held.push(new Uint8Array(buffer.subarray(start)))
  }
  if (held.length > 0) yield { first, bytes: joined(held) }
}

function tooLong(line: number, limit: number) {
  return badRequest(REPLAY_ERRORS.lineTooLong, `Line ${line} is longer than ${limit} bytes`)
}
