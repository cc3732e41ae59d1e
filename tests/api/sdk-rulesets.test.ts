// The official `cloudflare` SDK (v7) against the loopback Rulesets, Filters and Firewall Rules
// APIs: entry point get/update, rule create/edit/delete, ruleset list (cursor iterator), get and
// create, filters and firewall rules with their page iterators, and the SDK's error classes.

import Cloudflare from 'cloudflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, type Running, startService, sdkClient, thrown } from './harness'

const PHASE = 'http_request_firewall_managed'
const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
const EXPOSED = 'c2e184081120413c86c3ab7e14069605'

let running: Running
let client: Cloudflare
beforeAll(async () => {
  running = await startService()
  client = sdkClient(running)
})
afterAll(() => running.stop())

describe('rulesets through the SDK', () => {
  it('gets an absent entry point as NotFoundError, then updates and gets it', async () => {
    const zone_id = (await newZone(running)).id
    const absent = await thrown(client.rulesets.phases.get(PHASE, { zone_id }))
    expect(absent).toBeInstanceOf(Cloudflare.NotFoundError)
    expect(absent.status).toBe(404)
    expect(absent.errors[0].code).toBe(10003)

    const updated: any = await client.rulesets.phases.update(PHASE, {
      zone_id,
      rules: [
        {
          action: 'execute',
          expression: 'true',
          description: 'CMR',
          action_parameters: {
            id: GENERAL,
            overrides: {
              categories: [{ category: 'wordpress', action: 'block', enabled: true }],
            },
          },
        },
        { action: 'execute', expression: 'true', action_parameters: { id: OWASP } },
      ],
    })
    expect(updated).toMatchObject({ kind: 'zone', phase: PHASE, version: '1' })
    expect(updated.rules).toHaveLength(2)
    expect(updated.rules[0]).toMatchObject({ action: 'execute', description: 'CMR', enabled: true })
    expect((updated.rules[0] as any).action_parameters.version).toBe('latest')

    const read: any = await client.rulesets.phases.get(PHASE, { zone_id })
    expect(read).toEqual(updated)
  })

  it('updates an entry point by phase and by id with another name, keeping its name', async () => {
    const zone_id = (await newZone(running)).id
    const rules = [
      { action: 'execute' as const, expression: 'true', action_parameters: { id: GENERAL } },
    ]
    const created: any = await client.rulesets.phases.update(PHASE, { zone_id, rules })
    const byPhase: any = await client.rulesets.phases.update(PHASE, {
      zone_id,
      name: 'managed by terraform',
      rules,
    })
    expect(byPhase).toMatchObject({ id: created.id, name: 'default', version: '2' })
    const byId: any = await client.rulesets.update(created.id, {
      zone_id,
      name: 'managed by terraform',
      kind: 'zone',
      phase: PHASE,
      rules,
    })
    expect(byId).toMatchObject({ id: created.id, name: 'default', version: '3' })
  })

  it('creates, edits and deletes rules with the v7 signatures', async () => {
    const zone_id = (await newZone(running)).id
    const entry: any = await client.rulesets.phases.update(PHASE, {
      zone_id,
      rules: [{ action: 'execute', expression: 'true', action_parameters: { id: GENERAL } }],
    })
    const created: any = await client.rulesets.rules.create(entry.id, {
      zone_id,
      action: 'skip',
      expression: 'http.request.uri.path eq "/health"',
      description: 'skip health checks',
      action_parameters: { ruleset: 'current' },
      position: { before: '' },
    })
    expect(created.version).toBe('2')
    expect(created.rules.map((r: any) => r.description)).toEqual(['skip health checks', ''])
    const skipRule = created.rules[0]!
    expect(skipRule).toMatchObject({ version: '1', ref: skipRule.id, enabled: true })

    const edited: any = await client.rulesets.rules.edit(skipRule.id!, {
      ruleset_id: entry.id,
      zone_id,
      action: 'skip',
      expression: 'http.request.uri.path eq "/healthz"',
      description: 'skip the new health path',
      action_parameters: { ruleset: 'current' },
    })
    expect(edited.version).toBe('3')
    expect(edited.rules[0]).toMatchObject({
      id: skipRule.id,
      version: '2',
      expression: 'http.request.uri.path eq "/healthz"',
    })

    const moved: any = await client.rulesets.rules.edit(skipRule.id!, {
      ruleset_id: entry.id,
      zone_id,
      position: { after: '' },
    } as any)
    expect(moved.rules.map((r: any) => r.id)).toEqual([entry.rules[0]!.id, skipRule.id])

    const afterDelete: any = await client.rulesets.rules.delete(skipRule.id!, {
      ruleset_id: entry.id,
      zone_id,
    })
    expect(afterDelete.version).toBe('5')
    expect(afterDelete.rules.map((r: any) => r.id)).toEqual([entry.rules[0]!.id])
  })

  it('creates and gets a custom ruleset, and iterates the list to the end', async () => {
    const zone_id = (await newZone(running)).id
    const custom: any = await client.rulesets.create({
      zone_id,
      name: 'sdk custom',
      kind: 'custom',
      phase: 'http_request_firewall_custom',
      rules: [{ action: 'block', expression: 'ip.src eq 192.0.2.44' }],
    })
    expect(custom).toMatchObject({ name: 'sdk custom', kind: 'custom', version: '1' })
    const read: any = await client.rulesets.get(custom.id, { zone_id })
    expect(read).toEqual(custom)

    const entry: any = await client.rulesets.phases.update(PHASE, {
      zone_id,
      rules: [{ action: 'execute', expression: 'true', action_parameters: { id: EXPOSED } }],
    })

    const seen: string[] = []
    for await (const ruleset of client.rulesets.list({ zone_id, per_page: 1 })) {
      seen.push(ruleset.id)
    }
    expect([...seen].sort()).toEqual([custom.id, entry.id, GENERAL, OWASP, EXPOSED].sort())

    const managed: any = await client.rulesets.get(GENERAL, { zone_id })
    expect(managed.kind).toBe('managed')
    expect(managed.rules.length).toBeGreaterThan(100)
    expect(managed.rules.every((r: any) => r.expression === undefined)).toBe(true)

    await client.rulesets.delete(custom.id, { zone_id })
    expect(await thrown(client.rulesets.get(custom.id, { zone_id }))).toBeInstanceOf(
      Cloudflare.NotFoundError,
    )
  })

  it('raises BadRequestError with the ruleset error code', async () => {
    const zone_id = (await newZone(running)).id
    const invalid = await thrown(
      client.rulesets.phases.update(PHASE, {
        zone_id,
        rules: [
          {
            action: 'skip',
            expression: 'http.hots eq "x"',
            action_parameters: { ruleset: 'current' },
          },
        ],
      }),
    )
    expect(invalid).toBeInstanceOf(Cloudflare.BadRequestError)
    expect(invalid.status).toBe(400)
    expect(invalid.errors[0].code).toBe(20120)
    expect(invalid.errors[0].source.pointer).toBe('/rules/0/expression')

    const twice = await thrown(
      client.rulesets.create({ zone_id, name: 'managed?', kind: 'managed', phase: PHASE }),
    )
    expect(twice).toBeInstanceOf(Cloudflare.BadRequestError)
    expect(twice.errors[0].code).toBe(20218)

    const unknown = await thrown(
      client.rulesets.get('0123456789abcdef0123456789abcdef', { zone_id }),
    )
    expect(unknown).toBeInstanceOf(Cloudflare.NotFoundError)
    expect(unknown.errors[0].code).toBe(7003)
  })
})

