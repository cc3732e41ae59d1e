// The command line as a user runs it: the built CLI (bin/zone-workbench.mjs → out/main/cli.js,
// made by `npm run build`, which `npm test` runs first) in a child process. Against a data dir
// whose headless service is running, it goes through that service (opening the data dir itself
// would be refused by the service's lock); against one with no service, it opens the data dir:
// exports, imports, and pulls, plans and applies against a second service as the remote, with
// the exit statuses of plan tools and the API's errors on stderr.

import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHeadless } from '../../src-main/headless'
import { createService, type Service } from '../../src-main/service'
import { CREDENTIALS, patch, post, removeDataDir, type Running, startService } from './harness'

const ROOT = join(import.meta.dirname, '..', '..')
const BIN = join(ROOT, 'bin', 'zone-workbench.mjs')

interface Outcome {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the CLI with only the environment given (no CLOUDFLARE_* or data dir of the caller's). */
function cli(args: string[], env: Record<string, string> = {}, stdin = ''): Promise<Outcome> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('CLOUDFLARE_') && name !== 'ZONE_WORKBENCH_DATA_DIR',
    ),
  )
  // Asynchronous: the remote service answers from this process while the CLI runs.
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...inherited, ...env } })
  child.stdin.end(stdin)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

const tempDir = () => mkdtempSync(join(tmpdir(), 'zw-cli-'))

beforeAll(() => {
  if (!existsSync(join(ROOT, 'out', 'main', 'cli.js'))) {
    throw new Error('The CLI is not built: run `npm run build` (npm test does) before this test')
  }
})

