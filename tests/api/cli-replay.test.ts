// `zone-workbench replay` as a user runs it: the built CLI (bin/zone-workbench.mjs → out/main/cli.js
// and its replay-worker.js, made by `npm run build`) in a child process, requests on stdin and
// verdicts on stdout. A zone exported as a bundle gives, request for request, the verdicts the
// service's simulate API gives (managed rulesets with the CRS, and the exposed-credentials check
// reading the credential database); the same zone read from its data dir gives the same file; and
// a generated NDJSON of REPLAY_TEST_MB megabytes (default 50; 1 GB in npm run soak) and its gzip
// replay with the child's peak resident memory under 400 MB.

import { spawn } from 'node:child_process'
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeDataDir, simulate, startService, zoneExecuting, type Running } from './harness'

const ROOT = join(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'zone-workbench.mjs')
const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
const EXPOSED_CREDENTIALS = 'c2e184081120413c86c3ab7e14069605'

interface Outcome {
  code: number | null
  stdout: string
  stderr: string
  /** the child's peak resident memory (VmHWM), bytes */
  peak: number
}

/** VmHWM of a live process, in bytes (0 once it has gone). */
function peakOf(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? 0 : Number(kb) * 1024
  } catch {
    return 0
  }
}

/** Runs the CLI with stdin from `input` (a string, or a file's path); stdout to `outFile` if given. */
function cli(args: string[], input: { text: string } | { file: string }, outFile?: string) {
  const stdin = 'file' in input ? openSync(input.file, 'r') : 'pipe'
  const stdout = outFile === undefined ? 'pipe' : openSync(outFile, 'w')
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== 'ZONE_WORKBENCH_DATA_DIR'),
  )
  const child = spawn(process.execPath, [BIN, ...args], { stdio: [stdin, stdout, 'pipe'], env })
  if ('text' in input) child.stdin!.end(input.text)
  let out = ''
  let err = ''
  let peak = 0
  child.stdout?.on('data', (chunk) => (out += chunk))
  child.stderr!.on('data', (chunk) => (err += chunk))
  const sampler = setInterval(() => (peak = Math.max(peak, peakOf(child.pid!))), 50)
  return new Promise<Outcome>((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', () => {
      clearInterval(sampler)
      if (typeof stdin === 'number') closeSync(stdin)
      if (typeof stdout === 'number') closeSync(stdout)
    })
    child.on('close', (code) => resolve({ code, stdout: out, stderr: err, peak }))
  })
}

