// Key-value writes of the open transaction not yet given to SQLite. A put() or delete() only
// records its bytes here; they reach `_cf_KV` in one batch (Storage.flushWrites) at commit or
// before anything that reads or rolls back SQLite, which costs one statement per batch instead
// of one per call. Reads look here first, so they see the transaction's own writes.
import type { ReadCache } from './read-cache'

export class WriteBuffer {
  /** The value each written key will hold: its serialized bytes, or null for deleted. */
  private readonly values = new Map<string, Buffer | null>()
  /** Keys written with noCache, which leave the read cache once written. */
  private readonly uncached = new Set<string>()

  get size(): number {
    return this.values.size
  }

  /** What the buffer holds for `key`: bytes, null (deleted) or undefined (not written). */
  get(key: string): Buffer | null | undefined {
    return this.values.size === 0 ? undefined : this.values.get(key)
  }

  set(key: string, bytes: Buffer | null, noCache: boolean | undefined): void {
    this.values.set(key, bytes)
    if (noCache) this.uncached.add(key)
    else if (this.uncached.size > 0) this.uncached.delete(key)
  }

  /** The writes, for SQLite and the listing mirror; `written` empties the buffer after. */
  get writes(): ReadonlyMap<string, Buffer | null> {
    return this.values
  }

  /** The writes have reached SQLite: the cache takes them (but the noCache ones), the buffer empties. */
  written(cache: ReadCache): void {
    const uncached = this.uncached
    for (const [key, bytes] of this.values) {
      if (uncached.size > 0 && uncached.has(key)) cache.delete(key)
      else cache.set(key, bytes)
    }
    this.discard()
  }

  /** Forgets every write (rollback, deleteAll, a broken storage). */
  discard(): void {
    this.values.clear()
    this.uncached.clear()
  }
}
