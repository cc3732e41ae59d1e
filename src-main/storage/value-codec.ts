// V8's value serialization format (version 15), written and read directly for the values objects
// store most: strings, numbers, booleans, null, undefined, Dates, plain objects and dense arrays of
// those. Creating a v8.Serializer or v8.Deserializer costs microseconds per value, several times
// the cost of the SQLite write or read itself; this path costs a small fraction of that. Anything
// else (Map, Set, typed arrays, BigInt, shared references, holes, proxies…) is left to V8: the
// functions here return null / NOT_COMMON and the caller uses V8's own serializer. One file,
// though long: the writer and the reader are the two halves of one byte format and share its tags.
//
// The bytes are V8's for the same value as a fresh literal or JSON.parse() would build it. V8
// writes some values according to how they are held in memory, which JS cannot observe: an
// integral number held as a double (a field or array that once held a fraction) is written as a
// double, an array once created with holes as sparse. Both forms decode to the same value.
import { types } from 'node:util'

const HEADER_TAG = 0xff
const HEADER_VERSION = 0x0f
const TAG_PADDING = 0x00
const TAG_UNDEFINED = 0x5f // _
const TAG_NULL = 0x30 // 0
const TAG_TRUE = 0x54 // T
const TAG_FALSE = 0x46 // F
const TAG_INT32 = 0x49 // I
const TAG_DOUBLE = 0x4e // N
const TAG_ONE_BYTE_STRING = 0x22 // "
const TAG_TWO_BYTE_STRING = 0x63 // c
const TAG_DATE = 0x44 // D
const TAG_BEGIN_OBJECT = 0x6f // o
const TAG_END_OBJECT = 0x7b // {
const TAG_BEGIN_DENSE_ARRAY = 0x41 // A
const TAG_END_DENSE_ARRAY = 0x24 // $

/** Largest array index: keys up to it are elements, which V8 writes as numbers. */
const MAX_ARRAY_INDEX = 4294967294
/** A string this short is checked and copied character by character, cheaper than a native call. */
const SHORT_STRING = 64
const NOT_LATIN1 = /[\u0100-\uffff]/
const CANONICAL_INDEX = /^(?:0|[1-9][0-9]*)$/
const SHORT_COPY = 128
/** Beyond this many objects in one value, shared references are looked for in a Set. */
const SEEN_LIST_LIMIT = 16

// ---- writing ----------------------------------------------------------------------------------

/** Writes one value at a time into a buffer it keeps and grows. */
class ValueWriter {
  private out = Buffer.allocUnsafe(4096)
  private position = 0
  private writing = false
  // Objects met so far in the current value, to leave shared references and cycles to V8.
  private readonly seenList: Array<object | undefined> = []
  private seenCount = 0
  private seenSet: Set<object> | null = null

  encode(value: unknown): Buffer | null {
    // A getter inside the value could store another value meanwhile; that one goes to V8.
    if (this.writing) return null
    this.writing = true
    this.position = 0
    try {
      this.reserve(2)
      this.out[this.position++] = HEADER_TAG
      this.out[this.position++] = HEADER_VERSION
      if (!this.writeAny(value)) return null
      const length = this.position
      const bytes = Buffer.allocUnsafe(length)
      // Copying a few dozen bytes in JS is cheaper than calling into Buffer.copy().
      if (length <= SHORT_COPY) for (let i = 0; i < length; i++) bytes[i] = this.out[i] ?? 0
      else this.out.copy(bytes, 0, 0, length)
      return bytes
    } catch {
      // A getter threw or the value nests too deeply: V8 reports it in its own words.
      return null
    } finally {
      this.writing = false
      for (let i = 0; i < this.seenCount; i++) this.seenList[i] = undefined
      this.seenCount = 0
      this.seenSet = null
    }
  }

  private writeAny(value: unknown): boolean {
    switch (typeof value) {
      case 'string':
        this.writeString(value)
        return true
      case 'number':
        this.writeNumber(value)
        return true
      case 'boolean':
        this.writeByte(value ? TAG_TRUE : TAG_FALSE)
        return true
      case 'undefined':
        this.writeByte(TAG_UNDEFINED)
        return true
      case 'object':
        if (value === null) {
          this.writeByte(TAG_NULL)
          return true
        }
        return Array.isArray(value) ? this.writeArray(value) : this.writeObject(value)
      default:
        return false
    }
  }

