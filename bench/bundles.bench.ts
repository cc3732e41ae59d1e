// What a zone bundle costs: exporting a large zone from one service and importing it into
// another on an empty data dir, beside the time of simply reading the same zone's resources
// through the API in the same run (the zone, its rulesets, filters and firewall rules page by
// page, and its settings). The zone: 1,000 filters and firewall rules, and the three managed
// rulesets deployed with 200 rule overrides among them. Each figure is the fastest of a few
// rounds; the imported zone is deleted between rounds, untimed. Then a plan against the second
// service holding the same zone with 10 differences (10 firewall rules given another priority locally), beside the
// same read.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createService, type Service } from '../src-main/service'
import { heading } from './measure'

const FIREWALL_RULES = 1_000
const PAGE = 100
const ROUNDS = 3
const GOAL = 3
const DIFFERENCES = 10
const ZONE_NAME = 'bundle.example'
const CREDENTIALS = {
  apiToken: 'benchToken0123456789abcdefghijklmnopqrst',
  email: 'bench@example.com',
  apiKey: '0123456789abcdef0123456789abcdef01234',
}
const resourcesDir = join(import.meta.dirname, '..', 'resources')
/** The managed rulesets and how many of their rules the deployment overrides (200 in all). */
const DEPLOYMENTS = [
  { id: 'efb7b8c949ac4650a09736fc376e9aee', overrides: 100 },
  { id: '4814384a9e5d4991b9815dcfc25d2f1f', overrides: 90 },
  { id: 'c2e184081120413c86c3ab7e14069605', overrides: 10 },
]

interface Running {
  service: Service
  dataDir: string
  origin: string
  call: (path: string, method?: string, body?: string) => Promise<string>
}

async function start(): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bundles-bench-'))
  const service = await createService({
    dataDir,
    api: { credentials: CREDENTIALS, port: 0 },
    shell: 'headless',
    resourcesDir,
  })
  const origin = await service.listen()
  const call = async (path: string, method = 'GET', body?: string) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${CREDENTIALS.apiToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body,
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
    return text
  }
  return { service, dataDir, origin, call }
}

/** The parts of the API's answers this benchmark reads. */
type Result = { id: string; kind?: string }

async function json<R = Result>(
  running: Running,
  path: string,
  method?: string,
  body?: unknown,
): Promise<R> {
  const text = await running.call(
    path,
    method,
    body === undefined ? undefined : JSON.stringify(body),
  )
  return (JSON.parse(text) as { result: R }).result
}

/** The zone of the benchmark, built through the API; answers its id. */
async function buildZone(running: Running): Promise<string> {
  const { id: zone } = await json(running, '/client/v4/zones', 'POST', {
    name: ZONE_NAME,
    plan: 'enterprise',
  })
  const base = `/client/v4/zones/${zone}`
  for (let start = 0; start < FIREWALL_RULES; start += PAGE) {
    const indices = Array.from({ length: PAGE }, (_, i) => start + i)
    const filters = await json<Result[]>(
      running,
      `${base}/filters`,
      'POST',
      indices.map((i) => ({
        expression: `ip.src eq 198.51.${i >> 8}.${i & 255} and http.request.uri.path contains "/p${i}"`,
        description: `filter ${i}`,
      })),
    )
    await json(
      running,
      `${base}/firewall/rules`,
      'POST',
      filters.map((filter, n) => ({
        action: n % 3 === 0 ? 'challenge' : 'block',
        priority: indices[n]! % 7 === 0 ? null : indices[n],
        paused: n % 10 === 0,
        description: `rule ${indices[n]}`,
        filter: { id: filter.id },
      })),
    )
  }
  const catalog = (id: string) =>
    JSON.parse(readFileSync(join(resourcesDir, 'managed-rulesets', `${id}.json`), 'utf8')) as {
      rules: { id: string }[]
    }
  await json(running, `${base}/rulesets/phases/http_request_firewall_managed/entrypoint`, 'PUT', {
    rules: DEPLOYMENTS.map(({ id, overrides }) => ({
      action: 'execute',
      expression: 'true',
      action_parameters: {
        id,
        overrides: {
          rules: catalog(id)
            .rules.slice(0, overrides)
            .map((rule) => ({ id: rule.id, enabled: false })),
        },
      },
    })),
  })
  return zone
}

