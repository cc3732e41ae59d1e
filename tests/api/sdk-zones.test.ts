// The official `cloudflare` SDK, pointed at the loopback API with baseURL, runs unchanged.

import Cloudflare from 'cloudflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type Running, sdkClient } from './harness'

let running: Running
let client: Cloudflare
beforeAll(async () => {
  running = await startService()
  client = sdkClient(running)
})
afterAll(() => running.stop())

describe('official SDK against the loopback API', () => {
  it('creates, reads and iterates zones to the end of the pages', async () => {
    const account = { id: '01a7362d577a6c3019a474fd6f485823' }
    const names = Array.from({ length: 12 }, (_, i) => `sdk-${i}.example`)
    for (const name of names) await client.zones.create({ account, name })
    const seen: string[] = []
    for await (const zone of client.zones.list({ per_page: 5 })) seen.push(zone.name)
    expect(seen.sort()).toEqual([...names].sort())

    const [first] = (await client.zones.list({ name: 'sdk-3.example' })).result
    expect(first?.name).toBe('sdk-3.example')
    const read = await client.zones.get({ zone_id: first!.id })
    expect(read.id).toBe(first!.id)
  })

  it('searches and orders the list with the parameters of ZoneListParams', async () => {
    for (const name of ['one.sdk-search.example', 'two.sdk-search.example'])
      await client.zones.create({ account: { id: '01a7362d577a6c3019a474fd6f485823' }, name })
    const page = await client.zones.list({
      name: 'ends_with:.sdk-search.example',
      status: 'active',
      account: { id: '01a7362d577a6c3019a474fd6f485823', name: 'Zone Workbench' },
      order: 'name',
      direction: 'desc',
      match: 'all',
    })
    expect(page.result.map((zone) => zone.name)).toEqual([
      'two.sdk-search.example',
      'one.sdk-search.example',
    ])
    const none = await client.zones.list({ status: 'moved', account: { name: 'another' } })
    expect(none.result).toEqual([])
    const any = await client.zones.list({
      name: 'one.sdk-search.example',
      status: 'moved',
      match: 'any',
    })
    expect(any.result.map((zone) => zone.name)).toEqual(['one.sdk-search.example'])
  })

  it('authenticates with the global key form as well', async () => {
    const page = await sdkClient(running, 'key').zones.list()
    expect(Array.isArray(page.result)).toBe(true)
  })

  it("raises the SDK's NotFoundError, BadRequestError and PermissionDeniedError", async () => {
    await expect(
      client.zones.get({ zone_id: '0123456789abcdef0123456789abcdef' }),
    ).rejects.toBeInstanceOf(Cloudflare.NotFoundError)
    await expect(
      client.zones.create({
        account: { id: '01a7362d577a6c3019a474fd6f485823' },
        name: 'sdk-0.example',
      }),
    ).rejects.toBeInstanceOf(Cloudflare.BadRequestError)
    const stranger = new Cloudflare({
      apiToken: 'WrongToken0123456789abcdefghijklmnopqrstu',
      baseURL: running.api,
      maxRetries: 0,
    })
    await expect(stranger.zones.list()).rejects.toBeInstanceOf(Cloudflare.PermissionDeniedError)
  })
})
