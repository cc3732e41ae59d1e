// The paranoia-level skips answered once per level (src-main/engine/crs/level-guards.ts), and only
// where no rule can change the level's variables.
import { describe, expect, it } from 'vitest'
import { CrsProgramRunner } from '../../../src-main/engine/crs/interpreter'
import { constantLevelKeys } from '../../../src-main/engine/crs/level-guards'
import type { CrsRequest } from '../../../src-main/engine/crs/request'
import { SecLangReader } from '../../../src-main/engine/crs/seclang'

function items(text: string) {
  const reader = new SecLangReader()
  reader.read(text, 'test.conf')
  return reader.items
}

function runner(text: string): CrsProgramRunner {
  return new CrsProgramRunner({
    program: { source: 'test', items: items(text), dataFiles: [] },
    data: {},
  })
}

const request: CrsRequest = {
  method: 'GET',
  uri: '/',
  protocol: 'HTTP/1.1',
  headers: [['Host', 'example.com']],
  body: '',
  remoteAddr: '127.0.0.1',
}

const SKIP_BELOW_2 = `SecRule TX:EXECUTING_PARANOIA_LEVEL "@lt 2" "id:1,phase:1,skipAfter:END-PL2"
SecAction "id:2,phase:1,setvar:tx.anomaly_score=+5"
SecMarker END-PL2`

const at = (level: number) => ({ paranoiaLevel: level, disabled: new Set<number>() })

describe('paranoia-level guards', () => {
  it('skip a level’s rules below it and run them from it on', () => {
    const program = runner(SKIP_BELOW_2)
    expect(program.run(request, at(1)).anomalyScore).toBe(0)
    expect(program.run(request, at(2)).anomalyScore).toBe(5)
    expect(program.run(request, at(1)).anomalyScore).toBe(0)
  })

  it('leave the skip to the request where a rule changes the level', () => {
    const program = runner(`SecAction "id:0,phase:1,setvar:tx.executing_paranoia_level=4"
${SKIP_BELOW_2}`)
    expect(program.run(request, at(1)).anomalyScore).toBe(5)
  })

  it('count the level constant when its only writer sets it while absent, as REQUEST-901 does', () => {
    const initialised = items(
      `SecRule &TX:executing_paranoia_level "@eq 0" "id:901125,phase:1,setvar:tx.executing_paranoia_level=%{TX.PARANOIA_LEVEL}"`,
    )
    expect(constantLevelKeys(initialised)).toEqual(
      new Set(['paranoia_level', 'executing_paranoia_level']),
    )
    const byMacro = items(`SecAction "id:3,phase:1,setvar:tx.executing_%{tx.x}=1"`)
    expect(constantLevelKeys(byMacro)).toEqual(new Set(['paranoia_level']))
  })
})
