// Every request passes the loopback guards and the vendor's authentication before any route runs;
// a refused request reads and changes nothing.

import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CREDENTIALS, startService, type Running } from './harness'

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(() => running.stop())

async function zoneCount(): Promise<number> {
  return (await running.call('/zones')).body.result_info.total_count
}

/** A raw request, for headers fetch() will not let us set (Host). */
function rawRequest(path: string, headers: Record<string, string>, body?: string) {
  const url = new URL(running.api + path)
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: body ? 'POST' : 'GET',
        headers,
      },
      (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

describe('authentication', () => {
  it('accepts the bearer token', async () => {
    const { status, body } = await running.call('/zones')
    expect(status).toBe(200)
    expect(body.success).toBe(true)
  })

  it('accepts X-Auth-Email with X-Auth-Key', async () => {
    const { status } = await running.call('/zones', {
      headers: { 'x-auth-email': CREDENTIALS.email, 'x-auth-key': CREDENTIALS.apiKey },
    })
    expect(status).toBe(200)
  })

  it('answers 400 / 9106 when no credentials are sent, and creates nothing', async () => {
    const before = await zoneCount()
    const { status, body } = await running.call('/zones', {
      method: 'POST',
      headers: { 'x-no-auth': '1' },
      json: { name: 'no-credentials.example' },
    })
    expect(status).toBe(400)
    expect(body).toEqual({
      success: false,
      errors: [
        { code: 9106, message: 'Missing X-Auth-Key, X-Auth-Email or Authorization headers' },
      ],
      messages: [],
      result: null,
    })
    expect(await zoneCount()).toBe(before)
  })

  it('answers 400 / 9106 when only one half of the key form is sent', async () => {
    const { status, body } = await running.call('/zones', {
      headers: { 'x-auth-key': CREDENTIALS.apiKey },
    })
    expect(status).toBe(400)
    expect(body.errors[0].code).toBe(9106)
  })

  it.each([['Bearer'], ['Bearer two words'], ['Basic dXNlcjpwYXNz'], ['Bearer tok$en']])(
    'answers 400 / 6003 with error_chain 6111 for a malformed Authorization header (%s)',
    async (authorization) => {
      const { status, body } = await running.call('/zones', { headers: { authorization } })
      expect(status).toBe(400)
      expect(body.errors).toEqual([
        {
          code: 6003,
          message: 'Invalid request headers',
          error_chain: [{ code: 6111, message: 'Invalid format for Authorization header' }],
        },
      ])
    },
  )

  it('answers 403 / 9109 for an unknown token, and creates nothing', async () => {
    const before = await zoneCount()
    const { status, body } = await running.call('/zones', {
      method: 'POST',
      headers: { authorization: 'Bearer WrongToken0123456789abcdefghijklmnopqrstu' },
      json: { name: 'wrong-token.example' },
    })
    expect(status).toBe(403)
    expect(body.errors[0]).toEqual({ code: 9109, message: 'Invalid access token' })
    expect(body.result).toBeNull()
    expect(await zoneCount()).toBe(before)
  })

  it('answers 403 / 10000 for an unknown key or email', async () => {
    for (const headers of [
      { 'x-auth-email': CREDENTIALS.email, 'x-auth-key': 'f'.repeat(37) },
      { 'x-auth-email': 'someone@else.example', 'x-auth-key': CREDENTIALS.apiKey },
    ]) {
      const { status, body } = await running.call('/zones', { headers })
      expect(status).toBe(403)
      expect(body.errors[0]).toEqual({ code: 10000, message: 'Authentication error' })
    }
  })

  it('guards our own /workbench/v1 routes as well', async () => {
    const { status } = await running.call(`${running.origin}/workbench/v1/anything`, {
      headers: { 'x-no-auth': '1' },
    })
    expect(status).toBe(400)
  })
})

describe('loopback guards', () => {
  it.each(['attacker.example:80', 'localhost:evil.example', 'localhost:80@evil.example'])(
    'refuses a Host that is not a loopback name and port (%s) with 403',
    async (host) => {
      const { status, body } = await rawRequest('/zones', {
        host,
        authorization: `Bearer ${CREDENTIALS.apiToken}`,
      })
      expect(status).toBe(403)
      expect(body.success).toBe(false)
      expect(body.errors[0].message).toMatch(/loopback/)
    },
  )

  it('accepts localhost, 127.0.0.1 and [::1] as Host', async () => {
    for (const host of ['localhost', '127.0.0.1:9', 'localhost:', '[::1]:8787']) {
      const { status } = await rawRequest('/zones', {
        host,
        authorization: `Bearer ${CREDENTIALS.apiToken}`,
      })
      expect(status).toBe(200)
    }
  })

  it('refuses a cross-origin request and sends no CORS headers', async () => {
    const response = await fetch(`${running.api}/zones`, {
      headers: { authorization: `Bearer ${CREDENTIALS.apiToken}`, origin: 'https://evil.example' },
    })
    expect(response.status).toBe(403)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    const preflight = await fetch(`${running.api}/zones`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('binds 127.0.0.1', () => {
    expect(running.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })
})
