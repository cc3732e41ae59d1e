// The crash suite's harness: the service in a child process (bundled once with esbuild, as the
// application ships), a write storm against it, a SIGKILL at a random moment, and the checks
// every start after a kill must pass. `CRASH_KILLS` sets the kills per operation: 5 in
// `npm test`, 50 in `npm run soak` (vitest.config.ts).

import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { bundleChild, removeChildBundle } from '../../child-bundle'
import { CRASH_CREDENTIALS } from './credentials'

export const KILLS = Number(process.env.CRASH_KILLS ?? 10)

const made: string[] = []
let bundle: string | undefined

/** A fresh data dir, removed by `cleanUp`. */
export function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zw-crash-'))
  made.push(dir)
  return dir
}

/** Removes the data dirs and the bundle this file's tests made. */
export function cleanUp(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
  if (bundle !== undefined) removeChildBundle(bundle)
  bundle = undefined
}

/**
 * A crash test file's set-up: the child is bundled once before its tests, and what they made is
 * removed after. Answers the bundle's path, for once the tests run.
 */
export function crashSuite(): () => string {
  beforeAll(async () => {
    bundle = await bundleChild(join(import.meta.dirname, 'service-child.ts'))
  })
  afterAll(cleanUp)
  return () => {
    if (bundle === undefined) throw new Error('the child is bundled before the tests run')
    return bundle
  }
}

export interface KillRounds {
  /** what must hold at each start (after its start-up check), before the next storm */
  check(child: Child, round: number): Promise<void>
  /** the clients of a round's storm, each one step of its loop */
  clients(child: Child): (() => Promise<void>)[]
  /** how long a storm runs before its kill, at random between the two, in ms */
  delay?: [number, number]
}

/**
 * The suite's loop: KILLS times, a start, its check and a storm ended by SIGKILL; then a last start
 * and check, and an ordinary stop. Answers how many repairs the starts made.
 */
export async function killRounds(
  bundle: string,
  dataDir: string,
  rounds: KillRounds,
): Promise<number> {
  const [min, max] = rounds.delay ?? [50, 800]
  let repairs = 0
  for (let round = 0; ; round++) {
    const child = await startChild(bundle, dataDir)
    repairs += child.repairs.length
    await rounds.check(child, round)
    if (round === KILLS) {
      await stop(child)
      return repairs
    }
    await stormUntilKilled(child, randomDelay(min, max), rounds.clients(child))
  }
}

export interface Child {
  process: ChildProcess
  /** e.g. http://127.0.0.1:40123/client/v4 */
  api: string
  origin: string
  /** what its start-up check repaired */
  repairs: string[]
  exited: Promise<void>
}

export interface Launch {
  process: ChildProcess
  exited: Promise<void>
  /** resolves once the child answers; rejects if it dies first */
  ready: Promise<Child>
}

/** Starts the child on `dataDir` without waiting for it. */
export function launch(bundle: string, dataDir: string): Launch {
  const child = spawn(process.execPath, [bundle, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let output = ''
  const ready = new Promise<Child>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /^ready (\S+)$/m.exec(output)
      if (match === null) return
      const origin = match[1]!
      const repairs = [...output.matchAll(/^repaired (.*)$/gm)].map((m) => m[1]!)
      resolve({ process: child, api: `${origin}/client/v4`, origin, repairs, exited })
    })
    child.once('exit', (code, signal) =>
      reject(new Error(`the service exited (${code ?? signal}) before it was ready:\n${output}`)),
    )
  })
  ready.catch(() => undefined)
  return { process: child, exited, ready }
}

/** Starts the child on `dataDir`; resolves once it answers. */
export function startChild(bundle: string, dataDir: string): Promise<Child> {
  return launch(bundle, dataDir).ready
}

/** Kills the child at once, as a power cut would. */
export async function kill(child: Pick<Child, 'process' | 'exited'>): Promise<void> {
  child.process.kill('SIGKILL')
  await child.exited
}

/** Stops the child the ordinary way. */
export async function stop(child: Child): Promise<void> {
  child.process.kill('SIGTERM')
  await child.exited
}

export interface Answer {
  status: number
  body: any
}

/** One API call; throws when the connection fails (the child was killed). */
export async function call(
  api: string,
  path: string,
  init: { method?: string; json?: unknown } = {},
): Promise<Answer> {
  const response = await fetch(`${api}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: {
      authorization: `Bearer ${CRASH_CREDENTIALS.apiToken}`,
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? null : JSON.parse(text) }
}

const randomDelay = (min: number, max: number) => min + Math.floor(Math.random() * (max - min))

/**
 * Runs `clients` until the child dies (a failed connection ends a client), killing it after
 * `delayMs`.
 */
export async function stormUntilKilled(
  child: Child,
  delayMs: number,
  clients: (() => Promise<void>)[],
): Promise<void> {
  const timer = setTimeout(() => child.process.kill('SIGKILL'), delayMs)
  await Promise.allSettled(
    clients.map(async (step) => {
      for (;;) await step()
    }),
  )
  clearTimeout(timer)
  await child.exited
}

export interface ListedZone {
  id: string
  name: string
  plan: { legacy_id: string }
}

/**
 * What every start must show, whatever the kill interrupted: every page of the zone list answers,
 * names and ids are unique, each listed zone answers by its id and by its name with the same
 * record, and each zone has exactly one object on disk (none half-made, none left behind).
 */
export async function expectConsistent(child: Child, dataDir: string): Promise<ListedZone[]> {
  const zones: ListedZone[] = []
  for (let page = 1; ; page++) {
    const listed = await call(child.api, `/zones?per_page=50&page=${page}`)
    expect(listed.status, `GET /zones page ${page}: ${JSON.stringify(listed.body)}`).toBe(200)
    if (listed.body.result.length === 0) break
    zones.push(...listed.body.result)
  }
  const names = zones.map((z) => z.name)
  expect(new Set(names).size, `names are unique: ${names.join(', ')}`).toBe(names.length)
  expect(new Set(zones.map((z) => z.id)).size).toBe(zones.length)
  for (const zone of zones) {
    const byId = await call(child.api, `/zones/${zone.id}`)
    expect(byId.status, `GET /zones/${zone.id}`).toBe(200)
    expect(byId.body.result.name).toBe(zone.name)
    const byName = await call(child.api, `/zones?name=${zone.name}`)
    expect(byName.body.result.map((z: ListedZone) => z.id)).toEqual([zone.id])
  }
  const objectFiles = (namespace: string) => {
    const dir = join(dataDir, 'objects', namespace)
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.sqlite')) : []
  }
  const zoneFiles = objectFiles('zone')
  expect(zoneFiles.length, `one zone object per zone (${child.repairs.join(' ')})`).toBe(
    zones.length,
  )
  // A zone's event log is named as its object is: none may outlive its zone.
  const zoneFileSet = new Set(zoneFiles)
  expect(objectFiles('events').filter((f) => !zoneFileSet.has(f))).toEqual([])
  return zones
}

/** Figures of a run, printed for `npm run soak`. */
export function report(operation: string, figures: Record<string, number>): void {
  console.log(
    `${operation}: ${Object.entries(figures)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}`,
  )
}
