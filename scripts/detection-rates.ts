// Detection and false-positive rates of the managed catalog on the traffic corpus
// (tests/fixtures/traffic/attacks.ndjson and benign.ndjson), through the engine: the general
// managed ruleset alone, OWASP alone at paranoia levels 1..4 × anomaly thresholds 25/40/60, and
// both together. A request counts as detected when the engine blocks or challenges it.
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

const ROOT = resolve(import.meta.dirname, '..')

export const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
export const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
export const OWASP_ANOMALY_RULE = '6179ae15870a4bb7b2d480d4843b323c'
export const PARANOIA_LEVELS = [1, 2, 3, 4] as const
export const THRESHOLDS = [25, 40, 60] as const

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
      THRESHOLDS.map((threshold) => owaspConfiguration(level, threshold)),
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

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`

export function markdownTable(rows: Rates[]): string {
  const lines = [
    '| configuration | detection rate | false-positive rate |',
    '| --- | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${percent(r.detectionRate)} (${r.detected}/${r.attacks}) | ` +
        `${percent(r.falsePositiveRate)} (${r.falsePositives}/${r.benign}) |`,
    ),
  ]
  return lines.join('\n')
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const measure = createMeasurer()
  console.log(markdownTable(configurations().map(measure)))
}
