// `ctx.storage.sql`: runs SQL against the object's database as the vendor's runtime does, with its
// authorizer rules, binding conversions, multi-statement scripts and error texts.
import type Database from 'better-sqlite3'
import { authorize } from './authorize'
import { SqlCursor, type SqlValue } from './cursor'
import { formatSqliteError } from './errors'
import { checkCompiledLimits, checkScriptLength, MAX_COLUMNS, tableGainingColumns } from './limits'
import { splitStatements, type Statement } from './split'
import { keyword, type Token } from './tokenize'

export { SqlCursor, type SqlRow, type SqlValue } from './cursor'

/** What the SQL API needs from the storage that owns the connection. */
export interface SqlHost {
  readonly db: Database.Database
  /** Throws if storage can no longer be used. */
  assertUsable(): void
  /** Called before a statement that may write: opens the implicit transaction. */
  beforeWrite(): void
  /**
   * Called when a statement that may write failed. If SQLite ended the whole transaction (a
   * ROLLBACK conflict resolution, RAISE(ROLLBACK), a full disk), writes that earlier calls saw
   * succeed are gone: the host breaks as after a failed commit and throws what the caller sees.
   */
  afterFailedWrite(error: unknown): void
}

type Binding = string | number | Buffer | null

const MAX_BOUND_PARAMETERS = 100
const CACHE_SIZE = 256
const SCHEMA_CHANGES = new Set(['CREATE', 'DROP', 'ALTER'])
const DQS_HINT = /^no such column: "(.*)" - should this be a string literal in single-quotes\?$/
const WRITE_TARGET = /^(?:INSERT|REPLACE|UPDATE)$/

interface CompiledStatement {
  prepared: Database.Statement
  /** better-sqlite3 reads these from SQLite on every access: kept here once. */
  reader: boolean
  readonly: boolean
  columnNames: string[]
  changesSchema: boolean
  /** The table this statement adds columns to, checked against the column limit after it runs. */
  gainsColumns: { table: string; error: string } | null
  /** Rows the runtime counts as read, and as written, per row the statement changed. */
  readPerChange: number
  writtenPerChange: number
}

const NO_ROWS: SqlValue[][] = []

/** A query string, split and checked once: what every later exec() of the same text reuses. */
interface Script {
  /** Statements before the last, run without bindings. */
  leading: Statement[]
  last: Statement | undefined
  /**
   * How many leading statements run before one with parameters, which the runtime refuses
   * (null: none has any). Those before it have run when the refusal is thrown.
   */
  runBeforeRefusal: number | null
  /** The last statement compiled, while the schema is as it was then (see schemaVersion). */
  lastCompiled: CompiledStatement | null
  compiledAtSchema: number
}

export class SqlStorage {
  // Both caches are keyed by SQL text. Compiled statements are dropped whenever the schema
  // changes, since column lists and index counts are worked out once per statement.
  private readonly scripts = new Map<string, Script>()
  private readonly compiled = new Map<string, CompiledStatement>()
  /** Counts schema changes, so a script's compiled statement is known to be current. */
  private schemaVersion = 0

  constructor(private readonly host: SqlHost) {}

  /** Runs `query` (one or more statements) and returns a cursor over the last one's rows. */
  exec(query?: unknown, ...bindings: unknown[]): SqlCursor {
    // exec() is refused while exec(undefined) runs the query "undefined", as in the runtime. The
    // query is a parameter of its own so that the bindings' array needs no copying.
    if (query === undefined && bindings.length === 0 && arguments.length === 0) {
      throw new TypeError(
        "Failed to execute 'exec' on 'SqlStorage': parameter 1 is not of type 'JsString'.",
      )
    }
    this.host.assertUsable()
    for (let i = 0; i < bindings.length; i++) bindings[i] = toBinding(bindings[i])
    const text = typeof query === 'string' ? query : String(query)
    const script = this.scripts.get(text) ?? this.readScript(text)
    const last = script.last
    if (last === undefined) throw new Error('SQL code did not contain a statement.')
    const { leading, runBeforeRefusal } = script
    for (let i = 0; i < leading.length; i++) {
      if (i === runBeforeRefusal) {
        throw new Error(
          'When executing multiple SQL statements in a single call, only the last statement can have parameters.',
        )
      }
      const statement = leading[i] as Statement
      this.run(statement, this.compile(statement), [])
    }
    let compiled = script.lastCompiled
    if (compiled === null || script.compiledAtSchema !== this.schemaVersion) {
      compiled = this.compile(last)
      script.lastCompiled = compiled
      script.compiledAtSchema = this.schemaVersion
    }
    return this.run(last, compiled, bindings as Binding[])
  }