const traffic = (name: string) =>
  readFileSync(join(ROOT, 'tests/fixtures/traffic', name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')

// Attacks, benign requests and logins (some with leaked pairs), interleaved.
const requests = [
  ...traffic('attacks.ndjson').slice(0, 40),
  ...traffic('exposed-logins.ndjson'),
  ...traffic('benign.ndjson').slice(0, 40),
].sort()

beforeAll(() => {
  if (!existsSync(join(ROOT, 'out', 'main', 'replay-worker.js'))) {
    throw new Error('The CLI is not built: run `npm run build` (npm test does) before this test')
  }
})

describe('zone-workbench replay', () => {
  let on: Running
  let zone: string
  const dir = mkdtempSync(join(tmpdir(), 'zw-replay-'))
  const bundleFile = join(dir, 'zone.json')
  /** the general ruleset alone, for the memory test: it measures the streaming, not the engine */
  const generalBundle = join(dir, 'general.json')

  async function exportBundle(id: string, file: string) {
    const exported = await fetch(`${on.origin}/workbench/v1/zones/${id}/export?format=bundle`, {
      headers: { authorization: `Bearer ${(await on.service.bridge.serviceInfo({})).apiToken}` },
    })
    writeFileSync(file, await exported.text())
  }

  beforeAll(async () => {
    on = await startService()
    zone = await zoneExecuting(on, [GENERAL, OWASP, EXPOSED_CREDENTIALS])
    await exportBundle(zone, bundleFile)
    await exportBundle(await zoneExecuting(on, [GENERAL]), generalBundle)
  })
  afterAll(async () => {
    await on?.stop()
    removeDataDir(on?.dataDir ?? '')
    removeDataDir(dir)
  })

  /** The bundle's replay on two threads, run once for the tests that compare with it. */
  let bundleRun: Promise<Outcome> | undefined
  const replayBundle = () =>
    (bundleRun ??= cli(['replay', '--bundle', bundleFile, '--threads', '2'], {
      text: `${requests.join('\n')}\n`,
    }))

  it("gives a bundle's zone the verdicts the simulate API gives", async () => {
    const fromBundle = await replayBundle()
    expect(fromBundle.stderr).toContain(`Replayed ${requests.length} requests (requests;`)
    expect(fromBundle.code, fromBundle.stderr).toBe(0)
    const verdicts = fromBundle.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(verdicts).toHaveLength(requests.length)
    const outcomes = new Set<string>()
    for (const [i, line] of requests.entries()) {
      const { label: _label, ...request } = JSON.parse(line)
      const simulated = await simulate(on, zone, request)
      expect(verdicts[i], line).toMatchObject({
        line: i + 1,
        method: request.method,
        url: request.url,
        outcome: simulated.outcome,
        action: simulated.action,
        rules: simulated.events.map((event: any) => event.rule_id),
      })
      outcomes.add(simulated.outcome)
      for (const event of simulated.events) outcomes.add(event.ruleset_id)
    }
    // The run saw blocks and passes, and the credential check's rules fired.
    expect(outcomes).toContain('blocked')
    expect(outcomes).toContain('passed')
    expect(outcomes).toContain(EXPOSED_CREDENTIALS)
  }, 180_000)

  it('prints a mergeable summary with --json, and the same verdicts on one thread', async () => {
    const one = await cli(['replay', '--bundle', bundleFile, '--threads', '1', '--json'], {
      text: `${requests.join('\n')}\nnot a request\n`,
    })
    // The line that is no request is refused with its line number, after the ones before it.
    expect(one.code, one.stderr).toBe(1)
    expect(one.stderr).toContain(`Line ${requests.length + 1} is not JSON`)
    const again = await cli(['replay', '--bundle', bundleFile, '--threads', '1', '--json'], {
      text: `${requests.join('\n')}\n`,
    })
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toBe((await replayBundle()).stdout)
    const summary = JSON.parse(again.stderr)
    expect(summary).toMatchObject({ format: 'requests', gzip: false, requests: requests.length })
    const { blocked, challenged, passed } = summary.outcomes
    expect(blocked + challenged + passed).toBe(requests.length)
    expect(summary.rules.length).toBeGreaterThan(0)
  }, 180_000)

  it('replays a zone of a data dir (opened in its own process) as its bundle does', async () => {
    const name = (await on.ok(`/zones/${zone}`)).name
    await on.stop()
    const fromDataDir = await cli(['replay', '--zone', name, '--data-dir', on.dataDir], {
      text: `${requests.join('\n')}\n`,
    })
    expect(fromDataDir.stderr).toContain('Replayed')
    expect(fromDataDir.stdout).toBe((await replayBundle()).stdout)
  }, 180_000)

  it('keeps its peak memory under 400 MB on a large input, and on its gzip', async () => {
    const megabytes = Number(process.env.REPLAY_TEST_MB ?? 50)
    const file = join(dir, 'large.ndjson')
    const fd = openSync(file, 'w')
    const block = `${requests.join('\n')}\n`
    let written = 0
    let count = 0
    while (written < megabytes * 1024 * 1024) {
      written += writeSync(fd, block)
      count += requests.length
    }
    closeSync(fd)
    await pipeline(createReadStream(file), createGzip(), createWriteStream(`${file}.gz`))
    for (const input of [file, `${file}.gz`]) {
      const out = join(dir, 'large.verdicts.ndjson')
      const run = await cli(['replay', '--bundle', generalBundle, '--json'], { file: input }, out)
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stderr)).toMatchObject({ requests: count, gzip: input.endsWith('.gz') })
      expect(run.peak).toBeGreaterThan(0)
      expect(run.peak).toBeLessThan(400 * 1024 * 1024)
    }
  }, 3_600_000)
})
