// The SDK's token check against the loopback API: `user.tokens.verify()` through the official
// `cloudflare` SDK, and its refusals over plain HTTP, each answer compared whole with the vendor's
// (docs/vendor-behaviour.md#token-verification).

import { createHash } from 'node:crypto'
import Cloudflare from 'cloudflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CREDENTIALS,
  NO_AUTH,
  post,
  refusal,
  startService,
  type Running,
  sdkClient,
} from './harness'

/** The token's id as the workbench derives it (src-main/api/auth.ts, tokenId). */
const idOf = (token: string) =>
  createHash('sha256')
    .update('zone-workbench API token id\n')
    .update(token)
    .digest('hex')
    .slice(0, 32)

const GLOBAL_KEY = { 'x-auth-email': CREDENTIALS.email, 'x-auth-key': CREDENTIALS.apiKey }

let running: Running
let client: Cloudflare
let keyClient: Cloudflare
beforeAll(async () => {
  running = await startService()
  client = sdkClient(running)
  keyClient = sdkClient(running, 'key')
})
afterAll(() => running.stop())

describe('GET /user/tokens/verify', () => {
  it('answers the SDK the token is active, with an id that is not the token', async () => {
    const verified = await client.user.tokens.verify()
    expect(verified).toEqual({ id: idOf(CREDENTIALS.apiToken), status: 'active' })
    expect(verified.id).toMatch(/^[0-9a-f]{32}$/)
    expect(verified.id).not.toContain(CREDENTIALS.apiToken.slice(0, 8))
    // the same token, the same id
    expect((await client.user.tokens.verify()).id).toBe(verified.id)
  })

  it("answers in the vendor's envelope, with its message and nothing it cannot know", async () => {
    const answer = await running.call('/user/tokens/verify')
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({
      success: true,
      errors: [],
      messages: [{ code: 10000, message: 'This API Token is valid and active', type: null }],
      result: { id: idOf(CREDENTIALS.apiToken), status: 'active' },
    })
  })

  it('refuses the global key, which is no token to verify, as the vendor does', async () => {
    const answer = await running.call('/user/tokens/verify', { headers: GLOBAL_KEY })
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({
      success: false,
      errors: [{ code: 1001, message: 'Missing "Authorization" header' }],
      messages: [],
      result: null,
    })
    await expect(keyClient.user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.BadRequestError)
  })

  it('refuses missing, wrong and malformed credentials as every route does', async () => {
    const none = await running.call('/user/tokens/verify', { headers: NO_AUTH })
    expect(refusal(none, 400, 9106).message).toBe(
      'Missing X-Auth-Key, X-Auth-Email or Authorization headers',
    )
    const wrongToken = await running.call('/user/tokens/verify', {
      headers: { authorization: 'Bearer WrongToken0123456789abcdefghijklmnopqrstu' },
    })
    expect(refusal(wrongToken, 403, 9109).message).toBe('Invalid access token')
    const wrongKey = await running.call('/user/tokens/verify', {
      headers: { ...GLOBAL_KEY, 'x-auth-key': 'f'.repeat(37) },
    })
    expect(refusal(wrongKey, 403, 10000).message).toBe('Authentication error')
    const malformed = await running.call('/user/tokens/verify', {
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    })
    refusal(malformed, 400, 6003)
    for (const answer of [none, wrongToken, wrongKey, malformed]) {
      expect(JSON.stringify(answer.body)).not.toContain(idOf(CREDENTIALS.apiToken))
    }
    const stranger = new Cloudflare({
      apiToken: 'WrongToken0123456789abcdefghijklmnopqrstu',
      baseURL: running.api,
      maxRetries: 0,
    })
    await expect(stranger.user.tokens.verify()).rejects.toBeInstanceOf(
      Cloudflare.PermissionDeniedError,
    )
  })
})

describe('after the credentials are rotated', () => {
  it('verifies the new token under a new id and refuses the old one', async () => {
    const rotated = await running.ok(
      `${running.origin}/workbench/v1/settings/rotate-credentials`,
      post({}),
    )
    const fresh = new Cloudflare({
      apiToken: rotated.api_token,
      baseURL: running.api,
      maxRetries: 0,
    })
    const verified = await fresh.user.tokens.verify()
    expect(verified).toEqual({ id: idOf(rotated.api_token), status: 'active' })
    expect(verified.id).not.toBe(idOf(CREDENTIALS.apiToken))
    await expect(client.user.tokens.verify()).rejects.toBeInstanceOf(
      Cloudflare.PermissionDeniedError,
    )
  })
})
