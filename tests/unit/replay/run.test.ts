// A replay run through the worker pool (src-main/replay/run.ts, pool.ts): the same input gives the
// same summary and verdict file on 1, 2 and 4 threads, verdicts are the engine's for each request
// in input order, skipped lines are counted, the fields the zone reads that the log lacked are
// named, and an abort stops the run.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { PassThrough, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { ApiError } from '@shared/api/errors'
import { API_ERRORS } from '@shared/api/error-codes'
import { requestContext } from '@shared/expression'
import { ReplayTally } from '@shared/replay/replay-tally'
import { compileZone } from '../../../src-main/engine'
import { ManagedCatalog, readCatalogFiles } from '../../../src-main/zones/rulesets/catalog'
import { zoneConfigOf, type Gathered } from '../../../src-main/zones/simulator'
import { openReplayInput } from '../../../src-main/replay/input'
import { ReplayPool } from '../../../src-main/replay/pool'
import { runReplay, type ReplayProgress } from '../../../src-main/replay/run'
import { entrypoint, GENERAL, OWASP } from '../../../scripts/detection-rates'
import { blockingRule } from './blocking-rule'

const ROOT = resolve(__dirname, '../../..')
const RESOURCES = resolve(ROOT, 'resources')
const traffic = (name: string) =>
  readFileSync(resolve(ROOT, 'tests/fixtures/traffic', name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')

/** The general and OWASP rulesets deployed, and a firewall rule on a path. */
const configuration: Gathered = {
  zoneEntrypoint: entrypoint([{ ruleset: GENERAL }, { ruleset: OWASP }]),
  zoneRulesets: [],
  accountRulesets: [],
  firewallRules: [blockingRule('http.request.uri.path eq "/admin"')],
  managedRulesets: true,
}

// Attacks and benign requests interleaved, repeated to make many batches.
const mixed = [...traffic('attacks.ndjson'), ...traffic('benign.ndjson')]
const lines = Array.from({ length: 800 }, (_, i) => mixed[(i * 7) % mixed.length]!)
const input = Buffer.from(`${lines.join('\n')}\n`)

async function* chunksOf(bytes: Buffer, size = 1 << 14) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size)
}

async function replay(threads: number, bytes = input) {
  const pool = await ReplayPool.start({ configuration, resourcesDir: RESOURCES, threads })
  try {
    const tally = new ReplayTally()
    const verdicts = new PassThrough()
    const written: Buffer[] = []
    verdicts.on('data', (chunk: Buffer) => written.push(chunk))
    const progress: ReplayProgress[] = []
    const run = await runReplay({
      input: await openReplayInput(chunksOf(bytes)),
      evaluator: pool,
      tally,
      verdicts,
      at: 1_700_000_000_000,
      totalBytes: bytes.length,
      onProgress: (p) => progress.push(p),
    })
    return { run, summary: tally.summary(), verdicts: Buffer.concat(written).toString(), progress }
  } finally {
    await pool.close()
  }
}

