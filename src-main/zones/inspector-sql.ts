// What the Objects screen's SQL may run: one reading statement, read from its tokens before
// anything runs. SQLite's own verdict (sqlite3_stmt_readonly) is no guard: it calls
// `PRAGMA wal_autocheckpoint = 1` read-only, and that setting broke a zone's history. The query
// also runs on a copy of the database in a process of its own (inspector-process.ts); this list
// is what makes a refusal clear, and keeps process-wide settings (heap limits) out of reach too.

import { badRequest } from '@shared/api/errors'
import { splitStatements } from '../storage/sql/split'
import { keyword, type Token } from '../storage/sql/tokenize'
import { API_ERRORS } from '@shared/api/error-codes'

type PragmaArgument = 'none' | 'optional' | 'required'

/**
 * PRAGMAs that only report, each with the argument its report takes, in parentheses. An
 * argument anywhere else (`= value`), or to a pragma taking none, is how a pragma sets
 * something (https://sqlite.org/pragma.html#syntax), so neither is accepted.
 */
const READ_ONLY_PRAGMAS: Record<string, PragmaArgument> = {
  table_info: 'required',
  table_xinfo: 'required',
  table_list: 'optional',
  index_list: 'required',
  index_info: 'required',
  index_xinfo: 'required',
  foreign_key_list: 'required',
  foreign_key_check: 'optional',
  integrity_check: 'optional',
  quick_check: 'optional',
  database_list: 'none',
  collation_list: 'none',
  function_list: 'none',
  module_list: 'none',
  pragma_list: 'none',
  compile_options: 'none',
  page_count: 'none',
  page_size: 'none',
  freelist_count: 'none',
  schema_version: 'none',
  user_version: 'none',
  application_id: 'none',
}

const READING_STATEMENTS = new Set(['SELECT', 'VALUES'])
/**
 * The keywords a statement of SQLite's grammar opens with (https://sqlite.org/lang.html). A text
 * opening with anything else is no statement: SQLite refuses to parse it, in its own words.
 */
const STATEMENT_KEYWORDS = new Set([
  ...['ALTER', 'ANALYZE', 'ATTACH', 'BEGIN', 'COMMIT', 'CREATE', 'DELETE', 'DETACH', 'DROP'],
  ...['END', 'EXPLAIN', 'INSERT', 'PRAGMA', 'REINDEX', 'RELEASE', 'REPLACE', 'ROLLBACK'],
  ...['SAVEPOINT', 'SELECT', 'UPDATE', 'VACUUM', 'VALUES', 'WITH'],
])
/** Where a WITH clause's main statement may begin; only the reading ones are accepted. */
const MAIN_STATEMENTS = new Set(['SELECT', 'VALUES', 'INSERT', 'REPLACE', 'UPDATE', 'DELETE'])

const ALLOWED =
  'SELECT (also WITH … SELECT and VALUES), EXPLAIN [QUERY PLAN] of one, or PRAGMA ' +
  Object.keys(READ_ONLY_PRAGMAS).join(', ')

const refuse = (why: string) =>
  badRequest(
    API_ERRORS.invalidRequest,
    `Only read-only SQL runs here: ${why}. Allowed: ${ALLOWED}.`,
  )

/** The one statement of `sql` to run, or a 400 saying why it may not run. */
export function readOnlyStatement(sql: string): string {
  const statements = splitStatements(sql)
  const [statement] = statements
  if (statement === undefined)
    throw badRequest(API_ERRORS.invalidRequest, 'There is no SQL statement to run.')
  if (statements.length > 1) throw refuse('one statement at a time')
  checkStatement(statement.tokens)
  return statement.text
}

function checkStatement(tokens: Token[]): void {
  const first = keyword(tokens[0])
  if (first === 'EXPLAIN') {
    const rest = keyword(tokens[1]) === 'QUERY' && keyword(tokens[2]) === 'PLAN' ? 3 : 1
    return checkReading(tokens.slice(rest), { explained: true })
  }
  if (first === 'PRAGMA') return checkPragma(tokens.slice(1))
  if (STATEMENT_KEYWORDS.has(first)) checkReading(tokens, { explained: false })
}

function checkReading(tokens: Token[], { explained }: { explained: boolean }): void {
  const first = keyword(tokens[0])
  const main = first === 'WITH' ? mainStatementOfWith(tokens) : first
  if (!READING_STATEMENTS.has(main))
    throw refuse(explained ? 'EXPLAIN explains a SELECT here' : `${main} is not a SELECT`)
  tokens.forEach((token, index) => {
    const name = token.kind === 'word' || token.kind === 'quoted' ? token.value.toLowerCase() : ''
    if (name === 'load_extension' && tokens[index + 1]?.text === '(')
      throw refuse('load_extension() loads code')
    if (name.startsWith('pragma_') && !(name.slice('pragma_'.length) in READ_ONLY_PRAGMAS))
      throw refuse(`${token.value} is not a read-only PRAGMA's table`)
  })
}

/** The keyword opening WITH's main statement: the first at the outer level, past the CTEs. */
function mainStatementOfWith(tokens: Token[]): string {
  let depth = 0
  for (const token of tokens) {
    if (token.text === '(') depth++
    else if (token.text === ')') depth--
    else if (depth === 0 && MAIN_STATEMENTS.has(keyword(token))) return keyword(token)
  }
  return 'WITH'
}

// `PRAGMA [schema.]name [(argument)]`
function checkPragma(tokens: Token[]): void {
  const rest = tokens[1]?.text === '.' ? tokens.slice(2) : tokens
  const name = rest[0]?.value.toLowerCase() ?? ''
  const argument = READ_ONLY_PRAGMAS[name]
  if (argument === undefined) throw refuse(`PRAGMA ${name} is not one that only reports`)
  const after = rest.slice(1)
  if (after.length === 0) {
    if (argument === 'required') throw refuse(`PRAGMA ${name} needs a name in parentheses`)
    return
  }
  const inParentheses =
    after.length === 3 &&
    after[0]?.text === '(' &&
    after[2]?.text === ')' &&
    after[1]?.kind !== 'symbol' &&
    after[1]?.kind !== 'parameter'
  if (argument === 'none' || !inParentheses) {
    throw refuse(`PRAGMA ${name} ${argument === 'none' ? 'takes no value' : 'takes (name) only'}`)
  }
}
