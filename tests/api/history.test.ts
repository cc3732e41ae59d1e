// A zone's history over the API: every change is a point; restoring one brings the zone back as it
// was, across a restart, and the undo bookmark reverses the restore exactly.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OWASP } from './fixtures-zones'
import { startService, type Running } from './harness'

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(() => running.stop())

const restore = (zoneId: string, bookmark: string) =>
  running.call(`${running.origin}/workbench/v1/zones/${zoneId}/history/restore`, {
    method: 'POST',
    json: { bookmark },
  })
const zone = async (zoneId: string) => (await running.call(`/zones/${zoneId}`)).body.result

describe('zone history', () => {
  it('lists points newest first and restores one, with undo', async () => {
    const { body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'timeline.example', plan: 'free' },
    })
    const id = body.result.id
    await running.call(`/zones/${id}`, { method: 'PATCH', json: { plan: 'pro' } })
    const atPro = (await running.call(`${running.origin}/workbench/v1/zones/${id}/history`)).body
      .result[0]
    await running.call(`/zones/${id}`, {
      method: 'PATCH',
      json: { plan: 'enterprise', paused: true },
    })

    const points = (await running.call(`${running.origin}/workbench/v1/zones/${id}/history`)).body
      .result
    expect(points.length).toBeGreaterThanOrEqual(3)
    const times = points.map((p: { time: string }) => p.time)
    expect([...times].sort().reverse()).toEqual(times)
    expect(points[0].bookmark > atPro.bookmark).toBe(true)

    const restored = await restore(id, atPro.bookmark)
    expect(restored.status).toBe(200)
    expect(await zone(id)).toMatchObject({ plan: { legacy_id: 'pro' }, paused: false })

    const undone = await restore(id, restored.body.result.undo_bookmark)
    expect(undone.status).toBe(200)
    expect(await zone(id)).toMatchObject({ plan: { legacy_id: 'enterprise' }, paused: true })
  })

  it('keeps the index in step when a restore brings back an earlier name', async () => {
    const { body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'before.example' },
    })
    const id = body.result.id
    const first = (await running.call(`${running.origin}/workbench/v1/zones/${id}/history`)).body
      .result[0]
    await running.call(`${running.origin}/workbench/v1/zones/${id}/rename`, {
      method: 'POST',
      json: { name: 'after.example' },
    })
    await restore(id, first.bookmark)
    expect((await zone(id)).name).toBe('before.example')
    const listed = await running.call('/zones?name=before.example')
    expect(listed.body.result.map((z: { id: string }) => z.id)).toEqual([id])
  })

  it('refuses a malformed or foreign bookmark with 400, changing nothing', async () => {
    const a = (
      await running.call('/zones', { method: 'POST', json: { name: 'mine.example', plan: 'pro' } })
    ).body.result
    const b = (await running.call('/zones', { method: 'POST', json: { name: 'theirs.example' } }))
      .body.result
    const foreign = (await running.call(`${running.origin}/workbench/v1/zones/${b.id}/history`))
      .body.result[0]
    for (const bookmark of ['not-a-bookmark', foreign.bookmark]) {
      const refused = await restore(a.id, bookmark)
      expect(refused.status).toBe(400)
      expect(refused.body.success).toBe(false)
      expect(refused.body.errors[0].message).toMatch(/^Cannot restore to/)
    }
    expect((await zone(a.id)).plan.legacy_id).toBe('pro')
  })

  it('lists no point from before the zone existed: the oldest is the zone as created', async () => {
    const { body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'origin.example', plan: 'pro' },
    })
    const id = body.result.id
    await running.call(`/zones/${id}`, { method: 'PATCH', json: { plan: 'business' } })
    const points = (await running.call(`${running.origin}/workbench/v1/zones/${id}/history`)).body
      .result
    const restored = await restore(id, points[points.length - 1].bookmark)
    expect(restored.status).toBe(200)
    expect(await zone(id)).toMatchObject({ name: 'origin.example', plan: { legacy_id: 'pro' } })
  })

  it('says what each point changed', async () => {
    const { body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'notes.example' },
    })
    const id = body.result.id
    await running.call(`/zones/${id}`, {
      method: 'PATCH',
      json: { plan: 'business', paused: true },
    })
    const points = (await running.call(`${running.origin}/workbench/v1/zones/${id}/history`)).body
      .result
    expect(points.map((p: { note: string }) => p.note)).toEqual([
      'Zone plan: free → business, paused: false → true',
      'Zone notes.example created (free plan)',
    ])
  })

  it('keeps no point for a dry run or a refused change, nor lends their notes to the next', async () => {
    const { body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'dry-runs.example', plan: 'enterprise' },
    })
    const id = body.result.id
    const history = async () =>
      (await running.call(`${running.origin}/workbench/v1/zones/${id}/history`)).body.result
    const before = await history()
    const entrypoint = `/zones/${id}/rulesets/phases/http_request_firewall_custom/entrypoint`
    const rules = [{ action: 'block', expression: 'http.request.uri.path eq "/x"' }]
    const dryRun = await running.call(`${entrypoint}?dry_run=true`, {
      method: 'PUT',
      json: { rules },
    })
    expect(dryRun.status).toBe(200)
    const refused = await running.call(entrypoint, {
      method: 'PUT',
      json: { rules: [{ action: 'block', expression: 'not an expression (' }] },
    })
    expect(refused.status).toBe(400)
    expect(await history()).toEqual(before)
    await running.call(`/zones/${id}`, { method: 'PATCH', json: { paused: true } })
    const [latest] = await history()
    expect(latest.note).toBe('Zone paused: false → true')
  })

  it('says in words what deployments, renames and restores did', async () => {
    const { body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'words.example', plan: 'pro' },
    })
    const id = body.result.id
    const history = async () =>
      (await running.call(`${running.origin}/workbench/v1/zones/${id}/history`)).body.result
    const entrypoint = `/zones/${id}/rulesets/phases/http_request_firewall_managed/entrypoint`
    const deployOwasp = await running.call(entrypoint, {
      method: 'PUT',
      json: {
        rules: [
          { action: 'execute', expression: 'true', action_parameters: { id: OWASP } },
          {
            action: 'skip',
            expression: 'http.host eq "a.example"',
            action_parameters: { ruleset: 'current' },
          },
        ],
      },
    })
    expect(deployOwasp.status).toBe(200)
    const [deployed] = await history()
    expect(deployed.note).toBe('Deployed Cloudflare OWASP Core Ruleset; 1 other rule changed')
    expect(deployed).toMatchObject({ restored_to: null, restore_refusal: null })

    await running.call(`${running.origin}/workbench/v1/zones/${id}/rename`, {
      method: 'POST',
      json: { name: 'worded.example' },
    })
    expect((await history())[0].note).toBe('Renamed the zone to worded.example')

    const restored = await restore(id, deployed.bookmark)
    const [restorePoint] = await history()
    expect(restorePoint.restored_to).toEqual({
      bookmark: deployed.bookmark,
      undo: false,
      time: deployed.time,
      note: deployed.note,
    })
    await restore(id, restored.body.result.undo_bookmark)
    expect((await history())[0].restored_to).toMatchObject({
      bookmark: restored.body.result.undo_bookmark,
      undo: true,
    })
  })

  it('says which points cannot be restored, and why: those from before a migration', async () => {
    const { body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'migrating.example', plan: 'enterprise', waf_product: 'previous' },
    })
    const id = body.result.id
    const history = async () =>
      (await running.call(`${running.origin}/workbench/v1/zones/${id}/history`)).body.result
    const [created] = await history()
    expect(created.restore_refusal).toBeNull()
    const config = (await running.call(`/zones/${id}/waf_migration/config?phase_two=1`)).body.result
    const started = await running.call(
      `/zones/${id}/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=pending&phase_two=1`,
      { method: 'PUT', json: config },
    )
    expect(started.status).toBe(200)
    const points = await history()
    const start = points.findIndex((p: { note: string }) =>
      p.note.includes('WAF migration started'),
    )
    expect(start).toBeGreaterThanOrEqual(0)
    const refusals = points.map((p: { restore_refusal: string | null }) => p.restore_refusal)
    expect(refusals.slice(0, start + 1).every((r: string | null) => r === null)).toBe(true)
    const before = points.slice(start + 1)
    expect(before.map((p: { bookmark: string }) => p.bookmark)).toContain(created.bookmark)
    for (const point of before)
      expect(point.restore_refusal).toMatch(/before the zone began its migration/)
    const refused = await restore(id, created.bookmark)
    expect(refused.status).toBe(400)
    expect(refused.body.errors[0].message).toContain(before[0].restore_refusal)
  })

  it('compares any point with now: the changes, and a diff of the two bundles', async () => {
    const { body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'compared.example', plan: 'pro' },
    })
    const id = body.result.id
    const history = `${running.origin}/workbench/v1/zones/${id}/history`
    const [created] = (await running.call(history)).body.result
    await running.call(`/zones/${id}/rulesets/phases/http_request_firewall_custom/entrypoint`, {
      method: 'PUT',
      json: { rules: [{ action: 'block', expression: 'http.request.uri.path eq "/admin"' }] },
    })
    await running.call(`/zones/${id}`, { method: 'PATCH', json: { paused: true } })

    const compared = await running.call(`${history}/${created.bookmark}/diff`)
    expect(compared.status).toBe(200)
    const { changes, patch } = compared.body.result
    expect(changes.map((c: { kind: string; action: string }) => `${c.kind} ${c.action}`)).toEqual(
      expect.arrayContaining(['zone update', 'ruleset create']),
    )
    expect(patch).toMatch(/^-\s+"paused": false,?$/m)
    expect(patch).toMatch(/^\+\s+"paused": true,?$/m)
    expect(patch).toMatch(/^\+.*http\.request\.uri\.path eq \\"\/admin\\"/m)

    const [latest] = (await running.call(history)).body.result
    const same = (await running.call(`${history}/${latest.bookmark}/diff`)).body.result
    expect(same.changes).toEqual([])
    expect(same.patch).not.toMatch(/^[-+]\s/m)
    // comparing reads the zone only: no point is added
    expect((await running.call(history)).body.result[0].bookmark).toBe(latest.bookmark)

    const other = (
      await running.call('/zones', { method: 'POST', json: { name: 'other.example' } })
    ).body.result
    const [foreign] = (
      await running.call(`${running.origin}/workbench/v1/zones/${other.id}/history`)
    ).body.result
    const refused = await running.call(`${history}/${foreign.bookmark}/diff`)
    expect(refused.status).toBe(400)
    expect(refused.body.errors[0].message).toMatch(/^Cannot compare with/)
  })

  it('answers an unknown zone with 404', async () => {
    const { status } = await running.call(
      `${running.origin}/workbench/v1/zones/${'0'.repeat(32)}/history`,
    )
    expect(status).toBe(404)
  })
})
