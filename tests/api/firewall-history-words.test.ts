// The history's words for changes of filters and firewall rules: each record by its description,
// a filter without one by its expression cut short, never by id, and the plural in its place.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, type Running, startService } from './harness'

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(() => running.stop())

const ADMIN = 'http.request.uri.path contains "/admin"'
const LONG = 'http.request.uri.path contains "/a-rather-long-path/that-goes-on-and-on"'

/** The zone's newest point's note. */
async function lastNote(zone: string): Promise<string> {
  const points = (await running.call(`${running.origin}/workbench/v1/zones/${zone}/history`)).body
    .result as { note: string | null }[]
  return points[0]!.note ?? ''
}

describe('history words of filters and firewall rules', () => {
  it('names the rules and filters created, changed and deleted', async () => {
    const zone = (await newZone(running)).id
    const created = await running.call(`/zones/${zone}/firewall/rules`, {
      method: 'POST',
      json: [
        { action: 'block', description: 'Block the admin area', filter: { expression: ADMIN } },
      ],
    })
    expect(created.status).toBe(200)
    expect(await lastNote(zone)).toBe(
      'Firewall rule “Block the admin area” created, with its filter',
    )

    const filters = await running.call(`/zones/${zone}/filters`, {
      method: 'POST',
      json: [
        { expression: LONG },
        { expression: 'ip.src eq 192.0.2.1', description: 'Office' },
        { expression: 'ip.src eq 192.0.2.2', description: 'Lab' },
        { expression: 'ip.src eq 192.0.2.3', description: 'Home' },
      ],
    })
    expect(filters.status).toBe(200)
    expect(await lastNote(zone)).toBe(
      'Filters “http.request.uri.path contains "/a-rath…”, “Office”, “Lab” and 1 more created',
    )

    const [nameless] = filters.body.result as { id: string }[]
    const rules = await running.call(`/zones/${zone}/firewall/rules`, {
      method: 'POST',
      json: [
        { action: 'challenge', filter: { id: nameless!.id } },
        {
          action: 'allow',
          description: 'Watch the office',
          filter: { id: filters.body.result[1].id },
        },
      ],
    })
    expect(rules.status).toBe(200)
    expect(await lastNote(zone)).toBe(
      'Firewall rules “http.request.uri.path contains "/a-rath…” and “Watch the office” created',
    )

    const rule = created.body.result[0] as { id: string }
    await running.call(`/zones/${zone}/firewall/rules/${rule.id}`, { method: 'DELETE' })
    expect(await lastNote(zone)).toBe('Firewall rule “Block the admin area” deleted')
  })
})
