// The command line's commands, one entry each in COMMANDS: its options (node:util parseArgs
// form), its usage line and what it does with a workbench. Each calls the API route of the same
// name (api/routes/bundles.ts, api/routes/remote.ts), so the options, checks and errors are the
// API's; the human output says what the answer says, and `--json` prints the answer itself.

import { readFileSync, writeFileSync } from 'node:fs'
import { basename } from 'node:path'
import type { Writable } from 'node:stream'
import type { ParseArgsConfig } from 'node:util'
import type { BundleImportResult, ConfigurationChange } from '@shared/api/bundle'
import type { ApiMessage, Envelope } from '@shared/api/envelope'
import type { RemoteApplyResult, RemotePlan, RemoteTarget } from '@shared/api/remote'
import { API_PREFIX, WORKBENCH_PREFIX } from '../api/server'
import { replayCommand } from './replay'
import type { Workbench, WorkbenchRequest } from './workbench'

/**
 * Exit statuses as plan tools use them: 2 is a plan with changes, as `terraform plan
 * -detailed-exitcode` (https://developer.hashicorp.com/terraform/cli/commands/plan).
 */
export const EXIT = { ok: 0, error: 1, changesPending: 2 } as const

export interface Invocation {
  values: Record<string, string | boolean | undefined>
  positionals: string[]
  workbench: Workbench
  /** the data dir the workbench is on */
  dataDir: string
  stdin: AsyncIterable<Uint8Array>
  /** stdout as a stream, for output too large to hand over in one piece */
  output: Writable
  json: boolean
  env: NodeJS.ProcessEnv
  /** writes one line to stdout */
  stdout(line: string): void
  /** writes text to stdout as it is (an exported file) */
  write(text: string): void
  stderr(line: string): void
}

export interface Command {
  usage: string
  summary: string
  /** the names of the arguments it takes before or among its options, in order */
  operands: string[]
  options: NonNullable<ParseArgsConfig['options']>
  /** opens the workbench only if it calls it (replay needs no service for a bundle) */
  standalone?: boolean
  run(invocation: Invocation): Promise<number>
}

/** An answer that is the API's refusal: its messages go to stderr (and the envelope with --json). */
export class ApiRefusal extends Error {
  constructor(readonly envelope: Envelope<unknown>) {
    super(envelope.errors.map(messageLine).join('\n'))
  }
}

/** A command given wrongly (before any request): usage errors, exit 1. */
export class UsageError extends Error {}

function messageLine(error: ApiMessage): string {
  const pointer = error.source?.pointer === undefined ? '' : ` (at ${error.source.pointer})`
  return `error ${error.code}: ${error.message}${pointer}`
}

/**
 * The vendor's API root, which its SDK also defaults to, as it reads the credentials' variables
 * used here (https://github.com/cloudflare/cloudflare-typescript#usage, client options).
 */
const VENDOR_BASE_URL = 'https://api.cloudflare.com/client/v4'
const ZONE_ID = /^[0-9a-f]{32}$/

async function call<T>(workbench: Workbench, request: WorkbenchRequest): Promise<Envelope<T>> {
  const envelope = JSON.parse((await workbench.request(request)).text) as Envelope<T>
  if (!envelope.success) throw new ApiRefusal(envelope)
  return envelope
}

function jsonRequest(path: string, body: unknown): WorkbenchRequest {
  return { method: 'POST', path, body: JSON.stringify(body), contentType: 'application/json' }
}

/** A local zone's id: given as one, or found by its name through the API. */
async function zoneId(workbench: Workbench, zone: string | undefined): Promise<string> {
  if (zone === undefined) throw new UsageError('Name the zone, by name or id')
  if (ZONE_ID.test(zone)) return zone
  const { result } = await call<{ id: string; name: string }[]>(workbench, {
    method: 'GET',
    path: `${API_PREFIX}/zones?name=${encodeURIComponent(zone)}`,
  })
  const found = result?.find((candidate) => candidate.name === zone)
  if (found === undefined) throw new Error(`No zone named ${zone} in ${workbench.description}`)
  return found.id
}

const REMOTE_OPTIONS = {
  'base-url': { type: 'string' },
  'api-token': { type: 'string' },
  'api-email': { type: 'string' },
  'api-key': { type: 'string' },
  'remote-zone': { type: 'string' },
} as const

const REMOTE_USAGE = '[--base-url URL] [--api-token T | --api-email E --api-key K]'

/**
 * The remote as the API's body names it. Flags win over the environment the vendor's tools read
 * (CLOUDFLARE_BASE_URL, CLOUDFLARE_API_TOKEN, CLOUDFLARE_EMAIL + CLOUDFLARE_API_KEY), and one
 * form of credentials is sent; none at all is the API's own refusal (10510).
 */
