// A writer is killed with SIGKILL at random moments; every batch it saw confirmed must survive,
// and no batch may be half there. The writer is bundled once, before its starts (CRASH_KILLS of
// them: 5 in `npm test`, 50 in `npm run soak`, vitest.config.ts).
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { bundleChild, removeChildBundle } from '../../../child-bundle'
import { newFile, open } from '../temp-storage'

const KILLS = Number(process.env.CRASH_KILLS ?? 50)
const KEYS_PER_BATCH = 5
let writer: string

beforeAll(async () => {
  writer = await bundleChild(join(import.meta.dirname, 'writer.ts'))
})
afterAll(() => removeChildBundle(writer))

/** Runs the writer from `firstBatch`, kills it after `delayMs` of writing; returns the last confirmed batch. */
function runAndKill(file: string, firstBatch: number, delayMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, file, String(firstBatch)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let confirmed = firstBatch - 1
    let buffered = ''
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      for (const line of lines) {
        if (line === 'ready') setTimeout(() => child.kill('SIGKILL'), delayMs)
        else confirmed = Number(line)
      }
    })
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(confirmed)
      else reject(new Error(`writer exited without being killed: ${stderr}`))
    })
  })
}

it(`keeps every confirmed batch whole across ${KILLS} SIGKILLs`, { timeout: 120_000 }, async () => {
  const file = newFile()
  let next = 0
  for (let kill = 0; kill < KILLS; kill++) {
    const confirmed = await runAndKill(file, next, Math.floor(Math.random() * 40))
    const storage = await open('sql', file)
    const counts = new Map<number, number>()
    for (const batch of (await storage.list()).values())
      counts.set(batch as number, (counts.get(batch as number) ?? 0) + 1)
    const rows = storage.sql
      .exec('SELECT n FROM batches')
      .raw()
      .toArray()
      .map(([n]) => n as number)
    const highest = Math.max(next - 1, ...counts.keys())
    for (let batch = 0; batch <= confirmed; batch++)
      expect(counts.get(batch), `batch ${batch}`).toBe(KEYS_PER_BATCH)
    for (const [batch, count] of counts)
      expect(count, `batch ${batch} is half there`).toBe(KEYS_PER_BATCH)
    expect(rows.sort((a, b) => a - b)).toEqual([...counts.keys()].sort((a, b) => a - b))
    storage.close()
    next = highest + 1
  }
  // The kills must have landed while writing, not before the first batch.
  expect(next).toBeGreaterThan(KILLS)
})
