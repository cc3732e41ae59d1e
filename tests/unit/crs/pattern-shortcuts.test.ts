// The exact tests that stand in for the regex engine on literal and one-class CRS patterns
// (src-main/engine/crs/pattern-shortcuts.ts): each must answer what the engine answers, on every
// CRS pattern that has one and on random patterns of those shapes.
import { readdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileRegex } from '@shared/expression'
import { Parser } from '@shared/expression/regex/parser'
import { patternShortcut } from '../../../src-main/engine/crs/pattern-shortcuts'
import { isMarker, type CrsProgram, type CrsRule } from '../../../src-main/engine/crs/program'
import { rewritePcre } from '../../../src-main/engine/crs/regex-dialect'

const MANAGED = resolve(import.meta.dirname, '../../../resources/managed-rulesets')

function crsPatterns(): string[] {
  const file = readdirSync(MANAGED).find((name) => name.endsWith('.crs.json'))!
  const program = JSON.parse(readFileSync(resolve(MANAGED, file), 'utf8')) as CrsProgram
  const patterns = new Set<string>()
  const visit = (rule: CrsRule | undefined): void => {
    if (rule === undefined) return
    if (rule.operator.name === 'rx' && !rule.operator.parameter.includes('%{'))
      patterns.add(rule.operator.parameter)
    visit(rule.chain)
  }
  for (const item of program.items) if (!isMarker(item)) visit(item)
  return [...patterns]
}

/** The shortcut and the engine's test of a PCRE pattern, or undefined when it has no shortcut. */
function bothTests(pattern: string) {
  let rewritten: string
  try {
    rewritten = rewritePcre(pattern)
  } catch {
    return undefined
  }
  const shortcut = patternShortcut(new Parser(rewritten).parse())
  if (shortcut === undefined) return undefined
  const engine = compileRegex(rewritten)
  return { shortcut, engine: (value: string) => engine.test(value) }
}

/** Values around a pattern's own bytes: each printable run of it, cased both ways, cut, joined. */
function valuesAround(pattern: string): string[] {
  const runs = pattern.match(/[\w./:\- ]+/g) ?? []
  const values = ['', 'x', '\n', '\r\n', ';', '%', '"', '\xac\xed\x00\x05']
  for (const run of runs) {
    values.push(
      run,
      run.toUpperCase(),
      run.toLowerCase(),
      `a${run}b`,
      run.slice(1),
      run.slice(0, -1),
    )
    values.push(`${run} ${run.toUpperCase()}`, `${run}\n`)
  }
  return values
}

describe('pattern shortcuts', () => {
  it('cover the literal and one-class patterns of CRS', () => {
    const covered = crsPatterns().filter((pattern) => bothTests(pattern) !== undefined)
    expect(covered).toEqual(
      expect.arrayContaining([
        '^$',
        '^(?:GET|HEAD)$',
        '(?:runtime|processbuilder)',
        String.raw`java\.lang\.(?:runtime|processbuilder)`,
        String.raw`\xac\xed\x00\x05`,
        '^(?i)application/x-www-form-urlencoded',
        String.raw`[\n\r]`,
      ]),
    )
  })

  it('answer what the engine answers on every CRS pattern they cover', () => {
    for (const pattern of crsPatterns()) {
      const tests = bothTests(pattern)
      if (tests === undefined) continue
      for (const value of valuesAround(pattern))
        expect(tests.shortcut(value), `${pattern} on ${JSON.stringify(value)}`).toBe(
          tests.engine(value),
        )
    }
  })

  it('answer what the engine answers on random literal patterns and values', () => {
    const word = fc
      .array(fc.constantFrom('a', 'B', '.', '\n', 'é'), { maxLength: 3 })
      .map((chars) => chars.join(''))
    const pattern = fc
      .record({
        start: fc.boolean(),
        end: fc.boolean(),
        caseless: fc.boolean(),
        prefix: word,
        alternatives: fc.array(word, { minLength: 1, maxLength: 4 }),
      })
      .map(({ start, end, caseless, prefix, alternatives }) => {
        const escape = (text: string) => text.replace(/[.]/g, '\\.').replace(/\n/g, '\\n')
        const body = `${escape(prefix)}(?:${alternatives.map(escape).join('|')})`
        return `${start ? '^' : ''}${caseless ? '(?i)' : ''}${body}${end ? '$' : ''}`
      })
    const value = fc
      .array(fc.constantFrom('a', 'A', 'b', 'B', '.', '\n', '\xc3', '\xa9'), { maxLength: 8 })
      .map((chars) => chars.join(''))
    fc.assert(
      fc.property(pattern, fc.array(value, { maxLength: 8 }), (source, values) => {
        const tests = bothTests(source)
        expect(tests, source).toBeDefined()
        for (const v of values)
          expect(tests!.shortcut(v), `${source} on ${v}`).toBe(tests!.engine(v))
      }),
      { numRuns: 500 },
    )
  })

  it('leave patterns with repetitions, line anchors or case mixed to the engine', () => {
    for (const pattern of ['a+', '(?m)^a', 'a(?i)b', '(?:ab)?c', String.raw`\bselect\b`])
      expect(bothTests(pattern), pattern).toBeUndefined()
  })
})
