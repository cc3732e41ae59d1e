// The bridge's callApi carries files as well as envelopes: an export (a bundle, Terraform or a
// script) comes back as its text, byte for byte as the API serves it, so the screens can preview
// and save it; envelopes, refusals included, still come back parsed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CREDENTIALS, removeDataDir, startService, type Running } from './harness'

let running: Running
let zoneId: string

beforeAll(async () => {
  running = await startService()
  const created = await running.call('/zones', {
    method: 'POST',
    json: { name: 'files.example', plan: 'business' },
  })
  zoneId = created.body.result.id
  await running.call(`/zones/${zoneId}/filters`, {
    method: 'POST',
    json: [{ expression: 'ip.src eq 192.0.2.1', description: 'one address' }],
  })
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

async function overHttp(path: string): Promise<string> {
  const response = await fetch(`${running.origin}${path}`, {
    headers: { authorization: `Bearer ${CREDENTIALS.apiToken}` },
  })
  return response.text()
}

describe("the bridge's callApi", () => {
  it('answers an export as its text, the same as over HTTP', async () => {
    for (const query of ['format=terraform&provider=v4', 'format=curl']) {
      const path = `/workbench/v1/zones/${zoneId}/export?${query}`
      const answer = await running.service.bridge.callApi({ method: 'GET', path })
      expect(answer.status).toBe(200)
      expect(answer.body).toBeNull()
      expect(answer.text).toBe(await overHttp(path))
      expect(answer.text).toContain('ip.src eq 192.0.2.1')
    }
  })

  it('answers a bundle, JSON but a file, as its text', async () => {
    const path = `/workbench/v1/zones/${zoneId}/export?format=bundle`
    const answer = await running.service.bridge.callApi({ method: 'GET', path })
    expect(answer.body).toBeNull()
    const withoutTime = (text: string) => text.replace(/"exported_at": "[^"]*"/, '')
    expect(withoutTime(answer.text ?? '')).toBe(withoutTime(await overHttp(path)))
    expect(JSON.parse(answer.text ?? '').zone.name).toBe('files.example')
  })

  it('still answers envelopes, and refusals of an export, parsed', async () => {
    const refused = await running.service.bridge.callApi({
      method: 'GET',
      path: `/workbench/v1/zones/${zoneId}/export?format=pdf`,
    })
    expect(refused.status).toBe(400)
    expect(refused.text).toBeUndefined()
    expect(refused.body?.errors[0]?.code).toBe(10500)
    const listed = await running.service.bridge.callApi({ method: 'GET', path: '/client/v4/zones' })
    expect(listed.body?.success).toBe(true)
    expect(listed.text).toBeUndefined()
  })
})
