// A compare job of a text the bridge carries: the Electron shell's page cannot send a body of its
// own, so the Migration screen's pasted traffic reaches POST …/waf_migration/compares through
// callApi as a JSON string, and the job reads the text it holds (its size is the text's).

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

it('compares the requests of a JSON string body, as the bridge sends pasted traffic', async () => {
  const zone = await newZone(running, { plan: 'business', waf_product: 'previous' })
  const text = ['/', ATTACK]
    .map((path) => JSON.stringify({ method: 'GET', url: `https://${zone.name}${path}` }))
    .join('\n')
  const started = await running.service.bridge.callApi({
    method: 'POST',
    path: `/workbench/v1/zones/${zone.id}/waf_migration/compares`,
    body: text,
  })
  expect(started.status, JSON.stringify(started.body)).toBe(202)
  const id = (started.body?.result as { id: string }).id

  let job: any
  do {
    if (job !== undefined) await new Promise((resolve) => setTimeout(resolve, 20))
    job = await running.ok(
      `${running.origin}/workbench/v1/zones/${zone.id}/waf_migration/compares/${id}`,
    )
  } while (job.state === 'running')
  expect(job.state).toBe('done')
  expect(job.summary).toMatchObject({
    requests: 2,
    format: 'requests',
    new_configuration: 'generated',
  })
  expect(job.progress.total_bytes).toBe(Buffer.byteLength(text))

  const verdicts = await running.service.bridge.callApi({
    method: 'GET',
    path: `/workbench/v1/zones/${zone.id}/waf_migration/compares/${id}/verdicts`,
  })
  const compared = (verdicts.text ?? '')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  expect(compared.map((request) => request.url)).toEqual([
    `https://${zone.name}/`,
    `https://${zone.name}${ATTACK}`,
  ])
})
