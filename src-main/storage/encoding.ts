// How keys and values are laid out in `_cf_KV`, byte for byte as the vendor's runtime writes them.
import { Deserializer, Serializer } from 'node:v8'
import {
  decodeCommonValue,
  decodedEnd,
  decodeNextCommonValue,
  encodeCommonValue,
  NOT_COMMON,
} from './value-codec'

/**
 * Serializes a value as workerd does: V8's *base* serializer with a version-15 header. Node's
 * `v8.serialize()` is not used because its DefaultSerializer writes typed arrays as host objects,
 * which workerd neither writes nor reads. Common values take a faster path writing the same bytes.
 */
export function serializeValue(value: unknown): Buffer {
  return encodeCommonValue(value) ?? serializeWithV8(value)
}

function serializeWithV8(value: unknown): Buffer {
  const serializer = new Serializer()
  serializer.writeHeader()
  try {
    serializer.writeValue(value)
  } catch (error) {
    // Node throws a plain Error; the runtime throws a DOMException named DataCloneError.
    throw new DOMException(error instanceof Error ? error.message : String(error), 'DataCloneError')
  }
  return serializer.releaseBuffer()
}

/** Reads a stored value; accepts the header-less legacy form (version 13) as workerd does. */
export function deserializeValue(bytes: Buffer, start = 0, end = bytes.length): unknown {
  const common = decodeCommonValue(bytes, start, end)
  if (common !== NOT_COMMON) return common
  const value = start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end)
  const deserializer = new Deserializer(value)
  if (value[0] === 0xff) deserializer.readHeader()
  return deserializer.readValue()
}

/**
 * Reads `count` values stored back to back in `bytes`, telling where each ends from its own
 * encoding; null if one of them is not a common value (whose end only V8 could tell). `lengths`,
 * if given, receives each value's length in bytes.
 */
export function deserializeBackToBack(
  bytes: Buffer,
  count: number,
  lengths?: number[],
): unknown[] | null {
  const values = new Array<unknown>(count)
  let offset = 0
  for (let i = 0; i < count; i++) {
    const value = decodeNextCommonValue(bytes, offset)
    if (value === NOT_COMMON) return null
    values[i] = value
    lengths?.push(decodedEnd() - offset)
    offset = decodedEnd()
  }
  return offset === bytes.length ? values : null
}

/** Reads values stored back to back in `bytes`, each `lengths[i]` bytes long. */
export function deserializeEach(bytes: Buffer, lengths: number[]): unknown[] {
  const values = new Array<unknown>(lengths.length)
  let offset = 0
  for (let i = 0; i < lengths.length; i++) {
    const end = offset + (lengths[i] ?? 0)
    values[i] = deserializeValue(bytes, offset, end)
    offset = end
  }
  return values
}

/** True when the string holds a lone surrogate, which UTF-8 cannot carry (see `encodeKey`). */
export function hasLoneSurrogate(key: string): boolean {
  return !key.isWellFormed()
}

/**
 * Encodes a key as the runtime does: UTF-8, with lone surrogates written as their three-byte
 * WTF-8 form (Node's encoder would write U+FFFD instead, colliding distinct keys).
 */
export function encodeKey(key: string): Buffer {
  if (!hasLoneSurrogate(key)) return Buffer.from(key, 'utf8')
  const bytes: number[] = []
  for (const char of key) {
    const codePoint = char.codePointAt(0) ?? 0
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) {
      bytes.push(
        0xe0 | (codePoint >> 12),
        0x80 | ((codePoint >> 6) & 0x3f),
        0x80 | (codePoint & 0x3f),
      )
    } else {
      for (const byte of Buffer.from(char, 'utf8')) bytes.push(byte)
    }
  }
  return Buffer.from(bytes)
}

/**
 * The key as reading it back from storage yields it: a lone surrogate's three WTF-8 bytes decode
 * to three U+FFFD, as they do in the runtime.
 */
export function keyAsStored(key: string): string {
  return hasLoneSurrogate(key) ? encodeKey(key).toString('utf8') : key
}

/** Size of a key in bytes as the limits count it. */
export function keyByteLength(key: string): number {
  // A lone surrogate takes three bytes in WTF-8, exactly as many as the U+FFFD Node substitutes.
  return Buffer.byteLength(key, 'utf8')
}

/**
 * Orders keys by their UTF-8 (WTF-8) bytes, the order of SQLite's BINARY collation. That is code
 * point order, which differs from JS `<` (UTF-16 code units) for characters above U+FFFF.
 */
export function compareKeys(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    return codePointRank(a, i, x) - codePointRank(b, i, y)
  }
  return a.length - b.length
}

// The code point starting (or, for a trailing half, continuing) at index i, enough to rank two
// strings that first differ at i.
function codePointRank(s: string, i: number, unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdbff) {
    const next = s.charCodeAt(i + 1)
    if (next >= 0xdc00 && next <= 0xdfff) return 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00)
  } else if (unit >= 0xdc00 && unit <= 0xdfff) {
    const previous = s.charCodeAt(i - 1)
    if (previous >= 0xd800 && previous <= 0xdbff)
      return 0x10000 + ((previous - 0xd800) << 10) + (unit - 0xdc00)
  }
  return unit
}
