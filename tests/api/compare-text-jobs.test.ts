// A compare job of a text the bridge carries: the Electron shell's page cannot send a body of its
// own, so the Migration screen's pasted traffic reaches POST …/waf_migration/compares through
// callApi as a JSON string, and the job reads the text it holds, short (read whole with the body,
// its size the text's) or past the 64 KiB read to look for a named file.

import { afterAll, beforeAll, expect, it } from 'vitest'
import { newZone, removeDataDir, startService, type Running } from './harness'

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

const ATTACK = '/?id=1%27%20UNION%20SELECT%20password%20FROM%20users--'

/** Starts a compare of `text` through the bridge and answers the job once it has ended. */
async function compareThroughBridge(zoneId: string, text: string): Promise<any> {
  const started = await running.service.bridge.callApi({
    method: 'POST',
    path: `/workbench/v1/zones/${zoneId}/waf_migration/compares`,
    body: text,
  })
  expect(started.status, JSON.stringify(started.body)).toBe(202)
  const id = (started.body?.result as { id: string }).id
  let job: any
  do {
    if (job !== undefined) await new Promise((resolve) => setTimeout(resolve, 20))
    job = await running.ok(
      `${running.origin}/workbench/v1/zones/${zoneId}/waf_migration/compares/${id}`,
    )
  } while (job.state === 'running')
  return job
}

/** The compared requests of a job, as its verdicts file lists them. */
async function comparedUrls(zoneId: string, job: { id: string }): Promise<string[]> {
  const verdicts = await running.service.bridge.callApi({
    method: 'GET',
    path: `/workbench/v1/zones/${zoneId}/waf_migration/compares/${job.id}/verdicts`,
  })
  return (verdicts.text ?? '')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line).url)
}

it('compares the requests of a JSON string body, as the bridge sends pasted traffic', async () => {
  const zone = await newZone(running, { plan: 'business', waf_product: 'previous' })
  const text = ['/', ATTACK]
    .map((path) => JSON.stringify({ method: 'GET', url: `https://${zone.name}${path}` }))
    .join('\n')
  const job = await compareThroughBridge(zone.id, text)
  expect(job.state).toBe('done')
  expect(job.summary).toMatchObject({
    requests: 2,
    format: 'requests',
    new_configuration: 'generated',
  })
  expect(job.progress.total_bytes).toBe(Buffer.byteLength(text))
  expect(await comparedUrls(zone.id, job)).toEqual([
    `https://${zone.name}/`,
    `https://${zone.name}${ATTACK}`,
  ])
})

it('reads a JSON string body longer than the 64 KiB read for a named file as its text', async () => {
  const zone = await newZone(running, { plan: 'business', waf_product: 'previous' })
  const urls = Array.from({ length: 1200 }, (_, i) => `https://${zone.name}/p${i}${ATTACK}`)
  const text = urls.map((url) => JSON.stringify({ method: 'GET', url })).join('\n')
  expect(Buffer.byteLength(JSON.stringify(text))).toBeGreaterThan(64 * 1024)
  const job = await compareThroughBridge(zone.id, text)
  expect(job.state, JSON.stringify(job.errors)).toBe('done')
  expect(job.summary).toMatchObject({ requests: 1200, format: 'requests' })
  expect(await comparedUrls(zone.id, job)).toEqual(urls)
})
