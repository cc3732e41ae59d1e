// The key-value half of `ctx.storage` over `_cf_KV`: get, put, delete and list (the asynchronous
// API, a transaction's `txn` on either backend, and the synchronous `ctx.storage.kv`), with the
// runtime's checks, through the write buffer, the read cache and the listing mirror. It writes
// under the transaction and commit that Storage (storage.ts) keeps, reached through the host.
import type Database from 'better-sqlite3'
import {
  compareKeys,
  deserializeBackToBack,
  deserializeEach,
  deserializeValue,
  keyAsStored,
  serializeValue,
} from './encoding'
import { KvMirror, KvMirrorLoader, MIRROR_BUDGET_BYTES } from './kv-mirror'
import { KvTable, LIST_PAGE_ROWS } from './kv-table'
import { checkKey, checkKeyCount, checkSerializedValue } from './limits'
import { compileListOptions, type KeyRange, type ListOptions } from './list-options'
import { listWithOverlay, type TransactionOverlay } from './overlay-transaction'
import { putArguments } from './put-arguments'
import { ReadCache } from './read-cache'
import type { GetOptions, PutOptions } from './storage'
import type { SyncKvHost } from './sync-kv'
import { WriteBuffer } from './write-buffer'

const CACHE_BUDGET_BYTES = 32 * 1024 * 1024

/** What the key-value store needs of the storage it belongs to. */
export interface KeyValueHost {
  assertUsable(): void
  /** Holds the input gate for this turn, unless the options allow concurrency. */
  holdInputGate(options: { allowConcurrency?: boolean } | undefined): void
  /** A write is about to be buffered: it joins the next commit, which the output gate may await. */
  beforeBufferedWrite(options: PutOptions | undefined): void
  /** A write to SQLite failed: storage breaks as after a failed commit; answers what to throw. */
  breakOn(error: unknown): Error
}

export class KeyValueStore {
  readonly table: KvTable
  private readonly cache = new ReadCache(CACHE_BUDGET_BYTES)
  /** All of `_cf_KV` once a listing has read it whole, serving the listings after; see KvMirror. */
  private mirror: KvMirror | null = null
  /** Writes of the open transaction not yet given to SQLite. */
  private readonly pendingWrites = new WriteBuffer()
  /** Counts listings: a kv.list() iterator stops working once a later listing starts. */
  private listings = 0

  constructor(
    private readonly connection: Database.Database,
    private readonly host: KeyValueHost,
  ) {
    this.table = new KvTable(connection)
  }

  get hasPendingWrites(): boolean {
    return this.pendingWrites.size > 0
  }

  /** get(); `overlay` is a key-value backend transaction's, whose writes it sees first. */
  readEntries(
    overlay: TransactionOverlay | null,
    keyOrKeys: unknown,
    options: GetOptions | undefined,
  ): unknown {
    this.host.assertUsable()
    this.host.holdInputGate(options)
    if (!Array.isArray(keyOrKeys)) {
      const key = typeof keyOrKeys === 'string' ? keyOrKeys : String(keyOrKeys)
      checkKey(key)
      const bytes = this.read(key, options, overlay)
      return bytes === null ? undefined : deserializeValue(bytes)
    }
    checkKeyCount(keyOrKeys.length)
    const keys = [...new Set(keyOrKeys.map(String))].sort(compareKeys)
    const found = new Map<string, unknown>()
    for (const key of keys) {
      const bytes = this.read(key, options, overlay)
      if (bytes !== null) found.set(keyAsStored(key), deserializeValue(bytes))
    }
    return found
  }

  /** put(), in either of its forms; into `overlay` when it is given. */
  writeEntries(overlay: TransactionOverlay | null, args: unknown[]): void {
    const { entries, options } = putArguments(args)
    if (entries.length === 0) return
    if (overlay === null) this.host.beforeBufferedWrite(options)
    for (const [key, bytes] of entries) this.bufferWrite(key, bytes, options, overlay)
  }

  /** delete() of one key or many; into `overlay` when it is given. */
  deleteEntries(
    overlay: TransactionOverlay | null,
    keyOrKeys: unknown,
    options: PutOptions | undefined,
  ): boolean | number {
    this.host.assertUsable()
    if (!Array.isArray(keyOrKeys)) {
      const key = String(keyOrKeys)
      checkKey(key)
      if (overlay === null) this.host.beforeBufferedWrite(options)
      return this.remove(key, options, overlay)
    }
    checkKeyCount(keyOrKeys.length)
    const keys = [...new Set(keyOrKeys.map(String))]
    keys.forEach(checkKey)
    if (keys.length === 0) return 0
    if (overlay === null) this.host.beforeBufferedWrite(options)
    return keys.filter((key) => this.remove(key, options, overlay)).length
  }

  /** list(); with `overlay`, its writes laid over what is stored. */
  listEntries(
    overlay: TransactionOverlay | null,
    options: ListOptions | undefined,
  ): Map<string, unknown> {
    this.host.assertUsable()
    const range = compileListOptions(options)
    this.host.holdInputGate(options)
    const found = new Map<string, unknown>()
    this.listings++
    if (range === null) return found
    if (overlay !== null && overlay.writes.size > 0)
      return listWithOverlay(overlay, range, options, (stored) => this.listEntries(null, stored))
    this.flush()
    let remaining = range.limit ?? Infinity
    const add = (key: string, value: unknown): void => void found.set(key, value)
    if (this.mirror !== null) {
      this.mirror.visit(range, null, remaining, add)
      return found
    }
    // A listing of the whole table reads every row anyway: it keeps them for the next listings.
    const whole = range.start.length === 0 && range.end === null && range.limit === null
    const loader = whole ? new KvMirrorLoader() : null
    // Page by page, so that a limit reads no more rows than it returns.
    let from: Buffer | null = null
    do {
      const rows = Math.min(remaining, LIST_PAGE_ROWS)
      const page = this.readPage(range, from, rows, add, loader)
      remaining -= page.count
      from = page.next
    } while (from !== null && remaining > 0)
    if (loader !== null) this.mirror = loader.finish(range.reverse)
    return found
  }