  /** Bytes used by the database, free pages excluded. */
  get databaseSize(): number {
    this.host.assertUsable()
    const pragma = (name: string): number => Number(this.host.db.pragma(name, { simple: true }))
    return (pragma('page_count') - pragma('freelist_count')) * pragma('page_size')
  }

  private readScript(text: string): Script {
    checkScriptLength(text)
    const statements = splitStatements(text)
    const leading = statements.slice(0, -1)
    const withParameters = leading.findIndex((s) => s.tokens.some((t) => t.kind === 'parameter'))
    const script: Script = {
      leading,
      last: statements[statements.length - 1],
      runBeforeRefusal: withParameters === -1 ? null : withParameters,
      lastCompiled: null,
      compiledAtSchema: this.schemaVersion,
    }
    remember(this.scripts, text, script)
    return script
  }

  private run(statement: Statement, compiled: CompiledStatement, bindings: Binding[]): SqlCursor {
    const { prepared } = compiled
    try {
      if (!compiled.readonly) this.host.beforeWrite()
      // Bindings are spread: better-sqlite3 binds separate arguments faster than an array's items.
      if (compiled.reader) {
        const rows = prepared.all(...bindings) as SqlValue[][]
        for (const row of rows) toRowValues(row)
        return new SqlCursor(compiled.columnNames, rows, 0, 0)
      }
      const changes =
        compiled.gainsColumns === null
          ? prepared.run(...bindings).changes
          : this.runCheckingColumns(prepared, bindings, compiled.gainsColumns)
      if (compiled.changesSchema) this.forgetCompiled()
      return new SqlCursor(
        [],
        NO_ROWS,
        changes * compiled.readPerChange,
        changes * compiled.writtenPerChange,
      )
    } catch (error) {
      if (error instanceof RangeError && /parameter values were provided/.test(error.message)) {
        throw new Error('Wrong number of parameter bindings for SQL query.', { cause: error })
      }
      const failure = formatSqliteError(error, statement.text)
      if (!compiled.readonly) this.host.afterFailedWrite(failure)
      throw failure
    }
  }

  // better-sqlite3's SQLite allows 2,000 columns, so the table is counted after the statement ran,
  // and the statement undone if it went past the runtime's 100.
  private runCheckingColumns(
    prepared: Database.Statement,
    bindings: Binding[],
    { table, error }: { table: string; error: string },
  ): number {
    const db = this.host.db
    db.exec('SAVEPOINT _cf_column_limit')
    try {
      const { changes } = prepared.run(...bindings)
      const columns = db.pragma(`table_xinfo('${table.replaceAll("'", "''")}')`) as unknown[]
      if (columns.length > MAX_COLUMNS) {
        db.exec('ROLLBACK TO _cf_column_limit')
        throw new Error(error)
      }
      return changes
    } finally {
      db.exec('RELEASE _cf_column_limit')
    }
  }

  private compile(statement: Statement): CompiledStatement {
    const cached = this.compiled.get(statement.text)
    if (cached !== undefined) return cached
    checkParameterCount(statement.tokens)
    // SQLite reports its own errors (syntax, missing tables) before its authorizer is consulted.
    const prepared = this.prepare(statement)
    checkCompiledLimits(statement, prepared)
    authorize(statement)
    if (prepared.reader) prepared.raw(true)
    const verb = keyword(statement.tokens[0])
    const table = WRITE_TARGET.test(verb) ? writeTarget(statement.tokens) : undefined
    const written = 1 + (table === undefined ? 0 : this.indexCount(table))
    const filtered = statement.tokens.some((t) => keyword(t) === 'WHERE')
    const compiled: CompiledStatement = {
      prepared,
      reader: prepared.reader,
      readonly: prepared.readonly,
      columnNames: prepared.reader ? prepared.columns().map((c) => c.name) : [],
      changesSchema: SCHEMA_CHANGES.has(verb),
      gainsColumns: tableGainingColumns(statement.tokens),
      ...rowCounting(verb, written, filtered),
    }
    remember(this.compiled, statement.text, compiled)
    return compiled
  }

