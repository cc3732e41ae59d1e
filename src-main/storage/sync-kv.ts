// `ctx.storage.kv`: the runtime's synchronous key-value API of SQL-backed objects. It shares
// `_cf_KV` (and the pending writes and cache) with the asynchronous methods.
import { compileListOptions, type KeyRange, type ListOptions } from './list-options'
import { LIST_PAGE_ROWS } from './kv-table'

/** The asynchronous list()'s options but its cache controls (allowConcurrency, noCache). */
export type SyncKvListOptions = Omit<ListOptions, 'allowConcurrency' | 'noCache'>

/** What the synchronous API needs from the storage it belongs to. */
export interface SyncKvHost {
  readValue(key: string): unknown
  writeValue(key: string, value: unknown): void
  removeKey(key: string): boolean
  /** Starts a listing; any listing started later invalidates the iterators of earlier ones. */
  startListing(): number
  currentListing(): number
  /** One page of the range, decoded, from `from` on; `next` is null after the last page. */
  readPage(
    range: KeyRange,
    from: Buffer | null,
    rows: number,
  ): { entries: Array<[string, unknown]>; next: Buffer | null }
}

const INVALIDATED =
  'kv.list() iterator was invalidated because a new call to kv.list() was started. Only one kv.list() iterator can exist at a time.'

export class SyncKvStorage {
  /** @internal created by Storage */
  constructor(private readonly host: SyncKvHost) {}

  get(key: string): unknown {
    return this.host.readValue(String(key))
  }

  /** Unlike the asynchronous put(), stores `undefined` as a value. */
  put(key: string, value: unknown): void {
    this.host.writeValue(String(key), value)
  }

  delete(key: string): boolean {
    return this.host.removeKey(String(key))
  }

  /** The pairs of the range, read a page at a time as the iterator advances. */
  list(options?: SyncKvListOptions): ListIterator {
    const range = compileListOptions(options)
    return new ListIterator(this.host, range, this.host.startListing())
  }

  get [Symbol.toStringTag](): string {
    return 'SyncKvStorage'
  }
}

export class ListIterator implements IterableIterator<[string, unknown]> {
  private page: Array<[string, unknown]> = []
  private position = 0
  private from: Buffer | null = null
  private remaining: number
  /** No page is left to read. */
  private finished: boolean
  /** next() has said done. */
  private done = false

  /** @internal created by SyncKvStorage.list() */
  constructor(
    private readonly host: SyncKvHost,
    private readonly range: KeyRange | null,
    private readonly listing: number,
  ) {
    this.remaining = range?.limit ?? Infinity
    this.finished = range === null
    // As in the runtime, the query runs when list() is called, not at the first next().
    if (!this.finished) this.fetch()
  }

  next(): IteratorResult<[string, unknown]> {
    if (this.done) return { done: true, value: undefined }
    // The runtime's cursor stops at once when another listing starts, wherever it was.
    if (this.host.currentListing() !== this.listing) throw new Error(INVALIDATED)
    if (this.position === this.page.length && !this.finished) this.fetch()
    const entry = this.page[this.position]
    if (entry === undefined) {
      this.done = true
      return { done: true, value: undefined }
    }
    this.position++
    return { done: false, value: entry }
  }

  [Symbol.iterator](): this {
    return this
  }

  get [Symbol.toStringTag](): string {
    return 'ListIterator'
  }

  private fetch(): void {
    if (this.range === null || this.remaining <= 0) {
      this.finished = true
      this.page = []
      this.position = 0
      return
    }
    const { entries, next } = this.host.readPage(
      this.range,
      this.from,
      Math.min(this.remaining, LIST_PAGE_ROWS),
    )
    this.page = entries
    this.position = 0
    this.remaining -= entries.length
    this.from = next
    this.finished = next === null
  }
}