  private writeObject(object: object): boolean {
    const prototype: unknown = Object.getPrototypeOf(object)
    if (prototype === Date.prototype) return types.isDate(object) && this.writeDate(object as Date)
    if (prototype !== Object.prototype && prototype !== null) return false
    if (types.isProxy(object) || types.isArgumentsObject(object)) return false
    if (prototype === null && types.isModuleNamespaceObject(object)) return false
    if (!this.firstVisit(object)) return false
    const keys = Object.keys(object)
    // Values in one call: cheaper than looking each key up. A getter that deletes a property later
    // in the object leaves fewer values than keys; V8 then writes what it finds.
    const values = Object.values(object)
    if (values.length !== keys.length) return false
    for (const key of keys) if (isArrayIndex(key)) return false
    this.writeByte(TAG_BEGIN_OBJECT)
    for (let i = 0; i < keys.length; i++) {
      this.writeString(keys[i] as string)
      if (!this.writeAny(values[i])) return false
    }
    this.writeByte(TAG_END_OBJECT)
    this.writeVarint(keys.length)
    return true
  }

  private writeArray(array: unknown[]): boolean {
    if (Object.getPrototypeOf(array) !== Array.prototype || types.isProxy(array)) return false
    if (!this.firstVisit(array)) return false
    const length = array.length
    // Fewer keys than elements means holes, more means extra properties: both are V8's to write.
    if (Object.keys(array).length !== length) return false
    // V8 holds an array of numbers that are not all small integers as doubles, and writes them so.
    let allNumbers = length > 0
    let anyNonInt32 = false
    for (let i = 0; i < length && allNumbers; i++) {
      const element = array[i]
      if (typeof element !== 'number') allNumbers = false
      else if (!isInt32(element)) anyNonInt32 = true
    }
    this.writeByte(TAG_BEGIN_DENSE_ARRAY)
    this.writeVarint(length)
    if (allNumbers && anyNonInt32) {
      for (let i = 0; i < length; i++) this.writeDouble(array[i] as number)
    } else {
      for (let i = 0; i < length; i++) if (!this.writeAny(array[i])) return false
    }
    this.writeByte(TAG_END_DENSE_ARRAY)
    this.writeVarint(0)
    this.writeVarint(length)
    return true
  }

  private writeDate(date: Date): boolean {
    if (!this.firstVisit(date)) return false
    this.reserve(9)
    this.out[this.position++] = TAG_DATE
    this.out.writeDoubleLE(date.getTime(), this.position)
    this.position += 8
    return true
  }

  private writeNumber(value: number): void {
    if (!isInt32(value)) return this.writeDouble(value)
    this.writeByte(TAG_INT32)
    // ZigZag: small negative numbers take few bytes too.
    this.writeVarint(((value << 1) ^ (value >> 31)) >>> 0)
  }

  private writeDouble(value: number): void {
    this.reserve(9)
    this.out[this.position++] = TAG_DOUBLE
    this.out.writeDoubleLE(value, this.position)
    this.position += 8
  }

  // V8 writes a string as Latin-1 when every character fits in a byte, else as UTF-16, padded so
  // that the characters start at an even offset.
  private writeString(value: string): void {
    const length = value.length
    this.reserve(2 * length + 12)
    const out = this.out
    const start = this.position
    if (length <= SHORT_STRING) {
      // One pass: copy as Latin-1 and give up at the first wider character.
      out[start] = TAG_ONE_BYTE_STRING
      this.position = start + 1
      this.writeVarint(length)
      let position = this.position
      let i = 0
      for (; i < length; i++) {
        const code = value.charCodeAt(i)
        if (code > 0xff) break
        out[position++] = code
      }
      if (i === length) {
        this.position = position
        return
      }
      this.position = start
    } else if (!NOT_LATIN1.test(value)) {
      out[this.position++] = TAG_ONE_BYTE_STRING
      this.writeVarint(length)
      this.position += out.write(value, this.position, length, 'latin1')
      return
    }
    const byteLength = 2 * length
    if (((this.position + 1 + varintSize(byteLength)) & 1) === 1) out[this.position++] = TAG_PADDING
    out[this.position++] = TAG_TWO_BYTE_STRING
    this.writeVarint(byteLength)
    this.position += out.write(value, this.position, byteLength, 'utf16le')
  }

  private writeByte(byte: number): void {
    this.reserve(1)
    this.out[this.position++] = byte
  }

  private writeVarint(value: number): void {
    this.reserve(5)
    let rest = value
    while (rest >= 0x80) {
      this.out[this.position++] = (rest & 0x7f) | 0x80
      rest >>>= 7
    }
    this.out[this.position++] = rest
  }

