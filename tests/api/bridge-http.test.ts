// The headless shell's bridge over HTTP: the renderer's operations, authenticated like the API,
// with untrusted input validated against the shared contract before anything runs.

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHeadless } from '../../src-main/headless'
import type { Service } from '../../src-main/service'

const TOKEN = 'bridgeTestToken0123456789abcdefghijklmn'
let service: Service
let origin: string
const dataDir = mkdtempSync(join(tmpdir(), 'zw-bridge-'))

beforeAll(async () => {
  ;({ service, origin } = await startHeadless({ dataDir, port: 0, apiToken: TOKEN }))
})
afterAll(() => service.close())

async function invoke(operation: string, input: unknown, token = TOKEN) {
  const response = await fetch(`${origin}/workbench/v1/bridge/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
  })
  return { status: response.status, body: await response.json() }
}

describe('bridge over HTTP', () => {
  it('carries API requests through callApi, answering their status and envelope', async () => {
    const created = await invoke('callApi', {
      method: 'POST',
      path: '/client/v4/zones',
      body: { name: 'bridge.example', plan: 'enterprise' },
    })
    expect(created.status).toBe(200)
    expect(created.body.result.status).toBe(200)
    const zone = created.body.result.body.result
    expect(zone.plan.legacy_id).toBe('enterprise')
    const renamed = await invoke('callApi', {
      method: 'POST',
      path: `/workbench/v1/zones/${zone.id}/rename`,
      body: { name: 'renamed.example' },
    })
    expect(renamed.body.result.body.result.name).toBe('renamed.example')
    const listed = await invoke('callApi', { method: 'GET', path: '/client/v4/zones' })
    expect(listed.body.result.body.result.map((z: { name: string }) => z.name)).toContain(
      'renamed.example',
    )
  })

  it("answers the API's refusal with its code and the pointer into the body", async () => {
    const { body } = await invoke('callApi', {
      method: 'POST',
      path: '/client/v4/zones',
      body: { name: 'pointer.example', plan: 'platinum' },
    })
    expect(body.result.status).toBe(400)
    expect(body.result.body.errors[0]).toMatchObject({ code: 1001 })
    expect(body.result.body.errors[0].source.pointer).toMatch(/^\/plan/)
  })

  it('keeps no operation of its own for what the API does', async () => {
    for (const operation of ['listZones', 'createZone', 'zoneHistory', 'restoreZone']) {
      expect((await invoke(operation, {})).status).toBe(404)
    }
  })

  it('reports where the service listens and the token scripts should use', async () => {
    const { body } = await invoke('serviceInfo', {})
    expect(body.result).toMatchObject({
      apiBaseUrl: `${origin}/client/v4`,
      apiToken: TOKEN,
      dataDir,
      shell: 'headless',
    })
  })

  it('keeps the token given on the command line in preferences for the next start', async () => {
    const { body } = await invoke('serviceInfo', {})
    await service.close()
    ;({ service, origin } = await startHeadless({ dataDir, port: 0 }))
    expect((await invoke('serviceInfo', {})).body.result.apiToken).toBe(body.result.apiToken)
  })

  it('refuses input that breaks the operation schema, changing nothing', async () => {
    const zoneCount = async () =>
      (await invoke('callApi', { method: 'GET', path: '/client/v4/zones' })).body.result.body
        .result_info.total_count
    const before = await zoneCount()
    const bad = await invoke('callApi', { method: 'POST', path: '/etc/zones', body: {} })
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0].message).toMatch(/^Invalid input for callApi at \/path/)
    const badId = await invoke('objectDetails', { namespace: 'zone', objectId: '../../etc' })
    expect(badId.status).toBe(400)
    expect(await zoneCount()).toBe(before)
  })

  it('answers an unknown operation with 404', async () => {
    const { status, body } = await invoke('dropEverything', {})
    expect(status).toBe(404)
    expect(body.success).toBe(false)
  })

  it('requires the token like every API route', async () => {
    const { status } = await invoke('serviceInfo', {}, 'WrongToken0123456789abcdefghijklmnopqrstu')
    expect(status).toBe(403)
  })
})
