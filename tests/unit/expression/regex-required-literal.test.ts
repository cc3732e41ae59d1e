// The bytes every match of a pattern holds (regex/required-literal.ts), by which `test` refuses a
// value without running the automaton: found only where they are required and exact, and `test`
// still agrees with the automaton (which `replaceFirst` always runs) on random inputs.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileRegex } from '@shared/expression'
import { parseRegex } from '@shared/expression/regex/parser'
import { requiredLiteral } from '@shared/expression/regex/required-literal'

const MARK = '\u0000matched\u0000'
const automatonMatches = (pattern: string, input: string) =>
  compileRegex(pattern).replaceFirst(input, () => MARK) !== input

describe('required literals', () => {
  it('are the longest exact run of literals in sequence, through groups and assertions', () => {
    const cases: [string, string | undefined][] = [
      // CRS 930110's path traversal
      ['(?:^|[\\\\/])\\.\\.(?:[\\\\/]|$)', '..'],
      ['/wp-admin/load-(?:scripts|styles)\\.php$', '/wp-admin/load-'],
      ['^(?:GET /|OPTIONS \\*) HTTP/[12]\\.[01]$', ' HTTP/'],
      ['(?:ab)cd\\bef', 'abcdef'],
      ['(?i)SeLeCt', undefined],
      ['(?i)--', '--'],
      ['a(?:b|c)d', undefined],
      ['ab+c', undefined],
      ['(?:ab)+', undefined],
      ['(?:ab)?cd', 'cd'],
      ['a.b', undefined],
      ['x', undefined],
    ]
    for (const [pattern, required] of cases)
      expect(requiredLiteral(parseRegex(pattern)), pattern).toBe(required)
  })

  it('leave test() agreeing with the automaton on values with and without them', () => {
    const pieces = ['.', '..', '/', '\\', 'a', 'A', 'b', '-', ' ', 'HTTP/', 'http/', '\n', '\u0000']
    const input = fc.array(fc.constantFrom(...pieces), { maxLength: 20 }).map((p) => p.join(''))
    for (const pattern of [
      '(?:^|[\\\\/])\\.\\.(?:[\\\\/]|$)',
      '^(?:GET /|OPTIONS \\*) HTTP/[12]\\.[01]$',
      '(?i)a-b',
      'a\\.\\.b',
      '(?s)^.*\\.\\..*$',
    ]) {
      const regex = compileRegex(pattern)
      fc.assert(
        fc.property(input, (value) => {
          expect(regex.test(value)).toBe(automatonMatches(pattern, value))
        }),
        { numRuns: 300 },
      )
    }
  })
})
