// Which rules' captures (TX:0-9) anything reads (src-main/engine/crs/capture-reads.ts), and the
// match a rule that only tested its values still reports.
import { describe, expect, it } from 'vitest'
import { capturesRead } from '../../../src-main/engine/crs/capture-reads'
import type { CrsRule } from '../../../src-main/engine/crs/program'
import { SecLangReader } from '../../../src-main/engine/crs/seclang'
import { crsRequest, runnerOf } from './programs'

function items(text: string) {
  const reader = new SecLangReader()
  reader.read(text, 'test.conf')
  return reader.items as CrsRule[]
}

const ids = (read: Set<CrsRule>, rules: CrsRule[]) =>
  rules.filter((rule) => read.has(rule)).map((rule) => rule.id)

describe('capture reads', () => {
  it('count captures read by the rule’s own setvars or by a later link of its chain', () => {
    const rules = items(`SecRule ARGS "@rx (a)" "id:1,phase:2,capture,setvar:tx.x=%{tx.1}"
SecRule ARGS "@rx (b)" "id:2,phase:2,capture,setvar:tx.anomaly_score_pl1=+5"
SecRule ARGS "@rx (c)" "id:3,phase:2,capture,chain"
SecRule TX:1 "@streq c" "setvar:tx.y=1"`)
    expect(ids(capturesRead(rules), rules)).toEqual([1, 3])
  })

  it('count every capture once a rule reads TX:0-9 its chain did not capture', () => {
    const rules =
      items(`SecRule ARGS "@rx (b)" "id:2,phase:2,capture,setvar:tx.anomaly_score_pl1=+5"
SecRule TX:/^\\d$/ "@streq b" "id:4,phase:2,setvar:tx.z=1"`)
    expect(ids(capturesRead(rules), rules)).toEqual([2])
  })

  it('report what a rule that only tested its values matched', () => {
    const runner = runnerOf(
      `SecRule ARGS "@rx b+c" "id:5,phase:2,capture,setvar:tx.anomaly_score_pl1=+5"`,
    )
    const request = crsRequest({ uri: '/?q=abbbcd' })
    const match = runner.run(request, { paranoiaLevel: 1, disabled: new Set() }).matches.get(5)
    expect(match).toMatchObject({ variable: 'ARGS:q', value: 'abbbcd', match: 'bbbc', score: 5 })
  })
})
