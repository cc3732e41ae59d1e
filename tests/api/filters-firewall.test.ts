// The deprecated Filters and Firewall Rules APIs as old scripts use them: array bodies that
// succeed or fail as a whole, list filters and page-number pagination to an empty page, single and
// bulk get/update/delete, inline filters, the rule quota (with the workbench's quota setting),
// priorities, products, the Enterprise-only log action, and every refusal changing nothing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, notRouted, refusal, type Running, startService } from './harness'

const UNKNOWN_ID = '0123456789abcdef0123456789abcdef'

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(() => running.stop())

const path = (expression: string) => `http.request.uri.path eq "${expression}"`

const filters = (zone: string) => `/zones/${zone}/filters`
const rules = (zone: string) => `/zones/${zone}/firewall/rules`
const settings = (zone: string) => `${running.origin}/workbench/v1/zones/${zone}/firewall/settings`

const postFilters = (zone: string, body: unknown) =>
  running.call(filters(zone), { method: 'POST', json: body })
const postRules = (zone: string, body: unknown) =>
  running.call(rules(zone), { method: 'POST', json: body })
const listAll = async (url: string) => (await running.call(`${url}?per_page=100`)).body.result

describe('filters', () => {
  it('creates an array of filters and reads each back', async () => {
    const zone = (await newZone(running)).id
    const created = await postFilters(zone, [
      { expression: path('/a'), description: 'Alpha filter', ref: 'FIL-1' },
      { expression: path('/b'), paused: true },
      { expression: 'ip.src in {192.0.2.0/24}', description: 'office' },
    ])
    expect(created.status).toBe(200)
    expect(created.body.success).toBe(true)
    const [a, b, c] = created.body.result
    expect(created.body.result).toHaveLength(3)
    for (const filter of created.body.result) expect(filter.id).toMatch(/^[0-9a-f]{32}$/)
    expect(a).toMatchObject({
      expression: path('/a'),
      paused: false,
      description: 'Alpha filter',
      ref: 'FIL-1',
    })
    expect(b).toMatchObject({ expression: path('/b'), paused: true })
    expect(c).toMatchObject({ expression: 'ip.src in {192.0.2.0/24}', description: 'office' })
    for (const filter of [a, b, c]) {
      const read = await running.call(`${filters(zone)}/${filter.id}`)
      expect(read.status).toBe(200)
      expect(read.body.result).toEqual(filter)
    }
  })

  it('keeps what it answered: a lone surrogate becomes U+FFFD in the answer and the store alike', async () => {
    const zone = (await newZone(running)).id
    const created = await postFilters(zone, [
      { expression: path('/t\ud800'), description: 'd\udfff' },
    ])
    expect(created.status).toBe(200)
    const [filter] = created.body.result
    expect(filter.description).toBe('d\ufffd')
    expect(filter.expression).toBe(path('/t\ufffd'))
    const read = await running.call(`${filters(zone)}/${filter.id}`)
    expect(read.body.result).toEqual(filter)
  })

  it('creates none of an array when one filter is bad', async () => {
    const zone = (await newZone(running)).id
    const answer = await postFilters(zone, [
      { expression: path('/one') },
      { expression: 'http.hots eq "example.com"' },
      { expression: path('/three') },
    ])
    const error = refusal(answer, 400, 10014)
    expect(error.source?.pointer).toBe('/1/expression')
    expect(error.message).toMatch(
      /^'http\.hots eq "example\.com"' is not a valid value for expression because could not parse filter expression: Filter parsing error/,
    )
    expect(await listAll(filters(zone))).toEqual([])
  })

  it('refuses an empty array with 10013', async () => {
    const zone = (await newZone(running)).id
    refusal(await postFilters(zone, []), 400, 10013)
  })

  it('refuses a duplicate expression with 10102 naming the existing filter', async () => {
    const zone = (await newZone(running)).id
    const [existing] = (await postFilters(zone, [{ expression: path('/dup') }])).body.result
    const again = await postFilters(zone, [
      { expression: path('/new') },
      { expression: path('/dup') },
    ])
    const error = refusal(again, 400, 10102)
    expect(error.message).toBe('config duplicates an already existing config')
    expect(error.meta).toEqual({ id: existing.id })
    expect((await listAll(filters(zone))).map((f: any) => f.id)).toEqual([existing.id])
  })

  it('lists with filters and paginates to an empty page', async () => {
    const zone = (await newZone(running)).id
    const created = (
      await postFilters(zone, [
        { expression: path('/Admin'), description: 'Admin area', ref: 'ADM' },
        { expression: path('/login'), description: 'Login page', paused: true },
        { expression: path('/api'), description: 'API', ref: 'ADM-2' },
        { expression: 'ip.src eq 198.51.100.4', description: 'one address' },
        { expression: path('/x1') },
        { expression: path('/x2') },
        { expression: path('/x3') },
      ])
    ).body.result
    const ids = (answer: any) => answer.body.result.map((f: any) => f.id).sort()
    const query = (q: string) => running.call(`${filters(zone)}?${q}`)

    expect(ids(await query('expression=ADMIN'))).toEqual([created[0].id])
    expect(ids(await query('description=login'))).toEqual([created[1].id])
    expect(ids(await query('ref=ADM'))).toEqual([created[0].id])
    expect(ids(await query('paused=true'))).toEqual([created[1].id])
    expect((await query('paused=false')).body.result).toHaveLength(6)
    expect(ids(await query(`id=${created[3].id}`))).toEqual([created[3].id])

    const first = await query('per_page=5&page=1')
    expect(first.body.result).toHaveLength(5)
    expect(first.body.result_info).toEqual({
      page: 1,
      per_page: 5,
      count: 5,
      total_count: 7,
      total_pages: 2,
    })
    const second = await query('per_page=5&page=2')
    expect(second.body.result).toHaveLength(2)
    const beyond = await query('per_page=5&page=3')
    expect(beyond.status).toBe(200)
    expect(beyond.body.result).toEqual([])
    const walked = [...first.body.result, ...second.body.result].map((f: any) => f.id).sort()
    expect(walked).toEqual(created.map((f: any) => f.id).sort())
    expect((await query('')).body.result_info.per_page).toBe(25)
  })

  it('updates one filter and refuses an invalid expression, changing nothing', async () => {
    const zone = (await newZone(running)).id
    const [filter] = (await postFilters(zone, [{ expression: path('/old') }])).body.result
    const one = `${filters(zone)}/${filter.id}`
    const updated = await running.call(one, {
      method: 'PUT',
      json: { id: filter.id, expression: path('/new'), description: 'moved', paused: true },
    })
    expect(updated.status).toBe(200)
    expect(updated.body.result).toMatchObject({
      id: filter.id,
      expression: path('/new'),
      description: 'moved',
      paused: true,
    })
    expect((await running.call(one)).body.result).toEqual(updated.body.result)

    refusal(
      await running.call(one, {
        method: 'PUT',
        json: { id: filter.id, expression: 'ip.src eq 34' },
      }),
      400,
      10014,
    )
    expect((await running.call(one)).body.result).toEqual(updated.body.result)
  })

  it('updates many filters at once, or none when an id is unknown (10016)', async () => {
    const zone = (await newZone(running)).id
    const [a, b] = (
      await postFilters(zone, [{ expression: path('/a') }, { expression: path('/b') }])
    ).body.result
    const updated = await running.call(filters(zone), {
      method: 'PUT',
      json: [
        { id: a.id, expression: path('/a2'), description: 'a two' },
        { id: b.id, expression: path('/b2') },
      ],
    })
    expect(updated.status).toBe(200)
    expect(updated.body.result.map((f: any) => f.expression)).toEqual([path('/a2'), path('/b2')])

    refusal(
      await running.call(filters(zone), {
        method: 'PUT',
        json: [
          { id: a.id, expression: path('/a3') },
          { id: UNKNOWN_ID, expression: path('/z') },
        ],
      }),
      400,
      10016,
    )
    expect((await running.call(`${filters(zone)}/${a.id}`)).body.result.expression).toBe(
      path('/a2'),
    )
  })

  it('deletes one filter and many with repeated ?id=', async () => {
    const zone = (await newZone(running)).id
    const [a, b, c, d] = (
      await postFilters(zone, [
        { expression: path('/a') },
        { expression: path('/b') },
        { expression: path('/c') },
        { expression: path('/d') },
      ])
    ).body.result
    const one = await running.call(`${filters(zone)}/${a.id}`, { method: 'DELETE' })
    expect(one.status).toBe(200)
    expect(one.body.result).toEqual({ id: a.id })
    notRouted(await running.call(`${filters(zone)}/${a.id}`))

    const many = await running.call(`${filters(zone)}?id=${b.id}&id=${c.id}&id=${UNKNOWN_ID}`, {
      method: 'DELETE',
    })
    expect(many.status).toBe(200)
    expect(many.body.result).toEqual([{ id: b.id }, { id: c.id }])
    expect((await listAll(filters(zone))).map((f: any) => f.id)).toEqual([d.id])

    const none = await running.call(filters(zone), { method: 'DELETE' })
    expect(none.status).toBe(200)
    expect(none.body.result).toEqual([])
    expect((await listAll(filters(zone))).map((f: any) => f.id)).toEqual([d.id])
  })

  it('updates only the fields a PUT sends, one filter or many', async () => {
    const zone = (await newZone(running)).id
    const [a, b] = (
      await postFilters(zone, [
        { expression: path('/a'), description: 'alpha', ref: 'FIL-A' },
        { expression: path('/b'), description: 'beta', paused: true },
      ])
    ).body.result
    const one = `${filters(zone)}/${a.id}`
    const paused = await running.call(one, { method: 'PUT', json: { paused: true } })
    expect(paused.status, JSON.stringify(paused.body)).toBe(200)
    expect(paused.body.result).toEqual({ ...a, paused: true })
    const described = await running.call(one, { method: 'PUT', json: { description: 'ALPHA' } })
    expect(described.body.result).toEqual({ ...a, paused: true, description: 'ALPHA' })

    const many = await running.call(filters(zone), {
      method: 'PUT',
      json: [
        { id: a.id, ref: 'FIL-A2' },
        { id: b.id, expression: path('/b2') },
      ],
    })
    expect(many.status, JSON.stringify(many.body)).toBe(200)
    const expected = [
      { ...a, paused: true, description: 'ALPHA', ref: 'FIL-A2' },
      { ...b, expression: path('/b2') },
    ]
    expect(many.body.result).toEqual(expected)
    refusal(
      await running.call(filters(zone), {
        method: 'PUT',
        json: [
          { id: a.id, paused: false },
          { id: UNKNOWN_ID, paused: false },
        ],
      }),
      400,
      10016,
    )
    expect(await listAll(filters(zone))).toEqual(expected)
  })

  it('deletes the filters a JSON body names, as an object or an array, and the query ids', async () => {
    const zone = (await newZone(running)).id
    const [a, b, c, d, e] = (
      await postFilters(
        zone,
        ['/a', '/b', '/c', '/d', '/e'].map((p) => ({ expression: path(p) })),
      )
    ).body.result
    const one = await running.call(filters(zone), { method: 'DELETE', json: { id: a.id } })
    expect(one.status, JSON.stringify(one.body)).toBe(200)
    expect(one.body.result).toEqual([{ id: a.id }])

    const many = await running.call(`${filters(zone)}?id=${b.id}`, {
      method: 'DELETE',
      json: [{ id: c.id }, { id: UNKNOWN_ID }],
    })
    expect(many.status).toBe(200)
    expect(many.body.result).toEqual([{ id: b.id }, { id: c.id }])
    expect((await listAll(filters(zone))).map((f: any) => f.id)).toEqual([d.id, e.id])

    const byQuery = await running.call(`${filters(zone)}?id=${UNKNOWN_ID}`, { method: 'DELETE' })
    const byBody = await running.call(filters(zone), { method: 'DELETE', json: { id: UNKNOWN_ID } })
    expect(byBody.status).toBe(byQuery.status)
    expect(byBody.body).toEqual(byQuery.body)

    const [rule] = (await postRules(zone, [{ filter: { id: d.id }, action: 'block' }])).body.result
    refusal(
      await running.call(filters(zone), { method: 'DELETE', json: [{ id: e.id }, { id: d.id }] }),
      400,
      10015,
    )
    const malformed = await running.call(filters(zone), { method: 'DELETE', json: { ids: [e.id] } })
    expect(malformed.status).toBe(400)
    expect(malformed.body.success).toBe(false)
    expect((await listAll(filters(zone))).map((f: any) => f.id)).toEqual([d.id, e.id])
    expect(rule.filter.id).toBe(d.id)
  })

  it('refuses to delete a filter a firewall rule uses (10015)', async () => {
    const zone = (await newZone(running)).id
    const [rule] = (
      await postRules(zone, [{ filter: { expression: path('/used') }, action: 'block' }])
    ).body.result
    refusal(
      await running.call(`${filters(zone)}/${rule.filter.id}`, { method: 'DELETE' }),
      400,
      10015,
    )
    expect((await running.call(`${filters(zone)}/${rule.filter.id}`)).status).toBe(200)
  })

  it('answers unknown filter ids in the path with 404 7003', async () => {
    const zone = (await newZone(running)).id
    const one = `${filters(zone)}/${UNKNOWN_ID}`
    notRouted(await running.call(one))
    notRouted(await running.call(one, { method: 'PUT', json: { expression: path('/x') } }))
    notRouted(await running.call(one, { method: 'DELETE' }))
    notRouted(await running.call(`/zones/${UNKNOWN_ID}/filters`))
  })
})

