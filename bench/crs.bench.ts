// The OWASP managed ruleset's throughput on the CRS corpus (issue 18): requests per second on one
// core through OWASP alone at each paranoia level (context built and evaluated, no trace),
// beside building the requests' contexts alone in the same run, and beside ModSecurity's own
// engine time on the same requests (phases 1 and 2, from its audit log's stopwatch): measured in
// this run, one request at a time, where Debian's Apache, ModSecurity and CRS are installed and
// the bench runs as root (Apache drops to www-data), else the golden files' (written by
// `npm run crs:reference`). Goal: at least 10× ModSecurity's throughput per core, which is the
// requests it serves per second of engine time (one over its mean time). Its median request is
// printed too: the corpus has a long tail (large bodies, patterns that backtrack), which the mean
// counts and the median does not.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { requestContext } from '@shared/expression'
import { compileZone, type EngineRuleset } from '../src-main/engine'
import { ManagedCatalog, readCatalogFiles } from '../src-main/zones/rulesets/catalog'
import { userInfo } from 'node:os'
import { referenceInstalled, referenceTimes } from '../scripts/crs-reference'
import { describeRequest, type CorpusRecord, type GoldenRecord } from '../tests/unit/crs/corpus'
import { heading, report, throughput, type Throughput } from './measure'

const root = resolve(import.meta.dirname, '..')
const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
const OWASP_ANOMALY_RULE = '6179ae15870a4bb7b2d480d4843b323c'
const catalog = new ManagedCatalog(readCatalogFiles(resolve(root, 'resources')))

function readLines<T>(file: string): T[] {
  return readFileSync(resolve(root, 'tests/fixtures/crs', file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T)
}

const corpus = readLines<CorpusRecord>('crs-tests.ndjson')
const measured = corpus.filter((record) => record.wb_ok)
const requests = measured.map(describeRequest)

/** The zone's entry point executing OWASP with the levels above `level` off (threshold 5). */
function owaspAt(level: number): EngineRuleset {
  const categories = [2, 3, 4]
    .filter((n) => n > level)
    .map((n) => ({ category: `paranoia-level-${n}`, enabled: false }))
  return {
    id: '0'.repeat(32),
    name: 'zone entry point',
    description: '',
    kind: 'zone',
    phase: 'http_request_firewall_managed',
    version: '1',
    last_updated: '',
    rules: [
      {
        id: '1'.repeat(32),
        ref: 'owasp',
        version: '1',
        action: 'execute',
        expression: 'true',
        description: '',
        enabled: true,
        last_updated: '',
        action_parameters: {
          id: OWASP,
          version: 'latest',
          overrides: {
            ...(categories.length > 0 ? { categories } : {}),
            rules: [{ id: OWASP_ANOMALY_RULE, score_threshold: 5 }],
          },
        },
      },
    ],
  }
}
const ROUNDS = 3
const TIMINGS = 5
const ops = requests.length * ROUNDS
const credentials = () => undefined

const measureReference = referenceInstalled() && userInfo().uid === 0

/**
 * ModSecurity's engine time (µs) per request on the requests measured here, by level: measured
 * now when it can be, else the golden files'.
 */
async function modSecurityTimes(level: number): Promise<number[]> {
  if (measureReference) return referenceTimes(level, measured)
  const ids = new Set(measured.map((record) => record.id))
  return readLines<GoldenRecord>(`golden-pl${level}.jsonl`).flatMap((g) =>
    g.modsec_us === null || !ids.has(g.id) ? [] : [g.modsec_us],
  )
}

/** ModSecurity's throughput per core (one over its mean time), and its median request's rate. */
async function modSecurity(level: number): Promise<{ throughput: Throughput; median: Throughput }> {
  const times = (await modSecurityTimes(level)).sort((a, b) => a - b)
  const mean = times.reduce((sum, time) => sum + time, 0) / times.length
  const median = times[times.length >> 1] ?? NaN
  const source = measureReference ? 'measured now' : 'golden files'
  return {
    throughput: {
      label: `ModSecurity PL${level} (${times.length} requests, mean ${Math.round(mean)} µs, ${source})`,
      opsPerSec: 1e6 / mean,
    },
    median: {
      label: `ModSecurity PL${level}'s median request (${median} µs)`,
      opsPerSec: 1e6 / median,
    },
  }
}

heading(`crs: OWASP ruleset alone on the CRS corpus (${requests.length} requests), one core`)
const contexts = await throughput(
  'build request contexts',
  ops,
  () => {
    for (let i = 0; i < ROUNDS; i++) for (const request of requests) requestContext(request)
  },
  TIMINGS,
)
const zones = [1, 2, 3, 4].map((level) => ({
  level,
  zone: compileZone({
    zoneEntrypoint: owaspAt(level),
    firewallRules: [],
    resolveRuleset: (id, version) => catalog.resolve(id, version),
  }),
}))
// One pass through each level first: the level measured first would otherwise pay for compiling
// the patterns and warming the code both use (it measured a third slower than when second).
for (const { zone } of zones)
  for (const request of requests)
    zone.evaluate(requestContext(request), { trace: false, credentials })
for (const { level, zone } of zones) {
  const simulated = await throughput(
    `OWASP PL${level} (context + evaluation)`,
    ops,
    () => {
      for (let i = 0; i < ROUNDS; i++)
        for (const request of requests)
          zone.evaluate(requestContext(request), { trace: false, credentials })
    },
    TIMINGS,
  )
  report(simulated, contexts)
  const reference = await modSecurity(level)
  report(simulated, reference.throughput, 10)
  report(simulated, reference.median)
}
