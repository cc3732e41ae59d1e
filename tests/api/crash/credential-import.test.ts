// A leaked-credential list uploaded again and again while the service is killed mid-import: an
// import is all or nothing, so after each start the list is either absent or whole, a retried
// list is never counted twice, and once acknowledged it stays.

import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { KILLS, crashSuite, killRounds, newDataDir, report, type Child } from './harness'
import { CRASH_CREDENTIALS } from './credentials'

const bundle = crashSuite()

const LINES = 30_000
const LIST = Array.from(
  { length: LINES },
  (_, i) => `${createHash('sha1').update(`crash-${i}`).digest('hex').toUpperCase()}:${1 + (i % 7)}`,
).join('\n')

interface Database {
  pair: number
  lists: { name: string; hashes: number }[]
}

async function database(child: Child): Promise<Database> {
  const response = await fetch(`${child.origin}/workbench/v1/credentials`, {
    headers: { authorization: `Bearer ${CRASH_CREDENTIALS.apiToken}` },
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { result: Database }).result
}

describe('credential imports survive SIGKILL', () => {
  it(
    `leave a list absent or whole, never twice, across ${KILLS} kills`,
    { timeout: 60_000 + KILLS * 6_000 },
    async () => {
      const dataDir = newDataDir()
      let baseline: number | undefined
      let acknowledged = false
      let uploads = 0
      let inFlight = false
      let killedMidUpload = 0
      await killRounds(bundle(), dataDir, {
        delay: [100, 1_500],
        async check(child) {
          if (inFlight) killedMidUpload++
          inFlight = false
          const db = await database(child)
          baseline ??= db.pair
          const list = db.lists.filter((l) => l.name === 'crash-list')
          expect(list.length).toBeLessThanOrEqual(1)
          if (acknowledged) expect(list).toHaveLength(1)
          if (list.length === 1) expect(list[0]!.hashes).toBe(LINES)
          expect(db.pair).toBe(baseline + (list.length === 1 ? LINES : 0))
        },
        clients: (child) => [
          async () => {
            inFlight = true
            const response = await fetch(
              `${child.origin}/workbench/v1/credentials/import?kind=pair&name=crash-list`,
              {
                method: 'POST',
                headers: {
                  authorization: `Bearer ${CRASH_CREDENTIALS.apiToken}`,
                  'content-type': 'text/plain',
                },
                body: LIST,
              },
            )
            inFlight = false
            if (response.status === 200) {
              acknowledged = true
              uploads++
            }
          },
        ],
      })
      report('credential import', {
        kills: KILLS,
        'kills during an upload': killedMidUpload,
        'acknowledged uploads': uploads,
      })
    },
  )
})
