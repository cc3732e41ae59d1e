// A copy of `_cf_KV` in memory, in key order, built from a listing that read the whole table and
// serving the listings after it: a listing then costs a copy of each value instead of a query and
// a decode.
//
// Storage keeps it equal to what SQLite holds for the connection: the writes it hands SQLite are
// applied here at the same moment, and it drops the mirror whenever SQLite may hold something
// else (a rollback, deleteAll, a failure) or the mirror outgrows its budget. Values are kept
// decoded, never handed out: every listing gets copies.
import { compareKeys, deserializeValue, encodeKey, keyAsStored } from './encoding'
import { nextFrom } from './kv-table'
import type { KeyRange } from './list-options'
import { copyCommonValue, decodeCommonValue, NOT_COMMON } from './value-codec'

/** Memory the mirror may take, as estimated by entrySize(). */
export const MIRROR_BUDGET_BYTES = 32 * 1024 * 1024
/** A chunk is split past twice this many entries: an insert or delete moves at most that many. */
const CHUNK_ENTRIES = 512
/** Per entry: the entry object, its slots in the index and in a chunk. */
const ENTRY_OVERHEAD_BYTES = 160
/** A decoded value takes about twice its serialized size (object headers, UTF-16 strings). */
const DECODED_BYTES_PER_BYTE = 2
/** `decoded` of an entry whose bytes have not been decoded yet. */
const UNDECODED: unique symbol = Symbol('undecoded')

/** What the mirror holds for one row. */
interface MirrorEntry {
  /** The key as written (lone surrogates intact), whose WTF-8 bytes are the row's key. */
  readonly key: string
  /** The key as list() returns it (see keyAsStored). */
  readonly listedKey: string
  /**
   * Holds the stored value at [start, end), until decoded; kept for a value only V8 decodes. A
   * listing's page of values back to back serves all its rows.
   */
  bytes: Buffer | null
  start: number
  end: number
  /**
   * The value decoded by the common codec, copied for every listing and never handed out;
   * NOT_COMMON for a value only V8 decodes.
   */
  decoded: unknown
  size: number
}

const entrySize = (key: string, valueBytes: number): number =>
  ENTRY_OVERHEAD_BYTES + 2 * key.length + DECODED_BYTES_PER_BYTE * valueBytes

/** A position in the chunks: the entry at `offset` of chunk `chunk`. */
interface Position {
  chunk: number
  offset: number
}

export class KvMirror {
  /** The entries by key; built by the first write, so that a mirror only listed never needs it. */
  private index: Map<string, MirrorEntry> | null = null
  /**
   * Keys added or deleted since the chunks last took in such changes, which they do before the
   * next listing: a write only has to update the index.
   */
  private readonly unsorted = new Set<string>()

  private constructor(
    /** Every entry, in key order, in chunks of at most 2 × CHUNK_ENTRIES. */
    private readonly chunks: MirrorEntry[][],
    private bytes: number,
  ) {}

  /** The mirror of a table read whole: its entries in key order, `bytes` as estimated. */
  static fromSorted(entries: MirrorEntry[], bytes: number): KvMirror {
    const chunks: MirrorEntry[][] = []
    for (let i = 0; i < entries.length; i += CHUNK_ENTRIES)
      chunks.push(entries.slice(i, i + CHUNK_ENTRIES))
    return new KvMirror(chunks, bytes)
  }

  /** Estimated memory use: the budget bounds it. */
  get estimatedBytes(): number {
    return this.bytes
  }

  /** Applies the writes just handed to SQLite: bytes are stored, null deletes the key. */
  apply(writes: ReadonlyMap<string, Buffer | null>): void {
    const index = this.indexed()
    for (const [key, bytes] of writes) {
      const entry = index.get(key)
      if (bytes === null) {
        if (entry === undefined) continue
        index.delete(key)
        this.bytes -= entry.size
        this.unsorted.add(key)
      } else if (entry !== undefined) {
        const size = entrySize(key, bytes.length)
        this.bytes += size - entry.size
        entry.bytes = bytes
        entry.start = 0
        entry.end = bytes.length
        entry.decoded = UNDECODED
        entry.size = size
      } else {
        const size = entrySize(key, bytes.length)
        const listedKey = keyAsStored(key)
        const end = bytes.length
        index.set(key, { key, listedKey, bytes, start: 0, end, decoded: UNDECODED, size })
        this.bytes += size
        this.unsorted.add(key)
      }
    }
  }

