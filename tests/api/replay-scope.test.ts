// A replay's summary counts the requests no managed rules saw (issue 19: Replay warns when the
// traffic's hosts match no deployment scope), whatever ended their evaluation: no deployment's
// expression matched them, and no previous WAF ran for them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GENERAL } from './fixtures-zones'
import { newZone, patch, post, put, startService, type Running } from './harness'

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(() => running.stop())

const line = (host: string, path: string) =>
  JSON.stringify({ method: 'GET', url: `https://${host}${path}`, headers: { host } })

async function replay(zone: string, hosts: string[]): Promise<any> {
  const answer = await running.call(
    `${running.origin}/workbench/v1/zones/${zone}/replay?record=false`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: hosts.map((host, i) => line(host, `/page/${i}`)).join('\n'),
    },
  )
  expect(answer.status).toBe(200)
  return answer.body.result
}

describe('replay scope', () => {
  it('counts the requests whose host no deployment covers', async () => {
    const zone = (await newZone(running, { plan: 'pro' })).id
    await running.ok(
      `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
      put({
        rules: [
          {
            action: 'execute',
            expression: 'http.host eq "a.example"',
            action_parameters: { id: GENERAL },
          },
        ],
      }),
    )
    const none = await replay(zone, ['b.example', 'b.example', 'c.example'])
    expect(none).toMatchObject({ requests: 3, out_of_scope: 3 })
    const some = await replay(zone, ['a.example', 'b.example', 'a.example', 'a.example'])
    expect(some).toMatchObject({ requests: 4, out_of_scope: 1 })
  })

  it('counts, on a zone that runs the previous WAF, the requests the WAF is off for', async () => {
    const zone = (await newZone(running, { plan: 'pro', waf_product: 'previous' })).id
    // The previous WAF sees every request while it is on, deployments or none.
    expect(await replay(zone, ['a.example', 'b.example'])).toMatchObject({
      requests: 2,
      out_of_scope: 0,
    })
    await running.ok(
      `/zones/${zone}/pagerules`,
      post({
        targets: [{ target: 'url', constraint: { operator: 'matches', value: '*b.example/*' } }],
        actions: [{ id: 'waf', value: 'off' }],
        status: 'active',
      }),
    )
    expect(await replay(zone, ['a.example', 'b.example', 'b.example'])).toMatchObject({
      requests: 3,
      out_of_scope: 2,
    })
    await running.ok(`/zones/${zone}/settings/waf`, patch({ value: 'off' }))
    expect(await replay(zone, ['a.example', 'b.example'])).toMatchObject({
      requests: 2,
      out_of_scope: 2,
    })
  })

  it('counts every request of a zone that deploys nothing', async () => {
    const zone = (await newZone(running, { plan: 'pro' })).id
    expect(await replay(zone, ['a.example', 'b.example'])).toMatchObject({
      requests: 2,
      out_of_scope: 2,
    })
  })
})
