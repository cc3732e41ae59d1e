// Detection and false-positive rates of the managed catalog on the traffic corpus
// (tests/fixtures/traffic/attacks.ndjson and benign.ndjson), through the engine: the general
// managed ruleset alone, OWASP alone at paranoia levels 1..4 × anomaly thresholds 25/40/60 and
// CRS's own threshold 5, and both together. A request counts as detected when the engine blocks
// or challenges it. The OWASP rows are also measured on the CRS corpus (tests/fixtures/crs: CRS's
// regression tests as attacks, its benign requests), beside what ModSecurity running CRS 3.3.4
// gave the same requests (the golden files: flagged when its score reaches the threshold).
//
//   npx tsx scripts/detection-rates.ts
//
// The functions are exported for tests/unit/engine/detection.test.ts.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Overrides } from '@shared/api/rulesets'
import { requestContext, type RequestDescription } from '@shared/expression'
import { compileZone, type EngineRule, type EngineRuleset } from '../src-main/engine'
import type { WafSensitivity } from '@shared/api/waf'
import { ManagedCatalog, readCatalogFiles } from '../src-main/zones/rulesets/catalog'
import { readLegacyCatalog } from '../src-main/zones/previous-waf/catalog'
import { enginePreviousWaf } from '../src-main/zones/previous-waf/engine-input'
import { DEFAULT_SETTINGS } from '../src-main/zones/previous-waf/store'
import {
  describeRequest,
  readCorpus,
  readGolden,
  type CorpusRecord,
} from '../tests/unit/crs/corpus'

const ROOT = resolve(import.meta.dirname, '..')

export const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
export const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
export const OWASP_ANOMALY_RULE = '6179ae15870a4bb7b2d480d4843b323c'
export const PARANOIA_LEVELS = [1, 2, 3, 4] as const
export const THRESHOLDS = [25, 40, 60] as const
/** CRS's own inbound anomaly threshold (crs-setup.conf's default) */
export const CRS_THRESHOLD = 5

export interface Deployment {
  ruleset: string
  overrides?: Overrides
}

export interface Configuration {
  name: string
  deployments: Deployment[]
  /** the previous WAF product instead of managed rulesets, with this OWASP sensitivity */
  previous?: WafSensitivity
}

export interface Rates {
  name: string
  attacks: number
  detected: number
  benign: number
  falsePositives: number
  detectionRate: number
  falsePositiveRate: number
}

