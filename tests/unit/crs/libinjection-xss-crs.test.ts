// CRS's rule 941100 ("XSS Attack Detected via libinjection") asks @detectXSS about each cookie,
// cookie name, User-Agent, argument and argument name after its transformations. Here detectXss
// sees those values, taken from each corpus request's exact bytes and transformed by the engine's
// own transformations, and must agree with ModSecurity 2.9.7: on the payloads CRS's regression
// tests say 941100 must or must not detect, and on whether 941100 matched in the golden file of
// every other request whose values these few parsers can give (tests/fixtures/crs/README.md).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { detectXss } from '../../../src-main/engine/crs/libinjection/xss'
import type { CrsProgram, CrsRule } from '../../../src-main/engine/crs/program'
import { parseArguments, parseCookies } from '../../../src-main/engine/crs/request'
import { transformation } from '../../../src-main/engine/crs/transformations'

const ROOT = join(import.meta.dirname, '../../..')
const CRS = join(ROOT, 'tests/fixtures/crs')

interface CorpusRecord {
  id: string
  wire: string
  expect_ids: number[]
  expect_not_ids: number[]
  wb_ok: boolean
}

interface Golden {
  id: string
  status: number
  score: number | null
  rules: number[]
}

const ndjson = <T>(file: string): T[] =>
  readFileSync(join(CRS, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T)

const program = JSON.parse(
  readFileSync(
    join(ROOT, 'resources/managed-rulesets/4814384a9e5d4991b9815dcfc25d2f1f.crs.json'),
    'utf8',
  ),
) as CrsProgram
const rule = program.items.find((item): item is CrsRule => 'id' in item && item.id === 941100)
if (!rule) throw new Error('rule 941100 is not in the CRS program')

const transform = (value: string) =>
  rule.transformations.reduce((v, name) => {
    const fn = transformation(name)
    if (!fn) throw new Error(`no transformation ${name}`)
    return fn(v)
  }, value)

interface Request {
  uri: string
  headers: [string, string][]
  body: string
}

/** A request's line, headers and body from its exact bytes (a binary string). */
function readWire(wire: string): Request {
  const bytes = Buffer.from(wire, 'base64').toString('latin1')
  const headEnd = bytes.indexOf('\r\n\r\n')
  const [line = '', ...headerLines] = bytes.slice(0, headEnd).split('\r\n')
  const headers = headerLines.map((h): [string, string] => {
    const colon = h.indexOf(':')
    return [h.slice(0, colon), h.slice(colon + 1).trim()]
  })
  return { uri: line.split(' ')[1] ?? '', headers, body: bytes.slice(headEnd + 4) }
}

/** A header's value as Apache gives it to ModSecurity: repeated headers joined with `, `. */
function header(request: Request, name: string): string | undefined {
  const values = request.headers.filter(([n]) => n.toLowerCase() === name.toLowerCase())
  return values.length === 0 ? undefined : values.map(([, v]) => v).join(', ')
}

/** Body processors other than urlencoded fill ARGS and XML in ways these parsers do not. */
const OTHER_BODY = /xml|json|multipart/i

/** The values 941100 inspects, before transformations, by the targets its rule names. */
function inspected(request: Request): string[] {
  const query = request.uri.includes('?') ? request.uri.slice(request.uri.indexOf('?') + 1) : ''
  const args = parseArguments(query.split('#')[0] ?? '')
  const contentType = header(request, 'Content-Type') ?? ''
  if (/^application\/x-www-form-urlencoded/i.test(contentType)) {
    args.push(...parseArguments(request.body))
  }
  const cookies = parseCookies(header(request, 'Cookie') ?? '')
  const userAgent = header(request, 'User-Agent')
  return [
    ...cookies.filter(([name]) => !/__utm/i.test(name)).map(([, value]) => value),
    ...cookies.map(([name]) => name),
    ...(userAgent === undefined ? [] : [userAgent]),
    ...args.map(([name]) => name),
    ...args.map(([, value]) => value),
  ]
}

const detects = (request: Request) => inspected(request).some((v) => detectXss(transform(v)))

describe('rule 941100', () => {
  it('is @detectXSS on the targets and transformations these tests apply', () => {
    expect(rule.operator).toMatchObject({ name: 'detectxss', negated: false })
    expect(rule.transformations).toEqual([
      'utf8tounicode',
      'urldecodeuni',
      'htmlentitydecode',
      'jsdecode',
      'cssdecode',
      'removenulls',
    ])
    expect(rule.variables.map((v) => [v.collection, v.key ?? v.keyPattern, !!v.exclude])).toEqual([
      ['REQUEST_COOKIES', undefined, false],
      ['REQUEST_COOKIES', '__utm', true],
      ['REQUEST_COOKIES_NAMES', undefined, false],
      ['REQUEST_HEADERS', 'User-Agent', false],
      ['ARGS_NAMES', undefined, false],
      ['ARGS', undefined, false],
      ['XML', '/*', false],
    ])
  })

  const corpus = ndjson<CorpusRecord>('crs-tests.ndjson')
  const own = corpus.filter((r) => /^941100-/.test(r.id))

  it.each(own.map((r) => [r.id, r] as const))(
    "%s: detects what CRS's regression test expects",
    (_id, record) => {
      const detected = detects(readWire(record.wire))
      if (record.expect_ids.includes(941100)) expect(detected).toBe(true)
      if (record.expect_not_ids.includes(941100)) expect(detected).toBe(false)
    },
  )

  it('matches exactly where ModSecurity matched it, over the whole corpus', () => {
    const golden = new Map(ndjson<Golden>('golden-pl1.jsonl').map((g) => [g.id, g]))
    const records = [...corpus, ...ndjson<CorpusRecord>('benign.ndjson')]
    let compared = 0
    let matched = 0
    const differing: string[] = []
    for (const record of records) {
      const reference = golden.get(record.id)
      // Not comparable: requests only their raw bytes describe, and those Apache refused.
      if (!record.wb_ok || !reference || reference.score === null) continue
      const request = readWire(record.wire)
      if (OTHER_BODY.test(header(request, 'Content-Type') ?? '')) continue
      const expected = reference.rules.includes(941100)
      if (detects(request) !== expected) differing.push(`${record.id} (reference ${expected})`)
      compared++
      if (expected) matched++
    }
    expect(differing).toEqual([])
    // Enough of the corpus is compared for the agreement to mean something.
    expect(compared).toBeGreaterThan(1500)
    expect(matched).toBeGreaterThan(40)
  })
})
