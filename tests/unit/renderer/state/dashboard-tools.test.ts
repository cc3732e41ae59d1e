// The dashboard's everyday tools in the renderer's state, against a real service: a firewall
// rule edited from its row runs its new expression and action, a filter in use is refused at its
// row and an unused one deleted; the Security events' click-to-filter narrows the events by what
// the route filters on and by what it does not (country, client IP), and the shown events export
// as CSV and JSON; an object's table is browsed a page of rows at a time, paged from what each read
// finds as rows are added and deleted.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, simulate, type Running } from '../../../api/harness'
import { startRendererService, stopRendererService } from './renderer-service'

type Module<T> = T extends () => Promise<infer M> ? M : never
const modules = () =>
  Promise.all([
    import('../../../../src-renderer/src/lib/state/firewall-rules.svelte'),
    import('../../../../src-renderer/src/lib/state/security-events.svelte'),
    import('../../../../src-renderer/src/lib/state/zone-choice.svelte'),
    import('../../../../src-renderer/src/features/events/breakdown'),
    import('../../../../src-renderer/src/lib/state/objects.svelte'),
  ])

let running: Running
let firewall: Module<typeof modules>[0]
let events: Module<typeof modules>[1]
let open: Module<typeof modules>[2]['openZoneScreen']
let breakdown: Module<typeof modules>[3]
let objects: Module<typeof modules>[4]

beforeAll(async () => {
  running = await startRendererService()
  let choice: Module<typeof modules>[2]
  ;[firewall, events, choice, breakdown, objects] = await modules()
  open = choice.openZoneScreen
})
afterAll(() => stopRendererService(running))

async function zoneWithRules(name: string, rules: unknown[]): Promise<string> {
  const zoneId = (await newZone(running, { name, plan: 'business' })).id
  await running.ok(`/zones/${zoneId}/firewall/rules`, { method: 'POST', json: rules })
  return zoneId
}

describe('FirewallRulesState edits', () => {
  it("edits a rule's expression, action and description; the zone runs the edit", async () => {
    const zoneId = await zoneWithRules('edit.example', [
      {
        action: 'block',
        description: 'admin',
        filter: { expression: 'http.request.uri.path eq "/admin"' },
      },
    ])
    const state = new firewall.FirewallRulesState()
    await state.select(zoneId)
    const edited = await state.editRule(state.rules[0]!, {
      expression: 'http.request.uri.path eq "/login"',
      action: 'managed_challenge',
      description: 'login',
    })
    expect(edited).toBe(true)
    expect(state.rules[0]).toMatchObject({
      action: 'managed_challenge',
      description: 'login',
      filter: { expression: 'http.request.uri.path eq "/login"' },
    })
    const request = (path: string) => ({ method: 'GET', url: `https://edit.example${path}` })
    expect((await simulate(running, zoneId, request('/login'), '?record=false')).outcome).toBe(
      'challenged',
    )
    expect((await simulate(running, zoneId, request('/admin'), '?record=false')).outcome).toBe(
      'passed',
    )
  })

  it('refuses to delete a filter in use, at its row, and deletes one no rule uses', async () => {
    const zoneId = await zoneWithRules('filters.example', [
      { action: 'block', filter: { expression: 'ip.src eq 192.0.2.1' } },
    ])
    await running.call(`/zones/${zoneId}/filters`, {
      method: 'POST',
      json: [{ expression: 'http.host eq "old.example"' }],
    })
    const state = new firewall.FirewallRulesState()
    await state.select(zoneId)
    const used = state.filters.find((filter) => filter.expression === 'ip.src eq 192.0.2.1')!
    const unused = state.filters.find((filter) => filter !== used)!

    expect(await state.deleteFilter(used)).toBe(false)
    expect(state.rowErrors?.id).toBe(used.id)
    expect(state.rowErrors?.messages[0]?.message).toContain('is used by firewall rule')
    expect(state.errors).toEqual([])

    expect(await state.deleteFilter(unused)).toBe(true)
    expect(state.rowErrors).toBeNull()
    expect(state.filters.map((filter) => filter.id)).toEqual([used.id])
  })
})

