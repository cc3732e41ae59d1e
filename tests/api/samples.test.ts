// A zone's saved sample requests over the workbench's API: kept in the zone's object, each write
// a described point in its history, bad input refused with nothing written, and still there
// after a restart.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, removeDataDir, type Running, startService } from './harness'

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

const workbench = (path: string, init?: Parameters<Running['call']>[1]) =>
  running.call(`${running.origin}/workbench/v1${path}`, init)

const notes = async (zoneId: string): Promise<string[]> =>
  (await workbench(`/zones/${zoneId}/history`)).body.result.map((p: { note: string }) => p.note)

const probe = {
  name: 'SQL injection probe',
  expected: 'blocked',
  request: {
    method: 'GET',
    url: 'https://samples.example/?id=1%27%20OR%201=1--',
    headers: { 'user-agent': 'curl/8.0' },
    country: 'DE',
  },
}

describe('saved sample requests', () => {
  it('creates, lists, replaces and deletes, each a described point in the history', async () => {
    const zoneId = (await newZone(running, { name: 'samples.example' })).id
    expect((await workbench(`/zones/${zoneId}/samples`)).body.result).toEqual([])

    const created = await workbench(`/zones/${zoneId}/samples`, { method: 'POST', json: probe })
    expect(created.status).toBe(200)
    const sample = created.body.result
    expect(sample).toMatchObject(probe)
    expect(sample.id).toMatch(/^[0-9a-f]{32}$/)
    expect(sample.created_on).toBe(sample.modified_on)

    const second = (
      await workbench(`/zones/${zoneId}/samples`, {
        method: 'POST',
        json: { name: 'Home page', expected: 'passed', request: { method: 'GET', url: '/' } },
      })
    ).body.result
    const listed = (await workbench(`/zones/${zoneId}/samples`)).body.result
    expect(listed.map((s: { id: string }) => s.id)).toEqual([sample.id, second.id])

    const replaced = await workbench(`/zones/${zoneId}/samples/${sample.id}`, {
      method: 'PUT',
      json: { ...probe, expected: 'challenged' },
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.result).toMatchObject({
      id: sample.id,
      expected: 'challenged',
      created_on: sample.created_on,
    })

    const deleted = await workbench(`/zones/${zoneId}/samples/${second.id}`, { method: 'DELETE' })
    expect(deleted.body.result).toEqual({ id: second.id })
    expect(
      (await workbench(`/zones/${zoneId}/samples`)).body.result.map((s: { id: string }) => s.id),
    ).toEqual([sample.id])

    // Writes close in time may share one point (their notes joined), oldest note first.
    expect((await notes(zoneId)).reverse().join('; ')).toContain(
      [
        'Sample request SQL injection probe saved (expected blocked)',
        'Sample request Home page saved (expected passed)',
        'Sample request SQL injection probe changed (expected challenged)',
        'Sample request Home page deleted',
      ].join('; '),
    )
  })

  it('refuses bad input with 400 in the envelope and writes nothing', async () => {
    const zoneId = (await newZone(running, { name: 'refused-samples.example' })).id
    const kept = (await workbench(`/zones/${zoneId}/samples`, { method: 'POST', json: probe })).body
      .result
    const before = await notes(zoneId)
    const bad = [
      { ...probe, name: '' },
      { ...probe, name: 'x'.repeat(201) },
      { ...probe, expected: 'logged' },
      { ...probe, request: { url: '/' } },
      { ...probe, request: { ...probe.request, body: 'x'.repeat(1_048_577) } },
      { ...probe, request: { ...probe.request, label: 'not part of a request' } },
      { ...probe, extra: true },
    ]
    for (const body of bad) {
      const created = await workbench(`/zones/${zoneId}/samples`, { method: 'POST', json: body })
      expect(created.status).toBe(400)
      expect(created.body.success).toBe(false)
      expect(created.body.errors.length).toBeGreaterThan(0)
      const replaced = await workbench(`/zones/${zoneId}/samples/${kept.id}`, {
        method: 'PUT',
        json: body,
      })
      expect(replaced.status).toBe(400)
    }
    expect((await workbench(`/zones/${zoneId}/samples`)).body.result).toEqual([kept])
    expect(await notes(zoneId)).toEqual(before)
  })

  it('answers 404 with 7003 for an unknown zone or sample, writing nothing', async () => {
    const zoneId = (await newZone(running, { name: 'unknown-samples.example' })).id
    const before = await notes(zoneId)
    const missing = '0123456789abcdef0123456789abcdef'
    for (const [method, path, json] of [
      ['GET', `/zones/${missing}/samples`, undefined],
      ['POST', `/zones/${missing}/samples`, probe],
      ['GET', `/zones/${zoneId}/samples/${missing}`, undefined],
      ['PUT', `/zones/${zoneId}/samples/${missing}`, probe],
      ['DELETE', `/zones/${zoneId}/samples/${missing}`, undefined],
    ] as const) {
      const answer = await workbench(path, { method, json })
      expect(answer.status, `${method} ${path}`).toBe(404)
      expect(answer.body.errors[0].code).toBe(7003)
    }
    expect(await notes(zoneId)).toEqual(before)
  })

  it('keeps samples across a restart', async () => {
    const zoneId = (await newZone(running, { name: 'restart-samples.example' })).id
    const sample = (await workbench(`/zones/${zoneId}/samples`, { method: 'POST', json: probe }))
      .body.result
    await running.stop()
    running = await startService(running.dataDir)
    expect((await workbench(`/zones/${zoneId}/samples`)).body.result).toEqual([sample])
  })
})
