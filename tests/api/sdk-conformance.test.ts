// Calls of the official `cloudflare` SDK that a conformance review found refused or ignored, each
// against a real service: what the call stores (read back) and, where it matters, what the zone
// then decides for a request (the simulate route).

import Cloudflare from 'cloudflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, removeDataDir, simulate, startService, type Running, sdkClient } from './harness'

let running: Running
let client: Cloudflare
beforeAll(async () => {
  running = await startService()
  client = sdkClient(running)
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

const sqli = (host: string, path = '/products') => ({
  method: 'GET',
  url: `https://${host}${path}?id=1' UNION SELECT username,password FROM users--`,
  ip: '198.51.100.7',
})

/** The parts of a decision an override could change. */
const decided = (result: any) => ({
  outcome: result.outcome,
  action: result.action,
  events: result.events.map((e: any) => [e.rule_id, e.action]),
})

describe('previous WAF overrides (client.firewall.waf.overrides)', () => {
  it('creates an override of URLs only; it is stored and changes no decision', async () => {
    const zone = await newZone(running, { plan: 'pro', waf_product: 'previous' })
    const before = await simulate(running, zone.id, sqli(zone.name, '/shop/x'))
    expect(before.outcome).not.toBe('passed')

    // These deprecated methods answer the whole envelope (the SDK does not unwrap `result`).
    const answer: any = await client.firewall.waf.overrides.create({
      zone_id: zone.id,
      urls: [`${zone.name}/shop/*`],
    })
    expect(answer.success).toBe(true)
    const created = answer.result
    expect(created).toMatchObject({ urls: [`${zone.name}/shop/*`], rules: {}, paused: false })
    const read: any = await client.firewall.waf.overrides.get(created.id, { zone_id: zone.id })
    expect(read.result).toEqual(created)

    const after = await simulate(running, zone.id, sqli(zone.name, '/shop/x'))
    expect(after.trace.find((n: any) => n.kind === 'waf_override')).toMatchObject({
      rule_id: created.id,
    })
    expect(decided(after)).toEqual(decided(before))

    const updated: any = await client.firewall.waf.overrides.update(created.id, {
      zone_id: zone.id,
      id: created.id,
      urls: [`${zone.name}/shop/*`],
      rules: {},
      rewrite_action: {},
    })
    expect(updated.result).toMatchObject({ rules: {}, rewrite_action: {} })
    const reread: any = await client.firewall.waf.overrides.get(created.id, { zone_id: zone.id })
    expect(reread.result).toEqual(updated.result)
    expect(decided(await simulate(running, zone.id, sqli(zone.name, '/shop/x')))).toEqual(
      decided(before),
    )
  })
})

describe('zones (client.zones)', () => {
  const account = { id: '01a7362d577a6c3019a474fd6f485823' }

  it('lists the zones of the types asked for (type=… repeated), and refuses an unknown type', async () => {
    const partial = await client.zones.create({
      account,
      name: 'p.sdk-types.example',
      type: 'partial',
    })
    const secondary = await client.zones.create({
      account,
      name: 's.sdk-types.example',
      type: 'secondary',
    })
    await client.zones.create({ account, name: 'f.sdk-types.example' })
    expect((await client.zones.get({ zone_id: partial.id })).type).toBe('partial')

    const only = await client.zones.list({
      name: 'ends_with:.sdk-types.example',
      type: ['partial'],
    })
    expect(only.result.map((zone) => [zone.name, zone.type])).toEqual([
      ['p.sdk-types.example', 'partial'],
    ])
    const either = await client.zones.list({
      name: 'ends_with:.sdk-types.example',
      type: ['secondary', 'partial'],
    })
    expect(either.result.map((zone) => zone.id)).toEqual([partial.id, secondary.id])
    const seen: string[] = []
    for await (const zone of client.zones.list({ type: ['secondary'], per_page: 5 }))
      seen.push(zone.name)
    expect(seen).toEqual(['s.sdk-types.example'])

    const refused = client.zones.list({ type: ['weird' as 'full'] })
    await expect(refused).rejects.toBeInstanceOf(Cloudflare.BadRequestError)
    await expect(refused).rejects.toMatchObject({ status: 400, errors: [expect.anything()] })
  })
})

describe('vanity name servers (client.zones.edit)', () => {
  it('sets them, answers them in the zone and refuses one that is not a host name', async () => {
    const zone = await newZone(running, { plan: 'business' })
    const servers = ['ns1.sdk-vanity.example', 'ns2.sdk-vanity.example']
    const edited = await client.zones.edit({ zone_id: zone.id, vanity_name_servers: servers })
    expect(edited.vanity_name_servers).toEqual(servers)
    expect((await client.zones.get({ zone_id: zone.id })).vanity_name_servers).toEqual(servers)

    const refused = client.zones.edit({ zone_id: zone.id, vanity_name_servers: ['ns 1'] })
    await expect(refused).rejects.toBeInstanceOf(Cloudflare.BadRequestError)
    await expect(refused).rejects.toMatchObject({ status: 400, errors: [{ code: 1004 }] })
    expect((await client.zones.get({ zone_id: zone.id })).vanity_name_servers).toEqual(servers)
  })
})

describe('internal zones (client.zones.create)', () => {
  it('creates a zone of type internal, with no Cloudflare name servers, and lists it by type', async () => {
    const account = { id: '01a7362d577a6c3019a474fd6f485823' }
    const created = await client.zones.create({
      account,
      name: 'corp.sdk-internal.example',
      type: 'internal',
    })
    expect(created).toMatchObject({ type: 'internal', name_servers: [] })
    const read = await client.zones.get({ zone_id: created.id })
    expect(read).toMatchObject({ type: 'internal', name_servers: [] })
    const listed = await client.zones.list({ type: ['internal'] })
    expect(listed.result.map((zone) => zone.id)).toEqual([created.id])

    const edited = await client.zones.edit({ zone_id: created.id, type: 'full' })
    expect(edited.type).toBe('full')
    expect(edited.name_servers.length).toBeGreaterThan(0)
    expect((await client.zones.edit({ zone_id: created.id, type: 'internal' })).type).toBe(
      'internal',
    )
  })
})

describe('page rule target operators (client.pageRules)', () => {
  it('creates a page rule whose target contains a path; it is stored and decides where it applies', async () => {
    const zone = await newZone(running, { plan: 'pro', waf_product: 'previous' })
    const created = await client.pageRules.create({
      zone_id: zone.id,
      targets: [{ target: 'url', constraint: { operator: 'contains', value: '/admin' } }],
      actions: [{ id: 'disable_security' }],
      status: 'active',
    })
    expect(created.targets).toEqual([
      { target: 'url', constraint: { operator: 'contains', value: '/admin' } },
    ])
    const read = await client.pageRules.get(created.id, { zone_id: zone.id })
    expect(read.targets).toEqual(created.targets)

    const admin = await simulate(running, zone.id, sqli(zone.name, '/shop/admin/users'))
    expect(admin.outcome).toBe('passed')
    expect(admin.trace.find((n: any) => n.kind === 'page_rule')).toMatchObject({
      rule_id: created.id,
    })
    const elsewhere = await simulate(running, zone.id, sqli(zone.name, '/products'))
    expect(elsewhere.outcome).not.toBe('passed')
    expect(elsewhere.trace.some((n: any) => n.kind === 'page_rule')).toBe(false)

    // the migration's skip rule covers what the page rule covers
    const config = await running.ok(`/zones/${zone.id}/waf_migration/config?phase_two=1`)
    const skip = config.rules.find((rule: any) => rule.action === 'skip')
    expect(skip.expression).toBe('http.request.full_uri wildcard "*/admin*"')

    const edited = await client.pageRules.edit(created.id, {
      zone_id: zone.id,
      targets: [{ target: 'url', constraint: { operator: 'not_contain', value: '/admin' } }],
    })
    expect(edited.targets[0]?.constraint?.operator).toBe('not_contain')
    expect((await simulate(running, zone.id, sqli(zone.name, '/products'))).outcome).toBe('passed')
    expect((await simulate(running, zone.id, sqli(zone.name, '/admin/x'))).outcome).not.toBe(
      'passed',
    )
  })

  it('takes contains when no operator is given, and refuses an unknown one', async () => {
    const zone = await newZone(running, { plan: 'pro' })
    const created = await client.pageRules.create({
      zone_id: zone.id,
      targets: [{ target: 'url', constraint: { value: '/private' } as any }],
      actions: [{ id: 'disable_security' }],
    })
    expect(created.targets[0]?.constraint).toEqual({ operator: 'contains', value: '/private' })
    await expect(
      client.pageRules.create({
        zone_id: zone.id,
        targets: [{ target: 'url', constraint: { operator: 'like' as 'matches', value: 'a' } }],
        actions: [{ id: 'disable_security' }],
      }),
    ).rejects.toBeInstanceOf(Cloudflare.BadRequestError)
  })
})