export function readTraffic(file: string): RequestDescription[] {
  return readFileSync(resolve(ROOT, 'tests/fixtures/traffic', file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RequestDescription)
}

/** OWASP at paranoia level `level` (higher levels' tags disabled) and anomaly threshold `threshold`. */
export function owaspOverrides(level: number, threshold: number): Overrides {
  const categories = PARANOIA_LEVELS.filter((n) => n > level).map((n) => ({
    category: `paranoia-level-${n}`,
    enabled: false,
  }))
  return {
    ...(categories.length > 0 ? { categories } : {}),
    rules: [{ id: OWASP_ANOMALY_RULE, score_threshold: threshold }],
  }
}

export function owaspConfiguration(level: number, threshold: number): Configuration {
  return {
    name: `OWASP PL${level}, threshold ${threshold}`,
    deployments: [{ ruleset: OWASP, overrides: owaspOverrides(level, threshold) }],
  }
}

/** Every configuration the table shows, in order. */
export function configurations(): Configuration[] {
  return [
    { name: 'General managed ruleset', deployments: [{ ruleset: GENERAL }] },
    ...PARANOIA_LEVELS.flatMap((level) =>
      [...THRESHOLDS, CRS_THRESHOLD].map((threshold) => owaspConfiguration(level, threshold)),
    ),
    {
      name: 'General + OWASP PL1, threshold 40 (defaults)',
      deployments: [{ ruleset: GENERAL }, { ruleset: OWASP, overrides: owaspOverrides(1, 40) }],
    },
    {
      name: 'General + OWASP PL2, threshold 25',
      deployments: [{ ruleset: GENERAL }, { ruleset: OWASP, overrides: owaspOverrides(2, 25) }],
    },
    ...(['off', 'high', 'medium', 'low'] as const).map((sensitivity) => ({
      name: `Previous WAF, OWASP sensitivity ${sensitivity}`,
      deployments: [],
      previous: sensitivity,
    })),
  ]
}

function executeRule(deployment: Deployment, index: number): EngineRule {
  return {
    id: index.toString(16).padStart(32, '0'),
    version: '1',
    ref: `deploy-${index}`,
    action: 'execute',
    expression: 'true',
    description: `Execute ${deployment.ruleset}`,
    enabled: true,
    last_updated: '',
    action_parameters: {
      id: deployment.ruleset,
      version: 'latest',
      ...(deployment.overrides ? { overrides: deployment.overrides } : {}),
    },
  }
}

export function entrypoint(deployments: Deployment[]): EngineRuleset {
  return {
    id: 'f'.repeat(32),
    name: 'zone entry point',
    description: '',
    kind: 'zone',
    phase: 'http_request_firewall_managed',
    version: '1',
    last_updated: '',
    rules: deployments.map((deployment, i) => executeRule(deployment, i + 1)),
  }
}

export function createMeasurer(): (configuration: Configuration) => Rates {
  const catalog = new ManagedCatalog(readCatalogFiles(resolve(ROOT, 'resources')))
  const legacy = readLegacyCatalog(resolve(ROOT, 'resources'))
  const attacks = readTraffic('attacks.ndjson').map((request) => requestContext(request))
  const benign = readTraffic('benign.ndjson').map((request) => requestContext(request))
  const credentials = () => undefined
  return (configuration) => {
    const previous = configuration.previous
    const zone = compileZone({
      zoneEntrypoint: entrypoint(configuration.deployments),
      firewallRules: [],
      resolveRuleset: (id, version) => catalog.resolve(id, version),
      ...(previous === undefined
        ? {}
        : {
            managedRulesets: false,
            previousWaf: enginePreviousWaf(
              {
                settings: { ...DEFAULT_SETTINGS, sensitivity: previous, action_mode: 'block' },
                overrides: [],
                pageRules: [],
                groupModes: new Map(),
                ruleModes: new Map(),
              },
              legacy,
            ),
          }),
    })
    const caught = (ctx: (typeof attacks)[number]) =>
      zone.evaluate(ctx, { credentials, trace: false }).outcome !== 'passed'
    const detected = attacks.filter(caught).length
    const falsePositives = benign.filter(caught).length
    return {
      name: configuration.name,
      attacks: attacks.length,
      detected,
      benign: benign.length,
      falsePositives,
      detectionRate: detected / attacks.length,
      falsePositiveRate: falsePositives / benign.length,
    }
  }
}

/** A configuration's OWASP paranoia level and threshold, when it deploys OWASP alone. */
function owaspAlone(
  configuration: Configuration,
): { level: number; threshold: number } | undefined {
  const [only, ...rest] = configuration.deployments
  if (only?.ruleset !== OWASP || rest.length > 0) return undefined
  const disabled = (only.overrides?.categories ?? []).filter((c) => c.enabled === false).length
  const threshold = only.overrides?.rules?.find((r) => r.id === OWASP_ANOMALY_RULE)?.score_threshold
  return threshold === undefined ? undefined : { level: 4 - disabled, threshold }
}

/** Rates on the CRS corpus: ours through the engine, and the reference's from its golden files. */
export interface CrsCorpusRates {
  ours: Rates
  reference: Rates
}

/**
 * The measure of OWASP configurations on the CRS corpus: the requests the reference scored
 * (Apache answered the rest itself) that a request description can carry.
 */
export function createCrsCorpusMeasurer(): (
  configuration: Configuration,
) => CrsCorpusRates | undefined {
  const catalog = new ManagedCatalog(readCatalogFiles(resolve(ROOT, 'resources')))
  const { regression, benign } = readCorpus()
  const golden = PARANOIA_LEVELS.map((level) => readGolden(level))
  const scored = (records: CorpusRecord[]) =>
    records.filter((r) => r.wb_ok && golden.every((g) => (g.get(r.id)?.score ?? null) !== null))
  const sets = [scored(regression), scored(benign)].map((records) =>
    records.map((record) => ({ id: record.id, ctx: requestContext(describeRequest(record)) })),
  )
  const [attacks, ordinary] = sets as [(typeof sets)[number], (typeof sets)[number]]
  const credentials = () => undefined
  return (configuration) => {
    const owasp = owaspAlone(configuration)
    if (owasp === undefined) return undefined
    const zone = compileZone({
      zoneEntrypoint: entrypoint(configuration.deployments),
      firewallRules: [],
      resolveRuleset: (id, version) => catalog.resolve(id, version),
    })
    const caught = ({ ctx }: (typeof attacks)[number]) =>
      zone.evaluate(ctx, { credentials, trace: false }).outcome !== 'passed'
    const flagged = ({ id }: (typeof attacks)[number]) =>
      golden[owasp.level - 1]!.get(id)!.score! >= owasp.threshold
    const rates = (test: (request: (typeof attacks)[number]) => boolean): Rates => {
      const detected = attacks.filter(test).length
      const falsePositives = ordinary.filter(test).length
      return {
        name: configuration.name,
        attacks: attacks.length,
        detected,
        benign: ordinary.length,
        falsePositives,
        detectionRate: detected / attacks.length,
        falsePositiveRate: falsePositives / ordinary.length,
      }
    }
    return { ours: rates(caught), reference: rates(flagged) }
  }
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`

const cell = (rate: number, count: number, of: number) => `${percent(rate)} (${count}/${of})`

/** Our corpus, and for OWASP alone the CRS corpus, ours beside the reference's. */
export function detectionTable(rows: [Rates, CrsCorpusRates | undefined][]): string {
  const lines = [
    '| configuration | detection | false positives | CRS corpus: detection | false positives | ModSecurity: detection | false positives |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(([r, crs]) => {
      const ours = `${cell(r.detectionRate, r.detected, r.attacks)} | ${cell(r.falsePositiveRate, r.falsePositives, r.benign)}`
      if (crs === undefined) return `| ${r.name} | ${ours} | | | | |`
      const pair = (x: Rates) =>
        `${cell(x.detectionRate, x.detected, x.attacks)} | ${cell(x.falsePositiveRate, x.falsePositives, x.benign)}`
      return `| ${r.name} | ${ours} | ${pair(crs.ours)} | ${pair(crs.reference)} |`
    }),
  ]
  return lines.join('\n')
}

// Run as a script, not bundled into a benchmark that imports it (bench/run.ts), where
// import.meta.url is the bundle's own and so equals argv[1].
if (
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(process.argv[1]).href &&
  import.meta.url.endsWith('/detection-rates.ts')
) {
  const measure = createMeasurer()
  const measureCrs = createCrsCorpusMeasurer()
  console.log(
    detectionTable(
      configurations().map((c): [Rates, CrsCorpusRates | undefined] => [measure(c), measureCrs(c)]),
    ),
  )
}
