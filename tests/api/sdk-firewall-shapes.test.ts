// The shapes the official `cloudflare` SDK (v7) sends to the Firewall Rules and Filters APIs, as
// typed by its resources: a rule's action as `{mode, …}` (ban is block, simulate is log), a PATCH
// of one rule with `{}`, bulk PUT and PATCH of rules with one object, and filters created and
// bulk-updated with one object. Each change is read back; a PATCH leaves what it does not name.

import Cloudflare from 'cloudflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, type Running, startService, sdkClient, thrown } from './harness'

let running: Running
let client: Cloudflare
beforeAll(async () => {
  running = await startService()
  client = sdkClient(running)
})
afterAll(() => running.stop())

const path = (p: string) => `http.request.uri.path eq "${p}"`

const getRule = (zone_id: string, id: string): Promise<any> =>
  client.firewall.rules.get(id, { zone_id })
const allRules = async (zone_id: string) =>
  (await client.firewall.rules.list({ zone_id, per_page: 100 })).result
const allFilters = async (zone_id: string) =>
  (await client.filters.list({ zone_id, per_page: 100 })).result

/** A rule with every field set, for checking that a PATCH leaves them as they are. */
async function fullRule(zone_id: string, p: string): Promise<any> {
  const page = await client.firewall.rules.create({
    zone_id,
    filter: { expression: path(p), description: `filter ${p}`, ref: 'F' },
    action: 'bypass',
    products: ['waf', 'uaBlock'],
    priority: 5,
    paused: true,
    description: `rule ${p}`,
    ref: `R${p.slice(1)}`,
  } as any)
  return page.result[0]
}

describe('firewall rule actions in the SDK object form', () => {
  it('creates rules from {mode}: ban is block, simulate is log, the rest as they are', async () => {
    const zone_id = (await newZone(running, { plan: 'enterprise' })).id
    const modes = [
      ['ban', 'block'],
      ['simulate', 'log'],
      ['challenge', 'challenge'],
      ['js_challenge', 'js_challenge'],
      ['managed_challenge', 'managed_challenge'],
    ] as const
    for (const [mode, action] of modes) {
      const page = await client.firewall.rules.create({
        zone_id,
        filter: { expression: path(`/${mode}`) },
        action: { mode, timeout: 60, response: { body: 'no', content_type: 'text/plain' } },
      })
      expect(page.result).toHaveLength(1)
      const created: any = page.result[0]
      expect(created.action).toBe(action)
      expect((await getRule(zone_id, created.id)).action).toBe(action)
    }
    // The string form stays.
    const page = await client.firewall.rules.create({
      zone_id,
      filter: { expression: path('/string') },
      action: 'allow',
    } as any)
    expect(page.result[0]!.action).toBe('allow')
  })

  it('refuses an unknown mode as it refuses an unknown action, creating nothing', async () => {
    const zone_id = (await newZone(running)).id
    const rule = (action: unknown) => ({ filter: { expression: path('/x') }, action })
    const byMode = await thrown(
      client.firewall.rules.create({ zone_id, ...rule({ mode: 'explode' }) } as any),
    )
    expect(byMode).toBeInstanceOf(Cloudflare.BadRequestError)
    expect(byMode.errors[0].code).toBe(1001)
    const byString = await running.call(`/zones/${zone_id}/firewall/rules`, {
      method: 'POST',
      json: rule('explode'),
    })
    expect(byString.status).toBe(400)
    expect(byMode.errors).toEqual(byString.body.errors)
    expect(byMode.errors[0].message).toContain('body/action must be equal to one of the allowed')
    // 'ban' is a mode, not an action; an object with fields an action has not is refused.
    for (const action of ['ban', { mode: 'ban', extra: 1 }, { mode: 7 }, {}]) {
      const answer = await running.call(`/zones/${zone_id}/firewall/rules`, {
        method: 'POST',
        json: rule(action),
      })
      expect(answer.status, JSON.stringify(action)).toBe(400)
    }
    expect(await allRules(zone_id)).toEqual([])
    expect(await allFilters(zone_id)).toEqual([])
  })

  it('updates a rule from {mode} with update and bulkUpdate (one object)', async () => {
    const zone_id = (await newZone(running)).id
    const [rule] = (
      await client.firewall.rules.create({
        zone_id,
        filter: { expression: path('/u') },
        action: { mode: 'challenge' },
      })
    ).result as any[]
    const filter = { id: rule.filter.id } as { expression?: string }
    const updated: any = await client.firewall.rules.update(rule.id, {
      zone_id,
      filter,
      action: { mode: 'ban' },
    })
    expect(updated).toMatchObject({ id: rule.id, action: 'block' })
    expect(await getRule(zone_id, rule.id)).toEqual(updated)

    const bulk = await client.firewall.rules.bulkUpdate({
      zone_id,
      id: rule.id,
      filter,
      action: { mode: 'js_challenge' },
      description: 'bulk',
    } as any)
    expect(bulk.result).toHaveLength(1)
    expect(bulk.result[0]).toMatchObject({ id: rule.id, action: 'js_challenge' })
    expect(await getRule(zone_id, rule.id)).toMatchObject({
      action: 'js_challenge',
      description: 'bulk',
    })
    const refused = await thrown(
      client.firewall.rules.update(rule.id, { zone_id, filter, action: { mode: 'nope' as any } }),
    )
    expect(refused.errors[0].code).toBe(1001)
    expect((await getRule(zone_id, rule.id)).action).toBe('js_challenge')
  })
})

