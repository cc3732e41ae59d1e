// libinjection's SQLi detection (src-main/engine/crs/libinjection/sqli.ts) against libinjection's
// own test vectors (converted by scripts/libinjection-data.ts into
// tests/fixtures/libinjection/sqli-vectors.json), and fast-check properties: it never throws, its
// work grows linearly with the input, and every pass clears the inputs it answers without one.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { detectSqli, SqliFolding, sqliPasses } from '../../../src-main/engine/crs/libinjection/sqli'
import {
  FLAG,
  SqliTokenizer,
  SqliToken,
  TYPE,
} from '../../../src-main/engine/crs/libinjection/sqli-tokenizer'

interface Vector {
  file: string
  kind: 'tokens' | 'folding' | 'sqli'
  title: string
  input: string
  expected: string
}

const FIXTURE = resolve(import.meta.dirname, '../../fixtures/libinjection/sqli-vectors.json')
const { vectors } = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { vectors: Vector[] }

/** A token as libinjection's testdriver.c prints it: type, space, value (strings quoted). */
function printed(token: SqliToken): string {
  const quoted = token.strOpen + token.cValue() + token.strClose
  if (token.type === TYPE.STRING) return `${token.type} ${quoted}`
  if (token.type === TYPE.VARIABLE) return `${token.type} ${'@'.repeat(token.count)}${quoted}`
  return `${token.type} ${token.cValue()}`
}

const ANSI = FLAG.QUOTE_NONE | FLAG.SQL_ANSI

function tokenized(input: string): string {
  const tokenizer = new SqliTokenizer(input, ANSI)
  const token = new SqliToken()
  const lines: string[] = []
  while (tokenizer.next(token)) lines.push(printed(token))
  return lines.join('\n').trimEnd()
}

function folded(input: string): string {
  const folding = new SqliFolding(input, ANSI)
  const count = folding.fold()
  return folding.tokens.slice(0, count).map(printed).join('\n').trimEnd()
}

describe("libinjection's test vectors", () => {
  it('are all converted', () => {
    const kinds = new Map<string, number>()
    for (const v of vectors) kinds.set(v.kind, (kinds.get(v.kind) ?? 0) + 1)
    expect(Object.fromEntries(kinds)).toEqual({ folding: 118, sqli: 50, tokens: 249 })
  })

  it.each(vectors.filter((v) => v.kind === 'tokens').map((v) => [v.file, v] as const))(
    'tokens: %s',
    (_, v) => expect(tokenized(v.input)).toBe(v.expected),
  )

  it.each(vectors.filter((v) => v.kind === 'folding').map((v) => [v.file, v] as const))(
    'folding: %s',
    (_, v) => expect(folded(v.input)).toBe(v.expected),
  )

  it.each(vectors.filter((v) => v.kind === 'sqli').map((v) => [v.file, v] as const))(
    'sqli: %s',
    (_, v) => expect(detectSqli(v.input) ?? '').toBe(v.expected),
  )
})

describe('detectSqli', () => {
  it('answers the fingerprint of SQLi and undefined otherwise', () => {
    expect(detectSqli("1' or '1'='1")).toBe('s&sos')
    expect(detectSqli('1 union select 1,2,3--')).toBe('1UE1c')
    expect(detectSqli('hello world')).toBeUndefined()
    expect(detectSqli('')).toBeUndefined()
  })

  it('tries the MySQL dialect after a # or --x', () => {
    // ANSI reads '#' as an operator; MySQL as a comment
    expect(detectSqli('1 or 1=1#')).toBe('1&1c')
  })

  it('reads an evil comment (nested, or MySQL /*!) as X', () => {
    expect(detectSqli('1/*!union*/')).toBe('X')
    expect(detectSqli('/* a /* b */')).toBe('X')
  })

  it('keeps the heuristics that clear common text (answers as ModSecurity 2.9.7 gives them)', () => {
    // number then comment: SQLi when the byte after the number's length is white space, /* or --
    expect(detectSqli('1234 --')).toBe('1c')
    expect(detectSqli('1234--x')).toBe('1c')
    expect(detectSqli(' 1 --')).toBeUndefined()
    // a word then a comment only with /*
    expect(detectSqli('abc -- x')).toBeUndefined()
    expect(detectSqli('abc /* x */')).toBe('nc')
    // sp_password in the input keeps a fingerprint ending in a comment
    expect(detectSqli('foo -- bar sp_password')).toBe('nc')
    // a number and UNION alone are not SQLi
    expect(detectSqli('1 union')).toBeUndefined()
    expect(detectSqli('sexy and 17')).toBeUndefined()
    expect(detectSqli('sexy and 17<18')).toBe('n&1')
    // ...foo' + 'bar... is, 'foo' + 'bar' is not
    expect(detectSqli("a' + 'b")).toBe('sos')
    expect(detectSqli("'a' + 'b'")).toBeUndefined()
    expect(detectSqli('1 into x')).toBeUndefined()
  })
})

