// CRS's @rx patterns on the linear-time engine (src-main/engine/crs/regex-dialect.ts): every
// pattern of the committed CRS program compiles, and on strings of the CRS corpus each matches
// exactly where a backtracking engine matches it. The backtracking reference is Python's `re`
// (bytes patterns: ASCII classes and case folding, as PCRE without UTF mode; possessive
// quantifiers since 3.11), run as a child process; without python3 that comparison is skipped and
// says so.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CrsProgram, CrsRule } from '../../../src-main/engine/crs/program'
import { compileCrsRegex, rewritePcre } from '../../../src-main/engine/crs/regex-dialect'
import { transformation } from '../../../src-main/engine/crs/transformations'

const ROOT = resolve(import.meta.dirname, '../../..')
const PROGRAM = resolve(
  ROOT,
  'resources/managed-rulesets/4814384a9e5d4991b9815dcfc25d2f1f.crs.json',
)

interface Pattern {
  id: number
  pattern: string
}

function rulePatterns(rule: CrsRule, id: number): Pattern[] {
  const own =
    rule.operator.name === 'rx' && !rule.operator.parameter.includes('%{')
      ? [{ id, pattern: rule.operator.parameter }]
      : []
  return [...own, ...(rule.chain ? rulePatterns(rule.chain, id) : [])]
}

const program = JSON.parse(readFileSync(PROGRAM, 'utf8')) as CrsProgram
const patterns = program.items.flatMap((item) =>
  'marker' in item ? [] : rulePatterns(item, item.id ?? 0),
)

/** The corpus's URIs, header values, bodies and argument values, raw and URL-decoded. */
function corpusStrings(limit: number): string[] {
  const decode = transformation('urldecodeuni')!
  const strings = new Set<string>()
  for (const file of ['crs-tests.ndjson', 'benign.ndjson']) {
    const lines = readFileSync(resolve(ROOT, 'tests/fixtures/crs', file), 'utf8').split('\n')
    for (const line of lines.filter((l) => l.trim() !== '')) {
      const record = JSON.parse(line) as {
        uri?: string
        headers?: [string, string][]
        body?: string
      }
      const uri = record.uri ?? ''
      const query = uri.includes('?') ? uri.slice(uri.indexOf('?') + 1) : ''
      const values = [
        uri,
        decode(uri),
        ...(record.headers ?? []).map(([, value]) => value),
        record.body ?? '',
        ...[query, record.body ?? ''].flatMap((form) =>
          form.split('&').map((pair) => decode(pair.slice(pair.indexOf('=') + 1))),
        ),
      ]
      for (const value of values) if (value !== '') strings.add(value)
    }
  }
  // The corpus is UTF-8 text; the engine sees its bytes.
  return [...strings].slice(0, limit).map((s) => Buffer.from(s, 'utf8').toString('latin1'))
}

/**
 * PCRE's spelling → Python's, for the reference only: `\z` is Python's `\Z`, and so is `$` under
 * DOLLAR_ENDONLY; PCRE2's `\v` is the vertical-space bytes (CRS writes it only inside classes), an
 * inline `(?i)` is a global flag, and a look-behind over alternatives of different widths is a run
 * of fixed-width look-behinds.
 */
const PYTHON_REFERENCE = String.raw`
import json, re, sys
job = json.load(sys.stdin)
strings = [s.encode('latin-1') for s in job['strings']]
out = []
for p in job['patterns']:
    flags = re.S
    if p.startswith('(?i)') or p.startswith('^(?i)'):
        p = p.replace('(?i)', '', 1); flags |= re.I
    p = p.replace('\\z', '\\Z').replace('\\v', '\\n\\x0b\\f\\r\\x85')
    out_p, escaped, in_class = '', False, False
    for c in p:
        if not escaped and not in_class and c == '$':
            c = '\\Z'
        in_class = (in_class and (escaped or c != ']')) or (not escaped and c == '[')
        escaped = not escaped and c == '\\'
        out_p += c
    p = out_p
    m = re.match(r'^\(\?<!(.*)\);(.*)$', p)
    if m:
        p = ''.join('(?<!%s)' % a for a in m.group(1).split('|')) + ';' + m.group(2)
    r = re.compile(p.encode('utf-8'), flags)
    found = {}
    for i, s in enumerate(strings):
        m = r.search(s)
        if m:
            groups = [m.group(0)] + list(m.groups())
            while len(groups) > 1 and groups[-1] is None:
                groups.pop()
            found[i] = [(g or b'').decode('latin-1') for g in groups[:10]]
    out.append(found)
print(json.dumps(out))
`

