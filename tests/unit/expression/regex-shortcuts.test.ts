// The one-pass tests of regex-shortcuts.ts must agree with the automaton (which `replaceFirst`
// always runs) on every input: random byte strings over the classes' own bytes and others, for
// the shapes the managed rules use and random ones of the same form.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileRegex } from '@shared/expression'
import { parseRegex } from '@shared/expression/regex/parser'
import { shortcutOf } from '@shared/expression/regex/shortcuts'

const MARK = '\u0000matched\u0000'
const automatonMatches = (pattern: string, input: string) =>
  compileRegex(pattern).replaceFirst(input, () => MARK) !== input

const SPECIAL = `~!@#$%^&*()\\-+={}\\[\\]|:;"'\\x60<>`
const shipped = [
  '[^\\w\\s.,/]{4,}',
  ...[2, 3, 6, 8, 12].map((n) => `(?:[${SPECIAL}][^${SPECIAL}]*?){${n}}`),
]

// Inputs drawn from bytes inside and outside the classes: letters, digits, punctuation, spaces,
// controls, bytes above 0x7f, and a character above 0xff (in no byte class).
const input = fc
  .array(
    fc.constantFrom(...'aZ09_.,/ =&%<>"\'`;:!{}[]|\n\t\u0000\u007f\u0080\u00ff\u0178-+~'.split('')),
    { maxLength: 40 },
  )
  .map((chars) => chars.join(''))

describe('regex shortcuts', () => {
  it('take the counting patterns of the managed rules, and only patterns of their shapes', () => {
    for (const pattern of shipped) expect(shortcutOf(parseRegex(pattern)), pattern).toBeDefined()
    for (const pattern of [
      'a+',
      '[a-z]{0,3}',
      '(?:[a-z][^a-y]*){3}',
      '(?:[a-z][^a-z]+){3}',
      '[a-z]{2}x',
      '^[a-z]{3}',
    ])
      expect(shortcutOf(parseRegex(pattern)), pattern).toBeUndefined()
  })

  it('agree with the automaton on the shipped patterns', () => {
    for (const pattern of shipped) {
      const regex = compileRegex(pattern)
      fc.assert(
        fc.property(input, (value) => {
          expect(regex.test(value)).toBe(automatonMatches(pattern, value))
        }),
        { numRuns: 400 },
      )
    }
  })

  it('agree with the automaton on random runs and counts of random classes', () => {
    const classBody = fc.constantFrom('a-z', '0-9', '<>"\'', '=&', '\\x00-\\x1f', '\\x80-\\xff')
    const pattern = fc.oneof(
      fc
        .tuple(classBody, fc.integer({ min: 1, max: 4 }), fc.boolean())
        .map(([body, min, open]) => `(?i)[${body}]{${min},${open ? '' : min + 2}}`),
      fc
        .tuple(classBody, fc.integer({ min: 1, max: 5 }), fc.boolean())
        .map(([body, n, lazy]) => `(?:[${body}][^${body}]*${lazy ? '?' : ''}){${n}}`),
    )
    fc.assert(
      fc.property(pattern, input, (source, value) => {
        expect(compileRegex(source).test(value)).toBe(automatonMatches(source, value))
      }),
      { numRuns: 600 },
    )
  })
})
