// The service's replay pools kept warm between runs: starting a pool compiles the zone in each
// worker (with the OWASP ruleset, seconds and ~85 MB a worker), which a user replaying again
// after a tweak, or replaying the next file, should not pay each time.
//
//   const warm = new WarmPools({ maxWorkers: defaultThreads(), idleMs: IDLE_MS })
//   const lease = await warm.acquire({ slot: `${zoneId}/zone`, version, threads }, start)
//   lease.pool … ; lease.warm   // true: the workers were already running
//   lease.release()
//   await warm.close()           // when the service stops
//
// A pool is kept for one slot (a zone and which product it runs) and one configuration version
// (Simulator.configurationVersion): a run under a newer version starts a new pool, and the old
// one is closed once its runs end. Runs share a pool, each batch naming its run's credentials
// (pool.ts). Pools no run uses are closed after `idleMs`, and the least recently used first while
// the workers kept exceed `maxWorkers` (the memory's bound: defaultThreads), so a pool bigger
// than the bound is never kept.

import type { ReplayPool } from './pool'

/** How long a pool no run uses is kept. */
export const IDLE_MS = 2 * 60 * 1000

export interface WarmPoolKey {
  /** what the workers run: a zone, and which product (Simulator's Variant) */
  slot: string
  /** the configuration's version the pool was compiled from */
  version: string
  threads: number
}

export interface WarmLease {
  pool: ReplayPool
  /** whether the pool was started for an earlier run (its workers already held the zone) */
  warm: boolean
  /** the run is over with the pool */
  release(): void
}

interface Entry {
  key: WarmPoolKey
  pool: Promise<ReplayPool>
  users: number
  /** no longer served: a newer version replaced it, or it was evicted */
  retired: boolean
  idle?: ReturnType<typeof setTimeout>
}

const nameOf = (key: WarmPoolKey) => `${key.slot}#${key.version}#${key.threads}`

export class WarmPools {
  /** in order of last use, the least recent first */
  private readonly entries = new Map<string, Entry>()
  private closed = false

  constructor(private readonly options: { maxWorkers: number; idleMs: number }) {}

  /** The pool for `key`, warm if one is kept, else from `start` (kept when the run ends). */
  async acquire(key: WarmPoolKey, start: () => Promise<ReplayPool>): Promise<WarmLease> {
    if (this.closed) throw new Error('The replay pools are closed')
    for (const entry of this.entries.values()) {
      if (entry.key.slot === key.slot && entry.key.version !== key.version) this.retire(entry)
    }
    const name = nameOf(key)
    const kept = this.entries.get(name)
    if (kept !== undefined) {
      const pool = await this.use(kept, name).catch(() => undefined)
      if (pool?.usable === true) return this.lease(kept, pool, true)
      this.retire(kept)
      this.release(kept)
    }
    const entry: Entry = { key, pool: start(), users: 0, retired: false }
    this.entries.set(name, entry)
    const pool = await this.use(entry, name).catch((error: unknown) => {
      this.retire(entry)
      this.release(entry)
      throw error
    })
    return this.lease(entry, pool, false)
  }

  /** Closes every pool, those in use too (the service is stopping). */
  async close(): Promise<void> {
    this.closed = true
    const entries = [...this.entries.values()]
    this.entries.clear()
    for (const entry of entries) entry.retired = true
    await Promise.all(entries.map((entry) => this.shut(entry)))
  }

  /** Counts a user of `entry`, most recently used now. */
  private use(entry: Entry, name: string): Promise<ReplayPool> {
    entry.users++
    clearTimeout(entry.idle)
    this.entries.delete(name)
    this.entries.set(name, entry)
    return entry.pool
  }

  private lease(entry: Entry, pool: ReplayPool, warm: boolean): WarmLease {
    let released = false
    return {
      pool,
      warm,
      release: () => {
        if (released) return
        released = true
        this.release(entry)
      },
    }
  }

  private release(entry: Entry): void {
    entry.users--
    if (entry.users > 0) return
    if (entry.retired) {
      void this.shut(entry)
      return
    }
    this.evict()
    if (entry.retired) return
    entry.idle = setTimeout(() => this.retire(entry), this.options.idleMs)
    entry.idle.unref()
  }

  /**
   * Retires the pools no run uses that are bigger than the bound on their own, then the least
   * recently used while the workers kept exceed it.
   */
  private evict(): void {
    const { maxWorkers } = this.options
    for (const entry of [...this.entries.values()]) {
      if (entry.users === 0 && entry.key.threads > maxWorkers) this.retire(entry)
    }
    let workers = [...this.entries.values()].reduce((sum, e) => sum + e.key.threads, 0)
    for (const entry of [...this.entries.values()]) {
      if (workers <= maxWorkers) return
      if (entry.users > 0) continue
      workers -= entry.key.threads
      this.retire(entry)
    }
  }

  /** Serves it no more; closes it now if no run uses it, else when the last one ends. */
  private retire(entry: Entry): void {
    if (entry.retired) return
    entry.retired = true
    this.entries.delete(nameOf(entry.key))
    if (entry.users === 0) void this.shut(entry)
  }

  private async shut(entry: Entry): Promise<void> {
    clearTimeout(entry.idle)
    const pool = await entry.pool.catch(() => undefined)
    await pool?.close()
  }
}
