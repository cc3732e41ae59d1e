// Where the secrets live and how they change: the preferences file that holds the API token and
// global key is its owner's alone, and rotating the credentials retires the old ones at once and
// keeps the new ones for the next start.

import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startHeadless } from '../../../src-main/headless'

const TOKEN = 'secretsTestToken0123456789abcdefghijklm'

const modeOf = (file: string) => statSync(file).mode & 0o777

async function call(origin: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${origin}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

describe('the preferences file', () => {
  it('is created readable by its owner only', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zw-secrets-'))
    const { service } = await startHeadless({ dataDir, port: 0, apiToken: TOKEN })
    await service.close()
    expect(modeOf(join(dataDir, 'preferences.json'))).toBe(0o600)
  })

  it('is made private when an older version left it world-readable', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zw-secrets-'))
    const file = join(dataDir, 'preferences.json')
    writeFileSync(file, JSON.stringify({ apiToken: TOKEN }))
    chmodSync(file, 0o644)
    const { service } = await startHeadless({ dataDir, port: 0 })
    await service.close()
    expect(modeOf(file)).toBe(0o600)
  })
})

describe('rotating the credentials', () => {
  it('retires the old token and key at once and keeps the new ones for the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zw-secrets-'))
    let { service, origin } = await startHeadless({ dataDir, port: 0, apiToken: TOKEN })
    const before = (await service.bridge.serviceInfo({})) as { apiKey: string; apiEmail: string }
    const rotated = await call(
      origin,
      '/workbench/v1/settings/rotate-credentials',
      { authorization: `Bearer ${TOKEN}` },
      {},
    )
    expect(rotated.status).toBe(200)
    const { api_token: token, api_key: key, email } = rotated.body.result
    expect(token).not.toBe(TOKEN)
    expect(key).not.toBe(before.apiKey)
    expect(email).toBe(before.apiEmail)

    const old = await call(origin, '/client/v4/zones', { authorization: `Bearer ${TOKEN}` })
    expect(old.status).toBe(403)
    const oldKey = await call(origin, '/client/v4/zones', {
      'x-auth-email': email,
      'x-auth-key': before.apiKey,
    })
    expect(oldKey.status).toBe(403)
    expect(
      (await call(origin, '/client/v4/zones', { authorization: `Bearer ${token}` })).status,
    ).toBe(200)
    expect(
      (await call(origin, '/client/v4/zones', { 'x-auth-email': email, 'x-auth-key': key })).status,
    ).toBe(200)

    await service.close()
    ;({ service, origin } = await startHeadless({ dataDir, port: 0 }))
    expect(
      (await call(origin, '/client/v4/zones', { authorization: `Bearer ${token}` })).status,
    ).toBe(200)
    expect(
      (await call(origin, '/client/v4/zones', { authorization: `Bearer ${TOKEN}` })).status,
    ).toBe(403)
    await service.close()
  })

  it('needs the credentials like every other route', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zw-secrets-'))
    const { service, origin } = await startHeadless({ dataDir, port: 0, apiToken: TOKEN })
    const refused = await call(origin, '/workbench/v1/settings/rotate-credentials', {}, {})
    expect(refused.status).toBe(400)
    expect(
      (await call(origin, '/client/v4/zones', { authorization: `Bearer ${TOKEN}` })).status,
    ).toBe(200)
    await service.close()
  })
})
