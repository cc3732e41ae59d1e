// A large replay through the API, as a user's day of logs would come: a generated NDJSON of
// REPLAY_TEST_MB megabytes (50 in `npm test`, 1 GB in `npm run soak`; vitest.config.ts), and its
// gzip, uploaded as a stream to the service running in a child process (bundled as the app ships,
// its replay worker beside it), through a zone deploying all three managed rulesets (the OWASP
// one run by the CRS interpreter: the costliest zone a worker holds). The child's peak resident
// memory (VmHWM) stays under 400 MB with its default threads (by cores, the 400 MB bound and the
// free memory, replay/pool.ts), the gzip's run on the workers the first left warm, and while the replay runs
// `GET /client/v4/zones`, asked every 50 ms, answers with p99 under 100 ms (issue 20's bounds).

import {
  closeSync,
  createReadStream,
  createWriteStream,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { build } from 'esbuild'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { removeChildBundle } from '../child-bundle'
import { CRASH_CREDENTIALS } from './crash/credentials'
import { call, startChild, stop, type Child } from './crash/harness'
import { GENERAL, OWASP } from './fixtures-zones'

const ROOT = join(import.meta.dirname, '..', '..')
const MEGABYTES = Number(process.env.REPLAY_TEST_MB ?? 50)
const PEAK_LIMIT = 400 * 1024 * 1024
const SAMPLE_EVERY_MS = 50
const EXPOSED_CREDENTIALS = 'c2e184081120413c86c3ab7e14069605'

let dir: string
let bundle: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zw-replay-memory-'))
  // Under node_modules so that packages and resources/ resolve as from the repository.
  const outdir = join(
    ROOT,
    'node_modules',
    '.cache',
    'test-children',
    `replay-memory-${process.pid}`,
  )
  await build({
    entryPoints: {
      child: join(ROOT, 'tests/api/crash/service-child.ts'),
      'replay-worker': join(ROOT, 'src-main/replay/worker.ts'),
    },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  })
  bundle = join(outdir, 'child.js')
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  removeChildBundle(bundle)
})

/** VmHWM of a live process, in bytes. */
function peakOf(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Number(kb) * 1024
}

/** Attacks and benign requests of the corpus, repeated to `megabytes`; answers the count. */
function generate(file: string, megabytes: number): number {
  const corpus = ['attacks.ndjson', 'benign.ndjson'].flatMap((name) =>
    readFileSync(join(ROOT, 'tests/fixtures/traffic', name), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== ''),
  )
  const block = `${corpus.join('\n')}\n`
  const fd = openSync(file, 'w')
  let written = 0
  let count = 0
  while (written < megabytes * 1024 * 1024) {
    written += writeSync(fd, block)
    count += corpus.length
  }
  closeSync(fd)
  return count
}

/** `GET /zones` every SAMPLE_EVERY_MS until `done` settles: each answer's time, in ms. */
async function sampleZones(child: Child, done: Promise<unknown>): Promise<number[]> {
  let running = true
  void done.finally(() => (running = false))
  const times: number[] = []
  while (running) {
    const asked = performance.now()
    const answer = await call(child.api, '/zones')
    times.push(performance.now() - asked)
    expect(answer.status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS))
  }
  return times
}

const percentile = (times: number[], p: number) =>
  [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(times.length * p))]!

it(`replays ${MEGABYTES} MB (and its gzip) uploaded to the API under 400 MB peak, answering the zone list with p99 under 100 ms`, async () => {
  const file = join(dir, 'day.ndjson')
  const count = generate(file, MEGABYTES)
  await pipeline(createReadStream(file), createGzip(), createWriteStream(`${file}.gz`))
  const child = await startChild(bundle, join(dir, 'data'))
  const p99s: number[] = []
  try {
    const zone = await call(child.api, '/zones', { json: { name: 'replay.example', plan: 'pro' } })
    const zoneId = zone.body.result.id
    await call(
      child.api,
      `/zones/${zoneId}/rulesets/phases/http_request_firewall_managed/entrypoint`,
      {
        method: 'PUT',
        json: {
          rules: [GENERAL, OWASP, EXPOSED_CREDENTIALS].map((id) => ({
            action: 'execute',
            expression: 'true',
            action_parameters: { id },
          })),
        },
      },
    )
    for (const input of [file, `${file}.gz`]) {
      const replay = fetch(`${child.origin}/workbench/v1/zones/${zoneId}/replay`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${CRASH_CREDENTIALS.apiToken}`,
          'content-type': input.endsWith('.gz') ? 'application/gzip' : 'application/x-ndjson',
          'content-length': String(statSync(input).size),
        },
        body: Readable.toWeb(createReadStream(input)) as ReadableStream,
        duplex: 'half',
      } as RequestInit).then(async (response) => ({
        status: response.status,
        body: await response.json(),
      }))
      const times = await sampleZones(child, replay)
      const answer = await replay
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      expect(answer.body.result).toMatchObject({
        requests: count,
        gzip: input.endsWith('.gz'),
        format: 'requests',
        warm: input.endsWith('.gz'),
      })
      const p99 = percentile(times, 0.99)
      console.log(
        `${input.endsWith('.gz') ? 'gzip' : 'ndjson'}: ${count} requests on ${answer.body.result.threads} thread(s) (warm: ${answer.body.result.warm}), peak so far ${(peakOf(child.process.pid!) / 1024 / 1024).toFixed(0)} MB, GET /zones ×${times.length}: p50 ${percentile(times, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`,
      )
      p99s.push(p99)
    }
    const peak = peakOf(child.process.pid!)
    console.log(`service peak RSS (VmHWM): ${(peak / 1024 / 1024).toFixed(0)} MB`)
    expect(peak).toBeLessThan(PEAK_LIMIT)
    // The latency bound is the measure of the 1 GB run (`npm run soak`, alone on the
    // machine); in `npm test` other test files share the two cores, so it is reported, not held.
    if (MEGABYTES >= 1024) for (const p99 of p99s) expect(p99).toBeLessThan(100)
  } finally {
    await stop(child)
  }
}, 3_600_000)