describe('filters and firewall rules through the SDK', () => {
  it('creates filters in one call and iterates them with the page iterator', async () => {
    const zone_id = (await newZone(running)).id
    const body = Array.from({ length: 27 }, (_, i) => ({
      expression: `http.request.uri.path eq "/sdk/${i}"`,
      description: `filter ${i}`,
    }))
    const created = await client.filters.create({ zone_id, body })
    expect(created.result).toHaveLength(27)

    const seen: string[] = []
    for await (const filter of client.filters.list({ zone_id, per_page: 5 })) seen.push(filter.id!)
    expect(seen).toHaveLength(27)
    expect([...seen].sort()).toEqual(created.result.map((f) => f.id!).sort())

    const found = await client.filters.list({ zone_id, description: 'filter 13' })
    expect(found.result.map((f) => f.expression)).toEqual(['http.request.uri.path eq "/sdk/13"'])
  })

  it('raises BadRequestError with 10102 and meta.id for a duplicate filter', async () => {
    const zone_id = (await newZone(running)).id
    const first = await client.filters.create({
      zone_id,
      body: [{ expression: 'ip.src eq 192.0.2.1' }],
    })
    const duplicate = await thrown(
      client.filters.create({ zone_id, body: [{ expression: 'ip.src eq 192.0.2.1' }] }),
    )
    expect(duplicate).toBeInstanceOf(Cloudflare.BadRequestError)
    expect(duplicate.errors[0].code).toBe(10102)
    expect(duplicate.errors[0].meta.id).toBe(first.result[0]!.id)
  })

  it('updates some fields of a filter, one or in bulk, and deletes filters in bulk', async () => {
    const zone_id = (await newZone(running)).id
    const created = await client.filters.create({
      zone_id,
      body: [
        { expression: 'http.request.uri.path eq "/a"', description: 'alpha', ref: 'A' },
        { expression: 'http.request.uri.path eq "/b"', description: 'beta' },
        { expression: 'http.request.uri.path eq "/c"' },
      ],
    })
    const [a, b, c] = created.result
    const paused = await client.filters.update(a!.id!, { zone_id, paused: true })
    expect(paused).toEqual({ ...a, paused: true })
    // The SDK's bulk update types its items without the id the API needs to find each filter.
    const bulk = await client.filters.bulkUpdate({
      zone_id,
      body: [{ id: b!.id, description: 'BETA' } as { description: string }],
    })
    expect(bulk.result).toEqual([{ ...b, description: 'BETA' }])
    const deleted = await client.filters.bulkDelete({ zone_id, id: [a!.id!, b!.id!] })
    expect(deleted).toEqual([{ id: a!.id }, { id: b!.id }])
    const left = await client.filters.list({ zone_id })
    expect(left.result).toEqual([c])
  })

  it('deletes firewall rules named in the body of bulkDelete', async () => {
    const zone_id = (await newZone(running)).id
    const ids: string[] = []
    for (const path of ['/x', '/y', '/z']) {
      const page = await client.firewall.rules.create({
        zone_id,
        filter: { expression: `http.request.uri.path eq "${path}"` },
        action: 'block',
      } as any)
      ids.push(page.result[0]!.id!)
    }
    // The SDK's bulkDelete takes no ids: they go in the body, as the vendor's OpenAPI has it.
    const deleted = await client.firewall.rules.bulkDelete(
      { zone_id },
      { body: [{ id: ids[0] }, { id: ids[1] }] },
    )
    expect(deleted.result).toEqual([{ id: ids[0] }, { id: ids[1] }])
    const left = await client.firewall.rules.list({ zone_id })
    expect(left.result.map((rule) => rule.id)).toEqual([ids[2]])
  })

  it('creates firewall rules from a single object and iterates them', async () => {
    const zone_id = (await newZone(running, { plan: 'enterprise' })).id
    const ids: string[] = []
    for (let i = 0; i < 12; i++) {
      const page = await client.firewall.rules.create({
        zone_id,
        filter: { expression: `http.request.uri.path eq "/rule/${i}"` },
        action: i % 2 ? 'block' : 'challenge',
        description: `rule ${i}`,
      } as any)
      expect(page.result).toHaveLength(1)
      expect(page.result[0]).toMatchObject({ description: `rule ${i}`, priority: null })
      ids.push(page.result[0]!.id!)
    }
    const seen: string[] = []
    for await (const rule of client.firewall.rules.list({ zone_id, per_page: 5 })) {
      seen.push(rule.id!)
    }
    expect([...seen].sort()).toEqual([...ids].sort())

    const read = await client.firewall.rules.get(ids[0]!, { zone_id })
    expect(read).toMatchObject({ id: ids[0], description: 'rule 0' })
    const missing = await thrown(
      client.firewall.rules.get('0123456789abcdef0123456789abcdef', { zone_id }),
    )
    expect(missing).toBeInstanceOf(Cloudflare.NotFoundError)
  })

  it('raises BadRequestError with 10021 for log below Enterprise', async () => {
    const zone_id = (await newZone(running)).id
    const refused = await thrown(
      client.firewall.rules.create({
        zone_id,
        filter: { expression: 'http.request.uri.path eq "/log"' },
        action: 'log',
      } as any),
    )
    expect(refused).toBeInstanceOf(Cloudflare.BadRequestError)
    expect(refused.errors[0].code).toBe(10021)
  })
})
