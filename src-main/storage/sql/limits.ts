// The runtime's SQLite limits (sqlite3_limit) that better-sqlite3 cannot set, checked with the
// runtime's messages where a statement's text or its compiled form shows them. DEVIATIONS.md lists
// the limits not checked.
import type Database from 'better-sqlite3'
import type { Statement } from './split'
import { keyword, type Token } from './tokenize'

/** SQLITE_LIMIT_SQL_LENGTH, in UTF-8 bytes. */
const MAX_SQL_BYTES = 100_000
/** SQLITE_LIMIT_COLUMN: columns of a table, an index, a result set. */
export const MAX_COLUMNS = 100
/** SQLITE_LIMIT_COMPOUND_SELECT: terms of one compound SELECT. */
const MAX_COMPOUND_TERMS = 5
const COMPOUND_OPERATORS = new Set(['UNION', 'INTERSECT', 'EXCEPT'])

/** SQLite refuses to compile a script longer than the limit, whatever it holds. */
export function checkScriptLength(script: string): void {
  // No UTF-16 code unit takes more than three UTF-8 bytes: most scripts need no counting.
  if (script.length * 3 <= MAX_SQL_BYTES) return
  if (Buffer.byteLength(script, 'utf8') > MAX_SQL_BYTES)
    throw new Error('statement too long: SQLITE_TOOBIG')
}

/** The limits SQLite checks while compiling: result columns and compound SELECT terms. */
export function checkCompiledLimits(statement: Statement, prepared: Database.Statement): void {
  if (prepared.reader && prepared.columns().length > MAX_COLUMNS)
    throw new Error('too many columns in result set: SQLITE_ERROR')
  checkCompoundTerms(statement.tokens)
}

// Each parenthesized group holds its own compound SELECTs. A compound whose last term is a VALUES
// clause is exempt, as in SQLite (multi-row VALUES are written as such compounds).
function checkCompoundTerms(tokens: Token[]): void {
  const groups: Array<{ terms: number; lastIsValues: boolean }> = [
    { terms: 1, lastIsValues: false },
  ]
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    const group = groups[groups.length - 1]
    if (token === undefined || group === undefined) continue
    if (token.text === '(') {
      groups.push({ terms: 1, lastIsValues: false })
    } else if (token.text === ')') {
      if (groups.length > 1) closeGroup(groups.pop())
    } else if (COMPOUND_OPERATORS.has(keyword(token))) {
      group.terms++
      const next = keyword(tokens[i + 1]) === 'ALL' ? tokens[i + 2] : tokens[i + 1]
      group.lastIsValues = keyword(next) === 'VALUES'
    }
  }
  for (const group of groups) closeGroup(group)
}

function closeGroup(group: { terms: number; lastIsValues: boolean } | undefined): void {
  if (group !== undefined && group.terms > MAX_COMPOUND_TERMS && !group.lastIsValues)
    throw new Error('too many terms in compound SELECT: SQLITE_ERROR')
}

/**
 * The table a statement gives columns to, if the column limit applies to it, and SQLite's words
 * for going past it: `CREATE TABLE` (naming it as written, or the result set of `AS SELECT`) or
 * `ALTER TABLE … ADD` (naming its working copy).
 */
export function tableGainingColumns(tokens: Token[]): { table: string; error: string } | null {
  const words = tokens.map(keyword)
  if (words[0] === 'CREATE' && words[1] === 'TABLE') {
    const at = words[2] === 'IF' ? 5 : 2
    const name = qualifiedName(tokens, at)
    if (name === null) return null
    const asSelect = words[name.end] === 'AS'
    const object = asSelect ? 'in result set' : `on ${name.value}`
    return { table: name.value, error: `too many columns ${object}: SQLITE_ERROR` }
  }
  if (words[0] === 'ALTER' && words[1] === 'TABLE' && words.includes('ADD')) {
    const name = qualifiedName(tokens, 2)
    if (name === null) return null
    return {
      table: name.value,
      error: `too many columns on sqlite_altertab_${name.value}: SQLITE_ERROR`,
    }
  }
  return null
}

// `name` or `schema.name` starting at tokens[at]: the name, unquoted, and the index after it.
function qualifiedName(tokens: Token[], at: number): { value: string; end: number } | null {
  const qualified = tokens[at + 1]?.text === '.'
  const index = qualified ? at + 2 : at
  const name = tokens[index]
  if (name === undefined || (name.kind !== 'word' && name.kind !== 'quoted')) return null
  return { value: name.value, end: index + 1 }
}
