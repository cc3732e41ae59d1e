// The prefilter may only refuse inputs the automaton would refuse too: `test` and `testScanned`
// (which consult the prefilter) must agree with a search that does not (`replaceFirst` runs the
// automaton on every input) on inputs built from each pattern's own literals, in mixed case, and
// on inputs scanned before the literal automaton covered a pattern's literals.
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compileRegex, parse } from '@shared/expression'
import { ScannedInput } from '@shared/expression/regex/prefilter'

const MARK = '\u0000matched\u0000'
const automatonMatches = (pattern: string, input: string) =>
  compileRegex(pattern).replaceFirst(input, () => MARK) !== input

const catalogPatterns = [
  'efb7b8c949ac4650a09736fc376e9aee',
  '4814384a9e5d4991b9815dcfc25d2f1f',
].flatMap((id) => {
  const file = resolve(import.meta.dirname, `../../../resources/managed-rulesets/${id}.json`)
  const rules = (JSON.parse(readFileSync(file, 'utf8')) as { rules: { expression: string }[] })
    .rules
  return rules.flatMap((rule) => {
    // Every regex literal of the rule's syntax tree.
    const patterns: string[] = []
    JSON.stringify(parse(rule.expression), (_key, value: unknown) => {
      const pattern = (value as { pattern?: unknown } | null)?.pattern
      if (typeof pattern === 'string') patterns.push(pattern)
      return typeof value === 'bigint' ? String(value) : value
    })
    return patterns
  })
})

const TRICKY = [
  'abc',
  '(?i)union\\s+select',
  'a|b|c',
  '(?:foo)?bar',
  'x*',
  '[\\r\\n]',
  '(?i)[a-c]{2}d',
  '^$',
  '(?i)k',
  '(?i)\\bs[a-z]+',
  '(?u)(?i)straße',
  'a(?:b|)c',
  '(?:ab){2,}',
  '\\x{41}\\x42',
  // byte sets, raw bytes, and conjunctions of literals
  '[^\\x20-\\x7e]',
  '^\\xac\\xed\\x00\\x05|^rO0AB',
  '[^\\w\\s.,/]{4,}',
  '(?:[~!@#$%^&*()\\-+={}\\[\\]|:;"\'<>][^~!@#$%^&*()\\-+={}\\[\\]|:;"\'<>]*?){3}',
  '(?i)/dev/tcp/[\\d.]+/\\d+|\\bnc(?:at)?\\s+(?:-[a-z]*e\\s+/bin/(?:ba)?sh|[\\d.]+\\s+\\d+\\s+-e)',
  '(?i)(?:[;|`]|&&|\\|\\||\\$\\()\\s*(?:cat|ls|id|whoami)\\b',
  '[\\x00-\\x08]|%0[0-8]',
  '[^\\x00-\\xff]',
  'a[bc]{2}d[e-z]',
  // Unicode mode: case folding of classes, characters beyond ASCII
  '(?iu)[j-l]{2}',
  '(?iu)[a-e]+x',
  '(?u)[^a-z]+é',
  '(?u)é|[\\x{80}-\\x{ff}]',
  '(?i)(?u:s)elect',
]

/** Any bytes (a binary string), and the UTF-8 bytes of characters that fold to ASCII ones. */
const bytes = fc.oneof(
  fc
    .array(fc.integer({ min: 0, max: 255 }), { maxLength: 3 })
    .map((codes) => String.fromCharCode(...codes)),
  fc.constantFrom('k', 's', 'j', 'a', 'x', '\u00e2\u0084\u00aa', '\u00c5\u00bf', '\u00c3\u00a9'),
)

/** Inputs made of the pattern's words and symbols and of other bytes, shuffled and case-flipped. */
function inputsFor(pattern: string) {
  const pieces = pattern.match(/[a-zA-Z]{2,}|[^a-zA-Z\\()[\]{}|?*+^$]/g) ?? ['a']
  return fc
    .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 3 }), bytes), {
      maxLength: 8,
    })
    .chain((parts) =>
      fc
        .array(fc.boolean(), { minLength: parts.length, maxLength: parts.length })
        .map((upper) => parts.map((part, i) => (upper[i] ? part.toUpperCase() : part)).join('')),
    )
}

