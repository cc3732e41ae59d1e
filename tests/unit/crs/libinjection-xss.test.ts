// libinjection's XSS detection (CRS's @detectXSS) against the engine CRS 3.3.4 runs on:
// libinjection's own HTML5 token streams and XSS samples, and generated edge cases, each with the
// verdict and tokens of libinjection in Debian's ModSecurity 2.9.7 module
// (tests/fixtures/libinjection/xss-vectors.json, written by scripts/libinjection-xss-fixtures.ts).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  Html5Context,
  Html5Tokenizer,
  Html5TokenType,
} from '../../../src-main/engine/crs/libinjection/html5'
import { detectXss } from '../../../src-main/engine/crs/libinjection/xss'

interface Vectors {
  html5: { file: string; title: string; input: string; expected: string }[]
  samples: { file: string; line: number; input: string; xss: boolean }[]
  edges: { input: string; xss: boolean; tokens: string[] }[]
}

const vectors = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../fixtures/libinjection/xss-vectors.json'), 'utf8'),
) as Vectors

const CONTEXTS = Object.values(Html5Context)

const TYPE_NAMES = new Map<number, string>(
  Object.entries(Html5TokenType).map(([name, type]) => [type, name]),
)

interface Token {
  type: number
  start: number
  length: number
}

function tokens(input: string, context: Html5Context): Token[] {
  const tokenizer = new Html5Tokenizer().reset(input, context)
  const out: Token[] = []
  while (tokenizer.next()) {
    out.push({ type: tokenizer.type, start: tokenizer.start, length: tokenizer.length })
  }
  return out
}

/** Tokens as libinjection's src/testdriver.c prints them, trimmed at the end as it trims. */
function printed(input: string): string {
  return tokens(input, Html5Context.DATA)
    .map(
      (t) => `${TYPE_NAMES.get(t.type)},${t.length},${input.slice(t.start, t.start + t.length)}\n`,
    )
    .join('')
    .replace(/[ \n\t\r]+$/, '')
}

/** Tokens as the fixture's reference records them: `type,start,length;` each. */
function positions(input: string, context: Html5Context): string {
  return tokens(input, context)
    .map((t) => `${t.type},${t.start},${t.length};`)
    .join('')
}

describe('the HTML5 tokenizer', () => {
  it.each(vectors.html5.map((v) => [v.file, v.title, v] as const))(
    "%s (%s): libinjection's token stream",
    (_file, _title, vector) => {
      expect(printed(vector.input)).toBe(vector.expected)
    },
  )

  it('gives the reference token streams of the edge cases in all five contexts', () => {
    const differing = vectors.edges.filter(({ input, tokens: reference }) =>
      CONTEXTS.some((context) => positions(input, context) !== reference[context]),
    )
    expect(differing.map((e) => JSON.stringify(e.input))).toEqual([])
  })

  it('keeps the C quirks that decide verdicts', () => {
    // NUL inside a tag name is skipped, and between attributes is whitespace.
    expect(printed('<scr\0ipt>')).toBe('TAG_NAME_OPEN,7,scr\0ipt\nTAG_NAME_CLOSE,1,>')
    expect(printed('<a b\0onload=x>')).toBe(
      'TAG_NAME_OPEN,1,a\nATTR_NAME,1,b\nATTR_NAME,6,onload\nATTR_VALUE,1,x\nTAG_NAME_CLOSE,1,>',
    )
    // A 0xFF byte where an attribute would start ends the input (a signed char's -1).
    expect(printed('<a \xff onload=x>')).toBe('TAG_NAME_OPEN,1,a')
    // `</a >` leaves its close flag set: the next tag's `>` makes that tag a TAG_CLOSE.
    expect(printed('</a ><script>')).toBe(
      'TAG_NAME_OPEN,1,a\nTAG_NAME_CLOSE,1,>\nTAG_CLOSE,6,script',
    )
  })
})

