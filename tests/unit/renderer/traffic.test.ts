// The traffic screens' pure parts: the Simulator's composed request as the simulate route takes
// it, the trace it shows by default, and Replay's chunks and the totals it adds up from them.

import { describe, expect, it } from 'vitest'
import { buildRequest, type DraftFields } from '../../../src-renderer/src/lib/request-fields'
import { splitTraffic } from '../../../src-renderer/src/lib/replay-chunks'
import { ReplayTally } from '@shared/replay/replay-tally'
import type { ReplaySummary, TraceNode } from '@shared/api/simulate'
import { visibleTrace } from '../../../src-renderer/src/features/simulator/trace-view'

const FIELDS: DraftFields = {
  method: 'POST',
  url: ' https://blog.example.org/wp-login.php ',
  headers: [
    { name: 'Content-Type', value: 'text/plain' },
    { name: 'accept', value: 'a' },
    { name: 'accept', value: 'b' },
    { name: '', value: 'ignored' },
  ],
  bodyMode: 'form',
  formRows: [
    { name: 'log', value: 'CF_EXPOSED_USERNAME' },
    { name: 'pwd', value: 'p&w d' },
  ],
  json: '{"a":1}',
  raw: '',
  ip: '203.0.113.7',
  country: 'de',
  botScore: 12,
  threatScore: null,
}

describe('buildRequest', () => {
  it('encodes a form body and states its content type over the one written', () => {
    expect(buildRequest(FIELDS)).toEqual({
      method: 'POST',
      url: 'https://blog.example.org/wp-login.php',
      headers: { accept: ['a', 'b'], 'content-type': 'application/x-www-form-urlencoded' },
      body: 'log=CF_EXPOSED_USERNAME&pwd=p%26w+d',
      ip: '203.0.113.7',
      country: 'DE',
      botScore: 12,
    })
  })

  it('sends JSON as written and raw bodies with the headers as written', () => {
    expect(buildRequest({ ...FIELDS, bodyMode: 'json' }).body).toBe('{"a":1}')
    const raw = buildRequest({ ...FIELDS, bodyMode: 'raw', raw: 'x=1' })
    expect(raw.body).toBe('x=1')
    expect(raw.headers?.['Content-Type']).toBe('text/plain')
    expect(buildRequest({ ...FIELDS, bodyMode: 'none' }).body).toBeUndefined()
  })
})

const rule = (id: string, extra: Partial<TraceNode>): TraceNode => ({
  kind: 'ruleset_rule',
  ruleset_id: 'r',
  rule_id: id,
  description: id,
  action: 'block',
  evaluated: true,
  matched: false,
  ...extra,
})

describe('visibleTrace', () => {
  const trace: TraceNode[] = [
    {
      ...rule('entry', { kind: 'entrypoint_rule', action: 'execute', matched: true }),
      children: [
        rule('miss', {}),
        rule('hit', { matched: true }),
        rule('off', { evaluated: false, not_evaluated: 'disabled', matched: undefined }),
        rule('anomaly', { total_score: 10, score_threshold: 40 }),
      ],
    },
    rule('unreached', { kind: 'firewall_rule', evaluated: false, not_evaluated: 'stopped' }),
  ]

  it('shows what matched, the anomaly total and the execute rule leading to them', () => {
    const [entry, ...rest] = visibleTrace(trace, false)
    expect(rest).toEqual([])
    expect(entry?.children.map((child) => child.node.rule_id)).toEqual(['hit', 'anomaly'])
    expect(entry?.hidden).toBe(2)
  })

  it('shows everything when asked', () => {
    const shown = visibleTrace(trace, true)
    expect(shown.map((item) => item.node.rule_id)).toEqual(['entry', 'unreached'])
    expect(shown[0]?.children).toHaveLength(4)
  })
})

describe('replay chunks', () => {
  it('splits NDJSON by request and reports a broken line by its line in the file', () => {
    const lines = Array.from({ length: 450 }, (_, i) =>
      JSON.stringify({ method: 'GET', url: `/${i}` }),
    )
    const chunks = splitTraffic(lines.join('\n\n'))
    expect(chunks.map((chunk) => [chunk.first, chunk.count])).toEqual([
      [1, 200],
      [201, 200],
      [401, 50],
    ])
    expect(() => splitTraffic('{"method":"GET","url":"/"}\n\nnot json')).toThrow(/^Line 3 /)
  })

  it('sends only the requests of a HAR file', () => {
    const har = {
      log: {
        entries: Array.from({ length: 201 }, () => ({
          request: { method: 'GET', url: 'https://x.test/' },
          response: { content: { text: 'large' } },
        })),
      },
    }
    const chunks = splitTraffic(JSON.stringify(har))
    expect(chunks.map((chunk) => chunk.count)).toEqual([200, 1])
    expect(chunks[1]?.body).toEqual({
      log: { entries: [{ request: { method: 'GET', url: 'https://x.test/' } }] },
    })
  })

  it('adds up outcomes, rules and paths across chunks', () => {
    const summary = (outcome: 'blocked' | 'passed', url: string): ReplaySummary => ({
      requests: 1,
      outcomes: { blocked: 0, challenged: 0, passed: 0, [outcome]: 1 },
      rules:
        outcome === 'blocked'
          ? [{ ruleset_id: 'r', rule_id: 'x', description: 'X', action: 'block', requests: 1 }]
          : [],
      paths: [],
      results: [{ ray_id: '1', method: 'GET', url, outcome, action: null, rules: [] }],
    })
    const tally = new ReplayTally()
    tally.addSummary(summary('blocked', 'https://x.test/a?q=1'))
    tally.addSummary(summary('blocked', '/a#top'))
    tally.addSummary(summary('passed', 'https://x.test'))
    const totals = tally.summary()
    expect(totals.requests).toBe(3)
    expect(totals.outcomes).toEqual({ blocked: 2, challenged: 0, passed: 1 })
    expect(totals.rules).toEqual([
      { ruleset_id: 'r', rule_id: 'x', description: 'X', action: 'block', requests: 2 },
    ])
    expect(totals.paths).toEqual([
      { path: '/a', requests: 2, blocked: 2, challenged: 0, passed: 0 },
      { path: '/', requests: 1, blocked: 0, challenged: 0, passed: 1 },
    ])
  })
})
