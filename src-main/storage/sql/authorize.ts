// The runtime's SQL authorizer rules, checked on tokens before a statement is prepared, since
// better-sqlite3 cannot install an authorizer. See DEVIATIONS.md for what this cannot see.
import { USE_TRANSACTION_API } from '../messages'
import type { Statement } from './split'
import { keyword, type Token } from './tokenize'

const NOT_AUTHORIZED = 'not authorized: SQLITE_AUTH'

const TRANSACTION_KEYWORDS = new Set(['BEGIN', 'COMMIT', 'END', 'ROLLBACK', 'SAVEPOINT', 'RELEASE'])
const READING_STATEMENTS = new Set(['SELECT', 'WITH', 'VALUES'])
const ALLOWED_VIRTUAL_TABLES = new Set(['fts5', 'fts5vocab', 'rtree', 'rtree_i32'])
/** Table-valued modules compiled into better-sqlite3's SQLite but not into workerd's. */
const FOREIGN_MODULES = new Set(['dbstat', 'sqlite_dbpage', 'sqlite_stmt'])
/** Functions better-sqlite3's SQLite has and the runtime refuses. */
const DENIED_FUNCTIONS = new Set([
  'sqlite_version',
  'sqlite_source_id',
  'sqlite_compileoption_get',
  'sqlite_compileoption_used',
  'sqlite_offset',
  'load_extension',
  'fts3_tokenizer',
  'matchinfo',
  'offsets',
])

type PragmaArgument = 'none' | 'optional' | 'required' | 'boolean'
const PRAGMAS: Record<string, PragmaArgument> = {
  data_version: 'none',
  page_size: 'none',
  table_list: 'none',
  table_info: 'required',
  table_xinfo: 'required',
  foreign_key_list: 'required',
  index_info: 'required',
  index_list: 'required',
  index_xinfo: 'required',
  foreign_key_check: 'optional',
  quick_check: 'optional',
  optimize: 'optional',
  case_sensitive_like: 'boolean',
  foreign_keys: 'boolean',
  defer_foreign_keys: 'boolean',
  ignore_check_constraints: 'boolean',
  legacy_alter_table: 'boolean',
  recursive_triggers: 'boolean',
  reverse_unordered_selects: 'boolean',
}
const BOOLEAN_WORDS = new Set(['true', 'false', 'yes', 'no', 'on', 'off', '1', '0'])

/** Throws the runtime's error if the statement would be refused by its authorizer. */
export function authorize(statement: Statement): void {
  const tokens = statement.tokens
  const first = keyword(tokens[0])
  if (TRANSACTION_KEYWORDS.has(first)) throw new Error(USE_TRANSACTION_API)
  if (first === 'ATTACH' || first === 'DETACH') throw new Error(NOT_AUTHORIZED)
  if (first === 'PRAGMA') return authorizePragma(tokens.slice(1))
  if (first === 'CREATE') authorizeCreate(tokens)

  tokens.forEach((token, index) => {
    const name = token.kind === 'word' || token.kind === 'quoted' ? token.value : ''
    if (/^_cf_/i.test(name)) {
      throw new Error(
        READING_STATEMENTS.has(first)
          ? `access to ${name}.key is prohibited: SQLITE_AUTH`
          : NOT_AUTHORIZED,
      )
    }
    const lower = name.toLowerCase()
    const calledAsFunction = token.kind === 'word' && tokens[index + 1]?.text === '('
    if (FOREIGN_MODULES.has(lower)) throw new Error(NOT_AUTHORIZED)
    if (calledAsFunction && DENIED_FUNCTIONS.has(lower)) {
      throw new Error(
        `not authorized to use function: ${lower} at offset ${token.offset}: SQLITE_ERROR`,
      )
    }
    if (calledAsFunction && lower.startsWith('pragma_') && !(lower.slice(7) in PRAGMAS)) {
      throw new Error(NOT_AUTHORIZED)
    }
  })
}

function authorizeCreate(tokens: Token[]): void {
  const second = keyword(tokens[1])
  if (second === 'TEMP' || second === 'TEMPORARY') throw new Error(NOT_AUTHORIZED)
  if (second === 'VIRTUAL') {
    const using = tokens.findIndex((t) => keyword(t) === 'USING')
    const module = tokens[using + 1]?.value.toLowerCase() ?? ''
    if (!ALLOWED_VIRTUAL_TABLES.has(module)) throw new Error(NOT_AUTHORIZED)
  }
}

// `PRAGMA [main.]name [= value | (value)]`
function authorizePragma(tokens: Token[]): void {
  let rest = tokens
  if (rest[1]?.text === '.') {
    if (rest[0]?.value.toLowerCase() !== 'main') throw new Error(NOT_AUTHORIZED)
    rest = rest.slice(2)
  }
  const name = rest[0]?.value.toLowerCase() ?? ''
  const rule = PRAGMAS[name]
  const argumentToken = rest[1]?.text === '=' || rest[1]?.text === '(' ? rest[2] : undefined
  const argument = argumentToken?.value
  if (rule === undefined) throw new Error(NOT_AUTHORIZED)
  if (rule === 'none' && argument !== undefined) throw new Error(NOT_AUTHORIZED)
  if (rule === 'required' && argument === undefined) throw new Error(NOT_AUTHORIZED)
  if (rule === 'boolean' && argument !== undefined && !BOOLEAN_WORDS.has(argument.toLowerCase())) {
    // An unterminated quote is SQLite's own syntax error, not the authorizer's refusal.
    if (argumentToken?.kind !== 'string' || argumentToken.text.endsWith("'"))
      throw new Error(NOT_AUTHORIZED)
  }
  if (argument !== undefined && /^_cf_/i.test(argument)) throw new Error(NOT_AUTHORIZED)
}
