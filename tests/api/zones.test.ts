// The Zones API as an automation script sees it: create, list (filtered, paginated), get, edit,
// delete; and every kind of bad input answered with the vendor's 4xx, changing nothing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type Running } from './harness'

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(() => running.stop())

const create = (body: unknown) => running.call('/zones', { method: 'POST', json: body })

describe('zones', () => {
  it('creates a zone with a plan and the WAF product, and reads it back', async () => {
    const created = await create({
      name: 'Shop.Example.com',
      plan: 'business',
      waf_product: 'previous',
    })
    expect(created.status).toBe(200)
    const zone = created.body.result
    expect(zone.id).toMatch(/^[0-9a-f]{32}$/)
    expect(zone.name).toBe('shop.example.com')
    expect(zone.plan.legacy_id).toBe('business')
    expect(zone.waf_product).toBe('previous')
    expect(zone.created_on).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)

    const read = await running.call(`/zones/${zone.id}`)
    expect(read.body.result).toEqual(zone)
  })

  it('defaults to the free plan and managed rulesets', async () => {
    const { body } = await create({ name: 'defaults.example' })
    expect(body.result.plan.legacy_id).toBe('free')
    expect(body.result.plan.id).toBe('0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee')
    expect(body.result.waf_product).toBe('managed_rulesets')
    expect(body.result.type).toBe('full')
  })

  it("refuses a duplicate name with the vendor's 1061", async () => {
    await create({ name: 'twice.example' })
    const again = await create({ name: 'TWICE.example' })
    expect(again.status).toBe(400)
    expect(again.body.errors).toEqual([{ code: 1061, message: 'twice.example already exists.' }])
    const listed = await running.call('/zones?name=twice.example')
    expect(listed.body.result).toHaveLength(1)
  })

  it('filters the list by name', async () => {
    const { body } = await running.call('/zones?name=shop.example.com')
    expect(body.result.map((z: { name: string }) => z.name)).toEqual(['shop.example.com'])
    expect(body.result_info).toMatchObject({ page: 1, count: 1, total_count: 1, total_pages: 1 })
  })

  it('paginates, and a page past the end is an empty list with 200', async () => {
    for (let i = 0; i < 7; i++) await create({ name: `page-${i}.example` })
    const all = (await running.call('/zones?per_page=50')).body.result_info.total_count
    const first = await running.call('/zones?per_page=5&page=1')
    expect(first.body.result).toHaveLength(5)
    expect(first.body.result_info).toEqual({
      page: 1,
      per_page: 5,
      count: 5,
      total_count: all,
      total_pages: Math.ceil(all / 5),
    })
    const seen = new Set<string>()
    for (let page = 1; ; page++) {
      const { status, body } = await running.call(`/zones?per_page=5&page=${page}`)
      expect(status).toBe(200)
      if (body.result.length === 0) break
      for (const z of body.result) seen.add(z.id)
    }
    expect(seen.size).toBe(all)
    const beyond = await running.call('/zones?per_page=5&page=999')
    expect(beyond.status).toBe(200)
    expect(beyond.body.result).toEqual([])
    expect(beyond.body.result_info.count).toBe(0)
  })

  it('edits plan, paused and type with PATCH', async () => {
    const { body } = await create({ name: 'edit-me.example' })
    const patched = await running.call(`/zones/${body.result.id}`, {
      method: 'PATCH',
      json: { plan: { id: '1ac039f6c29b691475c3d74fe588d1ae' }, paused: true },
    })
    expect(patched.status).toBe(200)
    expect(patched.body.result.plan.legacy_id).toBe('enterprise')
    expect(patched.body.result.paused).toBe(true)
  })

  it('sets vanity name servers with PATCH, keeps them across other edits and a restart', async () => {
    const { body } = await create({ name: 'vanity.example', plan: 'business' })
    expect(body.result.vanity_name_servers).toEqual([])
    const path = `/zones/${body.result.id}`
    const servers = ['ns1.vanity.example', 'ns2.vanity.example']
    const patched = await running.call(path, {
      method: 'PATCH',
      json: { vanity_name_servers: servers },
    })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect(patched.body.result.vanity_name_servers).toEqual(servers)
    await running.call(path, { method: 'PATCH', json: { paused: true } })
    expect((await running.call(path)).body.result.vanity_name_servers).toEqual(servers)
    await running.stop()
    running = await startService(running.dataDir)
    expect((await running.call(path)).body.result).toMatchObject({
      vanity_name_servers: servers,
      paused: true,
    })
    const cleared = await running.call(path, { method: 'PATCH', json: { vanity_name_servers: [] } })
    expect(cleared.body.result.vanity_name_servers).toEqual([])
  })

  let badVanity = 0
  it.each([
    [['ns1.vanity.example', 'not a host'], 1],
    [['-ns.vanity.example'], 0],
    [['ns1'], 0],
    [['ns1.vanity.example', 'ns1.vanity.example'], 1],
    [['https://ns1.vanity.example'], 0],
  ])(
    'refuses the vanity name servers %j with 400 1004 and changes nothing',
    async (servers, at) => {
      const { body } = await create({ name: `bad-vanity-${++badVanity}.example` })
      const path = `/zones/${body.result.id}`
      const { status, body: refused } = await running.call(path, {
        method: 'PATCH',
        json: { vanity_name_servers: servers },
      })
      expect(status).toBe(400)
      expect(refused).toMatchObject({ success: false, result: null })
      expect(refused.errors[0]).toMatchObject({
        code: 1004,
        source: { pointer: `/vanity_name_servers/${at}` },
      })
      expect((await running.call(path)).body.result.vanity_name_servers).toEqual([])
      const notArray = await running.call(path, {
        method: 'PATCH',
        json: { vanity_name_servers: 'ns1.vanity.example' },
      })
      expect(notArray.status).toBe(400)
    },
  )

  it('deletes a zone, after which it is gone', async () => {
    const { body } = await create({ name: 'delete-me.example' })
    const deleted = await running.call(`/zones/${body.result.id}`, { method: 'DELETE' })
    expect(deleted.body).toEqual({
      success: true,
      errors: [],
      messages: [],
      result: { id: body.result.id },
    })
    const again = await running.call(`/zones/${body.result.id}`)
    expect(again.status).toBe(404)
  })

  it('keeps zones across a restart of the service on the same data dir', async () => {
    const { body } = await create({ name: 'durable.example', plan: 'pro' })
    await running.stop()
    running = await startService(running.dataDir)
    const read = await running.call(`/zones/${body.result.id}`)
    expect(read.body.result.name).toBe('durable.example')
    expect(read.body.result.plan.legacy_id).toBe('pro')
  })
})