/** Gives the zone's first `count` firewall rules another priority, one request each. */
async function editFirewallRules(running: Running, zone: string, count: number): Promise<void> {
  const base = `/client/v4/zones/${zone}/firewall/rules`
  const rules = await json<Result[]>(running, `${base}?per_page=${count}`)
  for (const [n, rule] of rules.entries()) {
    await json(running, `${base}/${rule.id}`, 'PATCH', {
      id: rule.id,
      priority: FIREWALL_RULES + n,
    })
  }
}

/** Reads every resource of the zone through the API, as a script backing it up would. */
async function readThroughApi(running: Running, zone: string): Promise<void> {
  const base = `/client/v4/zones/${zone}`
  await running.call(base)
  const rulesets = await json<Result[]>(running, `${base}/rulesets`)
  for (const ruleset of rulesets.filter((r) => r.kind !== 'managed')) {
    await running.call(`${base}/rulesets/${ruleset.id}`)
  }
  for (const list of ['filters', 'firewall/rules']) {
    for (let page = 1; page <= FIREWALL_RULES / PAGE + 1; page++) {
      await running.call(`${base}/${list}?per_page=${PAGE}&page=${page}`)
    }
  }
  await running.call(`${base}/pagerules`)
  await running.call(`/workbench/v1/zones/${zone}/firewall/settings`)
  await running.call(`/workbench/v1/zones/${zone}/events/settings`)
}

async function fastest(work: () => Promise<void>, between?: () => Promise<void>): Promise<number> {
  let best = Infinity
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint()
    await work()
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6)
    await between?.()
  }
  return best
}

heading('bundles: export + import of a large zone, and a plan, vs reading it through the API')

const source = await start()
const target = await start()
try {
  const zone = await buildZone(source)
  const read = await fastest(() => readThroughApi(source, zone))
  let bundleBytes = 0
  let exportMs = Infinity
  let importMs = Infinity
  const roundTrip = await fastest(
    async () => {
      const started = process.hrtime.bigint()
      const text = await source.call(`/workbench/v1/zones/${zone}/export?format=bundle`)
      const exported = process.hrtime.bigint()
      await target.call('/workbench/v1/zones/import', 'POST', text)
      const imported = process.hrtime.bigint()
      bundleBytes = Buffer.byteLength(text)
      exportMs = Math.min(exportMs, Number(exported - started) / 1e6)
      importMs = Math.min(importMs, Number(imported - exported) / 1e6)
    },
    async () => {
      await target.call(`/client/v4/zones/${zone}`, 'DELETE')
    },
  )
  await target.call(
    '/workbench/v1/zones/import',
    'POST',
    await source.call(`/workbench/v1/zones/${zone}/export?format=bundle`),
  )
  await editFirewallRules(source, zone, DIFFERENCES)
  const remote = {
    base_url: `${target.origin}/client/v4`,
    api_token: CREDENTIALS.apiToken,
    zone_name: ZONE_NAME,
  }
  let planned: { calls: unknown[] } = { calls: [] }
  const plan = await fastest(async () => {
    planned = await json(source, `/workbench/v1/zones/${zone}/remote/plan`, 'POST', remote)
  })
  if (planned.calls.length !== DIFFERENCES) {
    throw new Error(`the plan has ${planned.calls.length} calls, not ${DIFFERENCES}`)
  }
  const ms = (n: number) => `${n.toFixed(0)} ms`
  const compared = (label: string, figure: number) => {
    const ratio = figure / read
    const verdict = ratio <= GOAL ? `(goal ≤ ${GOAL}×: met)` : `(goal ≤ ${GOAL}×: NOT met)`
    return `${label.padEnd(44)} ${ms(figure).padStart(9)}   vs reading it through the API: ${ms(read)}   ratio ${ratio.toFixed(2)}  ${verdict}`
  }
  console.log(
    `zone of ${FIREWALL_RULES.toLocaleString('en-US')} firewall rules, 3 deployments with 200 overrides; bundle ${Math.round(bundleBytes / 1024).toLocaleString('en-US')} KiB`,
  )
  console.log(compared('export + import into an empty data dir', roundTrip))
  console.log(`  of which export ${ms(exportMs)}, import ${ms(importMs)} (fastest rounds of each)`)
  console.log(compared(`plan against a second service, ${DIFFERENCES} differences`, plan))
} finally {
  for (const running of [source, target]) {
    await running.service.close()
    rmSync(running.dataDir, { recursive: true, force: true })
  }
}
