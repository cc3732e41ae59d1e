// The replay and side-by-side replay summaries that the routes and the screens both add up
// (src-shared/replay): the path a request counts under, read as the vendor's
// http.request.uri.path reads it, and the same totals whether a file is added up request by
// request (the route) or from the summaries of its chunks (the screens).

import { describe, expect, it } from 'vitest'
import { requestContext } from '@shared/expression'
import type { Outcome, SimulationEvent } from '@shared/api/simulate'
import type { ComparedRequest } from '@shared/api/waf'
import { harEntries, requestPath, trafficLines } from '@shared/replay/traffic'
import { ReplayTally, type TalliedSimulation } from '@shared/replay/replay-tally'
import { ComparisonTally } from '@shared/replay/comparison-tally'

const URLS = [
  'https://x.test/a?q=1',
  'https://x.test/a#top',
  '/a#top',
  '/a?b#c',
  'https://x.test',
  'https://x.test?q=1',
  'HTTP://X.TEST/Upper',
  'https://user@x.test:8443/login',
  '/wp-admin//admin.php',
  '/a/./b/../c',
  '/%7Euser/%41',
  '\\windows\\path',
  '/ü',
  '',
  '?only=query',
]

describe('requestPath', () => {
  it.each(URLS)('cuts %j as http.request.uri.path reads it', (url) => {
    const fields = requestContext({ method: 'GET', url }).fields
    expect(requestPath(url)).toBe(fields['http.request.uri.path'])
  })

  it('drops scheme, host, query and fragment, and normalises', () => {
    expect(requestPath('https://x.test/a?q=1')).toBe('/a')
    expect(requestPath('/a#top')).toBe('/a')
    expect(requestPath('https://x.test')).toBe('/')
    expect(requestPath('/a/./b/../c')).toBe('/a/c')
    expect(requestPath('//a///b')).toBe('/a/b')
  })
})

describe('traffic files', () => {
  it('reads a HAR document, and nothing else, as HAR', () => {
    expect(harEntries(JSON.stringify({ log: { entries: [{ request: {} }] } }))).toEqual([
      { request: {} },
    ])
    expect(harEntries('{"method":"GET","url":"/"}')).toBeUndefined()
    expect(harEntries('{"log":{}}\n{"log":{}}')).toBeUndefined()
    expect(harEntries('[]')).toBeUndefined()
  })

  it('numbers NDJSON lines in the file, skipping blank ones', () => {
    expect(trafficLines(' a \n\n\r\nb\n')).toEqual([
      { line: 'a', number: 1 },
      { line: 'b', number: 4 },
    ])
  })
})

const event = (rule: string, action: string): SimulationEvent => ({
  ruleset_id: 'rs',
  rule_id: rule,
  action,
  description: `rule ${rule}`,
  source: 'firewallManaged',
})

/** A replay's requests and what the zone did to each. */
const REPLAYED: { method: string; url: string; simulation: TalliedSimulation }[] = [
  ['/login?u=1', 'blocked', [event('sqli', 'block')]],
  ['https://x.test/login#form', 'blocked', [event('sqli', 'block'), event('xss', 'log')]],
  ['/', 'passed', []],
  ['/static/app.js', 'passed', [event('xss', 'log')]],
  ['/admin', 'challenged', [event('bots', 'managed_challenge')]],
  ['/a/../login', 'blocked', [event('sqli', 'block')]],
  ['https://x.test', 'passed', []],
].map(([url, outcome, events], index) => ({
  method: 'GET',
  url: url as string,
  simulation: {
    ray_id: `ray${index}`,
    outcome: outcome as Outcome,
    action: outcome === 'passed' ? null : (events as SimulationEvent[])[0]!.action,
    events: events as SimulationEvent[],
  },
}))