  // better-sqlite3 compiles out double-quoted string literals, so a "name" SQLite cannot resolve
  // as a column is retried as a 'string', as SQLite itself would read it.
  private prepare(statement: Statement): Database.Statement {
    let text = statement.text
    for (;;) {
      try {
        return this.host.db.prepare(text)
      } catch (error) {
        const literal = error instanceof Error ? DQS_HINT.exec(error.message)?.[1] : undefined
        const rewritten = literal === undefined ? undefined : asStringLiteral(text, literal)
        if (rewritten === undefined) throw formatSqliteError(error, statement.text)
        text = rewritten
      }
    }
  }

  private forgetCompiled(): void {
    this.compiled.clear()
    this.schemaVersion++
  }

  private indexCount(table: string): number {
    try {
      return (this.host.db.pragma(`index_list(${JSON.stringify(table)})`) as unknown[]).length
    } catch {
      return 0
    }
  }
}

// The runtime counts a written row once per table and once per index it touches; a DELETE
// counts table rows only. Reads by a write are modelled as the rows an UPDATE or a filtered
// DELETE visits.
function rowCounting(
  verb: string,
  writtenPerTableRow: number,
  filtered: boolean,
): { readPerChange: number; writtenPerChange: number } {
  if (verb === 'DELETE') return { readPerChange: filtered ? 1 : 0, writtenPerChange: 1 }
  if (!WRITE_TARGET.test(verb)) return { readPerChange: 0, writtenPerChange: 1 }
  return { readPerChange: verb === 'UPDATE' ? 1 : 0, writtenPerChange: writtenPerTableRow }
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= CACHE_SIZE) {
    const oldest = cache.keys().next().value
    if (oldest !== undefined) cache.delete(oldest)
  }
  cache.set(key, value)
}

// Runtime bindings: numbers bind as REAL, ArrayBuffers and views as BLOBs (copied at bind time),
// undefined as NULL, BigInt is refused and anything else is bound as its string form.
function toBinding(value: unknown): Binding {
  if (value === null || value === undefined) return null
  if (typeof value === 'number' || typeof value === 'string') return value
  if (typeof value === 'bigint') throw new TypeError('Cannot convert a BigInt value to a number')
  if (value instanceof ArrayBuffer) return Buffer.from(value.slice(0))
  if (ArrayBuffer.isView(value)) {
    return Buffer.from(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength))
  }
  return String(value)
}

// Turns what better-sqlite3 read into what the runtime gives, in place: BLOBs as ArrayBuffer.
function toRowValues(row: unknown[]): void {
  for (let i = 0; i < row.length; i++) {
    const value = row[i]
    if (Buffer.isBuffer(value)) row[i] = new Uint8Array(value).buffer
    else if (typeof value === 'bigint') row[i] = Number(value)
  }
}

function checkParameterCount(tokens: Token[]): void {
  const parameters = tokens.filter((t) => t.kind === 'parameter')
  const overflow = parameters[MAX_BOUND_PARAMETERS]
  if (overflow !== undefined) {
    throw new Error(`too many SQL variables at offset ${overflow.offset}: SQLITE_ERROR`)
  }
}

// `INSERT [OR x] INTO name`, `REPLACE INTO name`, `UPDATE [OR x] name`
function writeTarget(tokens: Token[]): string | undefined {
  const words = tokens.map((t) => t.text.toUpperCase())
  const into = words.indexOf('INTO')
  if (into !== -1) return tokens[into + 1]?.value
  return tokens[words[1] === 'OR' ? 3 : 1]?.value
}

function asStringLiteral(text: string, name: string): string | undefined {
  const quoted = `"${name.split('"').join('""')}"`
  const at = text.indexOf(quoted)
  if (at === -1) return undefined
  const literal = `'${name.split("'").join("''")}'`
  return text.slice(0, at) + literal + text.slice(at + quoted.length)
}