describe('searching and ordering the list', () => {
  const ACCOUNT = '01a7362d577a6c3019a474fd6f485823'
  const names = async (query: string) => {
    const { status, body } = await running.call(`/zones?per_page=50&${query}`)
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.result_info.total_count).toBe(body.result.length)
    return body.result.map((zone: { name: string }) => zone.name)
  }

  beforeAll(async () => {
    for (const name of ['alpha.search.example', 'beta.search.example', 'gamma.other.example'])
      await create({ name })
  })

  it("looks for names with the vendor's operators, only the case-sensitive ones minding case", async () => {
    const all = await names('')
    const searched = ['alpha.search.example', 'beta.search.example']
    expect(await names('name=ends_with:.SEARCH.example')).toEqual(searched)
    expect(await names('name=contains:search')).toEqual(searched)
    expect(await names('name=starts_with:alpha.')).toEqual(['alpha.search.example'])
    expect(await names('name=equal:BETA.search.example')).toEqual(['beta.search.example'])
    expect(await names('name=contains_case_sensitive:SEARCH')).toEqual([])
    expect(await names('name=starts_with_case_sensitive:gamma')).toEqual(['gamma.other.example'])
    expect(await names('name=ends_with_case_sensitive:.other.example')).toEqual([
      'gamma.other.example',
    ])
    expect(await names('name=not_equal:alpha.search.example')).toEqual(
      all.filter((name: string) => name !== 'alpha.search.example'),
    )
  })

  it('takes status and the account by id and name, every one or any one with match', async () => {
    const all = await names('')
    expect(all.length).toBeGreaterThan(3)
    expect(await names('status=active')).toEqual(all)
    expect(await names('status=pending')).toEqual([])
    expect(await names(`account.id=${ACCOUNT}`)).toEqual(all)
    expect(await names('account.id=0123456789abcdef0123456789abcdef')).toEqual([])
    expect(await names('account.name=zone%20workbench')).toEqual(all)
    expect(await names('account.name=starts_with:Zone')).toEqual(all)
    expect(await names('account.name=contains_case_sensitive:zone')).toEqual([])

    const searched = ['alpha.search.example', 'beta.search.example']
    const inSearch = 'name=ends_with:.search.example'
    expect(await names(`${inSearch}&status=active&account.id=${ACCOUNT}`)).toEqual(searched)
    expect(await names(`${inSearch}&status=moved`)).toEqual([])
    expect(await names(`${inSearch}&status=moved&match=all`)).toEqual([])
    expect(await names(`${inSearch}&status=moved&match=any`)).toEqual(searched)
    expect(await names(`${inSearch}&status=active&match=any`)).toEqual(all)
    expect(await names('status=moved&account.name=other&match=any')).toEqual([])
    expect(await names('match=any')).toEqual(all)
  })

  it('takes type, once or repeated (any of them), with the other requirements and match', async () => {
    await create({ name: 'p.types.example', type: 'partial' })
    await create({ name: 's.types.example', type: 'secondary' })
    await create({ name: 'f.types.example' })
    const all = await names('')
    const inTypes = 'name=ends_with:.types.example'
    expect(await names(`${inTypes}&type=partial`)).toEqual(['p.types.example'])
    expect(await names(`${inTypes}&type=partial&type=secondary`)).toEqual([
      'p.types.example',
      's.types.example',
    ])
    expect(await names(`${inTypes}&type=full`)).toEqual(['f.types.example'])
    expect(await names('type=partial&type=secondary')).toEqual([
      'p.types.example',
      's.types.example',
    ])
    expect(await names('type=full')).toEqual(
      all.filter((n: string) => !['p.types.example', 's.types.example'].includes(n)),
    )
    expect(await names(`${inTypes}&type=partial&status=moved`)).toEqual([])
    expect(await names(`${inTypes}&type=partial&status=moved&match=any`)).toEqual([
      'f.types.example',
      'p.types.example',
      's.types.example',
    ])
    expect(await names('name=f.types.example&type=secondary&match=any')).toEqual([
      'f.types.example',
      's.types.example',
    ])
    expect(await names(`${inTypes}&type=partial&type=secondary&direction=desc`)).toEqual([
      's.types.example',
      'p.types.example',
    ])
    const { body } = await running.call(`/zones?${inTypes}&type=secondary&type=full&per_page=5`)
    expect(body.result_info).toMatchObject({ count: 2, total_count: 2, total_pages: 1 })
  })

  it('orders by name either way; the other orders keep the order by name', async () => {
    const all = await names('')
    expect(all).toEqual([...all].sort())
    expect(await names('direction=desc')).toEqual([...all].reverse())
    expect(await names('order=name&direction=desc&name=contains:search')).toEqual([
      'beta.search.example',
      'alpha.search.example',
    ])
    for (const order of ['status', 'account.id', 'account.name'])
      expect(await names(`order=${order}&direction=desc`)).toEqual(all)
    const { body } = await running.call('/zones?direction=desc&per_page=5&page=2')
    expect(body.result.map((zone: { name: string }) => zone.name)).toEqual(
      [...all].reverse().slice(5, 10),
    )
  })

  it('orders by plan id either way, ties by name, paging after the sort', async () => {
    const plans = { enterprise: 'a', free: 'b', pro: 'c', business: 'd' } as const
    for (const [plan, letter] of Object.entries(plans))
      await create({ name: `${letter}.plans.example`, plan })
    await create({ name: 'e.plans.example', plan: 'free' })
    const inPlans = 'name=ends_with:.plans.example'
    const ascending = ['b', 'e', 'a', 'd', 'c'].map((letter) => `${letter}.plans.example`)
    expect(await names(`${inPlans}&order=plan.id`)).toEqual(ascending)
    expect(await names(`${inPlans}&order=plan.id&direction=desc`)).toEqual([
      'c.plans.example',
      'd.plans.example',
      'a.plans.example',
      'b.plans.example',
      'e.plans.example',
    ])
    const all = await running.call('/zones?order=plan.id&per_page=50')
    const second = await running.call('/zones?order=plan.id&per_page=5&page=2')
    expect(second.body.result).toEqual(all.body.result.slice(5, 10))
    expect(second.body.result_info.total_count).toBe(all.body.result_info.total_count)
  })

  it.each([
    'status=gone',
    'order=size',
    'direction=up',
    'match=some',
    'type=weird',
    'type=full&type=nope',
  ])('refuses %s with 400 in the envelope', async (query) => {
    const { status, body } = await running.call(`/zones?${query}`)
    expect(status).toBe(400)
    expect(body.success).toBe(false)
    expect(body.errors.length).toBeGreaterThan(0)
  })
})

