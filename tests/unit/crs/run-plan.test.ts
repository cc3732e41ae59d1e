// What a level and the disabled rules leave of the CRS program (src-main/engine/crs/run-plan.ts):
// rules that read only TX no request can change are run once ahead of requests, and a request's
// run gives the same result as the walk of every enabled rule.
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { requestContext } from '@shared/expression'
import { CrsProgramRunner, type CrsMatch } from '../../../src-main/engine/crs/interpreter'
import { crsRequestOf } from '../../../src-main/engine/crs/request'
import { readCatalogFiles } from '../../../src-main/zones/rulesets/catalog'
import { describeRequest, readCorpus } from './corpus'
import { crsRequest, runnerOf } from './programs'

const request = crsRequest({ uri: '/?q=1' })

const SKIP_BELOW_2 = `SecRule TX:EXECUTING_PARANOIA_LEVEL "@lt 2" "id:1,phase:1,skipAfter:END-PL2"
SecAction "id:2,phase:1,setvar:tx.anomaly_score=+5"
SecMarker END-PL2`

/** A match's fields (its match found again where the rule only tested its values). */
const plain = ({ crsId, variable, value, match, score }: CrsMatch) => ({
  crsId,
  variable,
  value,
  match,
  score,
})

const at = (level: number, disabled: number[] = []) => ({
  paranoiaLevel: level,
  disabled: new Set(disabled),
})

describe('run plans', () => {
  it('skip a level’s rules below it and run them from it on', () => {
    const program = runnerOf(SKIP_BELOW_2)
    expect(program.run(request, at(1)).anomalyScore).toBe(0)
    expect(program.run(request, at(2)).anomalyScore).toBe(5)
    expect(program.run(request, at(1)).anomalyScore).toBe(0)
  })

  it('leave a skip to the request where a rule the request decides changes what it reads', () => {
    const program =
      runnerOf(`SecRule ARGS:q "@eq 1" "id:0,phase:1,setvar:tx.executing_paranoia_level=4"
${SKIP_BELOW_2}`)
    expect(program.run(request, at(1)).anomalyScore).toBe(5)
    expect(program.run({ ...request, uri: '/?q=2' }, at(1)).anomalyScore).toBe(0)
  })

  it('replay set-up defaults in place, and never fold past a skip left to the request', () => {
    const program = runnerOf(`SecRule &TX:score "@eq 0" "id:3,phase:1,setvar:tx.score=4"
SecRule ARGS:q "@eq 1" "id:4,phase:1,skipAfter:END"
SecAction "id:5,phase:1,setvar:tx.score=+1"
SecMarker END
SecAction "id:6,phase:2,setvar:tx.anomaly_score=%{tx.score}"`)
    expect(program.run(request, at(1)).anomalyScore).toBe(4)
    expect(program.run({ ...request, uri: '/?q=2' }, at(1)).anomalyScore).toBe(5)
  })

  it('neither fold nor run a disabled rule, and plan each disabled set apart', () => {
    const program = runnerOf(`SecAction "id:7,phase:1,setvar:tx.anomaly_score=+3"
SecAction "id:8,phase:1,setvar:tx.anomaly_score=+4"`)
    expect(program.run(request, at(1)).anomalyScore).toBe(7)
    expect(program.run(request, at(1, [7])).anomalyScore).toBe(4)
    expect(program.run(request, at(1, [8])).anomalyScore).toBe(3)
  })

  it('give the same matches and scores as the walk of every enabled rule, on the CRS corpus', () => {
    const bundle = readCatalogFiles(resolve(import.meta.dirname, '../../../resources')).find(
      (ruleset) => ruleset.crs !== undefined,
    )!.crs!
    const folded = new CrsProgramRunner(bundle)
    const walked = new CrsProgramRunner(bundle, false)
    const { regression, benign } = readCorpus()
    const requests = [...regression, ...benign]
      .filter((record) => record.wb_ok)
      .map((record) => crsRequestOf(requestContext(describeRequest(record))))
    for (const level of [1, 2, 3, 4]) {
      const options = at(level)
      for (const one of requests) {
        const mine = folded.run(one, options)
        const reference = walked.run(one, options)
        expect([...mine.matches.values()].map(plain)).toEqual(
          [...reference.matches.values()].map(plain),
        )
        expect(mine.anomalyScore).toBe(reference.anomalyScore)
      }
    }
  })
})
