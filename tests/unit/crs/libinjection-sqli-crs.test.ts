// libinjection's SQLi detection against ModSecurity 2.9.7's own: the answers its libinjection gave
// (tests/fixtures/libinjection/sqli-modsecurity.json, written by scripts/libinjection-answers.ts)
// on every value rule 942100 inspects in the CRS and benign corpora and on random inputs, and
// rule 942100's verdict per request against the golden files ModSecurity wrote
// (tests/fixtures/crs/golden-pl1.jsonl).
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { multiMatch, requestOf, targetsOf } from '../../../scripts/libinjection-answers'
import { detectSqli } from '../../../src-main/engine/crs/libinjection/sqli'

const FIXTURES = resolve(import.meta.dirname, '../../fixtures')
const { answers, corpusValues } = JSON.parse(
  readFileSync(resolve(FIXTURES, 'libinjection/sqli-modsecurity.json'), 'utf8'),
) as { answers: [string, string][]; corpusValues: number }

const lines = (file: string) =>
  readFileSync(resolve(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
const corpus = [...lines('crs/crs-tests.ndjson'), ...lines('crs/benign.ndjson')].map((line) => ({
  id: (JSON.parse(line) as { id: string }).id,
  line,
}))
const golden = new Map(
  lines('crs/golden-pl1.jsonl').map((line) => {
    const record = JSON.parse(line) as { id: string; score: number | null; rules: number[] }
    return [record.id, record] as const
  }),
)

/** Whether rule 942100 matches the request: @detectSQLi on any value it inspects. */
function rule942100(line: string): boolean {
  return targetsOf(requestOf(line))
    .flatMap(multiMatch)
    .some((value) => detectSqli(value) !== undefined)
}

describe("ModSecurity 2.9.7's libinjection", () => {
  it('gives the same answer on every corpus value and random input', () => {
    expect(corpusValues).toBeGreaterThan(2000)
    const differing = answers
      .filter(([input, fingerprint]) => (detectSqli(input) ?? '') !== fingerprint)
      .map(([input, fingerprint]) => ({ input, modsecurity: fingerprint, ours: detectSqli(input) }))
    expect(differing).toEqual([])
    expect(answers.filter(([, fingerprint]) => fingerprint !== '').length).toBeGreaterThan(400)
  })
})

describe('rule 942100 (SQL Injection Attack Detected via libinjection)', () => {
  it("detects each of CRS's regression payloads for it", () => {
    const tests = corpus.filter(({ id }) => id.startsWith('942100-'))
    expect(tests).toHaveLength(14)
    expect(tests.filter(({ line }) => !rule942100(line)).map(({ id }) => id)).toEqual([])
  })

  it('matches exactly the requests on which ModSecurity matched it, at paranoia level 1', () => {
    // Requests Apache refused before ModSecurity scored them carry no score and no verdict.
    const scored = corpus.filter(({ id }) => (golden.get(id)?.score ?? null) !== null)
    expect(scored.length).toBeGreaterThan(2600)
    const differing = scored
      .filter(({ id, line }) => rule942100(line) !== golden.get(id)!.rules.includes(942100))
      .map(({ id }) => id)
    expect(differing).toEqual([])
    expect(scored.filter(({ id }) => golden.get(id)!.rules.includes(942100)).length).toBe(96)
  })
})