describe('with the data dir’s service running', () => {
  let dataDir: string
  let service: Service
  let origin: string
  let token: string
  let zone: string

  beforeAll(async () => {
    dataDir = tempDir()
    // A free port, which the CLI learns from the data dir, not from the preferences.
    ;({ service, origin } = await startHeadless({ dataDir, port: 0 }))
    token = (await service.bridge.serviceInfo({})).apiToken
    const created = await fetch(`${origin}/client/v4/zones`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'running.example', plan: 'pro' }),
    })
    zone = ((await created.json()) as any).result.id
  })
  afterAll(async () => {
    await service.close()
    removeDataDir(dataDir)
  })

  it('exports and imports through the running service', async () => {
    const exported = await cli(['export', 'running.example', '--data-dir', dataDir])
    expect(exported.stderr).toBe('')
    expect(exported.code).toBe(0)
    const bundle = JSON.parse(exported.stdout)
    expect(bundle.zone).toMatchObject({ id: zone, name: 'running.example', plan: 'pro' })

    const file = join(tempDir(), 'running.json')
    writeFileSync(file, JSON.stringify({ ...bundle, zone: { ...bundle.zone, paused: true } }))
    const imported = await cli(['import', file, '--json'], { ZONE_WORKBENCH_DATA_DIR: dataDir })
    expect(imported.code).toBe(0)
    expect(JSON.parse(imported.stdout).result.changes).toEqual([
      expect.objectContaining({ kind: 'zone', id: zone, action: 'update' }),
    ])
    const read = await fetch(`${origin}/client/v4/zones/${zone}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(((await read.json()) as any).result.paused).toBe(true)
  })

  it('applies through the running service, each call reported as the remote answers it', async () => {
    const remote = await startService()
    try {
      await remote.ok('/zones', post({ name: 'running.example', plan: 'business' }))
      const applied = await cli(
        ['apply', 'running.example', '--data-dir', dataDir, '--base-url', remote.api],
        { CLOUDFLARE_API_TOKEN: CREDENTIALS.apiToken },
      )
      expect(applied.code, applied.stderr).toBe(0)
      expect(applied.stderr).toMatch(/^call 1 of (\d+): done\n/)
      const total = Number(/of (\d+)/.exec(applied.stderr)?.[1])
      expect(applied.stdout).toMatch(
        new RegExp(`\nApplied ${total} of ${total} calls? to running\\.example\\.\n$`),
      )
      const [zone] = await remote.ok('/zones?name=running.example')
      expect(zone.paused).toBe(true)
    } finally {
      await remote.stop()
      removeDataDir(remote.dataDir)
    }
  })

  it('never opens a data dir another process holds', async () => {
    const elsewhere = tempDir()
    const holding = await createService({
      dataDir: elsewhere,
      api: { credentials: CREDENTIALS, port: 0 },
      shell: 'headless',
    })
    try {
      const answer = await cli(['export', 'any.example', '--data-dir', elsewhere])
      expect(answer.code).toBe(1)
      expect(answer.stderr).toBe(
        `The data dir ${elsewhere} is open in process ${process.pid}, which serves no API with the token of its preferences: stop it or wait for it to finish (if no workbench runs, delete ${join(elsewhere, 'running-service.json')})\n`,
      )
    } finally {
      await holding.close()
      removeDataDir(elsewhere)
    }
  })
})

describe('with no service running on the data dir', () => {
  let dataDir: string
  let remote: Running
  let zone: string
  const remoteFlags = () => ['--base-url', remote.api, '--remote-zone', 'prod.example']
  const tokenEnv = { CLOUDFLARE_API_TOKEN: CREDENTIALS.apiToken }

  beforeAll(async () => {
    dataDir = tempDir()
    const seeding = await startService(dataDir)
    zone = (await seeding.ok('/zones', post({ name: 'shop.example', plan: 'business' }))).id
    const [filter] = await seeding.ok(
      `/zones/${zone}/filters`,
      post([{ expression: 'ip.src eq 198.51.100.7', description: 'scanner' }]),
    )
    await seeding.ok(
      `/zones/${zone}/firewall/rules`,
      post([{ action: 'block', filter: { id: filter.id }, description: 'scanner' }]),
    )
    await seeding.stop()
    remote = await startService()
  })
  afterAll(async () => {
    await remote.stop()
    removeDataDir(remote.dataDir)
    removeDataDir(dataDir)
  })

  const local = (args: string[], env: Record<string, string> = {}) =>
    cli([...args, '--data-dir', dataDir], env)

  async function exported(name: string, dir = dataDir): Promise<any> {
    const answer = await cli(['export', name, '--data-dir', dir])
    expect(answer.code, answer.stderr).toBe(0)
    return JSON.parse(answer.stdout)
  }

  it('exports a bundle to stdout, Terraform to a file and a curl script', async () => {
    const bundle = await exported('shop.example')
    expect(bundle.format).toBe('zone-workbench/bundle')
    expect(bundle.firewall_rules).toEqual([expect.objectContaining({ description: 'scanner' })])

    const file = join(tempDir(), 'shop.tf')
    const written = await local(['export', zone, '--format', 'terraform', '-o', file])
    expect(written.code).toBe(0)
    expect(written.stdout).toMatch(/^Wrote .*shop\.tf \(\d+ bytes\)\n$/)
    const terraform = readFileSync(file, 'utf8')
    expect(terraform).toContain('resource "cloudflare_firewall_rule"')
    expect(terraform).toContain(`id = "${zone}/`)

    const v4 = await local(['export', 'shop.example', '--format', 'terraform', '--provider', 'v4'])
    expect(v4.stdout).toContain('resource "cloudflare_filter"')

    const script = await local(['export', 'shop.example', '--format', 'curl'])
    expect(script.code).toBe(0)
    expect(script.stdout).toMatch(/^#!/)
  })

  it('opens a data dir whose marker names a process that has died (a killed service)', async () => {
    const gone = spawn(process.execPath, ['-e', ''])
    const pid = gone.pid as number
    await new Promise((resolve) => gone.on('close', resolve))
    writeFileSync(
      join(dataDir, 'running-service.json'),
      JSON.stringify({ pid, origin: 'http://127.0.0.1:9' }),
    )
    expect((await exported('shop.example')).zone.name).toBe('shop.example')
  })

  it('errors exit 1 with the API’s message on stderr', async () => {
    const refused = await local(['export', 'shop.example', '--format', 'pdf'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^error 10500: Unknown export format "pdf"/)

    const json = await local([
      'export',
      'shop.example',
      '--format',
      'terraform',
      '--provider',
      'v3',
      '--json',
    ])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, errors: [{ code: 10500 }] })

    const unknown = await local(['export', 'nowhere.example'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/No zone named nowhere.example/)

    const badFlag = await local(['export', 'shop.example', '--colour'])
    expect(badFlag.code).toBe(1)
    expect(badFlag.stderr).toMatch(/Unknown option '--colour'/)

    const extra = await local(['export', 'shop.example', 'other.example'])
    expect(extra.code).toBe(1)
    expect(extra.stderr).toMatch(/^Unexpected argument other\.example\n/)
  })

  it('imports a bundle: a dry run writes nothing, a real one replaces the zone', async () => {
    const bundle = await exported('shop.example')
    const file = join(tempDir(), 'shop.json')
    const [rule] = bundle.firewall_rules
    writeFileSync(
      file,
      JSON.stringify({ ...bundle, firewall_rules: [{ ...rule, action: 'challenge' }] }),
    )

    const dry = await local(['import', file, '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(
      new RegExp(
        `^Would import shop\\.example \\(${zone}\\): 1 change\n  ~ firewall_rule ${rule.id}: .+\n$`,
      ),
    )
    expect((await exported('shop.example')).firewall_rules[0].action).toBe('block')

    const real = await local(['import', file, '--json'])
    expect(real.code).toBe(0)
    expect(JSON.parse(real.stdout).result).toMatchObject({
      zone: { id: zone, name: 'shop.example' },
      changes: [{ kind: 'firewall_rule', id: rule.id, action: 'update' }],
    })
    expect((await exported('shop.example')).firewall_rules[0].action).toBe('challenge')

    // Into an empty data dir, from stdin: the zone as it was, ids and all.
    const fresh = tempDir()
    const created = await cli(['import', '-', '--data-dir', fresh], {}, readFileSync(file, 'utf8'))
    expect(created.stdout).toMatch(/^Imported shop\.example/)
    const again = await exported('shop.example', fresh)
    const rulesOf = (of: any) =>
      of.firewall_rules.map((each: any) => [each.id, each.action, each.filter.id])
    expect(again.zone).toEqual(bundle.zone)
    expect(rulesOf(again)).toEqual([[rule.id, 'challenge', rule.filter.id]])
    removeDataDir(fresh)

    const notBundle = join(tempDir(), 'other.json')
    writeFileSync(notBundle, JSON.stringify({ ...bundle, format: 'something/else' }))
    const refused = await local(['import', notBundle])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^error 10501: /)
  })

  it('imports a Terraform file into the zone --zone-name names, naming the file in errors', async () => {
    const file = join(tempDir(), 'shop.tf')
    expect(
      (await local(['export', 'shop.example', '--format', 'terraform', '-o', file])).code,
    ).toBe(0)
    const [filter] = (await exported('shop.example')).filters
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('ip.src eq 198.51.100.7', 'ip.src eq 198.51.100.8'),
    )
    const dry = await local(['import', file, '--zone-name', 'shop.example', '--dry-run', '--json'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(JSON.parse(dry.stdout).result.changes).toEqual([
      expect.objectContaining({ kind: 'filter', id: filter.id, action: 'update' }),
    ])

    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('"ip.src eq 198.51.100.8"', 'var.expression'),
    )
    const refused = await local(['import', file, '--zone-name', 'shop.example'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^error 10504: .*shop\.tf/)
  })

  it('pulls a remote zone, plans the local edit (exit 2), applies it, then plans nothing (exit 0)', async () => {
    const remoteZone = (await remote.ok('/zones', post({ name: 'prod.example', plan: 'pro' }))).id
    const [filter] = await remote.ok(
      `/zones/${remoteZone}/filters`,
      post([{ expression: 'http.request.uri.path eq "/wp-login.php"', description: 'wp' }]),
    )
    const [rule] = await remote.ok(
      `/zones/${remoteZone}/firewall/rules`,
      post([{ action: 'challenge', filter: { id: filter.id }, description: 'wp' }]),
    )

    const pulled = await local(['pull', ...remoteFlags()], tokenEnv)
    expect(pulled.code, pulled.stderr).toBe(0)
    expect(pulled.stdout).toMatch(/^Pulled prod\.example \(/)

    // The local edit, made as a user would: a changed bundle imported.
    const bundle = await exported('prod.example')
    const file = join(tempDir(), 'prod.json')
    writeFileSync(
      file,
      JSON.stringify({
        ...bundle,
        firewall_rules: bundle.firewall_rules.map((each: any) => ({ ...each, action: 'block' })),
      }),
    )
    expect((await local(['import', file])).code).toBe(0)

    const pending = await local(
      ['plan', 'prod.example', '--detailed-exitcode', ...remoteFlags()],
      tokenEnv,
    )
    expect(pending.code, pending.stderr).toBe(2)
    expect(pending.stdout).toContain(`PUT /zones/${remoteZone}/firewall/rules/${rule.id}`)
    const plain = await local(['plan', 'prod.example', ...remoteFlags()], tokenEnv)
    expect(plain.code).toBe(0)
    const json = await local(['plan', 'prod.example', '--json', ...remoteFlags()], tokenEnv)
    expect(JSON.parse(json.stdout).result).toMatchObject({
      empty: false,
      calls: [{ method: 'PUT', path: `/zones/${remoteZone}/firewall/rules/${rule.id}` }],
    })
    expect(json.stdout).not.toContain(CREDENTIALS.apiToken)

    // The remote's global key instead of its token, from flags.
    const applied = await local([
      'apply',
      'prod.example',
      '--base-url',
      remote.api,
      '--api-email',
      CREDENTIALS.email,
      '--api-key',
      CREDENTIALS.apiKey,
    ])
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.stderr).toBe('call 1 of 1: done\n')
    expect(applied.stdout).toBe(
      `done    PUT /zones/${remoteZone}/firewall/rules/${rule.id}\n` +
        'Applied 1 of 1 call to prod.example.\n',
    )
    expect((await remote.ok(`/zones/${remoteZone}/firewall/rules/${rule.id}`)).action).toBe('block')

    const after = await local(
      ['plan', 'prod.example', '--detailed-exitcode', ...remoteFlags()],
      tokenEnv,
    )
    expect(after.code).toBe(0)
    expect(after.stdout).toBe('No changes: prod.example equals prod.example.\n')
  })

  it('a remote that refuses the credentials is exit 1 with its error, the token not echoed', async () => {
    const wrong = 'wrongToken0123456789abcdefghijklmnopqrst'
    const refused = await local(['pull', '--json', ...remoteFlags()], {
      CLOUDFLARE_API_TOKEN: wrong,
    })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^error 10513: /)
    expect(JSON.parse(refused.stdout)).toMatchObject({ success: false, errors: [{ code: 10513 }] })
    expect(refused.stdout + refused.stderr).not.toContain(wrong)

    const http = await local(['pull', '--base-url', 'http://example.com/client/v4'], tokenEnv)
    expect(http.code).toBe(1)
    expect(http.stderr).toMatch(/^error 10510: .*\(at \/base_url\)/)
  })

  it('an apply the remote refuses is exit 1, with what ran and what failed', async () => {
    const remoteZone = (await remote.ok('/zones', post({ name: 'shop.example', plan: 'business' })))
      .id
    // No firewall rule may be created there: the filter's POST succeeds, the rule's is refused.
    await remote.ok(
      `${remote.origin}/workbench/v1/zones/${remoteZone}/firewall/settings`,
      patch({ rule_quota: 0 }),
    )
    const target = ['--base-url', remote.api, '--api-token', CREDENTIALS.apiToken]
    const stopped = await local(['apply', 'shop.example', ...target])
    expect(stopped.code).toBe(1)
    expect(stopped.stdout).toBe(
      `done    POST /zones/${remoteZone}/filters\n` +
        `failed  POST /zones/${remoteZone}/firewall/rules\n` +
        'Applied 1 of 2 calls to shop.example.\n',
    )
    expect(stopped.stderr).toMatch(/^call 1 of 2: done\ncall 2 of 2: failed\nerror 10515: /)
    expect(stopped.stderr).toMatch(/10017/)
  })
})
