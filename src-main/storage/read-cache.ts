// Serialized values recently read or written, so repeated reads skip SQLite. Values are kept
// serialized because every get() must return a fresh copy anyway. The cache reflects uncommitted
// writes (reads see earlier writes) and is dropped whenever a rollback may have undone some.
//
// A value read from SQLite is cached the second time its key is read, not the first: reading
// many keys once (a scan) then neither pays for caching them nor evicts the keys in use.

/** A cached lookup: the stored bytes, or null for a key known to be absent. */
export type CachedValue = Buffer | null

const ABSENT_ENTRY_BYTES = 64
/** Bits of the set of keys read once (32 KiB), and how many keys it takes before it is cleared. */
const READ_ONCE_BITS = 1 << 18
const READ_ONCE_KEYS = 1 << 15
const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

export class ReadCache {
  private entries = new Map<string, CachedValue>()
  private bytes = 0
  /**
   * Keys read once since the last clearing, by hash: a key sharing a hash with one of them is
   * taken for read once, which only caches it early.
   */
  private readonly readOnce = new Uint32Array(READ_ONCE_BITS / 32)
  private readOnceKeys = 0

  constructor(private readonly budgetBytes: number) {}

  get(key: string): CachedValue | undefined {
    return this.entries.get(key)
  }

  set(key: string, value: CachedValue): void {
    this.delete(key)
    this.entries.set(key, value)
    this.bytes += sizeOf(key, value)
    if (this.bytes <= this.budgetBytes) return
    // Maps iterate in insertion order, so the first entries are the oldest.
    for (const [oldKey, oldValue] of this.entries) {
      if (this.bytes <= this.budgetBytes) break
      this.entries.delete(oldKey)
      this.bytes -= sizeOf(oldKey, oldValue)
    }
  }

  /** Whether to cache a value just read from SQLite: true if its key was read once already. */
  admitRead(key: string): boolean {
    const hash = hashKey(key) & (READ_ONCE_BITS - 1)
    const word = hash >>> 5
    const bit = 1 << (hash & 31)
    const seen = this.readOnce[word] ?? 0
    if ((seen & bit) !== 0) return true
    if (++this.readOnceKeys > READ_ONCE_KEYS) {
      this.readOnce.fill(0)
      this.readOnceKeys = 1
    }
    this.readOnce[word] = (this.readOnce[word] ?? 0) | bit
    return false
  }

  delete(key: string): void {
    const previous = this.entries.get(key)
    if (previous === undefined) return
    this.entries.delete(key)
    this.bytes -= sizeOf(key, previous)
  }

  clear(): void {
    this.entries.clear()
    this.bytes = 0
  }
}

const sizeOf = (key: string, value: CachedValue): number =>
  key.length * 2 + (value === null ? ABSENT_ENTRY_BYTES : value.length)

// FNV-1a over the key's UTF-16 code units.
function hashKey(key: string): number {
  let hash = FNV_OFFSET
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), FNV_PRIME)
  return hash >>> 0
}
