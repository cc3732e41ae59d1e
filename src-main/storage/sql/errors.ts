// Formats SQLite errors as the runtime does: `<message>[ at offset <n>]: <CODE>[ (extended: <EXT>)]`.
import Database from 'better-sqlite3'
import { tokenize } from './tokenize'

const NEAR_TOKEN = /^near "(.*)": syntax error$/

/** Rewrites a better-sqlite3 error raised while running `statementText`; other errors pass through. */
export function formatSqliteError(error: unknown, statementText: string): unknown {
  if (!(error instanceof Database.SqliteError)) return error
  const extended = error.code
  const primary = extended.split('_', 2).join('_')
  const near = NEAR_TOKEN.exec(error.message)?.[1]
  const offset =
    near === undefined ? undefined : tokenize(statementText).find((t) => t.text === near)?.offset
  const where = offset === undefined ? '' : ` at offset ${offset}`
  const detail = extended === primary ? '' : ` (extended: ${extended})`
  return new Error(`${error.message}${where}: ${primary}${detail}`)
}
