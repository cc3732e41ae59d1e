// The service's replay pools kept warm between runs (src-main/replay/warm-pools.ts), with real
// worker pools: a second run of the same slot and version reuses the running workers, a new
// version starts a pool compiled from the new configuration and closes the old one, a pool no run
// uses is closed after its idle time, the workers kept stay within the bound, and close() stops
// them all.
import { resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ReplayPool } from '../../../src-main/replay/pool'
import { WarmPools, type WarmPoolKey } from '../../../src-main/replay/warm-pools'
import type { Gathered } from '../../../src-main/zones/simulator'
import { blockingRule } from './blocking-rule'

const RESOURCES = resolve(__dirname, '../../../resources')

/** A zone with one firewall rule blocking `path`: cheap to compile, and its verdicts tell it. */
const blocking = (path: string): Gathered => ({
  zoneRulesets: [],
  accountRulesets: [],
  firewallRules: [blockingRule(`http.request.uri.path eq "${path}"`)],
  managedRulesets: false,
})

const opened: WarmPools[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((warm) => warm.close()))
})

function warmPools(options: { maxWorkers: number; idleMs: number }) {
  const warm = new WarmPools(options)
  opened.push(warm)
  let starts = 0
  const acquire = (key: WarmPoolKey, configuration: Gathered) =>
    warm.acquire(key, () => {
      starts++
      return ReplayPool.start({ configuration, resourcesDir: RESOURCES, threads: key.threads })
    })
  return { warm, acquire, starts: () => starts }
}

const outcomeOf = async (pool: ReplayPool, path: string) =>
  (
    await pool.evaluate(
      {
        first: 1,
        bytes: Buffer.from(JSON.stringify({ method: 'GET', url: `https://a.example${path}` })),
      },
      { format: 'requests', trace: false, at: 0 },
    )
  ).judged[0]!.outcome

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10))
}

describe('warm replay pools', () => {
  it('reuses the workers for the same version, and starts the new configuration’s for a new one', async () => {
    const { acquire, starts } = warmPools({ maxWorkers: 2, idleMs: 60_000 })
    const first = await acquire({ slot: 'z/zone', version: '1/1', threads: 1 }, blocking('/a'))
    expect(first.warm).toBe(false)
    first.release()
    const second = await acquire({ slot: 'z/zone', version: '1/1', threads: 1 }, blocking('/a'))
    expect(second.warm).toBe(true)
    expect(second.pool).toBe(first.pool)
    expect(starts()).toBe(1)
    expect(await outcomeOf(second.pool, '/a')).toBe('blocked')

    // The zone changed while a run held the old pool: the next run gets the new configuration,
    // and the old pool closes once its run ends.
    const changed = await acquire({ slot: 'z/zone', version: '2/1', threads: 1 }, blocking('/b'))
    expect(changed.warm).toBe(false)
    expect(starts()).toBe(2)
    expect(await outcomeOf(changed.pool, '/a')).toBe('passed')
    expect(await outcomeOf(changed.pool, '/b')).toBe('blocked')
    expect(second.pool.usable).toBe(true)
    second.release()
    await until(() => !second.pool.usable)
    changed.release()
  }, 60_000)

  it('closes a pool no run uses after its idle time', async () => {
    const { acquire } = warmPools({ maxWorkers: 2, idleMs: 50 })
    const lease = await acquire({ slot: 'z/zone', version: '1/1', threads: 1 }, blocking('/a'))
    lease.release()
    await until(() => !lease.pool.usable)
    const next = await acquire({ slot: 'z/zone', version: '1/1', threads: 1 }, blocking('/a'))
    expect(next.warm).toBe(false)
    next.release()
  }, 60_000)

  it('keeps no more workers than its bound, the least recently used closed first', async () => {
    const { acquire } = warmPools({ maxWorkers: 2, idleMs: 60_000 })
    const a = await acquire({ slot: 'a/zone', version: '1/1', threads: 1 }, blocking('/a'))
    const b = await acquire({ slot: 'b/zone', version: '1/1', threads: 1 }, blocking('/b'))
    a.release()
    b.release()
    expect([a.pool.usable, b.pool.usable]).toEqual([true, true])
    const c = await acquire({ slot: 'c/zone', version: '1/1', threads: 1 }, blocking('/c'))
    c.release()
    await until(() => !a.pool.usable)
    expect([b.pool.usable, c.pool.usable]).toEqual([true, true])
    // bigger than the bound: run, then not kept
    const big = await acquire({ slot: 'd/zone', version: '1/1', threads: 3 }, blocking('/d'))
    expect(big.pool.size).toBe(3)
    big.release()
    await until(() => !big.pool.usable)
    expect([b.pool.usable, c.pool.usable]).toEqual([true, true])
  }, 60_000)

  it('stops every pool on close, those in use too', async () => {
    const { warm, acquire } = warmPools({ maxWorkers: 2, idleMs: 60_000 })
    const kept = await acquire({ slot: 'a/zone', version: '1/1', threads: 1 }, blocking('/a'))
    kept.release()
    const used = await acquire({ slot: 'b/zone', version: '1/1', threads: 1 }, blocking('/b'))
    await warm.close()
    expect([kept.pool.usable, used.pool.usable]).toEqual([false, false])
    used.release()
    await expect(
      acquire({ slot: 'a/zone', version: '1/1', threads: 1 }, blocking('/a')),
    ).rejects.toThrow(/closed/)
  }, 60_000)
})