describe('SecurityEventsState tools', () => {
  let zoneId: string
  beforeAll(async () => {
    zoneId = await zoneWithRules('events.example', [
      {
        action: 'block',
        description: 'no admin',
        filter: { expression: 'http.request.uri.path eq "/admin"' },
      },
      {
        action: 'challenge',
        description: 'challenge login',
        filter: { expression: 'http.request.uri.path eq "/login"' },
      },
    ])
    const requests = [
      { path: '/admin', ip: '198.51.100.1', country: 'FR' },
      { path: '/admin', ip: '198.51.100.2', country: 'DE' },
      { path: '/login', ip: '198.51.100.1', country: 'FR' },
    ]
    for (const { path, ip, country } of requests) {
      await simulate(running, zoneId, {
        method: 'GET',
        url: `https://events.example${path}`,
        ip,
        country,
      })
    }
  })

  it('breaks the events down and filters by a clicked value, on the route or among those loaded', async () => {
    const state = new events.SecurityEventsState()
    await open(state)
    await state.select(zoneId)
    expect(breakdown.topValues(state.shown, 'client_ip')).toEqual([
      { value: '198.51.100.1', count: 2 },
      { value: '198.51.100.2', count: 1 },
    ])
    const [topRule] = breakdown.topValues(state.shown, 'rule_id')
    expect(topRule).toMatchObject({ count: 2, name: 'no admin' })

    await state.filterBy('rule_id', topRule!.value)
    expect(state.ruleId).toBe(topRule!.value)
    expect(state.shown.map((event) => event.path)).toEqual(['/admin', '/admin'])

    await state.filterBy('country', 'DE')
    expect(state.shown.map((event) => event.client_ip)).toEqual(['198.51.100.2'])
    expect(state.events).toHaveLength(2)

    // Applied filters are kept for the zone, the country too.
    const reopened = new events.SecurityEventsState()
    await reopened.select(zoneId)
    expect(reopened.country).toBe('DE')
    expect(reopened.shown.map((event) => event.client_ip)).toEqual(['198.51.100.2'])
  })

  it('exports the shown events as CSV and as JSON', async () => {
    const state = new events.SecurityEventsState()
    await state.select(zoneId)
    // The filters set above are kept for the zone; this export is of every rule's events.
    await state.filterBy('rule_id', '')
    await state.filterBy('country', '')
    await state.filterBy('client_ip', '198.51.100.1')
    const csv = state.exportFile('csv')
    expect(csv.suggestedName).toBe(`security-events-${zoneId}.csv`)
    const [header, ...rows] = csv.text.trimEnd().split('\r\n')
    expect(header).toBe(events.EVENT_FIELDS.join(','))
    expect(rows).toHaveLength(2)
    expect(rows.every((row) => row.includes(',198.51.100.1,FR'))).toBe(true)
    const json = state.exportFile('json')
    expect(json.suggestedName).toBe(`security-events-${zoneId}.json`)
    expect(JSON.parse(json.text)).toEqual(state.shown)
  })
})

describe('ObjectsState table browser', () => {
  it("pages through a table's rows in the table's order", async () => {
    const zoneId = (await newZone(running, { name: 'browse.example', plan: 'business' })).id
    const filters = Array.from({ length: 60 }, (_, index) => ({
      expression: `ip.src eq 192.0.2.${index + 1}`,
    }))
    await running.ok(`/zones/${zoneId}/filters`, { method: 'POST', json: filters })
    const state = new objects.ObjectsState()
    await state.load()
    await state.select(state.objects.find((object) => object.label.includes('browse.example'))!)

    await state.browse('filters')
    expect(state.errors).toEqual([])
    expect(state.browsing?.result.rows).toHaveLength(objects.BROWSE_PAGE_ROWS)
    await state.browse('filters', objects.BROWSE_PAGE_ROWS)
    const expressionAt = state.browsing!.result.columns.indexOf('expression')
    expect(state.browsing?.offset).toBe(50)
    expect(state.browsing?.result.rows.map((row) => row[expressionAt])).toEqual(
      filters.slice(50).map((filter) => filter.expression),
    )
  })

  it('pages from what each read finds, after rows are added or deleted', async () => {
    const zoneId = (await newZone(running, { name: 'repage.example', plan: 'business' })).id
    const add = (count: number, from: number): Promise<{ id: string }[]> =>
      running.ok(`/zones/${zoneId}/filters`, {
        method: 'POST',
        json: Array.from({ length: count }, (_, index) => ({
          expression: `ip.src eq 198.51.100.${from + index}`,
        })),
      })
    const made = await add(objects.BROWSE_PAGE_ROWS, 1)
    const state = new objects.ObjectsState()
    await state.load()
    await state.select(state.objects.find((object) => object.label.includes('repage.example'))!)

    await state.browse('filters')
    expect(state.browsing).toMatchObject({ more: false, total: objects.BROWSE_PAGE_ROWS })
    expect(state.browsing?.result.rows).toHaveLength(objects.BROWSE_PAGE_ROWS)

    // Ten more since the object's tables were listed: the first page now has rows after it.
    await add(10, 101)
    await state.browse('filters')
    expect(state.browsing).toMatchObject({ more: true, total: 60 })
    await state.browse('filters', objects.BROWSE_PAGE_ROWS)
    expect(state.browsing).toMatchObject({ more: false, total: 60 })
    expect(state.browsing?.result.rows).toHaveLength(10)

    for (const filter of made.slice(0, 15)) {
      await running.ok(`/zones/${zoneId}/filters/${filter.id}`, { method: 'DELETE' })
    }
    await state.browse('filters')
    expect(state.browsing).toMatchObject({ more: false, total: 45 })
    expect(state.browsing?.result.rows).toHaveLength(45)
  })
})
