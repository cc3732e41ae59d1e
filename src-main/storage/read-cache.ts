// Serialized values recently read or written, so repeated reads skip SQLite. Values are kept
// serialized because every get() must return a fresh copy anyway. The cache reflects uncommitted
// writes (reads see earlier writes) and is dropped whenever a rollback may have undone some.

/** A cached lookup: the stored bytes, or null for a key known to be absent. */
export type CachedValue = Buffer | null

const ABSENT_ENTRY_BYTES = 64

export class ReadCache {
  private entries = new Map<string, CachedValue>()
  private bytes = 0

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
