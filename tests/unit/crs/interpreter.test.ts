// The CRS interpreter (src-main/engine/crs/interpreter.ts) on small SecLang programs read by the
// real reader, with the real transformations and operators: ModSecurity 2.9's semantics that
// change scores (actions once per matched variable, multiMatch, exclusions, chains, skipAfter,
// phases, body processors).
import { resolve } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { requestContext } from '@shared/expression'
import { readCatalogFiles } from '../../../src-main/zones/rulesets/catalog'
import { CrsProgramRunner } from '../../../src-main/engine/crs/interpreter'
import { crsRequestOf } from '../../../src-main/engine/crs/request'
import { crsRequest, runnerOf } from './programs'

const SUM = `SecAction "id:9,phase:2,setvar:tx.anomaly_score=+%{tx.anomaly_score_pl1}"`
const options = { paranoiaLevel: 1, disabled: new Set<number>() }

describe('the CRS interpreter', () => {
  it('runs a rule’s actions once per matched variable, so two arguments score twice', () => {
    const program = runnerOf(`SecRule ARGS "@rx evil" "id:1,phase:2,setvar:tx.anomaly_score_pl1=+5"
${SUM}`)
    const result = program.run(crsRequest({ uri: '/?a=evil&b=evil&c=fine' }), options)
    expect(result.anomalyScore).toBe(10)
    expect(result.matches.get(1)).toMatchObject({ variable: 'ARGS:a', value: 'evil', score: 10 })
  })

  it('removes excluded keys from the targets before it, and counts with &', () => {
    const program =
      runnerOf(`SecRule REQUEST_COOKIES|!REQUEST_COOKIES:/__utm/ "@rx evil" "id:1,phase:1,setvar:tx.anomaly_score_pl1=+5"
SecRule &ARGS "@eq 2" "id:2,phase:2,setvar:tx.anomaly_score_pl1=+3"
${SUM}`)
    const result = program.run(
      crsRequest({ uri: '/?x=1&y=2', headers: [['Cookie', '__utma=evil; session=fine']] }),
      options,
    )
    expect(result.matches.has(1)).toBe(false)
    expect(result.anomalyScore).toBe(3)
  })

  it('runs a chained rule once the rule before it matched, with captures and MATCHED_VAR', () => {
    const program = runnerOf(`SecRule ARGS "@rx id=(\\d+)" "id:1,phase:2,capture,chain"
  SecRule TX:1 "@eq 42" "setvar:tx.anomaly_score_pl1=+5,setvar:tx.seen=%{MATCHED_VAR}"
SecRule TX:seen "@streq 42" "id:2,phase:2,setvar:tx.anomaly_score_pl1=+2"
${SUM}`)
    expect(program.run(crsRequest({ uri: '/?q=id%3D42' }), options).anomalyScore).toBe(7)
    expect(program.run(crsRequest({ uri: '/?q=id%3D41' }), options).anomalyScore).toBe(0)
  })

  it('writes the captures a rule reads, a later capture with fewer groups unsetting the rest', () => {
    const program =
      runnerOf(`SecRule ARGS:a "@rx (\\w)(\\w)(\\w)(\\w)(\\w)" "id:1,phase:2,capture,setvar:tx.fifth=%{tx.5}"
SecRule ARGS:b "@rx (\\w)" "id:2,phase:2,capture"
SecRule TX:5 "@rx ." "id:3,phase:2,setvar:tx.anomaly_score_pl1=+2"
SecRule TX:fifth "@streq e" "id:4,phase:2,setvar:tx.anomaly_score_pl1=+3"
SecRule TX:3 "@streq c" "id:5,phase:2,setvar:tx.anomaly_score_pl1=+5"
${SUM}`)
    expect(program.run(crsRequest({ uri: '/?a=abcde' }), options).anomalyScore).toBe(10)
    expect(program.run(crsRequest({ uri: '/?a=abcde&b=z' }), options).anomalyScore).toBe(3)
  })

  it('skips to the marker when the whole chain matched, and expands macros in parameters', () => {
    const program = runnerOf(`SecAction "id:1,phase:1,setvar:tx.limit=3"
SecRule &ARGS "@lt %{tx.limit}" "id:2,phase:2,skipAfter:END-CHECKS"
SecRule ARGS "@rx ." "id:3,phase:2,setvar:tx.anomaly_score_pl1=+5"
SecMarker END-CHECKS
${SUM}`)
    expect(program.run(crsRequest({ uri: '/?a=1' }), options).anomalyScore).toBe(0)
    expect(program.run(crsRequest({ uri: '/?a=1&b=2&c=3' }), options).anomalyScore).toBe(15)
  })

  it('sees only the query in phase 1 and the body’s arguments too in phase 2', () => {
    const program = runnerOf(`SecRule ARGS "@rx evil" "id:1,phase:1,setvar:tx.anomaly_score_pl1=+2"
SecRule ARGS "@rx evil" "id:2,phase:2,setvar:tx.anomaly_score_pl1=+5"
${SUM}`)
    const result = program.run(
      crsRequest({
        method: 'POST',
        uri: '/?q=evil',
        headers: [['Content-Type', 'application/x-www-form-urlencoded']],
        body: 'b=evil',
      }),
      options,
    )
    expect(result.matches.get(1)?.score).toBe(2)
    expect(result.matches.get(2)?.score).toBe(10)
  })

  it('parses a JSON body once a ctl selects the processor, naming arguments as msc_json.c does', () => {
    const program =
      runnerOf(`SecRule REQUEST_HEADERS:Content-Type "^application/json" "id:1,phase:1,t:lowercase,ctl:requestBodyProcessor=JSON"
SecRule ARGS_NAMES "@rx ^(?:a\\.b|c\\.c)$" "id:2,phase:2,setvar:tx.anomaly_score_pl1=+1"
SecRule REQBODY_ERROR "@eq 1" "id:3,phase:2,setvar:tx.anomaly_score_pl1=+100"
${SUM}`)
    const json = (body: string) =>
      program.run(
        crsRequest({ method: 'POST', headers: [['Content-Type', 'application/json']], body }),
        options,
      ).anomalyScore
    expect(json('{"a":{"b":1},"c":[2,3]}')).toBe(3)
    expect(json('{"a":')).toBe(100)
  })

  it('with multiMatch, runs the operator before the transformations and after each change', () => {
    const program =
      runnerOf(`SecRule ARGS "@rx a" "id:1,phase:2,t:none,t:lowercase,t:urlDecode,multiMatch,setvar:tx.anomaly_score_pl1=+1"
${SUM}`)
    // "a%41": matches as sent, after lowercase ("a%41" unchanged), after urlDecode ("aA")
    expect(program.run(crsRequest({ uri: '/?q=a%2541' }), options).anomalyScore).toBe(2)
  })

  it('with multiMatch, takes each transformation’s own report of a change', () => {
    const program =
      runnerOf(`SecRule ARGS "@rx x" "id:1,phase:2,t:none,t:utf8toUnicode,t:compressWhitespace,t:cmdLine,multiMatch,setvar:tx.anomaly_score_pl1=+1"
${SUM}`)
    const score = (query: string) => program.run(crsRequest({ uri: `/?q=${query}` }), options)
    // as sent, and after cmdLine, which always reports a change
    expect(score('x').anomalyScore).toBe(2)
    // utf8toUnicode made é %u00e9: one more
    expect(score('x%C3%A9').anomalyScore).toBe(3)
    // a bad lead byte utf8toUnicode drops is no change it reports
    expect(score('x%C3').anomalyScore).toBe(2)
    // compressWhitespace squeezed two spaces: one more; a tab made a space is none
    expect(score('x%20%20y').anomalyScore).toBe(3)
    expect(score('x%09y').anomalyScore).toBe(2)
  })

  it('neither runs nor scores a disabled rule', () => {
    const program =
      runnerOf(`SecRule ARGS "@rx evil" "id:1,phase:2,setvar:tx.anomaly_score_pl1=+5,setvar:tx.flag=1"
SecRule TX:flag "@eq 1" "id:2,phase:2,setvar:tx.anomaly_score_pl1=+1"
${SUM}`)
    const result = program.run(crsRequest({ uri: '/?q=evil' }), {
      paranoiaLevel: 1,
      disabled: new Set([1]),
    })
    expect(result.matches.size).toBe(0)
    expect(result.anomalyScore).toBe(0)
  })

  it('reads a request description as the server hands it on: a body has its length header', () => {
    const post = (headers: Record<string, string>) =>
      crsRequestOf(
        requestContext({ method: 'POST', url: '/form?a=1', headers, body: 'b=2' }),
      ).headers.map(([name, value]) => `${name}: ${value}`)
    expect(post({ host: 'example.com' })).toEqual(['host: example.com', 'Content-Length: 3'])
    // Transfer-Encoding wins over Content-Length, which Apache removes (RFC 9112 §6.3)
    expect(post({ 'transfer-encoding': 'chunked', 'content-length': '3' })).toEqual([
      'transfer-encoding: chunked',
    ])
    const get = crsRequestOf(requestContext({ method: 'GET', url: '/a/b.php?x=1' }))
    expect(get).toMatchObject({ method: 'GET', uri: '/a/b.php?x=1', protocol: 'HTTP/1.1' })
  })

  it('runs the real CRS program on any request without throwing (property)', () => {
    const owasp = readCatalogFiles(resolve(import.meta.dirname, '../../../resources')).find(
      (ruleset) => ruleset.crs !== undefined,
    )!
    const crs = new CrsProgramRunner(owasp.crs!)
    const types = [
      'application/json',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'text/plain',
    ]
    const bytes = fc.string({
      unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)),
    })
    fc.assert(
      fc.property(
        fc.constantFrom('GET', 'POST', 'PUT', 'get'),
        bytes,
        bytes,
        fc.constantFrom(...types),
        bytes,
        fc.integer({ min: 1, max: 4 }),
        (method, query, cookie, type, body, level) => {
          const result = crs.run(
            crsRequest({
              method,
              uri: `/p?${query}`,
              headers: [
                ['Host', 'example.com'],
                ['Cookie', cookie],
                ['Content-Type', type],
              ],
              body: type.startsWith('multipart') ? `--x\r\n${body}\r\n--x--\r\n` : body,
            }),
            { paranoiaLevel: level, disabled: new Set() },
          )
          expect(result.anomalyScore).toBeGreaterThanOrEqual(0)
        },
      ),
      { numRuns: 150 },
    )
  })
})
