// The SDK's account lookups against the loopback API: `accounts.list()` and `accounts.get()`
// through the official `cloudflare` SDK, and their refusals over plain HTTP, each answer compared
// whole with the vendor's (docs/vendor-behaviour.md#accounts).

import Cloudflare from 'cloudflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACCOUNT } from '../../src-main/zones/registry'
import { NO_AUTH, notRouted, refusal, startService, type Running, sdkClient } from './harness'

/** The account as the API must show it: nothing more (no invented `created_on`), nothing less. */
const THE_ACCOUNT = {
  id: ACCOUNT.id,
  name: 'Zone Workbench',
  type: 'standard',
  settings: { enforce_twofactor: false },
}
const WELL_FORMED_STRANGER = '0123456789abcdef0123456789abcdef'

let running: Running
let client: Cloudflare
let keyClient: Cloudflare
beforeAll(async () => {
  running = await startService()
  client = sdkClient(running)
  keyClient = sdkClient(running, 'key')
})
afterAll(() => running.stop())

describe('GET /accounts', () => {
  it("lists the workbench's one account to the SDK, to the end of the pages", async () => {
    const seen = []
    for await (const account of client.accounts.list()) seen.push(account)
    expect(seen).toEqual([THE_ACCOUNT])
    const keySeen = []
    for await (const account of keyClient.accounts.list({ per_page: 5 })) keySeen.push(account)
    expect(keySeen).toEqual([THE_ACCOUNT])
  })

  it("pages as the vendor's lists do, with result_info", async () => {
    const first = await running.call('/accounts')
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      success: true,
      errors: [],
      messages: [],
      result: [THE_ACCOUNT],
      result_info: { page: 1, per_page: 20, count: 1, total_count: 1, total_pages: 1 },
    })
    const past = await running.call('/accounts?page=2&per_page=5')
    expect(past.body.result).toEqual([])
    expect(past.body.result_info).toEqual({
      page: 2,
      per_page: 5,
      count: 0,
      total_count: 1,
      total_pages: 1,
    })
    for (const query of ['per_page=4', 'per_page=51', 'page=0', 'direction=sideways']) {
      refusal(await running.call(`/accounts?${query}`), 400, 1001)
    }
  })

  it('finds the account by its whole name, in either direction', async () => {
    const byName = await client.accounts.list({ name: 'Zone Workbench', direction: 'desc' })
    expect(byName.result).toEqual([THE_ACCOUNT])
    for (const name of ['Zone', 'zone workbench', 'another']) {
      const none = await running.call(`/accounts?name=${encodeURIComponent(name)}`)
      expect(none.body.result, name).toEqual([])
      expect(none.body.result_info.total_count, name).toBe(0)
    }
  })

  it('refuses missing and wrong credentials as every route does', async () => {
    refusal(await running.call('/accounts', { headers: NO_AUTH }), 400, 9106)
    const wrong = await running.call('/accounts', {
      headers: { authorization: 'Bearer WrongToken0123456789abcdefghijklmnopqrstu' },
    })
    refusal(wrong, 403, 9109)
  })
})

describe('GET /accounts/{account_id}', () => {
  it('shows the account to the SDK, with the token and with the global key', async () => {
    expect(await client.accounts.get({ account_id: ACCOUNT.id })).toEqual(THE_ACCOUNT)
    expect(await keyClient.accounts.get({ account_id: ACCOUNT.id })).toEqual(THE_ACCOUNT)
    const answer = await running.call(`/accounts/${ACCOUNT.id}`)
    expect(answer.body).toEqual({ success: true, errors: [], messages: [], result: THE_ACCOUNT })
  })

  it('refuses a well-formed id of another account with 403 and 9109', async () => {
    const answer = await running.call(`/accounts/${WELL_FORMED_STRANGER}`)
    expect(answer.body).toEqual({
      success: false,
      errors: [{ code: 9109, message: 'Invalid account identifier' }],
      messages: [],
      result: null,
    })
    expect(answer.status).toBe(403)
    await expect(client.accounts.get({ account_id: WELL_FORMED_STRANGER })).rejects.toBeInstanceOf(
      Cloudflare.PermissionDeniedError,
    )
  })

  it('routes an id that is not 32 hex digits nowhere (7003)', async () => {
    for (const id of ['not-an-account', ACCOUNT.id.toUpperCase(), `${ACCOUNT.id}0`]) {
      notRouted(await running.call(`/accounts/${id}`))
    }
    await expect(client.accounts.get({ account_id: 'not-an-account' })).rejects.toBeInstanceOf(
      Cloudflare.NotFoundError,
    )
  })

  it('checks the credentials before the id, and leaves the account routes below it', async () => {
    refusal(await running.call(`/accounts/${ACCOUNT.id}`, { headers: NO_AUTH }), 400, 9106)
    refusal(
      await running.call(`/accounts/${WELL_FORMED_STRANGER}`, { headers: NO_AUTH }),
      400,
      9106,
    )
    const rulesets = await running.call(`/accounts/${ACCOUNT.id}/rulesets`)
    expect(rulesets.status).toBe(200)
    expect(Array.isArray(rulesets.body.result)).toBe(true)
  })
})