describe('PATCH of firewall rules through the SDK', () => {
  it('edit sends {} and changes nothing; a priority changes only the priority', async () => {
    const zone_id = (await newZone(running, { plan: 'enterprise' })).id
    const before = await fullRule(zone_id, '/e')
    expect(await getRule(zone_id, before.id)).toEqual(before)

    const edited = await client.firewall.rules.edit(before.id, { zone_id })
    expect(edited.result).toEqual([before])
    expect(await getRule(zone_id, before.id)).toEqual(before)

    const withId = await running.call(`/zones/${zone_id}/firewall/rules/${before.id}`, {
      method: 'PATCH',
      json: { id: before.id },
    })
    expect(withId.status).toBe(200)
    expect(await getRule(zone_id, before.id)).toEqual(before)

    // Fields other than priority are not a PATCH's: named, they are left as they are too.
    await client.firewall.rules.edit(
      before.id,
      { zone_id },
      { body: { priority: 9, description: 'ignored', paused: false } },
    )
    const after = await getRule(zone_id, before.id)
    expect(after).toEqual({ ...before, priority: 9, modified_on: after.modified_on })

    await client.firewall.rules.edit(before.id, { zone_id }, { body: { priority: null } })
    expect((await getRule(zone_id, before.id)).priority).toBeNull()
  })

  it('refuses a body id other than the path one, changing nothing', async () => {
    const zone_id = (await newZone(running, { plan: 'enterprise' })).id
    const before = await fullRule(zone_id, '/m')
    const other = '0123456789abcdef0123456789abcdef'
    const refused = await thrown(
      client.firewall.rules.edit(before.id, { zone_id }, { body: { id: other, priority: 1 } }),
    )
    expect(refused).toBeInstanceOf(Cloudflare.BadRequestError)
    expect(refused.errors[0].message).toContain(`the path names firewall rule ${before.id}`)
    expect(await getRule(zone_id, before.id)).toEqual(before)
  })

  it('bulkEdit sends one {id} and changes nothing; items without priority keep theirs', async () => {
    const zone_id = (await newZone(running, { plan: 'enterprise' })).id
    const a = await fullRule(zone_id, '/a')
    const b = await fullRule(zone_id, '/b')

    const edited = await client.firewall.rules.bulkEdit({ zone_id, id: a.id })
    expect(edited.result).toEqual([a])
    expect(await getRule(zone_id, a.id)).toEqual(a)

    const one = await client.firewall.rules.bulkEdit({ zone_id, id: a.id, priority: 1 } as any)
    expect(one.result).toHaveLength(1)
    expect(await getRule(zone_id, a.id)).toMatchObject({
      ...a,
      priority: 1,
      modified_on: expect.any(String),
    })

    const many = await running.call(`/zones/${zone_id}/firewall/rules`, {
      method: 'PATCH',
      json: [{ id: a.id }, { id: b.id, priority: 2 }],
    })
    expect(many.status).toBe(200)
    expect((await getRule(zone_id, a.id)).priority).toBe(1)
    const bAfter = await getRule(zone_id, b.id)
    expect(bAfter).toEqual({ ...b, priority: 2, modified_on: bAfter.modified_on })
  })
})

describe('filters in one object', () => {
  it('creates a filter from one object, answering an array', async () => {
    const zone_id = (await newZone(running)).id
    const created = await client.filters.create({
      zone_id,
      body: { expression: path('/one'), description: 'one', ref: 'O' } as any,
    })
    expect(created.result).toHaveLength(1)
    const [filter] = created.result
    expect(filter).toMatchObject({ expression: path('/one'), description: 'one', paused: false })
    expect(await client.filters.get(filter!.id!, { zone_id })).toEqual(filter)

    const raw = await running.call(`/zones/${zone_id}/filters`, {
      method: 'POST',
      json: { expression: path('/raw') },
    })
    expect(raw.status).toBe(200)
    expect(Array.isArray(raw.body.result)).toBe(true)
    expect(raw.body.result).toHaveLength(1)
    expect(await allFilters(zone_id)).toHaveLength(2)
  })

  it('bulk-updates a filter from one object, answering an array', async () => {
    const zone_id = (await newZone(running)).id
    const [filter] = (await client.filters.create({ zone_id, body: [{ expression: path('/b') }] }))
      .result
    const updated = await client.filters.bulkUpdate({
      zone_id,
      body: { id: filter!.id, description: 'B', paused: true } as any,
    })
    expect(updated.result).toEqual([{ ...filter, description: 'B', paused: true }])
    expect(await client.filters.get(filter!.id!, { zone_id })).toEqual(updated.result[0])
  })

  it('refuses a bulk update item without id saying each item needs one', async () => {
    const zone_id = (await newZone(running)).id
    const [filter] = (await client.filters.create({ zone_id, body: [{ expression: path('/n') }] }))
      .result
    const refused = await thrown(
      client.filters.bulkUpdate({ zone_id, body: [{ description: 'no id' }] }),
    )
    expect(refused).toBeInstanceOf(Cloudflare.BadRequestError)
    expect(refused.errors[0].code).toBe(1001)
    expect(refused.errors[0].message).toContain('each filter of a bulk update needs the `id`')
    expect(refused.errors[0].source.pointer).toBe('/0')
    const single = await running.call(`/zones/${zone_id}/filters`, {
      method: 'PUT',
      json: { description: 'no id' },
    })
    expect(single.status).toBe(400)
    expect(single.body.errors[0].message).toContain('needs the `id`')
    expect(await client.filters.get(filter!.id!, { zone_id })).toEqual(filter)
  })
})