describe('regex prefilter', () => {
  it(`never refuses an input the automaton matches (${TRICKY.length} tricky and ${catalogPatterns.length} catalog patterns)`, () => {
    for (const pattern of [...TRICKY, ...catalogPatterns]) {
      const regex = compileRegex(pattern)
      fc.assert(
        fc.property(inputsFor(pattern), (input) => {
          expect(regex.test(input), `${pattern} on ${JSON.stringify(input)}`).toBe(
            automatonMatches(pattern, input),
          )
        }),
        { numRuns: 60 },
      )
    }
  })

  it('agrees on inputs scanned once for every pattern, however many patterns look at them', () => {
    const patterns = [...TRICKY, ...catalogPatterns.slice(0, 120)]
    const regexes = patterns.map((pattern) => compileRegex(pattern))
    const pieces = patterns.flatMap((p) => p.match(/[a-zA-Z]{2,}|[^a-zA-Z\\()[\]{}|?*+^$]/g) ?? [])
    const input = fc
      .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 3 })), { maxLength: 10 })
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(input, (text) => {
        const scanned = new ScannedInput().reset(text)
        regexes.forEach((regex, i) => {
          expect(regex.testScanned(scanned), `${patterns[i]} on ${JSON.stringify(text)}`).toBe(
            automatonMatches(patterns[i]!, text),
          )
        })
      }),
      { numRuns: 40 },
    )
  })

  it('agrees on inputs scanned before the literal automaton covered a pattern', () => {
    // Literals no other pattern has, so that the automaton does not cover them yet.
    const word = `zq${Date.now().toString(36)}x`
    const known = compileRegex('(?i)union\\s+select')
    const text = `a ${word.toUpperCase()}kk union select`
    const early = new ScannedInput().reset(text)
    expect(known.testScanned(early)).toBe(true)
    const fresh = compileRegex(`(?i)${word}(?:kk|ll)|${word}zz`)
    expect(fresh.testScanned(early)).toBe(true)
    expect(fresh.testScanned(new ScannedInput().reset(`${word}z`))).toBe(false)
    // Enough plain searches rebuild the automaton; inputs scanned before keep answering rightly.
    for (let i = 0; i < 2500; i++) fresh.test(`${word.slice(0, 4)}-${i}`)
    expect(fresh.testScanned(early)).toBe(true)
    expect(fresh.testScanned(new ScannedInput().reset(text))).toBe(true)
    expect(fresh.testScanned(new ScannedInput().reset(`${word}zk`))).toBe(false)
  })

  it('agrees however many other values were tested in between (the recent inputs are reused)', () => {
    const regex = compileRegex('(?i)union\\s+select|sleep\\(')
    const values = Array.from({ length: 300 }, (_, i) =>
      i % 7 === 0 ? `x${i} UNION  select` : i % 11 === 0 ? `sleep(${i})` : `value ${i}`,
    )
    for (let round = 0; round < 2; round++) {
      for (const value of values)
        expect(regex.test(value), value).toBe(automatonMatches(regex.source, value))
    }
  })

  it('finds matches on raw bytes, byte sets and characters Unicode folds to letters', () => {
    const KELVIN = '\u00e2\u0084\u00aa'
    const cases: [string, string][] = [
      ['^\\xac\\xed\\x00\\x05|^rO0AB', '\u00ac\u00ed\u0000\u0005sr'],
      ['^\\xac\\xed\\x00\\x05|^rO0AB', 'rO0ABXNy'],
      ['[^\\x20-\\x7e]', 'tab\there'],
      ['[^\\w\\s.,/]{4,}', 'a=<>"\'b'],
      ['a[bc]{2}d[e-z]', 'xxacbdq'],
      ['(?iu)[j-l]{2}', 'xjk'],
      ['(?iu)[a-e]+x', 'caX'],
      ['(?i)(?u:s)elect', '\u00c5\u00bfelect'],
      ['(?u)é|[\\x{80}-\\x{ff}]', 'caf\u00c3\u00a9'],
    ]
    for (const [pattern, input] of cases) {
      expect(automatonMatches(pattern, input), `${pattern} on ${JSON.stringify(input)}`).toBe(true)
      expect(compileRegex(pattern).test(input), `${pattern} on ${JSON.stringify(input)}`).toBe(true)
    }
    // Whatever the automaton makes of other cases in a folded class, the prefilter agrees.
    for (const input of [`x${KELVIN}j`, 'xJK', 'CAX']) {
      for (const pattern of ['(?iu)[j-l]{2}', '(?iu)[a-e]+x']) {
        expect(compileRegex(pattern).test(input)).toBe(automatonMatches(pattern, input))
      }
    }
  })

  it('still finds matches whose literals appear in another case', () => {
    expect(compileRegex('(?i)union\\s+select').test('1 UnIoN   SeLeCt 2')).toBe(true)
    expect(compileRegex('[\\r\\n]').test('a\nb')).toBe(true)
    // Under Unicode case folding `k` also matches the Kelvin sign (bytes E2 84 AA).
    expect(compileRegex('(?u)(?i)k').test('\u00e2\u0084\u00aa')).toBe(
      automatonMatches('(?u)(?i)k', '\u00e2\u0084\u00aa'),
    )
  })
})
