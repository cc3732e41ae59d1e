// The body the OWASP ruleset reads: the whole of it, as ModSecurity parses it (a form's files count
// towards its 13 MB limit, not towards the 128 KB one for the rest), where the Rules language's
// body fields stop at the inspection limit. Found by a differential fuzz run: a field after a
// large file was not seen, because the form cut short had no final boundary.
import { describe, expect, it } from 'vitest'
import { DEFAULT_BODY_LIMIT, requestContext } from '@shared/expression'
import { crsRequestOf } from '../../../src-main/engine/crs/request'
import { runOnDescription } from './programs'

const PROGRAM = `SecRule ARGS "@contains <script>" "id:1,phase:2,setvar:tx.anomaly_score_pl1=+5"
SecAction "id:9,phase:2,setvar:tx.anomaly_score=+%{tx.anomaly_score_pl1}"`

const file = 'a'.repeat(DEFAULT_BODY_LIMIT + 10_000)
const form = [
  '--x',
  'Content-Disposition: form-data; name="upload"; filename="big.bin"',
  'Content-Type: application/octet-stream',
  '',
  file,
  '--x',
  'Content-Disposition: form-data; name="q"',
  '',
  '<script>',
  '--x--',
  '',
].join('\r\n')
const request = {
  method: 'POST',
  url: '/upload',
  headers: { Host: 'example.com', 'Content-Type': 'multipart/form-data; boundary=x' },
  body: form,
}

describe('the body the OWASP ruleset reads', () => {
  it('is the whole body, where the Rules fields stop at the inspection limit', () => {
    const ctx = requestContext(request)
    expect(ctx.fields['http.request.body.truncated']).toBe(true)
    expect(crsRequestOf(ctx).body).toBe(form)
  })

  it('holds the fields after a file larger than the inspection limit', () => {
    const result = runOnDescription(PROGRAM, request)
    expect([...result.matches.keys()]).toEqual([1])
    expect(result.matches.get(1)?.variable).toBe('ARGS:q')
  })
})