describe('bad input', () => {
  it('answers an unknown zone id with 404 and the codes 7003 + 7000', async () => {
    for (const id of ['0123456789abcdef0123456789abcdef', 'not-an-id']) {
      const { status, body } = await running.call(`/zones/${id}`)
      expect(status).toBe(404)
      expect(body.success).toBe(false)
      expect(body.errors.map((e: { code: number }) => e.code)).toEqual([7003, 7000])
      expect(body.errors[0].message).toBe(
        `Could not route to /zones/${id}, perhaps your object identifier is invalid?`,
      )
    }
  })

  it('answers an unknown route with 404 and 7003 + 7000', async () => {
    const { status, body } = await running.call('/no/such/route')
    expect(status).toBe(404)
    expect(body.errors.map((e: { code: number }) => e.code)).toEqual([7003, 7000])
    expect(body.errors[1]).toEqual({ code: 7000, message: 'No route for that URI' })
  })

  it('answers malformed JSON with 400 and a clear message, creating nothing', async () => {
    const before = (await running.call('/zones?per_page=50')).body.result_info.total_count
    const { status, body } = await running.call('/zones', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": "broken.example",',
    })
    expect(status).toBe(400)
    expect(body.errors[0].code).toBe(6007)
    expect(body.errors[0].message).toMatch(/^Malformed JSON in request body/)
    expect((await running.call('/zones?per_page=50')).body.result_info.total_count).toBe(before)
  })

  it('answers an empty JSON body with 400', async () => {
    const { status, body } = await running.call('/zones', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '',
    })
    expect(status).toBe(400)
    expect(body.errors[0].code).toBe(6007)
  })

  it.each([
    ['application/x-www-form-urlencoded', 'name=form.example'],
    ['text/plain', '{"name": "text.example"}'],
  ])('answers a wrong content type (%s) with 400 / 6003', async (type, text) => {
    const { status, body } = await running.call('/zones', {
      method: 'POST',
      headers: { 'content-type': type },
      body: text,
    })
    expect(status).toBe(400)
    expect(body.errors[0].code).toBe(6003)
    expect(body.errors[0].error_chain[0].message).toMatch(/Content-Type/)
  })

  it('answers a body over the size limit with 413', async () => {
    const { status, body } = await running.call('/zones', {
      method: 'POST',
      json: { name: 'big.example', padding: 'x'.repeat(9 * 1024 * 1024) },
    })
    expect(status).toBe(413)
    expect(body.errors[0].message).toMatch(/larger than the limit/)
  })

  it.each([
    [{}, /name/],
    [{ name: 42 }, /name/],
    [{ name: 'x.example', plan: 'platinum' }, /plan/],
    [{ name: 'x.example', waf_product: 'waf2' }, /waf_product/],
    [{ name: 'x.example', type: 'weird' }, /type/],
  ])(
    'answers a body that breaks the schema (%j) with 400 naming the field',
    async (json, field) => {
      const { status, body } = await create(json)
      expect(status).toBe(400)
      expect(body.errors[0].code).toBe(1001)
      expect(body.errors[0].message).toMatch(field)
    },
  )

  it.each(['localhost', 'no_underscores.example', '-dash.example', 'a'.repeat(64) + '.example'])(
    'refuses %s as a zone name',
    async (name) => {
      const { status, body } = await create({ name })
      expect(status).toBe(400)
      expect(body.errors[0].code).toBe(1099)
    },
  )

  it('refuses PATCH of a property the vendor does not let one edit', async () => {
    const { body } = await create({ name: 'fixed-name.example' })
    const { status, body: patched } = await running.call(`/zones/${body.result.id}`, {
      method: 'PATCH',
      json: { name: 'renamed.example' },
    })
    expect(status).toBe(400)
    expect(patched.errors[0].code).toBe(1001)
    expect((await running.call(`/zones/${body.result.id}`)).body.result.name).toBe(
      'fixed-name.example',
    )
  })

  it.each(['page=0', 'per_page=2', 'per_page=51', 'page=abc'])(
    'answers out-of-range pagination (%s) with 400',
    async (query) => {
      const { status, body } = await running.call(`/zones?${query}`)
      expect(status).toBe(400)
      expect(body.success).toBe(false)
    },
  )
})
