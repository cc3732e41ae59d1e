// Lines of a byte stream, read as they arrive: a replay never holds more than the line it is on
// and the chunk it came in, whatever the size of the input.

import { badRequest } from '@shared/api/errors'
import { REPLAY_ERRORS } from '@shared/api/error-codes'

export interface Line {
  /** the line's text (UTF-8; an invalid sequence reads as U+FFFD), without its end of line */
  text: string
  /** 1-based */
  number: number
}

/** The longest line read: a Logpush line with every header is some kilobytes. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024

/** Splits `chunks` at LF (a CR before it is dropped); the last line needs no LF. */
export async function* linesOf(
  chunks: AsyncIterable<Uint8Array>,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<Line> {
  let pending: Buffer[] = []
  let pendingBytes = 0
  let number = 0
  const take = (tail: Buffer): Line => {
    const whole = pending.length === 0 ? tail : Buffer.concat([...pending, tail])
    pending = []
    pendingBytes = 0
    const end =
      whole.length > 0 && whole[whole.length - 1] === 0x0d ? whole.length - 1 : whole.length
    return { text: whole.toString('utf8', 0, end), number: ++number }
  }
  for await (const chunk of chunks) {
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    let start = 0
    for (let at = buffer.indexOf(0x0a, start); at !== -1; at = buffer.indexOf(0x0a, start)) {
      if (pendingBytes + at - start > maxLineBytes) throw tooLong(number + 1, maxLineBytes)
      yield take(buffer.subarray(start, at))
      start = at + 1
    }
    if (start < buffer.length) {
      pendingBytes += buffer.length - start
      if (pendingBytes > maxLineBytes) throw tooLong(number + 1, maxLineBytes)
      // A copy: the stream may reuse the chunk's memory once we return.
      pending.push(Buffer.from(buffer.subarray(start)))
    }
  }
  if (pendingBytes > 0) yield take(Buffer.alloc(0))
}

function tooLong(line: number, limit: number) {
  return badRequest(REPLAY_ERRORS.lineTooLong, `Line ${line} is longer than ${limit} bytes`)
}
