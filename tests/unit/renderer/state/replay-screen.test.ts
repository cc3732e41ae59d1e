// The Replay screen's state for replays run by the service, against a real service: the job the
// address names is the one shown (and the screen's step), a job the service does not hold is said
// to be missing, and a finished job's results list by rule, path and outcome, each request opened
// to its trace by simulating it again.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReplayJob, StreamedReplaySummary } from '@shared/api/simulate'
import { GENERAL } from '../../../api/fixtures-zones'
import { post, zoneExecuting, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

type Module<T> = T extends () => Promise<infer M> ? M : never
const modules = () =>
  Promise.all([
    import('../../../../src-renderer/src/features/replay/replay-screen.svelte'),
    import('../../../../src-renderer/src/features/replay/replay-results.svelte'),
    import('../../../../src-renderer/src/lib/state/zone-choice.svelte'),
  ])

let running: Running
let screen: Module<typeof modules>[0]
let results: Module<typeof modules>[1]
let open: Module<typeof modules>[2]['openZoneScreen']
let files: string
let zoneId: string

beforeAll(async () => {
  running = await startRendererService()
  let choice: Module<typeof modules>[2]
  ;[screen, results, choice] = await modules()
  open = choice.openZoneScreen
  files = mkdtempSync(join(tmpdir(), 'zw-replay-screen-'))
  zoneId = await zoneExecuting(running, [GENERAL])
})
afterAll(async () => {
  await stopRendererService(running)
  rmSync(files, { recursive: true, force: true })
})

/** A job replaying `requests` from a file, once done. */
async function replayed(name: string, requests: object[]): Promise<ReplayJob> {
  const file = join(files, name)
  writeFileSync(file, requests.map((request) => `${JSON.stringify(request)}\n`).join(''))
  const url = `${running.origin}/workbench/v1/zones/${zoneId}/replays`
  const { id } = (await running.call(url, post({ file }))).body.result
  for (;;) {
    const job = await running.ok(`${url}/${id}`)
    if (job.state !== 'running') return job
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const attack = { method: 'GET', url: 'https://shop.example/a?file=../../etc/passwd' }
const login = {
  method: 'POST',
  url: 'https://shop.example/login',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: 'user=ann',
}

describe('ReplayScreenState', () => {
  it('shows the job the address names, and says when the service no longer holds it', async () => {
    const older = await replayed('older.ndjson', [attack])
    await replayed('newer.ndjson', [attack, login])
    const state = new screen.ReplayScreenState()
    await open(state, zoneId, older.id)
    expect(state.jobs.shownId).toBe(older.id)
    expect(state.step).toBe(older.id)
    expect(state.jobs.summary?.requests).toBe(1)

    const elsewhere = new screen.ReplayScreenState()
    await open(elsewhere, zoneId, 'f'.repeat(32))
    expect(elsewhere.jobs.missing).toBe('f'.repeat(32))
    expect(elsewhere.step).not.toBe('f'.repeat(32))
    state.jobs.stop()
    elsewhere.jobs.stop()
  })
})

describe('ReplayResults', () => {
  it('lists a job’s requests by rule, path and outcome, and opens one to its trace', async () => {
    const job = await replayed('results.ndjson', [
      attack,
      login,
      { ...attack, url: 'https://shop.example/a' },
    ])
    const drill = new results.ReplayResults()
    await drill.list(job)
    expect(drill.verdicts.map((verdict) => verdict.line)).toEqual([1, 2, 3])
    await drill.list(job, { by: 'outcome', outcome: 'passed' })
    expect(drill.verdicts.map((verdict) => verdict.line)).toEqual([2, 3])
    expect(drill.verdicts[0]?.request).toEqual(login)
    await drill.list(job, { by: 'path', path: '/a' })
    expect(drill.verdicts.map((verdict) => verdict.line)).toEqual([1, 3])
    const rule = (job.summary as StreamedReplaySummary).rules[0]!
    await drill.list(job, { by: 'rule', rule })
    expect(drill.verdicts.map((verdict) => verdict.line)).toEqual([1])

    await drill.open(drill.verdicts[0]!)
    expect(drill.opened?.line).toBe(1)
    expect(drill.simulation?.outcome).toBe('blocked')
    expect(drill.simulation?.trace.length).toBeGreaterThan(0)
    expect(Object.values(drill.rulesetNames)).toContain('Cloudflare Managed Ruleset')
    drill.close()
    expect(drill.opened).toBeNull()
  })
})