describe('CRS @rx patterns on the linear-time engine', () => {
  it('compile, every one of the program', () => {
    expect(patterns.length).toBeGreaterThan(230)
    const failures = patterns.flatMap(({ id, pattern }) => {
      try {
        compileCrsRegex(pattern)
        return []
      } catch (e) {
        return [`${id}: ${(e as Error).message}`]
      }
    })
    expect(failures).toEqual([])
  })

  it('rewrite literal braces, escapes, non-ASCII bytes and class set operators', () => {
    expect(rewritePcre('a{b}c{2}')).toBe('(?s)\\x61\\x7b\\x62\\x7d\\x63{2}')
    expect(rewritePcre('[&&a-z\\-~~]')).toBe('(?s)[\\x26\\x26\\x61-\\x7a\\x2d\\x7e\\x7e]')
    expect(rewritePcre('´')).toBe('(?s)\\xc2\\xb4')
    expect(() => rewritePcre('(?=a)')).toThrow(/look-ahead/)
    expect(() => rewritePcre('(a)\\1')).toThrow('back-reference')
  })

  it('capture as ModSecurity sets TX.0-9', () => {
    expect(compileCrsRegex('(a)(b)?(c)?').exec('xa')).toEqual(['a', 'a'])
    expect(compileCrsRegex('(a)(b)?(c)').exec('xac')).toEqual(['ac', 'a', '', 'c'])
    expect(compileCrsRegex('^\\d+$').exec('12\n')).toBeUndefined()
    expect(compileCrsRegex('a.b').exec('a\nb')).toEqual(['a\nb'])
  })

  it('hand-written: 920120 quotes and semicolons outside entities, 942130 tautologies', () => {
    const fileName = compileCrsRegex(patterns.find((p) => p.id === 920120)!.pattern)
    expect(fileName.exec('r&eacute;sum&eacute;.pdf')).toBeUndefined()
    expect(fileName.exec('a;b.pdf')).toEqual([';'])
    expect(fileName.exec("o'brien.pdf")).toEqual(["'"])
    const tautology = compileCrsRegex(patterns.find((p) => p.id === 942130)!.pattern)
    expect(tautology.exec("' or 'a'='a")?.[1]).toBe('a')
    expect(tautology.exec('1 LIKE 1')).toBeDefined()
    expect(tautology.exec('x=y')).toBeUndefined()
    expect(tautology.exec('1 != 2')).toBeDefined()
    expect(tautology.exec('1 != 1')).toBeUndefined()
  })

  const python = spawnSync('python3', ['-c', 'import sys; print(sys.version_info >= (3, 11))'], {
    encoding: 'utf8',
  })
  const hasPython = python.status === 0 && python.stdout.trim() === 'True'
  it.skipIf(!hasPython)(
    'match and capture as a backtracking engine does, on corpus strings (needs python3 ≥ 3.11)',
    () => {
      const strings = corpusStrings(5000)
      const run = spawnSync('python3', ['-c', PYTHON_REFERENCE], {
        input: JSON.stringify({ patterns: patterns.map((p) => p.pattern), strings }),
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      })
      expect(run.status, run.stderr).toBe(0)
      const reference = JSON.parse(run.stdout) as Record<string, string[]>[]
      const differences: string[] = []
      let captures = 0
      patterns.forEach(({ id, pattern }, k) => {
        const regex = compileCrsRegex(pattern)
        const theirs = reference[k]!
        let differ = 0
        strings.forEach((s, i) => {
          const ours = regex.exec(s)
          const expected = theirs[i]
          if ((ours === undefined) !== (expected === undefined)) differ++
          else if (ours !== undefined && JSON.stringify(ours) !== JSON.stringify(expected)) {
            captures++
            differ++
          }
        })
        if (differ > 0) differences.push(`${id}: ${differ} of ${strings.length} strings`)
      })
      console.log(
        `${patterns.length - differences.length} of ${patterns.length} patterns give the same ` +
          `matches and captures as the backtracking engine on ${strings.length} corpus strings ` +
          `(${captures} capture differences)`,
      )
      expect(differences).toEqual([])
    },
    120_000,
  )
})