  private reserve(bytes: number): void {
    if (this.position + bytes <= this.out.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.position + bytes))
    this.out.copy(grown, 0, 0, this.position)
    this.out = grown
  }

  // An object met twice (a shared reference or a cycle) is written by V8 as a back-reference.
  private firstVisit(object: object): boolean {
    if (this.seenSet !== null) {
      if (this.seenSet.has(object)) return false
      this.seenSet.add(object)
      return true
    }
    for (let i = 0; i < this.seenCount; i++) if (this.seenList[i] === object) return false
    this.seenList[this.seenCount++] = object
    if (this.seenCount > SEEN_LIST_LIMIT)
      this.seenSet = new Set(this.seenList.slice(0, this.seenCount) as object[])
    return true
  }
}

function varintSize(value: number): number {
  let size = 1
  for (let rest = value; rest >= 0x80; rest >>>= 7) size++
  return size
}

function isInt32(value: number): boolean {
  return (value | 0) === value && !(value === 0 && 1 / value < 0)
}

function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0)
  return first >= 0x30 && first <= 0x39 && CANONICAL_INDEX.test(key) && +key <= MAX_ARRAY_INDEX
}

const writer = new ValueWriter()

/** The value's V8 serialization (header included), or null when V8 must write it. */
export function encodeCommonValue(value: unknown): Buffer | null {
  return writer.encode(value)
}

// ---- reading ----------------------------------------------------------------------------------

/** What decodeCommonValue() returns for bytes it leaves to V8. */
export const NOT_COMMON: unique symbol = Symbol('not a common value')
const NOT_COMMON_ERROR = new Error('not a common value')

/**
 * Buffer's own decoders behind toString('latin1' | 'utf16le'), without its argument checks: on
 * Buffer.prototype in every Node version this runs on, only missing from Node's type definitions.
 */
interface DecodingBuffer extends Buffer {
  latin1Slice(start: number, end: number): string
  ucs2Slice(start: number, end: number): string
}

const KEY_CACHE_SLOTS = 1024
const MAX_CACHED_KEY_BYTES = 32
const FNV_PRIME = 0x01000193
/** Stands for reading past the end, so that a byte is always a number. */
const NOT_A_BYTE = 0x100

/** Reads one value at a time; reading calls no user code, so one reader serves every call. */
class ValueReader {
  private input = Buffer.alloc(0) as DecodingBuffer
  private at = 0
  private end = 0
  // Property names recur from value to value. A string made from bytes is not yet internalized,
  // and V8 must look it up in its string table before using it as a key: reusing the string read
  // the last time the same bytes came by skips both the copy and the lookup.
  private readonly keyCache = new Array<string | undefined>(KEY_CACHE_SLOTS)

  /** Where the last value decoded ended. */
  get decodedEnd(): number {
    return this.at
  }

  /** Decodes the value starting at `start`; with `exactEnd`, it must end there. */
  decode(bytes: Buffer, start: number, end: number, exactEnd: boolean): unknown {
    if (bytes[start] !== HEADER_TAG || bytes[start + 1] !== HEADER_VERSION) return NOT_COMMON
    this.input = bytes as DecodingBuffer
    this.at = start + 2
    this.end = end
    try {
      const value = this.readAny()
      return exactEnd && this.at !== end ? NOT_COMMON : value
    } catch {
      // Unknown tags, truncated data or deep nesting: V8 decides, and words any error.
      return NOT_COMMON
    }
  }

  private readAny(): unknown {
    switch (this.readTag()) {
      case TAG_INT32: {
        const zigzag = this.readVarint()
        return (zigzag >>> 1) ^ -(zigzag & 1)
      }
      case TAG_DOUBLE:
        return this.readDouble()
      case TAG_ONE_BYTE_STRING:
        return this.readLatin1String(this.readVarint())
      case TAG_TWO_BYTE_STRING:
        return this.readTwoByteString(this.readVarint())
      case TAG_TRUE:
        return true
      case TAG_FALSE:
        return false
      case TAG_NULL:
        return null
      case TAG_UNDEFINED:
        return undefined
      case TAG_BEGIN_OBJECT:
        return this.readObject()
      case TAG_BEGIN_DENSE_ARRAY:
        return this.readDenseArray()
      case TAG_DATE:
        return new Date(this.readDouble())
      default:
        throw NOT_COMMON_ERROR
    }
  }

  private readObject(): Record<string, unknown> {
    const object: Record<string, unknown> = {}
    let count = 0
    for (;;) {
      const tag = this.peekTag()
      if (tag === TAG_END_OBJECT) {
        this.at++
        if (this.readVarint() !== count) throw NOT_COMMON_ERROR
        return object
      }
      const key = tag === TAG_ONE_BYTE_STRING ? this.readKey() : this.readAny()
      // V8 defines "__proto__" as an own property; assigning it would set the prototype.
      if (key === '__proto__' || (typeof key !== 'string' && typeof key !== 'number'))
        throw NOT_COMMON_ERROR
      object[key] = this.readAny()
      count++
    }
  }

