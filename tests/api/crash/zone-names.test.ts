// Renames and history restores under SIGKILL: both change a zone's name in its object and in the
// account's index, and a restore may be refused and undone. After each kill, the next start
// leaves one name per zone, the index and the zones agreeing, and acknowledged renames in place.

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

const bundle = crashSuite()
const TIMEOUT = 60_000 + KILLS * 4_000

async function createZone(child: Child, name: string): Promise<string> {
  const answer = await call(child.api, '/zones', { json: { name, plan: 'business' } })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body.result.id
}

const rename = (child: Child, id: string, name: string) =>
  call(child.origin, `/workbench/v1/zones/${id}/rename`, { json: { name } })

describe('zone names survive SIGKILL', () => {
  it(
    `keeps acknowledged renames, one name per zone, across ${KILLS} kills`,
    { timeout: TIMEOUT },
    async () => {
      const dataDir = newDataDir()
      const CLIENTS = 4
      const ids: string[] = []
      /** per client: the last acknowledged name and the one asked for since, if any */
      const names: { acknowledged: string; asked?: string }[] = []
      let next = 0
      let acknowledged = 0
      const repairs = await killRounds(bundle(), dataDir, {
        async check(child, round) {
          const zones = await expectConsistent(child, dataDir)
          if (round === 0) {
            for (let i = 0; i < CLIENTS; i++) {
              ids.push(await createZone(child, `r${i}.example`))
              names.push({ acknowledged: `r${i}.example` })
            }
          }
          for (const [i, id] of ids.entries()) {
            const name =
              zones.find((z) => z.id === id)?.name ??
              (round === 0 ? names[i]!.acknowledged : undefined)
            expect([names[i]!.acknowledged, names[i]!.asked]).toContain(name)
            names[i] = { acknowledged: name! }
          }
        },
        clients: (child) =>
          ids.map((id, i) => async () => {
            // Half the time a name another client's zone may hold: refused (1061) or taken.
            const name =
              Math.random() < 0.5 ? `n${next++}.example` : `r${(i + 1) % CLIENTS}.example`
            names[i]!.asked = name
            const answer = await rename(child, id, name)
            if (answer.status === 200) {
              names[i] = { acknowledged: name }
              acknowledged++
            } else names[i] = { acknowledged: names[i]!.acknowledged }
          }),
      })
      report('rename', { kills: KILLS, 'acknowledged renames': acknowledged, repairs })
    },
  )

  it(
    `settles every restore, kept or refused, across ${KILLS} kills`,
    { timeout: TIMEOUT },
    async () => {
      const dataDir = newDataDir()
      let ids: string[] = []
      let next = 0
      let kept = 0
      let refused = 0
      const repairs = await killRounds(bundle(), dataDir, {
        async check(child, round) {
          await expectConsistent(child, dataDir)
          if (round === 0)
            ids = [await createZone(child, 'p.example'), await createZone(child, 'q.example')]
        },
        clients(child) {
          const [p, q] = ids as [string, string]
          // P renames itself and restores the point before, taking its older name back; Q takes
          // P's older names when it can, so that some of P's restores must be refused and undone.
          const restorer = async () => {
            await rename(child, p, `p${next++}.example`)
            await call(child.api, `/zones/${p}`, {
              method: 'PATCH',
              json: { plan: { id: Math.random() < 0.5 ? 'pro' : 'business' } },
            })
            const history = await call(child.origin, `/workbench/v1/zones/${p}/history?limit=4`)
            const point = history.body.result[1 + Math.floor(Math.random() * 3)]
            if (point === undefined) return
            const answer = await call(child.origin, `/workbench/v1/zones/${p}/history/restore`, {
              json: { bookmark: point.bookmark },
            })
            if (answer.status === 200) kept++
            else refused++
          }
          const taker = async () => {
            const older = Math.max(0, next - 1 - Math.floor(Math.random() * 3))
            await rename(child, q, `p${older}.example`)
          }
          return [restorer, taker]
        },
      })
      report('restore', {
        kills: KILLS,
        'restores kept': kept,
        'restores refused': refused,
        repairs,
      })
    },
  )
})
