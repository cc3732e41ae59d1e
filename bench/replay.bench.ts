// A replay's throughput (issue 20): a generated file of a million requests (attacks and benign
// requests of tests/fixtures/traffic, mixed) replayed through a zone deploying all three managed
// rulesets, on one worker thread and on one per core, beside the engine's own single-core rate
// on the same requests measured in the same run (what bench/engine measures, on this traffic),
// each the fastest of its rounds.
// Goal: on N cores, at least 0.8 × N × the single-core rate, so each line's ratio is the replay's
// rate over N × the engine's, with 0.8 its goal. Bytes of input per second too.
// REPLAY_BENCH_REQUESTS sets the file's size (default 1,000,000).
import {
  createReadStream,
  mkdtempSync,
  openSync,
  closeSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ReplayTally } from '@shared/replay/replay-tally'
import { compileReplayZone, evaluateItems, type ReplayItem } from '../src-main/replay/evaluation'
import { openReplayInput } from '../src-main/replay/input'
import { ReplayPool } from '../src-main/replay/pool'
import { runReplay } from '../src-main/replay/run'
import type { Gathered } from '../src-main/zones/simulator'
import { ManagedCatalog, readCatalogFiles } from '../src-main/zones/rulesets/catalog'
import { entrypoint } from '../scripts/detection-rates'
import { bundleChild, removeChildBundle } from '../tests/child-bundle'
import { heading, report, throughput, type Throughput } from './measure'

const root = resolve(import.meta.dirname, '..')
const resourcesDir = resolve(root, 'resources')
const total = Number(process.env.REPLAY_BENCH_REQUESTS ?? 1_000_000)
const cores = availableParallelism()

const catalog = new ManagedCatalog(readCatalogFiles(resourcesDir))
const configuration: Gathered = {
  zoneEntrypoint: entrypoint(catalog.latest().map((ruleset) => ({ ruleset: ruleset.id }))),
  zoneRulesets: [],
  accountRulesets: [],
  firewallRules: [],
  managedRulesets: true,
}

// One attack after every four benign requests, as a zone's traffic is mostly benign.
const fixture = (name: string) =>
  readFileSync(resolve(root, 'tests/fixtures/traffic', name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
const benign = fixture('benign.ndjson')
const attacks = fixture('attacks.ndjson')
const lineAt = (i: number) =>
  i % 5 === 4 ? attacks[i % attacks.length]! : benign[i % benign.length]!

const dir = mkdtempSync(join(tmpdir(), 'zw-bench-replay-'))
const file = join(dir, 'requests.ndjson')
const fd = openSync(file, 'w')
for (let at = 0; at < total; at += 10_000) {
  let text = ''
  for (let i = at; i < Math.min(total, at + 10_000); i++) text += `${lineAt(i)}\n`
  writeSync(fd, text)
}
closeSync(fd)
const bytes = statSync(file).size

// The worker bundled as the app ships it, where its packages resolve.
const workerFile = await bundleChild(resolve(root, 'src-main/replay/worker.ts'))

heading(
  `replay: ${total.toLocaleString('en-US')} requests (${(bytes / 1e6).toFixed(0)} MB), all three managed rulesets, ${cores} cores`,
)

// The engine alone on one core, on the file's first requests.
const zone = compileReplayZone({ configuration, resourcesDir })
const sample: ReplayItem[] = Array.from({ length: Math.min(total, 5_000) }, (_, i) => ({
  line: i + 1,
  request: JSON.parse(lineAt(i)),
}))
const engine = await throughput(
  'engine, one core (bench/engine on this traffic)',
  sample.length,
  () => evaluateItems(zone, sample, () => undefined, { trace: false, at: 0 }),
)

/**
 * The file replayed REPLAY_ROUNDS times on one pool, the fastest round kept, as the engine's
 * reference keeps its fastest (measure.ts): the same pool is what the service keeps warm between
 * runs, and the best of a few rounds is the figure least disturbed by the machine's other work.
 */
const REPLAY_ROUNDS = 2

async function replay(threads: number): Promise<{ rate: Throughput; bytesPerSecond: number }> {
  const pool = await ReplayPool.start({
    configuration,
    resourcesDir,
    threads,
    worker: { file: workerFile },
  })
  try {
    const rate = await throughput(
      `replay, ${threads} thread${threads === 1 ? '' : 's'}`,
      total,
      async () => {
        const run = await runReplay({
          input: await openReplayInput(createReadStream(file)),
          evaluator: pool,
          tally: new ReplayTally(),
        })
        if (run.requests !== total) throw new Error(`Replayed ${run.requests} of ${total}`)
      },
      REPLAY_ROUNDS,
    )
    return { rate, bytesPerSecond: (bytes * rate.opsPerSec) / total }
  } finally {
    await pool.close()
  }
}

try {
  for (const threads of [...new Set([1, cores])]) {
    const { rate, bytesPerSecond } = await replay(threads)
    const linear = { label: `${threads} × ${engine.label}`, opsPerSec: threads * engine.opsPerSec }
    report(rate, linear, 0.8)
    console.log(`${''.padEnd(44)} ${(bytesPerSecond / 1e6).toFixed(2).padStart(12)} MB of input/s`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
  removeChildBundle(workerFile)
}
