// transaction() on the key-value backend, as workerd's in-memory backend runs it: writes made
// through `txn` are seen only through `txn` until the closure returns, and then are stored
// together; ctx.storage.* calls inside the closure are not part of it (DEVIATIONS.md says where
// this differs from the runtime).
import { compareKeys, deserializeValue, encodeKey, keyAsStored } from './encoding'
import type { KeyRange, ListOptions } from './list-options'
import type { GetOptions, PutOptions } from './storage'
import { StorageTransaction, type TransactionScope } from './transaction'

/** What a transaction() on the key-value backend has written so far (null: deleted). */
export class TransactionOverlay {
  readonly writes = new Map<string, Buffer | null>()
  /** The alarm as the transaction set it; undefined while it has not touched it. */
  alarm: number | null | undefined = undefined

  discard(): void {
    this.writes.clear()
    this.alarm = undefined
  }
}

/** What the overlay transaction needs of its storage. */
export interface OverlayHost {
  /** Holds the input gate until the function it answers is called. */
  holdInputGate(): () => void
  assertUsable(): void
  readEntries(overlay: TransactionOverlay, keyOrKeys: unknown, options?: GetOptions): unknown
  writeEntries(overlay: TransactionOverlay, args: unknown[]): void
  deleteEntries(
    overlay: TransactionOverlay,
    keyOrKeys: unknown,
    options?: PutOptions,
  ): boolean | number
  listEntries(overlay: TransactionOverlay, options?: ListOptions): Map<string, unknown>
  getAlarm(options?: GetOptions): Promise<number | null>
  /** Checks an alarm time as setAlarm() does. */
  alarmTime(scheduledTime: unknown): number
  /** Stores what the closure wrote through `txn`, as the storage's own writes. */
  store(overlay: TransactionOverlay): void
}

export async function overlayTransaction<T>(
  host: OverlayHost,
  closure: (txn: StorageTransaction) => T | Promise<T>,
): Promise<T> {
  const releaseGate = host.holdInputGate()
  const overlay = new TransactionOverlay()
  const txn = new StorageTransaction(overlayScope(host, overlay), 0, () => overlay.discard())
  try {
    const result = await closure(txn)
    host.assertUsable()
    host.store(overlay)
    return result
  } finally {
    txn.finish()
    releaseGate()
  }
}

function overlayScope(host: OverlayHost, overlay: TransactionOverlay): TransactionScope {
  return {
    get: async (keyOrKeys, options) => host.readEntries(overlay, keyOrKeys, options),
    put: async (...args) => host.writeEntries(overlay, args),
    delete: async (keyOrKeys, options) => host.deleteEntries(overlay, keyOrKeys, options),
    list: async (options) => host.listEntries(overlay, options),
    getAlarm: async (options) => {
      if (overlay.alarm === undefined) return host.getAlarm(options)
      host.assertUsable()
      return overlay.alarm
    },
    setAlarm: async (scheduledTime) => {
      host.assertUsable()
      overlay.alarm = host.alarmTime(scheduledTime)
    },
    deleteAlarm: async () => {
      host.assertUsable()
      overlay.alarm = null
    },
  }
}

/**
 * A listing through `txn` once it has written: the stored pairs, read by `listStored`, with the
 * overlay's writes in the range laid over them. Each write hides or replaces at most one stored
 * pair, so the stored pairs the listing needs are among the first `limit` plus that many.
 */
export function listWithOverlay(
  overlay: TransactionOverlay,
  range: KeyRange,
  options: ListOptions | undefined,
  listStored: (options: ListOptions) => Map<string, unknown>,
): Map<string, unknown> {
  const stored = listStored({
    ...options,
    limit: range.limit === null ? undefined : range.limit + overlay.writes.size,
  })
  for (const [key, bytes] of overlay.writes) {
    const encoded = encodeKey(key)
    if (Buffer.compare(encoded, range.start) < 0) continue
    if (range.end !== null && Buffer.compare(encoded, range.end) >= 0) continue
    if (bytes === null) stored.delete(keyAsStored(key))
    else stored.set(keyAsStored(key), deserializeValue(bytes))
  }
  const entries = [...stored].sort(([a], [b]) => compareKeys(a, b))
  if (range.reverse) entries.reverse()
  return new Map(range.limit === null ? entries : entries.slice(0, range.limit))
}
