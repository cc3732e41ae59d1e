// Rules nothing observes (src-main/engine/crs/tx-reads.ts), which run plans leave out, and the
// setvars whose writes nothing reads, which compiled rules leave out.
import { describe, expect, it } from 'vitest'
import { compileRule } from '../../../src-main/engine/crs/compiled-rule'
import type { CrsRule } from '../../../src-main/engine/crs/program'
import { SecLangReader } from '../../../src-main/engine/crs/seclang'
import { TxReads } from '../../../src-main/engine/crs/tx-reads'

function items(text: string) {
  const reader = new SecLangReader()
  reader.read(text, 'test.conf')
  return reader.items as CrsRule[]
}

const UA_HASH = `SecRule REQUEST_HEADERS:User-Agent "@rx ^.*$" "id:1,phase:1,t:sha1,setvar:tx.ua_hash=%{MATCHED_VAR}"`

function unobserved(program: string): boolean {
  const rules = items(program)
  return new TxReads(rules).unobserved(rules[0]!, new Set())
}

describe('TX reads', () => {
  it('leave out a rule whose only effect is a TX variable no rule reads', () => {
    expect(unobserved(UA_HASH)).toBe(true)
    expect(unobserved(`SecRule REQBODY_ERROR "!@eq 0" "id:2,phase:2,msg:'Failed'"`)).toBe(true)
  })

  it('keep it when a rule reads the variable by name, selector or macro', () => {
    expect(unobserved(`${UA_HASH}\nSecRule TX:UA_HASH "@streq x" "id:3,phase:1"`)).toBe(false)
    expect(unobserved(`${UA_HASH}\nSecRule TX:/^ua_/ "@streq x" "id:3,phase:1"`)).toBe(false)
    expect(unobserved(`${UA_HASH}\nSecAction "id:3,phase:1,setvar:tx.copy=%{tx.ua_hash}"`)).toBe(
      false,
    )
  })

  it('keep a rule that scores, skips, controls, or whose match a later rule reads', () => {
    expect(unobserved(`SecRule ARGS "@rx a" "id:4,phase:2,setvar:tx.anomaly_score_pl1=+5"`)).toBe(
      false,
    )
    expect(unobserved(`SecRule ARGS "@rx a" "id:5,phase:2,skipAfter:END"\nSecMarker END`)).toBe(
      false,
    )
    expect(unobserved(`SecRule ARGS "@rx a" "id:6,phase:2,ctl:ruleEngine=Off"`)).toBe(false)
    expect(unobserved(`${UA_HASH}\nSecRule MATCHED_VAR "@streq x" "id:7,phase:1"`)).toBe(false)
  })
})

describe('the setvars a compiled rule runs', () => {
  function setvarsOf(program: string): string[] {
    const rules = items(program)
    const reads = new TxReads(rules)
    const compiled = compileRule(rules[0]!, rules[0]!.id, {
      data: {},
      capturesRead: new Set(),
      txRead: (key) => reads.reads(key),
      slot: () => 0,
      prefix: () => 0,
    })
    return compiled.setvars.map((setvar) => setvar.name)
  }

  it('are the TX variables some rule reads, the scores, and the names made of macros', () => {
    const scoring = `SecRule ARGS "@rx a" "id:1,phase:2,setvar:tx.SQL_Injection_Score=+5,setvar:tx.anomaly_score_pl1=+5,setvar:tx.Seen=1,setvar:tx.%{rule.id}-x=1,setvar:ip.flag=1"`
    expect(setvarsOf(scoring)).toEqual(['anomaly_score_pl1', '%{rule.id}-x'])
    expect(setvarsOf(`${scoring}\nSecRule TX:SEEN "@eq 1" "id:2,phase:2"`)).toEqual([
      'anomaly_score_pl1',
      'seen',
      '%{rule.id}-x',
    ])
  })
})