  /**
   * Visits the range's pairs in order (descending when `range.reverse`), at most `rows` of them,
   * from `from` on (null: from the range's own bound), each value a fresh copy. Says how many,
   * and where the next page starts (null: the range has no more pairs).
   */
  visit(
    range: KeyRange,
    from: Buffer | null,
    rows: number,
    each: (key: string, value: unknown) => void,
  ): { count: number; next: Buffer | null } {
    this.sortAdded()
    const lower = range.reverse ? range.start : (from ?? range.start)
    const upper = range.reverse ? (from ?? range.end) : range.end
    const first = this.lowerBound(lower)
    const end = upper === null ? { chunk: this.chunks.length, offset: 0 } : this.lowerBound(upper)
    const available = this.ordinal(end) - this.ordinal(first)
    const count = Math.min(rows, available)
    if (count <= 0) return { count: 0, next: null }
    const chunks = this.chunks
    let lastKey = ''
    if (range.reverse) {
      let { chunk, offset } = end
      for (let n = 0; n < count; n++) {
        if (offset === 0) offset = (chunks[--chunk] as MirrorEntry[]).length
        const entry = (chunks[chunk] as MirrorEntry[])[--offset] as MirrorEntry
        each(entry.listedKey, valueOf(entry))
        lastKey = entry.key
      }
    } else {
      let { chunk, offset } = first
      let entries = chunks[chunk] as MirrorEntry[]
      for (let n = 0; n < count; n++) {
        if (offset === entries.length) {
          entries = chunks[++chunk] as MirrorEntry[]
          offset = 0
        }
        const entry = entries[offset++] as MirrorEntry
        each(entry.listedKey, valueOf(entry))
        lastKey = entry.key
      }
    }
    const next = count < available ? nextFrom(encodeKey(lastKey), range.reverse) : null
    return { count, next }
  }

  // Brings the chunks in line with the index for every key added or deleted since.
  private sortAdded(): void {
    if (this.unsorted.size === 0) return
    const index = this.indexed()
    for (const key of this.unsorted) {
      const entry = index.get(key)
      const { chunk, offset, found } = this.find(key)
      const entries = this.chunks[chunk]
      if (found && entries !== undefined) {
        if (entry === undefined) this.removeAt(chunk, offset)
        // Deleted and written again: the chunk still holds the old entry.
        else entries[offset] = entry
      } else if (entry !== undefined) {
        this.insertAt(chunk, offset, entry)
      }
    }
    this.unsorted.clear()
  }

  // Where `key` is in the chunks, or where it would go.
  private find(key: string): Position & { found: boolean } {
    const chunks = this.chunks
    let low = 0
    let high = chunks.length - 1
    // The first chunk whose last key is not before `key`; the last chunk if there is none.
    while (low < high) {
      const middle = (low + high) >>> 1
      const entries = chunks[middle] as MirrorEntry[]
      if (compareKeys((entries[entries.length - 1] as MirrorEntry).key, key) < 0) low = middle + 1
      else high = middle
    }
    const entries = chunks[low]
    if (entries === undefined) return { chunk: 0, offset: 0, found: false }
    let start = 0
    let stop = entries.length
    while (start < stop) {
      const middle = (start + stop) >>> 1
      if (compareKeys((entries[middle] as MirrorEntry).key, key) < 0) start = middle + 1
      else stop = middle
    }
    const found = start < entries.length && (entries[start] as MirrorEntry).key === key
    return { chunk: low, offset: start, found }
  }

  // The first entry whose key's bytes are not below `bound`.
  private lowerBound(bound: Buffer): Position {
    const chunks = this.chunks
    const below = (entry: MirrorEntry): boolean => Buffer.compare(encodeKey(entry.key), bound) < 0
    let low = 0
    let high = chunks.length
    while (low < high) {
      const middle = (low + high) >>> 1
      const entries = chunks[middle] as MirrorEntry[]
      if (below(entries[entries.length - 1] as MirrorEntry)) low = middle + 1
      else high = middle
    }
    const entries = chunks[low]
    if (entries === undefined) return { chunk: chunks.length, offset: 0 }
    let start = 0
    let stop = entries.length
    while (start < stop) {
      const middle = (start + stop) >>> 1
      if (below(entries[middle] as MirrorEntry)) start = middle + 1
      else stop = middle
    }
    return { chunk: low, offset: start }
  }