describe('detectXss', () => {
  it("answers as ModSecurity 2.9.7 on libinjection's XSS samples", () => {
    const differing = vectors.samples.filter((s) => detectXss(s.input) !== s.xss)
    expect(differing.map((s) => `${s.file}:${s.line}`)).toEqual([])
    // The samples are attacks; libinjection misses a few of them, and so must we.
    expect(vectors.samples.filter((s) => !s.xss).length).toBeGreaterThan(0)
  })

  it('answers as ModSecurity 2.9.7 on the edge cases', () => {
    const differing = vectors.edges.filter((e) => detectXss(e.input) !== e.xss)
    expect(differing.map((e) => JSON.stringify(e.input))).toEqual([])
  })

  it.each([
    ['<script>alert(1)</script>', true],
    ['<!DOCTYPE html>', true],
    ['<img src=x onerror=alert(1)>', true],
    ['<a href="&#x6A;avascript:alert(1)">', true],
    ['<a href=" &#0000106avascript:">', true],
    ['<a href="jav&#x0A;ascript:">', true],
    // A reference beyond a byte is compared by its low byte (C's char cast): U+014A as J.
    ['<a href="&#x14A;ava:">', true],
    ['<a href="&#330;ava:">', true],
    ['<a href="&#x16a;ava:">', false],
    ['<a href="https://example.com/">', false],
    ['<b style="color: red">', true],
    ['<svg/onload=alert(1)>', true],
    ['<animate attributeName="href" values="javascript:">', true],
    ['<!--[if IE]><script><![endif]-->', true],
    ['<!-- a` -->', true],
    ['<?import namespace="t">', true],
    ['" onmouseover="alert(1)', true],
    ["' autofocus onfocus='alert(1)", true],
    ['x onload=y', true],
    ['hello <b>world</b>', false],
    ['a < b and c > d', false],
    ['1 + 1 = 2', false],
    ['', false],
  ])('%j is %s', (input, xss) => {
    expect(detectXss(input)).toBe(xss)
  })
})

describe('properties', () => {
  const byte = fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c))
  const piece = fc.constantFrom(
    '<',
    '>',
    '/',
    '=',
    '"',
    "'",
    '`',
    '!--',
    '-->',
    '&#x',
    ';',
    ' ',
    '\0',
    '\xff',
    'script',
    'on',
    'href',
    'javascript:',
    '<!doctype',
    '<![CDATA[',
    ']]>',
    '<%',
    '%>',
  )
  const markup = fc.array(fc.oneof(piece, byte), { maxLength: 40 }).map((parts) => parts.join(''))
  const binary = fc.string({ unit: byte, maxLength: 200 })

  it('never throws, and every pass ends having emitted at most one token per byte (+1)', () => {
    fc.assert(
      fc.property(fc.oneof(markup, binary), (input) => {
        expect(typeof detectXss(input)).toBe('boolean')
        for (const context of CONTEXTS) {
          const found = tokens(input, context)
          expect(found.length).toBeLessThanOrEqual(input.length + 1)
          for (const t of found) expect(t.start + t.length).toBeLessThanOrEqual(input.length)
        }
      }),
      { numRuns: 500 },
    )
  })

  it('scans megabyte inputs built to make a naive scanner quadratic', () => {
    // Each would take minutes at a quadratic cost; linear scanning ends them well within the
    // test's time limit. Only the verdicts are asserted.
    const n = 1 << 20
    const cases: [string, boolean][] = [
      ['<!--'.padEnd(n, '-x'), false],
      ['<![CDATA['.padEnd(n, ']x'), false],
      ['<%'.padEnd(n, '%x'), false],
      ['<a '.padEnd(n, 'b '), false],
      ['<a href="'.padEnd(n, '&#0'), false],
      ['<a title=`'.padEnd(n, '\0'), false],
      ['<!-- a'.padEnd(n, ' ') + '`', true],
      ['</ '.padEnd(n, '<!--x'), false],
    ]
    for (const [input, xss] of cases) expect(detectXss(input)).toBe(xss)
  })
})
