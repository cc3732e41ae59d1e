// The lazy DFA (src-shared/expression/regex/dfa.ts) answers `test` for byte-mode patterns in place
// of re2js: on random patterns of the dialect's byte-mode syntax (classes, dot, anchors in both
// line modes, word boundaries, case folding, counted and open repetitions, alternations) and
// random inputs over the bytes they treat differently, it must say what re2js says, which
// `replaceFirst` always runs.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileRegex } from '@shared/expression'
import { dfaOf } from '@shared/expression/regex/dfa'
import { parseRegex } from '@shared/expression/regex/parser'

const MARK = '\u0000matched\u0000'
const automatonMatches = (pattern: string, input: string) =>
  compileRegex(pattern).replaceFirst(input, () => MARK) !== input

const atom = fc.constantFrom(
  'a',
  'B',
  'ab',
  '\\n',
  '\\r',
  '.',
  '[a-c]',
  '[^a\\n]',
  '\\w',
  '\\W',
  '\\s',
  '\\d',
  '\\x00',
  '\\xff',
  'é',
  '^',
  '$',
  '\\A',
  '\\z',
  '\\b',
  '\\B',
  '\\b{start}',
  '\\b{end}',
  '\\b{start-half}',
  '\\b{end-half}',
)
const quantifier = fc.constantFrom('', '', '*', '+', '?', '*?', '{2}', '{1,3}', '{0,2}', '{2,}')

const pattern: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.tuple(atom, quantifier).map(([a, q]) => `(?:${a})${q}`),
    fc.array(tie('node'), { minLength: 2, maxLength: 4 }).map((items) => items.join('')),
    fc.array(tie('node'), { minLength: 2, maxLength: 3 }).map((items) => `(?:${items.join('|')})`),
    fc.tuple(tie('node'), quantifier).map(([inner, q]) => `(${inner})${q}`),
  ),
})).node

const flags = fc.constantFrom('', '(?i)', '(?m)', '(?s)', '(?im)', '(?ms)', '(?R)', '(?mR)')

const input = fc
  .array(fc.constantFrom(...'aAbBc_ 9-\n\r\t\u0000\u00e9\u00c3\u00a9\u00ff'.split('')), {
    maxLength: 24,
  })
  .map((chars) => chars.join(''))

describe('regex DFA', () => {
  it('answers as re2js on random byte-mode patterns and inputs', () => {
    fc.assert(
      fc.property(
        flags,
        pattern,
        fc.array(input, { minLength: 1, maxLength: 8 }),
        (f, body, values) => {
          const source = f + body
          const dfa = dfaOf(parseRegex(source))
          expect(dfa, source).toBeDefined()
          for (const value of values)
            expect(dfa!(value), `${source} on ${JSON.stringify(value)}`).toBe(
              automatonMatches(source, value),
            )
        },
      ),
      { numRuns: 1500 },
    )
  })

  it('leaves Unicode-mode patterns and inputs above 0xff to re2js', () => {
    expect(dfaOf(parseRegex('(?u)\\pL'))).toBeUndefined()
    expect(dfaOf(parseRegex('a'))!('\u0100a')).toBeUndefined()
    expect(compileRegex('a').test('\u0100a')).toBe(true)
  })

  it('still answers when a pattern makes more states than the DFA keeps', () => {
    // The 13th byte from the end being `a` takes one state per tail of 13 bytes: 8,192 of them.
    const source = '(?:a|b)*a[ab]{12}$'
    const regex = compileRegex(source)
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b'), { minLength: 40, maxLength: 60 }),
        (chars) => {
          const value = chars.join('')
          expect(regex.test(value)).toBe(automatonMatches(source, value))
        },
      ),
      { numRuns: 400 },
    )
  })
})
