// Turns list() options into byte bounds, following the runtime's compileListOptions rules.
import { encodeKey } from './encoding'

export interface ListOptions {
  start?: string
  startAfter?: string
  end?: string
  prefix?: string
  reverse?: boolean
  limit?: number
  allowConcurrency?: boolean
  noCache?: boolean
}

/** A key range over UTF-8 bytes: `start` inclusive, `end` exclusive (null: unbounded). */
export interface KeyRange {
  start: Buffer
  end: Buffer | null
  reverse: boolean
  limit: number | null
}

const INT32_MIN = -2147483648
const INT32_MAX = 2147483647

/** Compiles list options; returns null when the range is empty and storage need not be read. */
export function compileListOptions(options: ListOptions | undefined): KeyRange | null {
  const given = options ?? {}
  if (given.start !== undefined && given.startAfter !== undefined) {
    throw new TypeError('list() cannot be called with both start and startAfter values.')
  }
  const limit = given.limit === undefined ? null : toLong(given.limit)
  if (limit !== null && limit <= 0) throw new TypeError('List limit must be positive.')

  let start =
    given.startAfter !== undefined
      ? Buffer.concat([encodeKey(String(given.startAfter)), Buffer.from([0])])
      : encodeKey(given.start === undefined ? '' : String(given.start))
  let end = given.end === undefined ? null : encodeKey(String(given.end))

  const prefix = given.prefix === undefined ? '' : String(given.prefix)
  if (prefix !== '') {
    const prefixBytes = encodeKey(prefix)
    if (Buffer.compare(start, prefixBytes) < 0) start = prefixBytes
    else if (!start.subarray(0, prefixBytes.length).equals(prefixBytes)) return null
    const prefixEnd = smallestKeyAfterPrefix(prefixBytes)
    if (end !== null && Buffer.compare(end, prefixBytes) <= 0) return null
    if (end === null || (prefixEnd !== null && Buffer.compare(end, prefixEnd) > 0)) end = prefixEnd
  }
  if (end !== null && Buffer.compare(end, start) <= 0) return null
  return { start, end, reverse: Boolean(given.reverse), limit }
}

// The first byte string greater than every string starting with `prefix`; null if none exists.
function smallestKeyAfterPrefix(prefix: Buffer): Buffer | null {
  let length = prefix.length
  while (length > 0 && prefix[length - 1] === 0xff) length--
  if (length === 0) return null
  const bound = Buffer.from(prefix.subarray(0, length))
  bound[length - 1] = (bound[length - 1] ?? 0) + 1
  return bound
}

// WebIDL `long`: truncated towards zero, refused outside 32 bits.
function toLong(value: unknown): number {
  const number = Number(value)
  if (!Number.isFinite(number)) return 0
  const truncated = Math.trunc(number)
  if (truncated < INT32_MIN || truncated > INT32_MAX) {
    throw new TypeError(
      `Value out of range. Must be between ${INT32_MIN} and ${INT32_MAX} (inclusive).`,
    )
  }
  return truncated
}
