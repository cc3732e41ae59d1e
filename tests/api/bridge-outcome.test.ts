// A bridge call from another process (the Electron renderer) answers its outcome as data: a
// refusal keeps the API's status, code and message, since Electron forwards only an error's
// message, and a bug is the API's 500 without its details.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answerBridgeCall } from '../../src-main/bridge'
import { removeDataDir, startService, type Running } from './harness'

let running: Running

beforeAll(async () => {
  running = await startService()
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

describe('answerBridgeCall', () => {
  it('answers a result as ok', async () => {
    const outcome = await answerBridgeCall(running.service.bridge, 'serviceInfo', {})
    expect(outcome).toMatchObject({ ok: true, result: { apiBaseUrl: running.api } })
  })

  it("answers a refusal with the bridge's status and messages", async () => {
    const outcome = await answerBridgeCall(running.service.bridge, 'queryObject', {
      namespace: 'zone',
      objectId: 'a'.repeat(64),
      query: 'DELETE FROM zone',
    })
    expect(outcome.ok).toBe(false)
    if (outcome.ok) return
    expect(outcome.status).toBeGreaterThanOrEqual(400)
    expect(outcome.status).toBeLessThan(500)
    expect(outcome.errors[0]?.code).toBeGreaterThan(0)
    expect(outcome.errors[0]?.message).not.toBe('')
  })

  it('answers an unknown operation with 404 and input that breaks its schema with 400', async () => {
    const unknown = await answerBridgeCall(running.service.bridge, 'listZones', {})
    expect(unknown).toMatchObject({ ok: false, status: 404, errors: [{ code: 7003 }] })
    const invalid = await answerBridgeCall(running.service.bridge, 'callApi', { method: 'GET' })
    expect(invalid).toMatchObject({ ok: false, status: 400, errors: [{ code: 1001 }] })
  })

  it("answers an API refusal inside callApi's answer, with its pointer", async () => {
    const outcome = await answerBridgeCall(running.service.bridge, 'callApi', {
      method: 'POST',
      path: '/client/v4/zones',
      body: { name: 'outcome.example', plan: 'platinum' },
    })
    expect(outcome).toMatchObject({ ok: true, result: { status: 400 } })
    if (!outcome.ok) return
    const answer = outcome.result as { body: { errors: { source?: { pointer: string } }[] } }
    expect(answer.body.errors[0]?.source?.pointer).toMatch(/^\/plan/)
  })
})