describe('one token', () => {
  // detectSqli answers these without a pass: every pass must find them clear.
  const keywords = Object.keys(
    (
      JSON.parse(
        readFileSync(
          resolve(import.meta.dirname, '../../../src-main/engine/crs/libinjection/sqli-data.json'),
          'utf8',
        ),
      ) as { keywords: Record<string, string> }
    ).keywords,
  ).filter((word) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(word))

  it('is no SQLi: not a keyword of libinjection, as it is or in other cases', () => {
    expect(keywords.length).toBeGreaterThan(500)
    for (const word of keywords)
      for (const variant of [word, word.toLowerCase(), `${word}1`, `x${word}`])
        expect(sqliPasses(variant), variant).toBeUndefined()
  })

  it('is no SQLi: any word or number', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,60}$/),
          fc.stringMatching(/^[0-9]{1,40}$/),
        ),
        (input) => sqliPasses(input) === undefined && detectSqli(input) === undefined,
      ),
      { numRuns: 5000 },
    )
  })

  it('stops being one at a character libinjection reads otherwise', () => {
    expect(detectSqli("admin'--")).toBe('sc')
    expect(detectSqli('1--')).toBe('1c')
  })
})

/** SQL-ish fragments, for inputs that reach every tokenizer step and folding rule. */
const FRAGMENTS = [
  ...["'", '"', '`', '(', ')', ',', ';', '{', '}', '[', ']', '\\', '\\N', '#', '--', '-- ', '-'],
  ...['/*', '*/', '/*!', '/', '*', '+', '~', '!', '!!', '!=', '<=>', '::', ':', '=', '||', '&&'],
  ...['@', '@@', '$', '$$', '$a$', '$1,0', '$.', '.', '0x', '0x1f', '0b01', '1', '1.5', '1e'],
  ...['1e5', '.5', '1f', "x'1f'", "b'01'", "N'", "E'", "q'[", "]'", "nq'(", "U&'", ' ', '\n'],
  ...['\u00a0', '\u0000', '\u00ff', 'select', 'UNION ALL', 'from', 'or', 'and', 'not in', 'like'],
  ...['into outfile', 'user', 'if', 'collate', 'utf8_general_ci', 'sp_password', 'admin', 'x'],
]
const fragment = fc.oneof(
  fc.constantFrom(...FRAGMENTS),
  fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code)),
)
const sqlish = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(''))
const binary = fc
  .array(fc.integer({ min: 0, max: 255 }), { maxLength: 200 })
  .map((codes) => String.fromCharCode(...codes))

describe('properties', () => {
  it('never throws, and answers a fingerprint of one to five token types', () => {
    fc.assert(
      fc.property(fc.oneof(sqlish, binary, fc.string()), (input) => {
        const fingerprint = detectSqli(input)
        if (fingerprint !== undefined) expect(fingerprint).toMatch(/^[^\0]{1,5}$/)
      }),
      { numRuns: 3000 },
    )
  })

  it('tokenizes in at most one token per character, and ends', () => {
    fc.assert(
      fc.property(sqlish, fc.constantFrom(1, 2, 4), fc.constantFrom(8, 16), (input, q, d) => {
        const tokenizer = new SqliTokenizer(input, q | d)
        const token = new SqliToken()
        let last = -1
        while (tokenizer.next(token)) {
          // every token moves the tokenizer forward
          expect(tokenizer.pos).toBeGreaterThan(last)
          last = tokenizer.pos
        }
        expect(tokenizer.statsTokens).toBeLessThanOrEqual(Math.max(input.length, 1))
      }),
      { numRuns: 2000 },
    )
  })

  it('does work linear in the input: a megabyte of repeated fragments takes seconds at most', () => {
    // A quadratic step would take hours on these inputs; linear work takes milliseconds.
    fc.assert(
      fc.property(sqlish, (unit) => {
        const input = unit.length === 0 ? "'" : unit.repeat(Math.ceil(1_000_000 / unit.length))
        const started = performance.now()
        detectSqli(input)
        expect(performance.now() - started).toBeLessThan(5_000)
      }),
      { numRuns: 25 },
    )
  })
})
