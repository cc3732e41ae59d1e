// Zones created, deleted and imported from bundles under SIGKILL: after each kill the next start finishes or
// undoes what was interrupted, every acknowledged write is there, and the index and the zones'
// objects agree (harness.ts, expectConsistent).

import { describe, expect, it } from 'vitest'
import {
  KILLS,
  call,
  crashSuite,
  expectConsistent,
  killRounds,
  newDataDir,
  report,
  type Child,
} from './harness'
import { CRASH_CREDENTIALS } from './credentials'

const bundle = crashSuite()
const TIMEOUT = 60_000 + KILLS * 4_000

describe('zone changes survive SIGKILL', () => {
  it(
    `keeps every acknowledged create, and no half-made zone, across ${KILLS} kills`,
    { timeout: TIMEOUT },
    async () => {
      const dataDir = newDataDir()
      const attempted = new Set<string>()
      const acknowledged = new Set<string>()
      let next = 0
      const repairs = await killRounds(bundle(), dataDir, {
        async check(child) {
          const names = new Set((await expectConsistent(child, dataDir)).map((z) => z.name))
          for (const name of acknowledged)
            expect(names.has(name), `${name} was acknowledged`).toBe(true)
          for (const name of names) expect(attempted.has(name)).toBe(true)
        },
        clients(child) {
          const create = async () => {
            const name = `c${next++}.example`
            attempted.add(name)
            const answer = await call(child.api, '/zones', { json: { name } })
            if (answer.status === 200) acknowledged.add(name)
          }
          return [create, create, create, create]
        },
      })
      report('create', { kills: KILLS, 'acknowledged creates': acknowledged.size, repairs })
    },
  )

  it(`keeps every acknowledged delete across ${KILLS} kills`, { timeout: TIMEOUT }, async () => {
    const dataDir = newDataDir()
    const created = new Set<string>()
    const deleting = new Set<string>()
    const deleted = new Set<string>()
    let next = 0
    const repairs = await killRounds(bundle(), dataDir, {
      async check(child) {
        const names = new Set((await expectConsistent(child, dataDir)).map((z) => z.name))
        for (const name of deleted) expect(names.has(name), `${name} was deleted`).toBe(false)
        for (const name of created) {
          if (!deleting.has(name)) expect(names.has(name), `${name} was created`).toBe(true)
        }
      },
      clients(child) {
        const createThenDelete = async () => {
          const name = `d${next++}.example`
          const answer = await call(child.api, '/zones', { json: { name } })
          if (answer.status !== 200) return
          created.add(name)
          const id = answer.body.result.id
          // A simulation gives the zone an event log, which its deletion must take with it.
          await call(child.origin, `/workbench/v1/zones/${id}/simulate`, {
            json: { method: 'GET', url: `https://${name}/?q=%27%20OR%201=1--` },
          })
          deleting.add(name)
          const gone = await call(child.api, `/zones/${id}`, { method: 'DELETE' })
          expect(gone.status).toBe(200)
          deleted.add(name)
        }
        return [createThenDelete, createThenDelete, createThenDelete]
      },
    })
    report('delete', { kills: KILLS, 'acknowledged deletes': deleted.size, repairs })
  })

  it(
    `imports bundles whole or not at all across ${KILLS} kills`,
    { timeout: TIMEOUT },
    async () => {
      const dataDir = newDataDir()
      const RULES = 20
      let template: any
      const attempted = new Set<string>()
      const acknowledged = new Set<string>()
      let next = 0
      const repairs = await killRounds(bundle(), dataDir, {
        async check(child, round) {
          if (round === 0) template = await bundleWithRules(child, RULES)
          const zones = await expectConsistent(child, dataDir)
          const names = new Set(zones.map((z) => z.name))
          for (const name of acknowledged)
            expect(names.has(name), `${name} was imported`).toBe(true)
          for (const zone of zones.filter((z) => attempted.has(z.name))) {
            const rules = await call(child.api, `/zones/${zone.id}/firewall/rules?per_page=100`)
            expect(rules.body.result, `${zone.name} holds the whole bundle`).toHaveLength(RULES)
          }
        },
        clients(child) {
          const importOne = async () => {
            const name = `b${next++}.example`
            attempted.add(name)
            const id = (next * 7919).toString(16).padStart(32, '0')
            const answer = await call(child.origin, '/workbench/v1/zones/import', {
              json: { ...template, zone: { ...template.zone, id, name } },
            })
            if (answer.status === 200) acknowledged.add(name)
          }
          return [importOne, importOne]
        },
      })
      report('bundle import', { kills: KILLS, 'acknowledged imports': acknowledged.size, repairs })
    },
  )
})

/** A bundle of a zone holding `count` firewall rules, each with its filter. */
async function bundleWithRules(child: Child, count: number): Promise<any> {
  const zone = await call(child.api, '/zones', {
    json: { name: 'template.example', plan: 'enterprise' },
  })
  const id = zone.body.result.id
  const rules = Array.from({ length: count }, (_, i) => ({
    action: 'block',
    description: `rule ${i}`,
    filter: { expression: `http.request.uri.path eq "/blocked/${i}"` },
  }))
  expect((await call(child.api, `/zones/${id}/firewall/rules`, { json: rules })).status).toBe(200)
  const exported = await fetch(`${child.origin}/workbench/v1/zones/${id}/export?format=bundle`, {
    headers: { authorization: `Bearer ${CRASH_CREDENTIALS.apiToken}` },
  })
  return exported.json()
}