describe('firewall rules', () => {
  it('creates a rule on an existing filter, with priority null and timestamps', async () => {
    const zone = (await newZone(running)).id
    const [filter] = (await postFilters(zone, [{ expression: path('/admin'), ref: 'F1' }])).body
      .result
    const created = await postRules(zone, [
      { filter: { id: filter.id }, action: 'block', description: 'no admin' },
    ])
    expect(created.status).toBe(200)
    expect(created.body.result).toHaveLength(1)
    const rule = created.body.result[0]
    expect(rule.id).toMatch(/^[0-9a-f]{32}$/)
    expect(rule).toMatchObject({
      action: 'block',
      description: 'no admin',
      paused: false,
      priority: null,
    })
    expect(rule.filter).toMatchObject({ id: filter.id, expression: path('/admin'), paused: false })
    expect(typeof rule.created_on).toBe('string')
    expect(typeof rule.modified_on).toBe('string')
    expect((await running.call(`${rules(zone)}/${rule.id}`)).body.result).toEqual(rule)
  })

  it('creates the inline filter along with the rule', async () => {
    const zone = (await newZone(running)).id
    const created = await postRules(zone, [
      { filter: { expression: path('/inline'), description: 'inline one' }, action: 'challenge' },
    ])
    expect(created.status).toBe(200)
    const [rule] = created.body.result
    expect(rule.filter.id).toMatch(/^[0-9a-f]{32}$/)
    const filter = await running.call(`${filters(zone)}/${rule.filter.id}`)
    expect(filter.body.result).toMatchObject({
      expression: path('/inline'),
      description: 'inline one',
    })
  })

  it('accepts a single object instead of an array', async () => {
    const zone = (await newZone(running)).id
    const created = await postRules(zone, {
      filter: { expression: path('/single') },
      action: 'js_challenge',
      priority: 7,
    })
    expect(created.status).toBe(200)
    expect(created.body.result).toHaveLength(1)
    expect(created.body.result[0]).toMatchObject({ action: 'js_challenge', priority: 7 })
  })

  it('creates neither filter nor rule when the inline expression is invalid', async () => {
    const zone = (await newZone(running)).id
    refusal(
      await postRules(zone, [
        { filter: { expression: path('/fine') }, action: 'block' },
        { filter: { expression: 'http.hots eq "x"' }, action: 'block' },
      ]),
      400,
      10014,
    )
    expect(await listAll(filters(zone))).toEqual([])
    expect(await listAll(rules(zone))).toEqual([])
  })

  it('creates nothing when one rule of an array names an unknown filter (10016)', async () => {
    const zone = (await newZone(running)).id
    refusal(
      await postRules(zone, [
        { filter: { expression: path('/fine') }, action: 'block' },
        { filter: { id: UNKNOWN_ID }, action: 'block' },
      ]),
      400,
      10016,
    )
    expect(await listAll(filters(zone))).toEqual([])
    expect(await listAll(rules(zone))).toEqual([])
  })

  it('refuses a filter with both id and expression, or neither (10018)', async () => {
    const zone = (await newZone(running)).id
    const [filter] = (await postFilters(zone, [{ expression: path('/f') }])).body.result
    refusal(
      await postRules(zone, [
        { filter: { id: filter.id, expression: path('/other') }, action: 'block' },
      ]),
      400,
      10018,
    )
    refusal(await postRules(zone, [{ filter: {}, action: 'block' }]), 400, 10018)
    expect(await listAll(rules(zone))).toEqual([])
    expect(await listAll(filters(zone))).toHaveLength(1)
  })

  it('refuses an inline expression that duplicates a filter with 10102 and its id', async () => {
    const zone = (await newZone(running)).id
    const [filter] = (await postFilters(zone, [{ expression: path('/taken') }])).body.result
    const error = refusal(
      await postRules(zone, [{ filter: { expression: path('/taken') }, action: 'block' }]),
      400,
      10102,
    )
    expect(error.meta).toEqual({ id: filter.id })
    expect(await listAll(rules(zone))).toEqual([])
  })

  it('creates the inline filter but no rule when the quota is full (10017)', async () => {
    const zone = (await newZone(running)).id
    const set = await running.call(settings(zone), { method: 'PATCH', json: { rule_quota: 1 } })
    expect(set.status).toBe(200)
    expect(set.body.result).toEqual({ rule_quota: 1, plan_default: 5, in_use: 0 })

    expect(
      (await postRules(zone, [{ filter: { expression: path('/first') }, action: 'block' }])).status,
    ).toBe(200)
    const over = await postRules(zone, [
      { filter: { expression: path('/second') }, action: 'block' },
    ])
    const error = refusal(over, 400, 10017)
    const left = await running.call(`${filters(zone)}?expression=${encodeURIComponent('/second')}`)
    expect(left.body.result).toHaveLength(1)
    expect(left.body.result[0].expression).toBe(path('/second'))
    expect(error.message).toContain(left.body.result[0].id)
    expect(await listAll(rules(zone))).toHaveLength(1)
    expect((await running.call(settings(zone))).body.result).toEqual({
      rule_quota: 1,
      plan_default: 5,
      in_use: 1,
    })

    // Back to the plan default (5): the left-over filter can now carry its rule.
    await running.call(settings(zone), { method: 'PATCH', json: { rule_quota: null } })
    const relinked = await postRules(zone, [
      { filter: { id: left.body.result[0].id }, action: 'block' },
    ])
    expect(relinked.status).toBe(200)
    expect(await listAll(rules(zone))).toHaveLength(2)
  })

  it('lists with filters and paginates to an empty page', async () => {
    const zone = (await newZone(running, { plan: 'pro' })).id
    const created = (
      await postRules(
        zone,
        Array.from({ length: 7 }, (_, i) => ({
          filter: { expression: path(`/list-${i}`) },
          action: i === 0 ? 'allow' : 'block',
          description: i === 1 ? 'The Special One' : `rule ${i}`,
          paused: i === 2,
        })),
      )
    ).body.result
    expect(created).toHaveLength(7)
    const query = (q: string) => running.call(`${rules(zone)}?${q}`)
    const ids = (answer: any) => answer.body.result.map((r: any) => r.id)

    expect(ids(await query('action=allow'))).toEqual([created[0].id])
    expect(ids(await query('description=special'))).toEqual([created[1].id])
    expect(ids(await query('paused=true'))).toEqual([created[2].id])
    expect(ids(await query(`id=${created[3].id}`))).toEqual([created[3].id])

    const first = await query('per_page=5&page=1')
    expect(first.body.result).toHaveLength(5)
    expect(first.body.result_info).toEqual({
      page: 1,
      per_page: 5,
      count: 5,
      total_count: 7,
      total_pages: 2,
    })
    const second = await query('per_page=5&page=2')
    expect(second.body.result).toHaveLength(2)
    const beyond = await query('per_page=5&page=3')
    expect(beyond.status).toBe(200)
    expect(beyond.body.result).toEqual([])
    expect([...ids(first), ...ids(second)].sort()).toEqual(created.map((r: any) => r.id).sort())
  })

  it('PUT re-links the filter only and resets the fields left out', async () => {
    const zone = (await newZone(running)).id
    const [f1, f2] = (
      await postFilters(zone, [{ expression: path('/f1') }, { expression: path('/f2') }])
    ).body.result
    const [rule] = (
      await postRules(zone, [
        { filter: { id: f1.id }, action: 'block', priority: 5, description: 'will vanish' },
      ])
    ).body.result
    const updated = await running.call(`${rules(zone)}/${rule.id}`, {
      method: 'PUT',
      json: {
        id: rule.id,
        filter: { id: f2.id, expression: path('/ignored') },
        action: 'challenge',
      },
    })
    expect(updated.status).toBe(200)
    const after = updated.body.result
    expect(after).toMatchObject({ id: rule.id, action: 'challenge', priority: null })
    expect(after.description ?? '').toBe('')
    expect(after.filter).toMatchObject({ id: f2.id, expression: path('/f2') })
    expect((await running.call(`${filters(zone)}/${f2.id}`)).body.result.expression).toBe(
      path('/f2'),
    )
    expect((await running.call(`${filters(zone)}/${f1.id}`)).status).toBe(200)
    expect((await running.call(`${rules(zone)}/${rule.id}`)).body.result).toEqual(after)
  })

  it('updates many rules with PUT, or none when an id is unknown (10016)', async () => {
    const zone = (await newZone(running)).id
    const [a, b] = (
      await postRules(zone, [
        { filter: { expression: path('/a') }, action: 'block' },
        { filter: { expression: path('/b') }, action: 'block' },
      ])
    ).body.result
    const updated = await running.call(rules(zone), {
      method: 'PUT',
      json: [
        { id: a.id, filter: { id: a.filter.id }, action: 'allow', description: 'a' },
        { id: b.id, filter: { id: b.filter.id }, action: 'managed_challenge' },
      ],
    })
    expect(updated.status).toBe(200)
    expect(updated.body.result.map((r: any) => r.action)).toEqual(['allow', 'managed_challenge'])
    refusal(
      await running.call(rules(zone), {
        method: 'PUT',
        json: [
          { id: a.id, filter: { id: a.filter.id }, action: 'block' },
          { id: UNKNOWN_ID, filter: { id: a.filter.id }, action: 'block' },
        ],
      }),
      400,
      10016,
    )
    expect((await running.call(`${rules(zone)}/${a.id}`)).body.result.action).toBe('allow')
  })

  it('sets priorities with PATCH, one rule or many', async () => {
    const zone = (await newZone(running)).id
    const [a, b, c] = (
      await postRules(zone, [
        { filter: { expression: path('/a') }, action: 'block' },
        { filter: { expression: path('/b') }, action: 'block' },
        { filter: { expression: path('/c') }, action: 'block' },
      ])
    ).body.result
    const single = await running.call(`${rules(zone)}/${a.id}`, {
      method: 'PATCH',
      json: { id: a.id, priority: 10 },
    })
    expect(single.status).toBe(200)
    expect(Array.isArray(single.body.result)).toBe(true)
    expect(single.body.result.find((r: any) => r.id === a.id).priority).toBe(10)

    const bulk = await running.call(rules(zone), {
      method: 'PATCH',
      json: [
        { id: b.id, priority: 1 },
        { id: c.id, priority: 2 },
      ],
    })
    expect(bulk.status).toBe(200)
    expect(Array.isArray(bulk.body.result)).toBe(true)
    const priority = async (id: string) =>
      (await running.call(`${rules(zone)}/${id}`)).body.result.priority
    expect([await priority(a.id), await priority(b.id), await priority(c.id)]).toEqual([10, 1, 2])

    refusal(
      await running.call(rules(zone), {
        method: 'PATCH',
        json: [
          { id: a.id, priority: 3 },
          { id: UNKNOWN_ID, priority: 4 },
        ],
      }),
      400,
      10016,
    )
    expect(await priority(a.id)).toBe(10)
  })

  it('deletes a rule keeping its filter unless asked to delete it when unused', async () => {
    const zone = (await newZone(running)).id
    const [shared] = (await postFilters(zone, [{ expression: path('/shared') }])).body.result
    const [a, b, c] = (
      await postRules(zone, [
        { filter: { expression: path('/a') }, action: 'block' },
        { filter: { id: shared.id }, action: 'block' },
        { filter: { id: shared.id }, action: 'allow' },
      ])
    ).body.result

    const kept = await running.call(`${rules(zone)}/${a.id}`, { method: 'DELETE' })
    expect(kept.status).toBe(200)
    expect(kept.body.result.id).toBe(a.id)
    notRouted(await running.call(`${rules(zone)}/${a.id}`))
    expect((await running.call(`${filters(zone)}/${a.filter.id}`)).status).toBe(200)

    const stillUsed = await running.call(`${rules(zone)}/${b.id}`, {
      method: 'DELETE',
      json: { delete_filter_if_unused: true },
    })
    expect(stillUsed.status).toBe(200)
    expect((await running.call(`${filters(zone)}/${shared.id}`)).status).toBe(200)

    const last = await running.call(`${rules(zone)}/${c.id}`, {
      method: 'DELETE',
      json: { delete_filter_if_unused: true },
    })
    expect(last.status).toBe(200)
    notRouted(await running.call(`${filters(zone)}/${shared.id}`))
  })

  it('deletes many rules with repeated ?id=, keeping their filters', async () => {
    const zone = (await newZone(running)).id
    const [a, b, c] = (
      await postRules(zone, [
        { filter: { expression: path('/a') }, action: 'block' },
        { filter: { expression: path('/b') }, action: 'block' },
        { filter: { expression: path('/c') }, action: 'block' },
      ])
    ).body.result
    const deleted = await running.call(`${rules(zone)}?id=${a.id}&id=${b.id}&id=${UNKNOWN_ID}`, {
      method: 'DELETE',
    })
    expect(deleted.status).toBe(200)
    expect(deleted.body.result).toEqual([{ id: a.id }, { id: b.id }])
    expect((await listAll(rules(zone))).map((r: any) => r.id)).toEqual([c.id])
    expect(await listAll(filters(zone))).toHaveLength(3)
  })

  it('deletes the rules a JSON body names, as an object or an array, and the query ids', async () => {
    const zone = (await newZone(running)).id
    const [a, b, c, d, e] = (
      await postRules(
        zone,
        ['/a', '/b', '/c', '/d', '/e'].map((p) => ({
          filter: { expression: path(p) },
          action: 'block',
        })),
      )
    ).body.result
    const one = await running.call(rules(zone), { method: 'DELETE', json: { id: a.id } })
    expect(one.status, JSON.stringify(one.body)).toBe(200)
    expect(one.body.result).toEqual([{ id: a.id }])

    const many = await running.call(`${rules(zone)}?id=${b.id}`, {
      method: 'DELETE',
      json: [{ id: c.id }, { id: UNKNOWN_ID }],
    })
    expect(many.status).toBe(200)
    expect(many.body.result).toEqual([{ id: b.id }, { id: c.id }])
    expect((await listAll(rules(zone))).map((r: any) => r.id)).toEqual([d.id, e.id])
    expect(await listAll(filters(zone))).toHaveLength(5)

    const withFilter = await running.call(rules(zone), {
      method: 'DELETE',
      json: { id: d.id, delete_filter_if_unused: true },
    })
    expect(withFilter.body.result).toEqual([{ id: d.id }])
    notRouted(await running.call(`${filters(zone)}/${d.filter.id}`))

    const byQuery = await running.call(`${rules(zone)}?id=${UNKNOWN_ID}`, { method: 'DELETE' })
    const byBody = await running.call(rules(zone), { method: 'DELETE', json: { id: UNKNOWN_ID } })
    expect(byBody.status).toBe(byQuery.status)
    expect(byBody.body).toEqual(byQuery.body)
    const malformed = await running.call(rules(zone), { method: 'DELETE', json: [{ rule: e.id }] })
    expect(malformed.status).toBe(400)
    expect(malformed.body.success).toBe(false)
    expect((await listAll(rules(zone))).map((r: any) => r.id)).toEqual([e.id])
  })

  it('takes products only with bypass, and bypass only with products (10019)', async () => {
    const zone = (await newZone(running)).id
    refusal(
      await postRules(zone, [
        { filter: { expression: path('/p') }, action: 'block', products: ['waf'] },
      ]),
      400,
      10019,
    )
    refusal(
      await postRules(zone, [{ filter: { expression: path('/p') }, action: 'bypass' }]),
      400,
      10019,
    )
    expect(await listAll(rules(zone))).toEqual([])
    expect(await listAll(filters(zone))).toEqual([])
    const bypass = await postRules(zone, [
      { filter: { expression: path('/p') }, action: 'bypass', products: ['waf', 'uaBlock'] },
    ])
    expect(bypass.status).toBe(200)
    expect(bypass.body.result[0].products).toEqual(['waf', 'uaBlock'])
  })

  it('refuses the log action below the Enterprise plan (10021) and takes it there', async () => {
    const free = (await newZone(running)).id
    refusal(
      await postRules(free, [{ filter: { expression: path('/log') }, action: 'log' }]),
      400,
      10021,
    )
    expect(await listAll(rules(free))).toEqual([])
    const enterprise = (await newZone(running, { plan: 'enterprise' })).id
    const logged = await postRules(enterprise, [
      { filter: { expression: path('/log') }, action: 'log' },
    ])
    expect(logged.status).toBe(200)
    expect(logged.body.result[0].action).toBe('log')
  })

  it.each([
    { method: 'GET', json: undefined },
    { method: 'PUT', json: { id: UNKNOWN_ID, filter: { id: 'FILTER' }, action: 'block' } },
    { method: 'PATCH', json: { id: UNKNOWN_ID, priority: 1 } },
    { method: 'DELETE', json: undefined },
  ])(
    'answers $method of an unknown rule id in the path with 404 7003',
    async ({ method, json }) => {
      const zone = (await newZone(running)).id
      const [filter] = (await postFilters(zone, [{ expression: path('/f') }])).body.result
      const body = json && JSON.parse(JSON.stringify(json).replace('FILTER', filter.id))
      notRouted(await running.call(`${rules(zone)}/${UNKNOWN_ID}`, { method, json: body }))
      expect(await listAll(rules(zone))).toEqual([])
    },
  )

  it('answers the rules of an unknown zone with 404 7003', async () => {
    notRouted(await running.call(`/zones/${UNKNOWN_ID}/firewall/rules`))
  })

  it('answers bad bodies with 400, never 500', async () => {
    const zone = (await newZone(running)).id
    for (const body of [
      [{ filter: { expression: path('/x') }, action: 'explode' }],
      [{ filter: { expression: path('/x') } }],
      [{ filter: { expression: path('/x') }, action: 'block', priority: -1 }],
      'rules',
      [42],
    ]) {
      const answer = await postRules(zone, body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
    }
    const broken = await running.call(rules(zone), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[{"action": ',
    })
    expect(broken.status).toBe(400)
    expect(await listAll(rules(zone))).toEqual([])
    expect(await listAll(filters(zone))).toEqual([])
  })
})

describe('durability', () => {
  it('keeps filters, rules and the quota across a restart', async () => {
    const zone = (await newZone(running)).id
    await running.call(settings(zone), { method: 'PATCH', json: { rule_quota: 3 } })
    const [loose] = (await postFilters(zone, [{ expression: path('/loose'), ref: 'L' }])).body
      .result
    const [rule] = (
      await postRules(zone, [
        { filter: { expression: path('/ruled') }, action: 'block', priority: 4, description: 'd' },
      ])
    ).body.result
    const filtersBefore = await listAll(filters(zone))
    const rulesBefore = await listAll(rules(zone))
    expect(filtersBefore).toHaveLength(2)

    await running.stop()
    running = await startService(running.dataDir)

    expect(await listAll(filters(zone))).toEqual(filtersBefore)
    expect(await listAll(rules(zone))).toEqual(rulesBefore)
    expect((await running.call(`${filters(zone)}/${loose.id}`)).body.result.ref).toBe('L')
    expect((await running.call(`${rules(zone)}/${rule.id}`)).body.result.priority).toBe(4)
    expect((await running.call(settings(zone))).body.result).toEqual({
      rule_quota: 3,
      plan_default: 5,
      in_use: 1,
    })
  })
})
