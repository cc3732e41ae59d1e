// What bounds a replay pool's memory (src-main/replay/pool.ts): the default thread count is one
// per core less one, capped by the workers the service's 400 MB bound holds and by the free
// memory at WORKER_MEMORY_MB a worker, and a worker whose heap outgrows WORKER_HEAP_LIMIT_MB stops
// alone, failing its batch, not the process.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { expect, it } from 'vitest'
import {
  defaultThreads,
  ReplayPool,
  SERVICE_MEMORY_LIMIT_MB,
  SERVICE_MEMORY_MB,
  WORKER_HEAP_LIMIT_MB,
  WORKER_MEMORY_MB,
  WORKERS_UNDER_LIMIT,
} from '../../../src-main/replay/pool'

const MB = 1024 * 1024

/** This process's resident memory now (VmRSS) or at its peak (VmHWM), in bytes. */
const memory = (field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) *
  1024

it('defaults to one thread per core less one, as many as the service’s bound and half the free memory hold', () => {
  const plenty = 1024 * 1024 * MB
  expect(SERVICE_MEMORY_MB + WORKERS_UNDER_LIMIT * WORKER_MEMORY_MB).toBeLessThanOrEqual(
    SERVICE_MEMORY_LIMIT_MB,
  )
  expect(defaultThreads(plenty, 64)).toBe(WORKERS_UNDER_LIMIT)
  expect(defaultThreads(plenty, 2)).toBe(1)
  expect(defaultThreads(plenty, 1)).toBe(1)
  expect(defaultThreads(2 * WORKER_MEMORY_MB * MB, 64)).toBe(1)
  expect(defaultThreads(0, 64)).toBe(1)
})

it('stops a worker past its heap limit, failing its batch and leaving the pool unusable', async () => {
  const pool = await ReplayPool.start({
    configuration: {
      zoneRulesets: [],
      accountRulesets: [],
      firewallRules: [],
      managedRulesets: false,
    },
    resourcesDir: resolve(__dirname, '../../../resources'),
    threads: 1,
    worker: { file: resolve(__dirname, '../../fixtures/replay/hoarding-worker.mjs') },
  })
  const before = memory('VmRSS')
  try {
    await expect(
      pool.evaluate(
        { first: 1, bytes: Buffer.from('{"method":"GET","url":"https://a.example/"}') },
        { format: 'requests', trace: false, at: 0 },
      ),
    ).rejects.toThrow(/memory/i)
    expect(pool.usable).toBe(false)
    // The worker's heap stopped near its limit, not at the process's own (gigabytes).
    expect(memory('VmHWM') - before).toBeLessThan(2 * WORKER_HEAP_LIMIT_MB * MB)
  } finally {
    await pool.close()
  }
}, 60_000)