  /** What a key-value backend transaction wrote, now the storage's own writes. */
  storeWrites(writes: ReadonlyMap<string, Buffer | null>): void {
    if (writes.size === 0) return
    this.host.beforeBufferedWrite(undefined)
    for (const [key, bytes] of writes) this.bufferWrite(key, bytes, undefined, null)
  }

  /** Hands pending writes to SQLite; a failure breaks storage, as a failed commit does. */
  flush(): void {
    if (this.pendingWrites.size === 0) return
    const { writes } = this.pendingWrites
    try {
      // User SQL may have ended the transaction (INSERT OR ROLLBACK); the writes still go together.
      if (!this.connection.inTransaction) this.connection.exec('BEGIN')
      this.table.write(writes)
    } catch (error) {
      throw this.host.breakOn(error)
    }
    if (this.mirror !== null) {
      this.mirror.apply(writes)
      if (this.mirror.estimatedBytes > MIRROR_BUDGET_BYTES) this.mirror = null
    }
    this.pendingWrites.written(this.cache)
  }

  /** Forgets the writes not yet flushed, and the mirror they may have been meant for. */
  discardWrites(): void {
    this.pendingWrites.discard()
    this.mirror = null
  }

  /** SQLite's content changed under the caches (a rollback, deleteAll): they start again. */
  forgetCaches(): void {
    this.cache.clear()
    this.mirror = null
    this.table.refresh()
  }

  // The synchronous API goes through the same checks, pending writes and cache as the async one.
  readonly syncHost: SyncKvHost = {
    readValue: (key) => {
      this.host.assertUsable()
      checkKey(key)
      const bytes = this.read(key, undefined, null)
      return bytes === null ? undefined : deserializeValue(bytes)
    },
    writeValue: (key, value) => {
      this.host.assertUsable()
      const bytes = serializeValue(value)
      checkKey(key)
      checkSerializedValue(bytes)
      this.host.beforeBufferedWrite(undefined)
      this.bufferWrite(key, bytes, undefined, null)
    },
    removeKey: (key) => {
      this.host.assertUsable()
      checkKey(key)
      this.host.beforeBufferedWrite(undefined)
      return this.remove(key, undefined, null)
    },
    startListing: () => ++this.listings,
    currentListing: () => this.listings,
    readPage: (range, from, rows) => {
      const entries: Array<[string, unknown]> = []
      const { next } = this.readPage(range, from, rows, (key, value) => entries.push([key, value]))
      return { entries, next }
    },
  }

  /**
   * Reads a page of the range, handing each pair to `visit`; says how many and where next.
   * `loader` takes in the page's rows too.
   */
  private readPage(
    range: KeyRange,
    from: Buffer | null,
    rows: number,
    visit: (key: string, value: unknown) => void,
    loader: KvMirrorLoader | null = null,
  ): { count: number; next: Buffer | null } {
    this.host.assertUsable()
    this.flush()
    if (this.mirror !== null) return this.mirror.visit(range, from, rows, visit)
    let page = this.table.listPage(range, from, rows, false)
    const lengths = loader === null ? undefined : []
    let values =
      page.lengths === null ? deserializeBackToBack(page.values, page.keys.length, lengths) : null
    if (values !== null) {
      loader?.addDecoded(page.keys, values, lengths ?? [])
    } else {
      if (page.lengths === null) page = this.table.listPage(range, from, rows, true)
      values = deserializeEach(page.values, page.lengths ?? [])
      loader?.addStored(page.keys, page.values, page.lengths ?? [])
    }
    const { keys } = page
    for (let i = 0; i < keys.length; i++) visit(keys[i] as string, values[i])
    return { count: keys.length, next: page.next }
  }

  private bufferWrite(
    key: string,
    bytes: Buffer | null,
    options: PutOptions | undefined,
    overlay: TransactionOverlay | null,
  ): void {
    if (overlay !== null) {
      overlay.writes.set(key, bytes)
      return
    }
    this.pendingWrites.set(key, bytes, options?.noCache)
  }

  private read(
    key: string,
    options: GetOptions | undefined,
    overlay: TransactionOverlay | null,
  ): Buffer | null {
    if (overlay !== null) {
      const written = overlay.writes.get(key)
      if (written !== undefined) return written
    }
    const pending = this.pendingWrites.get(key)
    if (pending !== undefined) return pending
    const cached = this.cache.get(key)
    if (cached !== undefined) return cached
    const bytes = this.table.get(key) ?? null
    if (!options?.noCache && this.cache.admitRead(key)) this.cache.set(key, bytes)
    return bytes
  }

  /** Deletes `key` (at the next flush, or when the transaction commits); returns whether it existed. */
  private remove(
    key: string,
    options: PutOptions | undefined,
    overlay: TransactionOverlay | null,
  ): boolean {
    let known = overlay?.writes.get(key)
    if (known === undefined) known = this.pendingWrites.get(key)
    if (known === undefined) known = this.cache.get(key)
    const existed = known === undefined ? this.table.has(key) : known !== null
    if (existed) this.bufferWrite(key, null, options, overlay)
    return existed
  }
}