describe('runReplay on the worker pool', () => {
  it('gives identical summaries and verdict files on 1, 2 and 4 threads', async () => {
    const one = await replay(1)
    expect(one.run.requests).toBe(800)
    expect(one.summary.outcomes.blocked).toBeGreaterThan(0)
    expect(one.summary.outcomes.passed).toBeGreaterThan(0)
    for (const threads of [2, 4]) {
      const other = await replay(threads)
      expect(other.summary).toEqual(one.summary)
      expect(other.verdicts).toBe(one.verdicts)
    }
  }, 120_000)

  it("writes the engine's verdict for each request, in input order, with progress", async () => {
    const { verdicts, progress } = await replay(2)
    const catalog = new ManagedCatalog(readCatalogFiles(RESOURCES))
    const zone = compileZone(zoneConfigOf(configuration, catalog))
    const written = verdicts
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(written.map((v) => v.line)).toEqual(lines.map((_, i) => i + 1))
    lines.forEach((line, i) => {
      const request = JSON.parse(line)
      const decision = zone.evaluate(requestContext(request), {
        trace: false,
        credentials: () => undefined,
      })
      expect(written[i]).toMatchObject({
        outcome: decision.outcome,
        action: decision.action,
        rules: decision.events.map((e) => e.rule_id),
        url: request.url,
      })
    })
    const last = progress.at(-1)!
    expect(last.requests).toBe(800)
    expect(last.bytes).toBe(input.length)
    expect(last.seconds_left).toBe(0)
  }, 60_000)

  it('counts skipped lines and names the fields the rules read that the log lacked', async () => {
    // A combined log: no headers, cookies or body; one line that records no request.
    const log = [
      '203.0.113.7 - - [10/Oct/2025:13:55:36 +0000] "GET /admin HTTP/1.1" 200 512 "-" "curl/8.5"',
      '203.0.113.7 - - [10/Oct/2025:13:55:37 +0000] "\\x16\\x03\\x01" 400 0 "-" "-"',
      '203.0.113.8 - - [10/Oct/2025:13:55:38 +0000] "GET /?q=1%27%20OR%20%271%27%3D%271 HTTP/1.1" 200 512 "-" "curl/8.5"',
    ].join('\n')
    const pool = await ReplayPool.start({ configuration, resourcesDir: RESOURCES, threads: 1 })
    try {
      const tally = new ReplayTally()
      const run = await runReplay({
        input: await openReplayInput(chunksOf(Buffer.from(log)), { host: 'example.com' }),
        evaluator: pool,
        tally,
      })
      expect(run).toMatchObject({ requests: 2, skipped: 1, cancelled: false })
      expect(tally.summary().outcomes.blocked).toBeGreaterThanOrEqual(1)
      expect(run.lacked_fields).toEqual(
        expect.arrayContaining(['http.cookie', 'http.request.body.raw', 'http.request.headers']),
      )
      expect(run.lacked_fields).not.toContain('http.request.uri.path')
    } finally {
      await pool.close()
    }
  }, 60_000)

  it('refuses a line that is not a request as the API would, naming the line, from a worker', async () => {
    const pool = await ReplayPool.start({ configuration, resourcesDir: RESOURCES, threads: 2 })
    try {
      const bad = Buffer.from(`${lines.slice(0, 600).join('\n')}\n{"method":\n`)
      const refused = runReplay({
        input: await openReplayInput(chunksOf(bad)),
        evaluator: pool,
        tally: new ReplayTally(),
      })
      await expect(refused).rejects.toBeInstanceOf(ApiError)
      await expect(refused).rejects.toMatchObject({
        status: 400,
        code: API_ERRORS.malformedBody,
        message: expect.stringContaining('Line 601 is not JSON'),
      })
    } finally {
      await pool.close()
    }
  }, 60_000)

  it('stops soon after an abort, with what it tallied before', async () => {
    const pool = await ReplayPool.start({ configuration, resourcesDir: RESOURCES, threads: 1 })
    // An input that never ends: the run stops only because of the abort.
    async function* endless() {
      for (let i = 0; ; i++) yield Buffer.from(`${lines[i % lines.length]}\n`)
    }
    const controller = new AbortController()
    const tally = new ReplayTally()
    let stoppedAt = 0
    try {
      const run = await runReplay({
        input: await openReplayInput(endless()),
        evaluator: pool,
        tally,
        signal: controller.signal,
        verdicts: new Writable({ write: (_chunk, _encoding, done) => done() }),
        onProgress: (p) => {
          if (p.requests >= 1000 && !controller.signal.aborted) {
            controller.abort()
            stoppedAt = performance.now()
          }
        },
      })
      const stopping = performance.now() - stoppedAt
      expect(run.cancelled).toBe(true)
      expect(run.requests).toBe(tally.summary().requests)
      expect(run.requests).toBeGreaterThanOrEqual(1000)
      // Loosely: well within the second the issue allows, on a shared machine.
      expect(stopping).toBeLessThan(5000)
    } finally {
      await pool.close()
    }
  }, 60_000)
  it('stops on an abort while its verdicts wait for a reader that stopped reading', async () => {
    const pool = await ReplayPool.start({ configuration, resourcesDir: RESOURCES, threads: 1 })
    const controller = new AbortController()
    try {
      const run = await runReplay({
        input: await openReplayInput(chunksOf(input)),
        evaluator: pool,
        tally: new ReplayTally(),
        signal: controller.signal,
        // Takes the first write and never finishes it, aborting the run instead.
        verdicts: new Writable({ highWaterMark: 1, write: () => controller.abort() }),
      })
      expect(run.cancelled).toBe(true)
    } finally {
      await pool.close()
    }
  }, 60_000)
})