  // How many entries come before `position`.
  private ordinal(position: Position): number {
    let count = position.offset
    for (let i = 0; i < position.chunk; i++) count += (this.chunks[i] as MirrorEntry[]).length
    return count
  }

  private insertAt(chunk: number, offset: number, entry: MirrorEntry): void {
    const entries = this.chunks[chunk]
    if (entries === undefined) {
      this.chunks.push([entry])
      return
    }
    entries.splice(offset, 0, entry)
    if (entries.length > 2 * CHUNK_ENTRIES)
      this.chunks.splice(chunk + 1, 0, entries.splice(CHUNK_ENTRIES))
  }

  private removeAt(chunk: number, offset: number): void {
    const entries = this.chunks[chunk] as MirrorEntry[]
    entries.splice(offset, 1)
    if (entries.length === 0) this.chunks.splice(chunk, 1)
  }

  private indexed(): Map<string, MirrorEntry> {
    if (this.index === null) {
      this.index = new Map()
      for (const entries of this.chunks)
        for (const entry of entries) this.index.set(entry.key, entry)
    }
    return this.index
  }
}

/**
 * Gathers the rows of a listing that reads the whole table, page by page, into a mirror. It gives
 * up if the rows outgrow the budget, or if a key was read back with U+FFFD: that may stand for a
 * lone surrogate's bytes, and the key as written could not be told.
 */
export class KvMirrorLoader {
  private entries: MirrorEntry[] | null = []
  private bytes = 0

  /**
   * Takes a page of pairs whose values the common codec decoded, each stored in `lengths[i]`
   * bytes. The mirror keeps copies, decoded already for the listings to come; the caller hands
   * out the originals.
   */
  addDecoded(keys: string[], values: unknown[], lengths: number[]): void {
    for (let i = 0; i < keys.length && this.entries !== null; i++) {
      const key = keys[i] as string
      const decoded = copyCommonValue(values[i])
      const size = entrySize(key, lengths[i] ?? 0)
      this.add({ key, listedKey: key, bytes: null, start: 0, end: 0, decoded, size })
    }
  }

  /**
   * Takes a page of pairs as stored: `values` back to back, each `lengths[i]` bytes long. They are
   * decoded by the first listing served from the mirror.
   */
  addStored(keys: string[], values: Buffer, lengths: number[]): void {
    let start = 0
    for (let i = 0; i < keys.length && this.entries !== null; i++) {
      const key = keys[i] as string
      const length = lengths[i] ?? 0
      const end = start + length
      const size = entrySize(key, length)
      this.add({ key, listedKey: key, bytes: values, start, end, decoded: UNDECODED, size })
      start = end
    }
  }

  /** The mirror, if every row could be taken in; `reverse`: the pages came in descending order. */
  finish(reverse: boolean): KvMirror | null {
    const entries = this.entries
    if (entries === null) return null
    return KvMirror.fromSorted(reverse ? entries.reverse() : entries, this.bytes)
  }

  private add(entry: MirrorEntry): void {
    if (this.entries === null) return
    this.bytes += entry.size
    if (this.bytes > MIRROR_BUDGET_BYTES || entry.key.includes('\uFFFD')) this.entries = null
    else this.entries.push(entry)
  }
}

// A fresh copy of the entry's value. A value not decoded yet is decoded once, and then the entry
// lets go of its bytes (and, once all its rows are decoded, of the page they came in).
function valueOf(entry: MirrorEntry): unknown {
  let decoded = entry.decoded
  if (decoded === UNDECODED) {
    decoded = decodeCommonValue(entry.bytes as Buffer, entry.start, entry.end)
    entry.decoded = decoded
    if (decoded !== NOT_COMMON) entry.bytes = null
  }
  return decoded === NOT_COMMON
    ? deserializeValue(entry.bytes as Buffer, entry.start, entry.end)
    : copyCommonValue(decoded)
}
