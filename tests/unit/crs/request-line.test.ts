// The raw request line (RequestDescription's requestLine): the OWASP ruleset reads REQUEST_LINE,
// REQUEST_METHOD and REQUEST_URI_RAW as sent, where the description's url alone would have a
// target without a leading `/` made `/` (CRS's regression tests 933160-21 and 942500-1, which
// ModSecurity flags with 920100 for it).
import { describe, expect, it } from 'vitest'
import { requestContext, type RequestDescription } from '@shared/expression'
import { crsRequestOf } from '../../../src-main/engine/crs/request'
import { runOnDescription } from './programs'

const PROGRAM = `SecRule REQUEST_LINE "!@rx ^[a-z]{3,10}\\s+/" "id:1,phase:1,t:lowercase,setvar:tx.anomaly_score_pl1=+3"
SecRule REQUEST_METHOD "@streq post" "id:2,phase:1,t:lowercase,setvar:tx.anomaly_score_pl1=+2"
SecRule REQUEST_URI_RAW "@beginsWith ?" "id:3,phase:1,setvar:tx.anomaly_score_pl1=+4"
SecAction "id:9,phase:2,setvar:tx.anomaly_score=+%{tx.anomaly_score_pl1}"`

const run = (description: RequestDescription) => runOnDescription(PROGRAM, description)

const request = { method: 'POST', url: '?x=1', headers: { Host: 'example.com' } }

describe('the raw request line', () => {
  it('is what REQUEST_LINE, REQUEST_METHOD and REQUEST_URI_RAW read when given', () => {
    const result = run({ ...request, requestLine: 'POST ?x=1 HTTP/1.1' })
    expect([...result.matches.keys()]).toEqual([1, 2, 3])
    expect(result.matches.get(1)?.value).toBe('post ?x=1 http/1.1')
    expect(result.anomalyScore).toBe(9)
  })

  it('is made of method, url and version without it, the target then starting with /', () => {
    const result = run(request)
    expect([...result.matches.keys()]).toEqual([2])
    expect(result.anomalyScore).toBe(2)
  })

  it('is carried by the request context, and absent from it when not given', () => {
    expect(
      crsRequestOf(requestContext({ ...request, requestLine: 'POST ?x=1 HTTP/1.1' })),
    ).toMatchObject({
      line: 'POST ?x=1 HTTP/1.1',
    })
    expect(crsRequestOf(requestContext(request)).line).toBeUndefined()
  })
})
