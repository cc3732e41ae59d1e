// The catalogue of error codes (src-shared/api/error-codes.ts) is the only place a code is
// numbered: the sources that answer errors name their codes from it, each code means one thing,
// and each is answered with a status the catalogue gives it.

import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ERROR_CATALOGUE, type ErrorCodeEntry } from '@shared/api/error-codes'

const ROOT = resolve(import.meta.dirname, '../../..')
const CATALOGUE = 'src-shared/api/error-codes.ts'

const sources = ['src-main', 'src-shared', 'src-renderer/src']
  .flatMap((folder) =>
    readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && /\.(ts|svelte)$/.test(entry.name))
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name))),
  )
  .filter((path) => path !== CATALOGUE)
  .map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }))

/** Where a code is given as a number: an error's code, a message's code, a comparison with one. */
const NUMBERED_CODE = [
  /\bbadRequest\(\s*\d/g,
  /\bnew ApiError\(\s*[\w.]+,\s*\d/g,
  /\bcode: \d{3,}/g,
  /\.code\s*[!=]==?\s*\d/g,
  /\bconst [A-Z_]*ERRORS\s*=\s*\{/g,
]

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length
}

describe('the catalogue of error codes', () => {
  it('gives each code one meaning, however many names it has', () => {
    const entries = new Map<number, ErrorCodeEntry>()
    for (const family of Object.values(ERROR_CATALOGUE)) {
      for (const entry of Object.values(family) as ErrorCodeEntry[]) {
        const known = entries.get(entry.code)
        if (known !== undefined) expect(known, `code ${entry.code}`).toBe(entry)
        entries.set(entry.code, entry)
      }
    }
    for (const entry of entries.values()) {
      expect(entry.meaning, `code ${entry.code}`).not.toBe('')
      expect(entry.statuses.every((status) => status >= 400 && status < 600)).toBe(true)
    }
  })

  it('is where every code the sources answer is numbered', () => {
    const numbered = sources.flatMap(({ path, text }) =>
      NUMBERED_CODE.flatMap((pattern) =>
        [...text.matchAll(pattern)].map((m) => `${path}:${lineOf(text, m.index)}: ${m[0]}`),
      ),
    )
    expect(numbered).toEqual([])
  })

  it('answers each code with a status the catalogue gives it', () => {
    const families: Record<string, Record<string, ErrorCodeEntry>> = {
      API_ERRORS: ERROR_CATALOGUE.api,
      FIREWALL_ERRORS: ERROR_CATALOGUE.firewall,
      RULESET_ERRORS: ERROR_CATALOGUE.rulesets,
      MIGRATION_ERRORS: ERROR_CATALOGUE.migration,
      PREVIOUS_WAF_ERRORS: ERROR_CATALOGUE.previousWaf,
      PAGE_RULE_ERRORS: ERROR_CATALOGUE.pageRules,
      BUNDLE_ERRORS: ERROR_CATALOGUE.bundles,
      REMOTE_ERRORS: ERROR_CATALOGUE.remote,
      REPLAY_ERRORS: ERROR_CATALOGUE.replay,
    }
    const answered = /\b(?:badRequest\(\s*|new ApiError\(\s*(\d{3}),\s*)([A-Z_]+_ERRORS)\.(\w+)/g
    const wrong: string[] = []
    let seen = 0
    for (const { path, text } of sources) {
      for (const m of text.matchAll(answered)) {
        const [, status = '400', family = '', name = ''] = m
        const entry = families[family]?.[name]
        seen++
        if (entry === undefined || !entry.statuses.includes(Number(status))) {
          wrong.push(`${path}:${lineOf(text, m.index)}: ${status} with ${family}.${name}`)
        }
      }
    }
    expect(wrong).toEqual([])
    expect(seen).toBeGreaterThan(50)
  })
})
