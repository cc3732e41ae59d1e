// What a change costs on disk: bytes per rule added over 1,000 rule adds, and per simulation over
// 1,000 simulations with events recorded, each through the real API of a service on a temporary
// data dir, beside the bytes of the JSON the API answered for what was added (the rule, the
// events). Bytes on disk are everything the data dir holds (each object's database file, WAL and
// history archive in `<file>.history/`), measured with the service closed so that the WAL is
// checkpointed, before and after; the growth is divided by the number of changes. A history
// archive keeps each commit's changed pages as compressed differences from their previous images
// (src-main/storage/history/page-codec.ts), so there a commit costs about what changed in them.

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createService } from '../src-main/service'
import { heading } from './measure'

const ADDS = 1_000
const SIMULATIONS = 1_000
const GOAL = 4
const CREDENTIALS = {
  apiToken: 'benchToken0123456789abcdefghijklmnopqrst',
  email: 'bench@example.com',
  apiKey: '0123456789abcdef0123456789abcdef01234',
}
const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const resourcesDir = join(import.meta.dirname, '..', 'resources')
const attacks = readFileSync(
  join(import.meta.dirname, '..', 'tests', 'fixtures', 'traffic', 'attacks.ndjson'),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => {
    const { label: _label, ...request } = JSON.parse(line) as Record<string, unknown>
    return request
  })

interface Bytes {
  history: number
  database: number
}

/** Bytes of the files under `path`: those in history archives (`*.history/`) and the rest. */
function bytesUnder(path: string, inHistory = false): Bytes {
  const stat = statSync(path)
  if (!stat.isDirectory()) {
    return inHistory ? { history: stat.size, database: 0 } : { history: 0, database: stat.size }
  }
  return readdirSync(path).reduce(
    (sum, name) => {
      const inner = bytesUnder(join(path, name), inHistory || name.endsWith('.history'))
      return { history: sum.history + inner.history, database: sum.database + inner.database }
    },
    { history: 0, database: 0 },
  )
}

/** The parts of the API's answers this benchmark reads. */
interface Answer {
  id: string
  rules: unknown[]
  events: unknown[]
}
type Call = (path: string, method?: string, json?: unknown) => Promise<Answer>

/** A service on `dataDir` for the length of `work`, which gets an authenticated JSON caller. */
async function withService(dataDir: string, work: (call: Call) => Promise<void>): Promise<void> {
  const service = await createService({
    dataDir,
    api: { credentials: CREDENTIALS, port: 0 },
    shell: 'headless',
    resourcesDir,
  })
  const origin = await service.listen()
  const call: Call = async (path, method = 'GET', json) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${CREDENTIALS.apiToken}`,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    })
    const body = (await response.json()) as { result: Answer }
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(body)}`)
    return body.result
  }
  try {
    await work(call)
  } finally {
    await service.close()
  }
}

/**
 * Sets a zone up (in one service run), then makes `count` changes (in another) and answers the
 * data dir's growth over them and the JSON bytes the changes answered. `setUp` answers the path
 * that `change` works on.
 */
async function growth(
  setUp: (call: Call) => Promise<string>,
  change: (call: Call, path: string, i: number) => Promise<number>,
  count: number,
): Promise<Bytes & { json: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'storage-growth-bench-'))
  let path = ''
  await withService(dataDir, async (call) => {
    path = await setUp(call)
  })
  const before = bytesUnder(dataDir)
  let json = 0
  await withService(dataDir, async (call) => {
    for (let i = 0; i < count; i++) json += await change(call, path, i)
  })
  const after = bytesUnder(dataDir)
  rmSync(dataDir, { recursive: true, force: true })
  return {
    history: after.history - before.history,
    database: after.database - before.database,
    json,
  }
}

const bytes = (n: number): string => Math.round(n).toLocaleString('en-US')

function print(label: string, count: number, unit: string, growth: Bytes & { json: number }): void {
  const json = growth.json / count
  const line = (what: string, total: number, goal?: number) => {
    const ratio = total / count / json
    const verdict =
      goal === undefined
        ? ''
        : ratio <= goal
          ? `  (goal ≤ ${goal}×: met)`
          : `  (goal ≤ ${goal}×: NOT met)`
    console.log(
      `${what.padEnd(52)} ${bytes(total / count).padStart(9)} B/${unit}   vs its JSON: ${bytes(json)} B/${unit}   ratio ${ratio.toFixed(2)}${verdict}`,
    )
  }
  line(label, growth.database + growth.history, GOAL)
  line('  of which database files (WAL checkpointed)', growth.database)
  line('  of which history archives', growth.history)
}

let zones = 0
const newZone = async (call: Call): Promise<string> =>
  (
    await call('/client/v4/zones', 'POST', {
      name: `growth-${++zones}.example`,
      plan: 'enterprise',
    })
  ).id

heading('storage growth: bytes on disk per change, vs the JSON of what changed')

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value))

print(
  `${ADDS.toLocaleString('en-US')} rule adds to a custom-phase entry point`,
  ADDS,
  'rule',
  await growth(
    async (call) => {
      const zone = await newZone(call)
      const ruleset = await call(
        `/client/v4/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`,
        'PUT',
        { rules: [] },
      )
      return `/client/v4/zones/${zone}/rulesets/${ruleset.id}`
    },
    async (call, ruleset, i) => {
      const answer = await call(`${ruleset}/rules`, 'POST', {
        action: 'block',
        expression: `ip.src eq 198.51.${i >> 8}.${i & 255} and http.request.uri.path contains "/admin"`,
        description: `block 198.51.${i >> 8}.${i & 255} from the admin pages`,
      })
      return jsonBytes(answer.rules.at(-1))
    },
    ADDS,
  ),
)

print(
  `${SIMULATIONS.toLocaleString('en-US')} simulations recording events`,
  SIMULATIONS,
  'simulation',
  await growth(
    async (call) => {
      const zone = await newZone(call)
      await call(
        `/client/v4/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
        'PUT',
        { rules: [{ action: 'execute', expression: 'true', action_parameters: { id: GENERAL } }] },
      )
      return `/workbench/v1/zones/${zone}`
    },
    async (call, zone, i) => {
      const answer = await call(`${zone}/simulate?record=true`, 'POST', attacks[i % attacks.length])
      return jsonBytes(answer.events)
    },
    SIMULATIONS,
  ),
)
