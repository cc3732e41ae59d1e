// ServiceJobs, the screens' view of a zone's jobs run by the service, against a real service
// through the renderer's bridge: a compare started from a text is followed until it ends, its
// verdicts are read, a list answered late does not undo a start, a finished job is removed, and a
// shell without a file dialog says so.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

let running: Running
let jobsModule: typeof import('../../../../src-renderer/src/lib/state/service-jobs.svelte')
let zoneId: string

beforeAll(async () => {
  running = await startRendererService()
  jobsModule = await import('../../../../src-renderer/src/lib/state/service-jobs.svelte')
  zoneId = (await newZone(running, { plan: 'business', waf_product: 'previous' })).id
})
afterAll(() => stopRendererService(running))

const traffic = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify({ method: 'GET', url: `https://shop.example/p${i}?id=1%27%20OR%201=1--` }),
  ).join('\n')

describe('ServiceJobs', () => {
  it('follows a compare started from a text until it ends, and reads its verdicts', async () => {
    const jobs = new jobsModule.ServiceJobs('waf_migration/compares')
    await jobs.follow(zoneId)
    expect(jobs.jobs).toEqual([])
    await jobs.post(traffic(3))
    expect(jobs.error).toBeNull()
    await jobs.idle()
    expect(jobs.running).toBe(false)
    expect(jobs.shown).toMatchObject({ kind: 'compare', state: 'done', source: 'upload' })
    expect(jobs.shown?.summary).toMatchObject({ requests: 3, format: 'requests' })
    const lines = (await jobs.verdicts(jobs.shown!)).trim().split('\n')
    expect(lines.map((line) => JSON.parse(line).index)).toEqual([0, 1, 2])
    jobs.stop()
  })

  /** Holds back the next call's answer, as a slow connection holds it, until released. */
  function holdNextAnswer(): () => void {
    const transport = window.workbench!
    const callApi = transport.callApi
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    transport.callApi = async (input) => {
      transport.callApi = callApi
      const answer = await callApi(input)
      await held
      return answer
    }
    return release
  }

  it('keeps the job a start shows over a list asked for before it and answered after', async () => {
    const jobs = new jobsModule.ServiceJobs('waf_migration/compares')
    await jobs.follow(zoneId)
    await jobs.post(traffic(3))
    await jobs.idle()
    const before = jobs.shownId
    const release = holdNextAnswer()
    const late = jobs.refresh()
    await jobs.post(traffic(3))
    const started = jobs.shownId
    expect(started).not.toBe(before)
    release()
    await late
    await jobs.idle()
    expect(jobs.shownId).toBe(started)
    jobs.stop()
  })

  it('answers a caller of an older list once the latest one is taken', async () => {
    const jobs = new jobsModule.ServiceJobs('waf_migration/compares')
    await jobs.follow(zoneId)
    const releaseOlder = holdNextAnswer()
    let olderAnswered = false
    const older = jobs.refresh().then(() => (olderAnswered = true))
    const releaseLatest = holdNextAnswer()
    const latest = jobs.refresh()
    releaseOlder()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(olderAnswered).toBe(false)
    releaseLatest()
    await older
    await latest
    expect(jobs.jobs.length).toBeGreaterThan(0)
    jobs.stop()
  })

  it('shows a job that finishes while followed, over the one shown before', async () => {
    const starter = new jobsModule.ServiceJobs('waf_migration/compares')
    await starter.follow(zoneId)
    await starter.post(traffic(3000))
    starter.stop()
    const jobs = new jobsModule.ServiceJobs('waf_migration/compares')
    await jobs.follow(zoneId)
    const running = jobs.jobs.find((job) => job.state === 'running')
    expect(running).toBeDefined()
    expect(jobs.shown?.state).toBe('done')
    await jobs.idle()
    expect(jobs.shownId).toBe(running?.id)
    jobs.stop()
  })

  it('finds the zone’s jobs again when followed afresh, and removes a finished one', async () => {
    const jobs = new jobsModule.ServiceJobs('waf_migration/compares')
    await jobs.follow(zoneId)
    expect(jobs.jobs.length).toBeGreaterThan(0)
    expect(jobs.shown?.state).toBe('done')
    for (const job of jobs.jobs) await jobs.cancel(job)
    expect(jobs.jobs).toEqual([])
    expect(jobs.shown).toBeNull()
    jobs.stop()
  })

  it('keeps a refusal as its error: a bad text, and a shell with no file dialog', async () => {
    const jobs = new jobsModule.ServiceJobs('waf_migration/compares')
    await jobs.follow(zoneId)
    await jobs.post('not traffic')
    expect(String(jobs.error)).toMatch(/format/)
    await jobs.choose()
    expect(String(jobs.error)).toMatch(/file dialog/)
    jobs.stop()
    await jobs.idle()
  })
})
