// The phrase automaton under @pm, @pmFromFile and literal @rx patterns
// (src-main/engine/crs/phrase-automaton.ts), against the definition it folds into a table: at the
// first position where some phrase ends, the longest phrase ending there, compared without case
// or exactly. Checked on CRS's own phrase files and on random phrases and values.
import { readdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PhraseAutomaton, type PhraseCase } from '../../../src-main/engine/crs/phrase-automaton'

const CRS_DATA = resolve(import.meta.dirname, '../../../resources/managed-rulesets/crs')

const fold = (text: string, letterCase: PhraseCase) =>
  letterCase === 'caseless' ? text.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : text

/** The definition, position by position: what firstMatch must answer. */
function firstMatchByDefinition(
  phrases: readonly string[],
  value: string,
  letterCase: PhraseCase,
): number {
  const folded = phrases.map((p) => fold(p, letterCase))
  const text = fold(value, letterCase)
  for (let end = 1; end <= text.length; end++) {
    let best = -1
    folded.forEach((phrase, index) => {
      const start = end - phrase.length
      if (phrase === '' || start < 0 || !text.startsWith(phrase, start)) return
      // The longest phrase ending here; of equal texts, the first given.
      if (best === -1 || phrase.length > folded[best]!.length) best = index
    })
    if (best !== -1) return best
  }
  return -1
}

const binary = (alphabet: string, maxLength: number) =>
  fc.array(fc.constantFrom(...alphabet), { maxLength }).map((chars) => chars.join(''))

describe('PhraseAutomaton', () => {
  it('answers the first phrase to end, the longest ending there, of the first given', () => {
    const automaton = new PhraseAutomaton(['Wget', 'get', 'et', 'WGET', 'curl'], 'caseless')
    expect(automaton.firstMatch('x wGeT/1')).toBe(0)
    expect(automaton.firstMatch('getcurl')).toBe(1)
    expect(automaton.firstMatch('nothing')).toBe(-1)
    expect(automaton.firstMatch('')).toBe(-1)
    const exact = new PhraseAutomaton(['Wget', 'et'], 'exact')
    expect(exact.firstMatch('wget')).toBe(1)
    expect(exact.firstMatch('WGET')).toBe(-1)
  })

  it('reads bytes above 0x7f and any code unit above 0xff as a byte of no phrase', () => {
    const automaton = new PhraseAutomaton(['\xac\xed\x00\x05'], 'exact')
    expect(automaton.firstMatch('a\xac\xed\x00\x05')).toBe(0)
    expect(automaton.firstMatch('\xac\u01ed\x00\x05')).toBe(-1)
  })

  it("finds what the definition finds on CRS's phrase files", () => {
    const files = readdirSync(CRS_DATA).filter((file) => file.endsWith('.data'))
    for (const file of files) {
      const phrases = readFileSync(resolve(CRS_DATA, file), 'latin1')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('#'))
      const automaton = new PhraseAutomaton(phrases, 'caseless')
      // Each phrase inside other text, upper-cased, and cut short by one byte.
      const values = phrases.flatMap((p) => [`x/${p.toUpperCase()}/y`, p.slice(0, -1)])
      for (const value of values)
        expect(automaton.firstMatch(value), `${file}: ${value}`).toBe(
          firstMatchByDefinition(phrases, value, 'caseless'),
        )
    }
  })

  it('agrees with the definition on random phrases and values', () => {
    const alphabet = 'abAB/.\x00\xe9\xc9'
    fc.assert(
      fc.property(
        fc.array(binary(alphabet, 4), { minLength: 1, maxLength: 6 }),
        binary(alphabet, 24),
        fc.constantFrom<PhraseCase>('caseless', 'exact'),
        (phrases, value, letterCase) => {
          const automaton = new PhraseAutomaton(phrases, letterCase)
          expect(automaton.firstMatch(value)).toBe(
            firstMatchByDefinition(phrases, value, letterCase),
          )
        },
      ),
      { numRuns: 2000 },
    )
  })
})
