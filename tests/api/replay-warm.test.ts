// The service keeps a zone's replay workers warm between runs (src-main/replay/warm-pools.ts):
// a second replay of the unchanged zone runs on the workers the first started (`warm: true`,
// the same verdicts), a change to the zone makes the next replay compile the new configuration
// (`warm: false`, the new verdicts), and a job and a direct replay share the warm pool.

import { afterAll, beforeAll, expect, it } from 'vitest'
import { GENERAL } from './fixtures-zones'
import { put, removeDataDir, startService, zoneExecuting, type Running } from './harness'

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

/** 300 requests, every third an attack on the general ruleset. */
const traffic = Array.from({ length: 300 }, (_, i) =>
  JSON.stringify({
    method: 'GET',
    url: `https://shop.example.com/p?${i % 3 === 0 ? 'file=../../etc/passwd&' : ''}n=${i}`,
  }),
).join('\n')

/** A replay on one worker thread (a thread asked: never the in-process path). */
async function replay(zone: string): Promise<any> {
  const answer = await running.call(
    `${running.origin}/workbench/v1/zones/${zone}/replay?threads=1`,
    { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: traffic },
  )
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body.result
}

it('reuses the zone’s workers while it is unchanged, and compiles it again after a change', async () => {
  const zone = await zoneExecuting(running, [GENERAL])
  const first = await replay(zone)
  expect(first).toMatchObject({ requests: 300, threads: 1, warm: false })
  expect(first.outcomes.blocked).toBe(100)

  const second = await replay(zone)
  expect(second).toMatchObject({ requests: 300, threads: 1, warm: true })
  expect(second.outcomes).toEqual(first.outcomes)

  // A job on the same zone and thread count runs on the same warm workers.
  const started = await running.call(
    `${running.origin}/workbench/v1/zones/${zone}/replays?threads=1`,
    { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: traffic },
  )
  expect(started.status).toBe(202)
  const jobUrl = `${running.origin}/workbench/v1/zones/${zone}/replays/${started.body.result.id}`
  let job = started.body.result
  while (job.state === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 20))
    job = (await running.call(jobUrl)).body.result
  }
  expect(job.summary).toMatchObject({ requests: 300, warm: true, outcomes: first.outcomes })

  // The general ruleset no longer deployed: nothing is blocked, on freshly compiled workers.
  await running.ok(
    `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    put({ rules: [] }),
  )
  const changed = await replay(zone)
  expect(changed).toMatchObject({ requests: 300, threads: 1, warm: false })
  expect(changed.outcomes.blocked).toBe(0)
  expect((await replay(zone)).warm).toBe(true)

  // Another zone's pool is its own.
  const other = await zoneExecuting(running, [GENERAL])
  expect((await replay(other)).warm).toBe(false)
}, 120_000)