describe('ReplayTally', () => {
  it('counts outcomes, rules by ruleset, rule and action, and paths, most requests first', () => {
    const tally = new ReplayTally()
    for (const { method, url, simulation } of REPLAYED) tally.add({ method, url }, simulation)
    const summary = tally.summary()
    expect(summary.requests).toBe(7)
    expect(summary.outcomes).toEqual({ blocked: 3, challenged: 1, passed: 3 })
    expect(summary.rules.map((rule) => [rule.rule_id, rule.action, rule.requests])).toEqual([
      ['sqli', 'block', 3],
      ['xss', 'log', 2],
      ['bots', 'managed_challenge', 1],
    ])
    expect(summary.paths).toEqual([
      { path: '/login', requests: 3, blocked: 3, challenged: 0, passed: 0 },
      { path: '/', requests: 2, blocked: 0, challenged: 0, passed: 2 },
      { path: '/static/app.js', requests: 1, blocked: 0, challenged: 0, passed: 1 },
      { path: '/admin', requests: 1, blocked: 0, challenged: 1, passed: 0 },
    ])
    expect(summary.results).toBeUndefined()
    expect(tally.summary({ paths: 2 }).paths.map((path) => path.path)).toEqual(['/login', '/'])
  })

  it('lists each request when asked, in request order', () => {
    const tally = new ReplayTally({ results: true })
    for (const { method, url, simulation } of REPLAYED.slice(0, 2)) {
      tally.add({ method, url }, simulation)
    }
    expect(tally.summary().results).toEqual([
      {
        ray_id: 'ray0',
        method: 'GET',
        url: '/login?u=1',
        outcome: 'blocked',
        action: 'block',
        rules: ['sqli'],
      },
      {
        ray_id: 'ray1',
        method: 'GET',
        url: 'https://x.test/login#form',
        outcome: 'blocked',
        action: 'block',
        rules: ['sqli', 'xss'],
      },
    ])
  })

  it('adds up chunks to what the whole file sums to, though each chunk lists only its top paths', () => {
    const whole = new ReplayTally()
    for (const { method, url, simulation } of REPLAYED) whole.add({ method, url }, simulation)

    const total = new ReplayTally()
    for (let start = 0; start < REPLAYED.length; start += 3) {
      const chunk = new ReplayTally({ results: true })
      for (const { method, url, simulation } of REPLAYED.slice(start, start + 3)) {
        chunk.add({ method, url }, simulation)
      }
      total.addSummary(chunk.summary({ paths: 1 }))
    }
    expect(total.summary()).toEqual(whole.summary())
  })
})

describe('ComparisonTally', () => {
  /** The request at `index` of its chunk, `/n` the n-th of the file. */
  const compared = (
    index: number,
    previous: Outcome,
    next: Outcome,
    url = `/${index}`,
  ): ComparedRequest => ({
    index,
    method: 'GET',
    url,
    differs: previous !== next,
    previous: { outcome: previous, action: null, rules: [] },
    new: { outcome: next, action: null, rules: [] },
  })
  const REQUESTS: [Outcome, Outcome][] = [
    ['passed', 'passed'],
    ['challenged', 'blocked'],
    ['blocked', 'blocked'],
    ['passed', 'blocked'],
    ['blocked', 'passed'],
  ]

  it('counts outcomes and the matrix, and lists differences first, each group in order', () => {
    const tally = new ComparisonTally('entrypoint')
    REQUESTS.forEach(([previous, next], index) => tally.add(compared(index, previous, next)))
    const comparison = tally.comparison()
    expect(comparison.requests).toBe(5)
    expect(comparison.differences).toBe(3)
    expect(comparison.new_configuration).toBe('entrypoint')
    expect(comparison.outcomes).toEqual({
      previous: { blocked: 2, challenged: 1, passed: 2 },
      new: { blocked: 3, challenged: 0, passed: 2 },
    })
    expect(comparison.matrix).toEqual({
      blocked: { blocked: 1, challenged: 0, passed: 1 },
      challenged: { blocked: 1, challenged: 0, passed: 0 },
      passed: { blocked: 1, challenged: 0, passed: 1 },
    })
    expect(comparison.results.map((result) => result.index)).toEqual([1, 3, 4, 0, 2])
  })

  it('adds up chunks numbered from their own start to what the whole file sums to', () => {
    const whole = new ComparisonTally()
    REQUESTS.forEach(([previous, next], index) => whole.add(compared(index, previous, next)))

    const total = new ComparisonTally()
    for (let start = 0; start < REQUESTS.length; start += 2) {
      const chunk = new ComparisonTally()
      REQUESTS.slice(start, start + 2).forEach(([previous, next], index) =>
        chunk.add(compared(index, previous, next, `/${start + index}`)),
      )
      total.addComparison(chunk.comparison(), start + 1)
    }
    expect(total.comparison()).toEqual(whole.comparison())
  })
})
