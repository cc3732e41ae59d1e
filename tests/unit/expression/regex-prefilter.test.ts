// The literal prefilter may only refuse inputs the automaton would refuse too: `test` (which
// consults the prefilter) must agree with a search that does not (`replaceFirst` runs the
// automaton on every input) on inputs built from each pattern's own literals, in mixed case.
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compileRegex, parse } from '@shared/expression'

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
]

/** Inputs made of the pattern's words and symbols, shuffled and case-flipped. */
function inputsFor(pattern: string) {
  const pieces = pattern.match(/[a-zA-Z]{2,}|[^a-zA-Z\\()[\]{}|?*+^$]/g) ?? ['a']
  return fc
    .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 3 })), { maxLength: 8 })
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

  it('still finds matches whose literals appear in another case', () => {
    expect(compileRegex('(?i)union\\s+select').test('1 UnIoN   SeLeCt 2')).toBe(true)
    expect(compileRegex('[\\r\\n]').test('a\nb')).toBe(true)
    // Under Unicode case folding `k` also matches the Kelvin sign (bytes E2 84 AA).
    expect(compileRegex('(?u)(?i)k').test('\u00e2\u0084\u00aa')).toBe(
      automatonMatches('(?u)(?i)k', '\u00e2\u0084\u00aa'),
    )
  })
})
