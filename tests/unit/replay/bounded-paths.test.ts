// A replay's tally keeps a bounded number of distinct paths (src-shared/replay/replay-tally.ts):
// a day of logs has millions. The most requested paths keep exact counts, and the summary says
// when paths were dropped.
import { describe, expect, it } from 'vitest'
import { ReplayTally, type TalliedSimulation } from '@shared/replay/replay-tally'

const passed: TalliedSimulation = { ray_id: '0', outcome: 'passed', action: null, events: [] }

describe('ReplayTally paths', () => {
  it('keeps at most twice its capacity of paths, the hot ones with exact counts', () => {
    const tally = new ReplayTally({ paths: 10 })
    for (let i = 0; i < 10_000; i++) {
      tally.add({ method: 'GET', url: `https://example.com/hot/${i % 3}` }, passed)
      tally.add({ method: 'GET', url: `https://example.com/cold/${i}` }, passed)
    }
    const summary = tally.summary()
    expect(summary.requests).toBe(20_000)
    expect(summary.paths.length).toBeLessThanOrEqual(20)
    expect(summary.paths.slice(0, 3)).toEqual(
      [0, 1, 2].map((n) =>
        expect.objectContaining({ path: `/hot/${n}`, requests: expect.any(Number) }),
      ),
    )
    expect(
      summary.paths
        .slice(0, 3)
        .map((p) => p.requests)
        .sort(),
    ).toEqual([3333, 3333, 3334])
    expect(summary.paths_approximate).toBe(true)
  })

  it('says nothing of approximation while no path was dropped', () => {
    const tally = new ReplayTally({ paths: 10 })
    for (let i = 0; i < 20; i++) tally.add({ method: 'GET', url: `/p/${i}` }, passed)
    expect(tally.summary().paths).toHaveLength(20)
    expect(tally.summary().paths_approximate).toBeUndefined()
  })
})