  private readDenseArray(): unknown[] {
    const length = this.readVarint()
    const array: unknown[] = []
    for (let i = 0; i < length; i++) array.push(this.readAny())
    // Holes and extra properties are V8's to read.
    if (
      this.readTag() !== TAG_END_DENSE_ARRAY ||
      this.readVarint() !== 0 ||
      this.readVarint() !== length
    )
      throw NOT_COMMON_ERROR
    return array
  }

  private readKey(): string {
    this.at++
    const byteLength = this.readVarint()
    const input = this.input
    const start = this.at
    const end = start + byteLength
    if (byteLength > MAX_CACHED_KEY_BYTES || end > this.end)
      return this.readLatin1String(byteLength)
    let hash = byteLength
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ (input[i] ?? 0), FNV_PRIME)
    const slot = hash & (KEY_CACHE_SLOTS - 1)
    const cached = this.keyCache[slot]
    if (cached !== undefined && cached.length === byteLength && spells(cached, input, start)) {
      this.at = end
      return cached
    }
    const key = this.readLatin1String(byteLength)
    this.keyCache[slot] = key
    return key
  }

  private readLatin1String(byteLength: number): string {
    const end = this.at + byteLength
    if (end > this.end) throw NOT_COMMON_ERROR
    const value = this.input.latin1Slice(this.at, end)
    this.at = end
    return value
  }

  private readTwoByteString(byteLength: number): string {
    const end = this.at + byteLength
    if (end > this.end || byteLength % 2 === 1) throw NOT_COMMON_ERROR
    const value = this.input.ucs2Slice(this.at, end)
    this.at = end
    return value
  }

  private readDouble(): number {
    if (this.at + 8 > this.end) throw NOT_COMMON_ERROR
    const value = this.input.readDoubleLE(this.at)
    this.at += 8
    return value
  }

  private readTag(): number {
    let tag = this.readByte()
    while (tag === TAG_PADDING) tag = this.readByte()
    return tag
  }

  private peekTag(): number {
    while (this.at < this.end && this.input[this.at] === TAG_PADDING) this.at++
    return this.at < this.end ? (this.input[this.at] ?? NOT_A_BYTE) : NOT_A_BYTE
  }

  private readByte(): number {
    return this.at < this.end ? (this.input[this.at++] ?? NOT_A_BYTE) : NOT_A_BYTE
  }

  private readVarint(): number {
    let byte = this.readByte()
    if (byte < 0x80) return byte
    let value = 0
    for (let shift = 0; ; shift += 7) {
      if (byte === NOT_A_BYTE) throw NOT_COMMON_ERROR
      // The fifth byte carries the top four bits of a 32-bit value; bit 31 must not become a sign.
      if (shift === 28) {
        if (byte > 0x0f) throw NOT_COMMON_ERROR
        return value + byte * 2 ** 28
      }
      value |= (byte & 0x7f) << shift
      if (byte < 0x80) return value
      byte = this.readByte()
    }
  }
}

function spells(text: string, bytes: Buffer, start: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== bytes[start + i]) return false
  return true
}

const reader = new ValueReader()

/** Decodes the value in bytes[start, end) written in V8's format version 15, or returns NOT_COMMON. */
export function decodeCommonValue(bytes: Buffer, start = 0, end = bytes.length): unknown {
  return reader.decode(bytes, start, end, true)
}

/**
 * Decodes the value that starts at `start` of values stored back to back, or returns NOT_COMMON;
 * after a value, decodedEnd() tells where the next one starts.
 */
export function decodeNextCommonValue(bytes: Buffer, start: number): unknown {
  return reader.decode(bytes, start, bytes.length, false)
}

export function decodedEnd(): number {
  return reader.decodedEnd
}

/**
 * A fresh copy of a value decodeCommonValue() returned, the same as decoding its bytes again:
 * such a value is a tree of plain objects, dense arrays, Dates and primitives. Strings are
 * immutable, so the copy shares them. An object is copied by spreading, which defines the
 * properties as V8's deserializer does (and takes the source's exact size, cheaper to allocate
 * and collect); then its nested objects are copied in turn.
 */
export function copyCommonValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    const copy: unknown[] = []
    for (let i = 0; i < value.length; i++) copy.push(copyCommonValue(value[i]))
    return copy
  }
  if (value instanceof Date) return new Date(value.getTime())
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  const keys = Object.keys(copy)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    const item = copy[key]
    if (typeof item === 'object' && item !== null) copy[key] = copyCommonValue(item)
  }
  return copy
}
