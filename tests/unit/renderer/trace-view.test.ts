// The Simulator trace's words for the CRS story: the anomaly verdict, the values a CRS rule read
// (escaped and cut), and the deployments whose expression did not match.

import { describe, expect, it } from 'vitest'
import type { TraceNode } from '../../../src-shared/api/simulate'
import {
  anomalySentence,
  escapeValue,
  nodeStatus,
  nodeTitle,
  shownValue,
  visibleTrace,
} from '../../../src-renderer/src/features/simulator/trace-view'

const node = (extra: Partial<TraceNode>): TraceNode => ({
  kind: 'ruleset_rule',
  ruleset_id: 'owasp',
  rule_id: '6179ae15870a4bb7b2d480d4843b323c',
  description: '949110: Inbound Anomaly Score Exceeded',
  action: 'block',
  evaluated: true,
  matched: true,
  ...extra,
})

describe('anomalySentence', () => {
  it('tells the total against the threshold at the paranoia level, and what followed', () => {
    const anomaly = node({ total_score: 18, score_threshold: 5, paranoia_level: 2 })
    expect(anomalySentence(anomaly)).toBe(
      'Score 18 at paranoia level 2 reached the threshold 5: blocked',
    )
    expect(anomalySentence({ ...anomaly, action: 'managed_challenge' })).toBe(
      'Score 18 at paranoia level 2 reached the threshold 5: challenged (Managed Challenge)',
    )
  })

  it('says a total below the threshold took no action, and leaves out an unknown level', () => {
    const below = node({ matched: false, total_score: 3, score_threshold: 40 })
    expect(anomalySentence(below)).toBe('Score 3 stayed below the threshold 40: no action')
  })

  it('has nothing to say of a rule without a total', () => {
    expect(anomalySentence(node({ score: 5 }))).toBeUndefined()
  })
})

describe('values a CRS rule read', () => {
  it('writes control characters as escapes and keeps everything else', () => {
    expect(escapeValue("1' or\n1=1\t--\u0000\u007f")).toBe("1' or\\n1=1\\t--\\x00\\x7f")
    expect(escapeValue('<script>é😀')).toBe('<script>é😀')
  })

  it('cuts a long value after whole characters, and says it did', () => {
    expect(shownValue('abc', 3)).toEqual({ text: 'abc', cut: false })
    expect(shownValue('😀😀😀😀', 2)).toEqual({ text: '😀😀…', cut: true })
    expect(shownValue('a\nb', 2)).toEqual({ text: 'a\\…', cut: true })
    expect(shownValue('x'.repeat(500), Infinity).cut).toBe(false)
  })
})

describe('a deployment whose expression did not match', () => {
  const deployment = node({
    kind: 'entrypoint_rule',
    ruleset_id: 'entry',
    rule_id: 'd1',
    description: '',
    action: 'execute',
    matched: false,
    expression: 'http.host eq "shop.example.com"',
    executes: 'owasp',
  })

  it('is shown by default, named by the ruleset it would have run', () => {
    expect(visibleTrace([deployment], false).map((item) => item.node.rule_id)).toEqual(['d1'])
    expect(nodeTitle(deployment, { owasp: 'Cloudflare OWASP Core Ruleset' })).toBe(
      'Execute Cloudflare OWASP Core Ruleset',
    )
    expect(nodeStatus(deployment)).toBe('Not matched: its ruleset did not run')
  })

  it('is not confused with a rule of a ruleset that did not match', () => {
    const miss = node({ matched: false })
    expect(visibleTrace([miss], false)).toEqual([])
    expect(nodeStatus(miss)).toBe('Not matched')
  })
})