function remoteTarget({ values, env }: Invocation): RemoteTarget {
  const text = (name: string) => {
    const value = values[name]
    return typeof value === 'string' ? value : undefined
  }
  const flagToken = text('api-token')
  const flagKey = text('api-email') !== undefined || text('api-key') !== undefined
  const credentials: Pick<RemoteTarget, 'api_token' | 'api_email' | 'api_key'> =
    flagToken !== undefined
      ? { api_token: flagToken }
      : flagKey
        ? { api_email: text('api-email'), api_key: text('api-key') }
        : env.CLOUDFLARE_API_TOKEN
          ? { api_token: env.CLOUDFLARE_API_TOKEN }
          : { api_email: env.CLOUDFLARE_EMAIL, api_key: env.CLOUDFLARE_API_KEY }
  const zone = text('remote-zone')
  return {
    base_url: text('base-url') ?? (env.CLOUDFLARE_BASE_URL || VENDOR_BASE_URL),
    ...credentials,
    ...(zone === undefined ? {} : ZONE_ID.test(zone) ? { zone_id: zone } : { zone_name: zone }),
  }
}

const ACTION_MARKS: Record<ConfigurationChange['action'], string> = {
  create: '+',
  update: '~',
  delete: '-',
}

function changeLines(changes: ConfigurationChange[]): string {
  return changes
    .map(
      (change) => `  ${ACTION_MARKS[change.action]} ${change.kind} ${change.id}: ${change.summary}`,
    )
    .join('\n')
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

function printImport(invocation: Invocation, envelope: Envelope<BundleImportResult>, verb: string) {
  if (invocation.json) return invocation.stdout(JSON.stringify(envelope))
  const { zone, changes } = envelope.result as BundleImportResult
  const summary = changes.length === 0 ? 'no changes' : plural(changes.length, 'change')
  invocation.stdout(`${verb} ${zone.name} (${zone.id}): ${summary}`)
  if (changes.length > 0) invocation.stdout(changeLines(changes))
}

const exportCommand: Command = {
  usage: 'export <zone> [--format bundle|terraform|curl] [--provider v5|v4|v3] [--output FILE]',
  summary: 'writes the zone as a bundle, a Terraform file or a curl script (stdout, or --output)',
  operands: ['zone'],
  options: {
    format: { type: 'string', default: 'bundle' },
    provider: { type: 'string' },
    output: { type: 'string', short: 'o' },
  },
  async run(invocation) {
    const { workbench, values } = invocation
    const id = await zoneId(workbench, invocation.positionals[0])
    const query = new URLSearchParams({ format: String(values.format) })
    if (typeof values.provider === 'string') query.set('provider', values.provider)
    const answer = await workbench.request({
      method: 'GET',
      path: `${WORKBENCH_PREFIX}/zones/${id}/export?${query}`,
    })
    if (answer.status !== 200) throw new ApiRefusal(JSON.parse(answer.text) as Envelope<unknown>)
    const output = values.output
    if (typeof output !== 'string') {
      invocation.write(answer.text)
      return EXIT.ok
    }
    writeFileSync(output, answer.text)
    const bytes = Buffer.byteLength(answer.text)
    if (invocation.json) invocation.stdout(JSON.stringify({ zone_id: id, file: output, bytes }))
    else invocation.stdout(`Wrote ${output} (${plural(bytes, 'byte')})`)
    return EXIT.ok
  },
}

const importCommand: Command = {
  usage: 'import <file|-> [--format bundle|terraform] [--zone-name NAME] [--plan PLAN] [--dry-run]',
  summary: 'creates the zone a bundle (or Terraform file) names, or replaces its configuration',
  operands: ['file'],
  options: {
    format: { type: 'string' },
    'zone-name': { type: 'string' },
    plan: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
  },
  async run(invocation) {
    const { values } = invocation
    const file = invocation.positionals[0]
    if (file === undefined) throw new UsageError('Name the file to import, or - for stdin')
    const text = readFileSync(file === '-' ? 0 : file, 'utf8')
    const format = values.format ?? (file.endsWith('.tf') ? 'terraform' : 'bundle')
    const query = new URLSearchParams()
    if (values['dry-run'] === true) query.set('dry_run', 'true')
    if (format === 'terraform') {
      query.set('format', 'terraform')
      if (typeof values['zone-name'] === 'string') query.set('zone_name', values['zone-name'])
      if (typeof values.plan === 'string') query.set('plan', values.plan)
      if (file !== '-') query.set('file_name', basename(file))
    } else if (format !== 'bundle') {
      throw new UsageError(`Unknown import format ${format}: use bundle or terraform`)
    }
    const path = `${WORKBENCH_PREFIX}/zones/import${query.size > 0 ? `?${query}` : ''}`
    const envelope = await call<BundleImportResult>(invocation.workbench, {
      method: 'POST',
      path,
      body: text,
      contentType: format === 'terraform' ? 'text/plain' : 'application/json',
    })
    printImport(invocation, envelope, values['dry-run'] === true ? 'Would import' : 'Imported')
    return EXIT.ok
  },
}

const pullCommand: Command = {
  usage: `pull --remote-zone NAME|ID ${REMOTE_USAGE}`,
  summary: "imports a remote zone (production, or another workbench) through the vendor's API",
  operands: [],
  options: REMOTE_OPTIONS,
  async run(invocation) {
    const envelope = await call<BundleImportResult>(
      invocation.workbench,
      jsonRequest(`${WORKBENCH_PREFIX}/remote/pull`, remoteTarget(invocation)),
    )
    printImport(invocation, envelope, 'Pulled')
    return EXIT.ok
  },
}

function callLine(call: { method: string; path: string }): string {
  return `${call.method} ${call.path}`
}

const planCommand: Command = {
  usage: `plan <zone> ${REMOTE_USAGE} [--remote-zone NAME|ID] [--detailed-exitcode]`,
  summary: 'lists the API calls that make the remote zone equal to the local one',
  operands: ['zone'],
  options: { ...REMOTE_OPTIONS, 'detailed-exitcode': { type: 'boolean', default: false } },
  async run(invocation) {
    const id = await zoneId(invocation.workbench, invocation.positionals[0])
    const envelope = await call<RemotePlan>(
      invocation.workbench,
      jsonRequest(`${WORKBENCH_PREFIX}/zones/${id}/remote/plan`, remoteTarget(invocation)),
    )
    const plan = envelope.result as RemotePlan
    if (invocation.json) {
      invocation.stdout(JSON.stringify(envelope))
    } else if (plan.empty) {
      invocation.stdout(`No changes: ${plan.remote_zone.name} equals ${plan.zone.name}.`)
    } else {
      invocation.stdout(
        `Plan for ${plan.remote_zone.name} (${plan.remote_zone.id}): ${plural(plan.changes.length, 'change')}, ${plural(plan.calls.length, 'call')}`,
      )
      invocation.stdout(changeLines(plan.changes))
      invocation.stdout('Calls:')
      invocation.stdout(plan.calls.map((planned) => `  ${callLine(planned)}`).join('\n'))
    }
    const pending = !plan.empty && invocation.values['detailed-exitcode'] === true
    return pending ? EXIT.changesPending : EXIT.ok
  },
}

/** A progress line of a streamed apply (api/routes/remote.ts), or the envelope that ends it. */
type ApplyLine = { progress: { done: number; total: number; outcome: string } }

const applyCommand: Command = {
  usage: `apply <zone> ${REMOTE_USAGE} [--remote-zone NAME|ID]`,
  summary: 'makes the calls of a fresh plan against the remote, stopping at the first refusal',
  operands: ['zone'],
  options: REMOTE_OPTIONS,
  async run(invocation) {
    const id = await zoneId(invocation.workbench, invocation.positionals[0])
    // Streamed, so that a person sees each call as the remote answers it (on stderr, keeping
    // stdout the account of what was done). The last line is the envelope; a refused call
    // answers 400 with what ran as its result, reported before the refusal.
    const lines: string[] = []
    await invocation.workbench.request({
      ...jsonRequest(
        `${WORKBENCH_PREFIX}/zones/${id}/remote/apply?stream=true`,
        remoteTarget(invocation),
      ),
      onLine(line) {
        if (line.trim() === '') return
        lines.push(line)
        const { progress } = JSON.parse(line) as Partial<ApplyLine>
        if (progress !== undefined && !invocation.json) {
          invocation.stderr(`call ${progress.done} of ${progress.total}: ${progress.outcome}`)
        }
      },
    })
    const envelope = JSON.parse(lines.at(-1) ?? 'null') as Envelope<RemoteApplyResult>
    const result = envelope.result
    if (!invocation.json && result !== null) {
      for (const applied of result.calls) {
        invocation.stdout(`${applied.outcome.padEnd(7)} ${callLine(applied)}`)
      }
      invocation.stdout(
        `Applied ${result.applied} of ${plural(result.calls.length, 'call')} to ${result.remote_zone.name}.`,
      )
    }
    if (!envelope.success) throw new ApiRefusal(envelope)
    if (invocation.json) invocation.stdout(JSON.stringify(envelope))
    return EXIT.ok
  },
}

/** Every command, by the name it is invoked with. */
export const COMMANDS: Record<string, Command> = {
  export: exportCommand,
  import: importCommand,
  pull: pullCommand,
  plan: planCommand,
  apply: applyCommand,
  replay: replayCommand,
}
