// The SecLang reader (src-main/engine/crs/seclang.ts) on the forms CRS 3.3.4 writes.
import { describe, expect, it } from 'vitest'
import type { CrsRule } from '../../../src-main/engine/crs/program'
import {
  parseActions,
  parseOperator,
  parseVariables,
  SecLangReader,
} from '../../../src-main/engine/crs/seclang'

function read(text: string) {
  const reader = new SecLangReader()
  reader.read(text, 'test.conf')
  return reader.items
}

describe('SecLang reader', () => {
  it('joins continued lines, skips comments and reads a rule with its actions', () => {
    const [rule] = read(`# a comment
SecRule REQUEST_COOKIES|!REQUEST_COOKIES:/__utm/|ARGS_NAMES|ARGS "@detectSQLi" \\
    "id:942100,\\
    phase:2,\\
    block,\\
    capture,\\
    t:none,t:utf8toUnicode,t:urlDecodeUni,\\
    msg:'SQL Injection Attack Detected via libinjection',\\
    tag:'attack-sqli',\\
    tag:'paranoia-level/1',\\
    severity:'CRITICAL',\\
    multiMatch,\\
    setvar:'tx.anomaly_score_pl1=+%{tx.critical_anomaly_score}'"
`) as CrsRule[]
    expect(rule).toEqual({
      id: 942100,
      phase: 2,
      variables: [
        { collection: 'REQUEST_COOKIES' },
        { collection: 'REQUEST_COOKIES', exclude: true, keyPattern: '__utm' },
        { collection: 'ARGS_NAMES' },
        { collection: 'ARGS' },
      ],
      operator: { name: 'detectsqli', parameter: '', negated: false },
      transformations: ['utf8tounicode', 'urldecodeuni'],
      capture: true,
      multiMatch: true,
      msg: 'SQL Injection Attack Detected via libinjection',
      tags: ['attack-sqli', 'paranoia-level/1'],
      severity: 'CRITICAL',
      setvars: [
        {
          collection: 'TX',
          name: 'anomaly_score_pl1',
          operation: 'add',
          value: '%{tx.critical_anomaly_score}',
        },
      ],
    })
  })

  it('reads chains into the starter, which alone has an id; chained rules take its phase', () => {
    const items = read(`SecRule REQUEST_METHOD "@streq POST" "id:1,phase:1,chain,skipAfter:END"
  SecRule &REQUEST_HEADERS:Content-Length "@eq 0" "t:none,setvar:tx.x=1"
SecMarker "END"
SecAction "id:2,phase:2,setvar:!tx.x,setvar:tx.y=-3"`)
    expect(items).toHaveLength(3)
    const [starter, marker, action] = items as [CrsRule, { marker: string }, CrsRule]
    expect(starter.skipAfter).toBe('END')
    expect(starter.chain).toMatchObject({
      phase: 1,
      variables: [{ collection: 'REQUEST_HEADERS', key: 'Content-Length', count: true }],
      operator: { name: 'eq', parameter: '0', negated: false },
      setvars: [{ collection: 'TX', name: 'x', operation: 'set', value: '1' }],
    })
    expect(starter.chain!.id).toBeUndefined()
    expect(marker).toEqual({ marker: 'END' })
    expect(action).toMatchObject({
      id: 2,
      variables: [],
      operator: { name: 'unconditionalmatch' },
      setvars: [
        { collection: 'TX', name: 'x', operation: 'delete' },
        { collection: 'TX', name: 'y', operation: 'subtract', value: '3' },
      ],
    })
  })

  it('takes the phase of SecDefaultAction for rules without one, and numbered severities', () => {
    const [rule] = read(`SecDefaultAction "phase:1,log,auditlog,pass"
SecRule REQBODY_ERROR "!@eq 0" "id:3,t:none,severity:2,ctl:requestBodyProcessor=JSON"`) as CrsRule[]
    expect(rule).toMatchObject({
      phase: 1,
      severity: 'CRITICAL',
      operator: { name: 'eq', parameter: '0', negated: true },
      controls: [{ name: 'requestBodyProcessor', value: 'JSON' }],
    })
  })

  it('reads targets: counts, exclusions, quoted keys and XPath selectors', () => {
    expect(parseVariables("&TX:x|XML:/*|XML://@*|REQUEST_HEADERS:'User-Agent'|TX:/^MSC_/")).toEqual(
      [
        { collection: 'TX', key: 'x', count: true },
        { collection: 'XML', key: '/*' },
        { collection: 'XML', key: '//@*' },
        { collection: 'REQUEST_HEADERS', key: 'User-Agent' },
        { collection: 'TX', keyPattern: '^MSC_' },
      ],
    )
  })

  it('takes a bare pattern as @rx, keeping the parameter as written', () => {
    expect(parseOperator('^application/json')).toEqual({
      name: 'rx',
      parameter: '^application/json',
      negated: false,
    })
    expect(parseOperator('!@within %{tx.allowed_methods}')).toEqual({
      name: 'within',
      parameter: '%{tx.allowed_methods}',
      negated: true,
    })
  })

  it("keeps commas inside quoted action values and unescapes \\'", () => {
    expect(parseActions("msg:'a, b',logdata:'it\\'s',t:none")).toEqual([
      ['msg', 'a, b'],
      ['logdata', "it's"],
      ['t', 'none'],
    ])
  })

  it('unescapes \\" and \\\\ in a double-quoted argument and keeps other backslashes', () => {
    const [rule] = read(String.raw`SecRule ARGS "@rx a\"b\d[\\']\\x00" "id:4"`) as CrsRule[]
    // as Apache's ap_getword_conf hands it to ModSecurity: 942440's `\\x00` is a NUL to PCRE
    expect(rule!.operator.parameter).toBe(String.raw`a"b\d[\']\x00`)
  })
})
