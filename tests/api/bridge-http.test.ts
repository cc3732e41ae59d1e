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
  it('runs an operation and answers in the envelope', async () => {
    const created = await invoke('createZone', { name: 'bridge.example', plan: 'enterprise' })
    expect(created.status).toBe(200)
    expect(created.body.result.plan.legacy_id).toBe('enterprise')
    const renamed = await invoke('renameZone', {
      zoneId: created.body.result.id,
      name: 'renamed.example',
    })
    expect(renamed.body.result.name).toBe('renamed.example')
    const listed = await invoke('listZones', {})
    expect(listed.body.result.zones.map((z: { name: string }) => z.name)).toContain(
      'renamed.example',
    )
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
    const before = (await invoke('listZones', {})).body.result.total
    const bad = await invoke('createZone', { name: 7 })
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0].message).toMatch(/^Invalid input for createZone at \/name/)
    const badId = await invoke('deleteZone', { zoneId: '../../etc' })
    expect(badId.status).toBe(400)
    expect((await invoke('listZones', {})).body.result.total).toBe(before)
  })

  it('answers an unknown operation with 404', async () => {
    const { status, body } = await invoke('dropEverything', {})
    expect(status).toBe(404)
    expect(body.success).toBe(false)
  })

  it('requires the token like every API route', async () => {
    const { status } = await invoke('listZones', {}, 'WrongToken0123456789abcdefghijklmnopqrstu')
    expect(status).toBe(403)
  })
})
