// Runs one inspector query on an image of an object's database, in a child process killed when
// its time budget runs out, so no query can write to the object, change its connection's
// settings, or hold the service.
//
// Why a process and not a worker thread: better-sqlite3 runs a statement in native code, exposes
// no sqlite3_interrupt, and its SQLite is built without the progress handler
// (SQLITE_OMIT_PROGRESS_CALLBACK, see `PRAGMA compile_options`). worker.terminate() only takes
// effect when the thread returns to JavaScript, which a recursive CTE with no bound never does:
// tried, the thread ran on at full CPU after terminate(). A process can always be killed.
//
// One process per query: nothing carries over from one query to the next, and a stopped one is
// simply gone. Starting it costs about 30 ms (Node's startup and better-sqlite3's loading).
//
// Why the child's source is inline: it runs unchanged from the sources (vitest, tsx: a child
// cannot load a .ts file), from electron-vite's bundle and from esbuild bundles, with no
// entry point to build or ship. It is started with process.execPath, so its better-sqlite3
// binary matches the one the service loaded; in the Electron shell that binary is Electron's,
// run as plain Node by ELECTRON_RUN_AS_NODE
// (https://www.electronjs.org/docs/latest/api/environment-variables#electron_run_as_node).

import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { badRequest } from '@shared/api/errors'
import type { ObjectQueryResult } from '@shared/bridge'
import { API_ERRORS } from '@shared/api/error-codes'

export interface QueryBudget {
  /** Wall-clock time from starting the process to its answer. */
  timeMs: number
  rows: number
  /** Bytes of the rows' JSON: the rows that would pass it are left out, as past `rows`. */
  answerBytes: number
  /** Longer text cells are cut to this many characters, saying how many more there were. */
  cellCharacters: number
}

/** What the child writes to stdout, as JSON. */
type ChildAnswer =
  | { result: ObjectQueryResult }
  | { sqlError: string }
  /** The image or better-sqlite3 could not be opened: the service's fault, not the query's. */
  | { failure: string }

// The child reads from stdin a 4-byte big-endian length, that many bytes of JSON (the statement
// and the budget's limits) and the database image, and writes one ChildAnswer.
const CHILD_SOURCE = `'use strict'
const { Worker } = require('node:worker_threads')
const [databaseModule, lifetimeMs] = process.argv.slice(1)
// The parent kills this process when the budget runs out. Should the parent die first, this
// thread does it: the main thread may be inside one SQLite call that never returns.
new Worker(
  "setTimeout(() => process.kill(process.pid, 'SIGKILL'), require('node:worker_threads').workerData)",
  { eval: true, workerData: Number(lifetimeMs) },
).unref()
const chunks = []
process.stdin.on('data', (chunk) => chunks.push(chunk))
process.stdin.on('end', () => {
  const input = Buffer.concat(chunks)
  chunks.length = 0
  const headerEnd = 4 + input.readUInt32BE(0)
  const request = JSON.parse(input.toString('utf8', 4, headerEnd))
  process.stdout.write(JSON.stringify(answer(request, input.subarray(headerEnd))))
})
function answer(request, image) {
  let db
  try {
    const Database = require(databaseModule)
    db = new Database(image, { readonly: true })
    // A read-only main database still lets a connection write to its temp schema; this does not.
    db.pragma('query_only = ON')
  } catch (error) {
    return { failure: String(error && error.stack || error) }
  }
  try {
    return { result: run(db, request) }
  } catch (error) {
    return { sqlError: String(error && error.message || error) }
  }
}
function run(db, request) {
  const statement = db.prepare(request.sql)
  const columns = statement.columns().map((column) => column.name)
  const rows = []
  let bytes = 0
  for (const row of statement.raw(true).iterate()) {
    if (rows.length === request.rows) return { columns, rows, truncated: true }
    const cells = row.map((cell) => displayable(cell, request.cellCharacters))
    bytes += Buffer.byteLength(JSON.stringify(cells))
    if (bytes > request.answerBytes) return { columns, rows, truncated: true }
    rows.push(cells)
  }
  return { columns, rows, truncated: false }
}
// Cells travel as JSON: blobs become a byte count, big integers text, long text is cut.
function displayable(cell, characters) {
  if (cell instanceof Uint8Array) return '<' + cell.byteLength + ' bytes>'
  if (typeof cell === 'bigint') return cell.toString()
  if (typeof cell === 'string' && cell.length > characters)
    return cell.slice(0, characters) + '… <' + (cell.length - characters) + ' more characters>'
  return cell
}
`

/** The child's own deadline, past the parent's: it only matters if the parent is gone. */
const ORPHAN_GRACE_MS = 1_000
const STDERR_KEPT_CHARACTERS = 2_000

let databaseModule: string | undefined

/**
 * Runs `sql` (one statement that readOnlyStatement() accepted) on `image`, a serialized SQLite
 * database. SQL errors and a spent time budget are 400s; the service's own failures reject
 * with a plain Error.
 */
export function runQuery(
  image: Buffer,
  sql: string,
  budget: QueryBudget,
): Promise<ObjectQueryResult> {
  databaseModule ??= createRequire(import.meta.url).resolve('better-sqlite3')
  const child = spawn(
    process.execPath,
    ['-e', CHILD_SOURCE, databaseModule, String(budget.timeMs + ORPHAN_GRACE_MS)],
    { env: { ELECTRON_RUN_AS_NODE: '1' }, stdio: 'pipe', windowsHide: true },
  )
  return new Promise((resolve, reject) => {
    let stopped = false
    const timer = setTimeout(() => {
      stopped = true
      child.kill('SIGKILL')
    }, budget.timeMs)
    const stdout: Buffer[] = []
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT_CHARACTERS)
    })
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (stopped) {
        reject(
          badRequest(
            API_ERRORS.invalidRequest,
            `Query stopped after ${budget.timeMs / 1000} s: the inspector runs a query for at most that long.`,
          ),
        )
        return
      }
      const output = Buffer.concat(stdout).toString('utf8')
      if (output === '') {
        // The query's own doing as far as anyone can tell (memory, most likely), so a 400.
        const how = signal === null ? `exit code ${code}` : `signal ${signal}`
        const said = stderr.trim().split('\n').at(-1) ?? ''
        reject(
          badRequest(
            API_ERRORS.invalidRequest,
            `The query ended without an answer (${how}). ${said}`.trim(),
          ),
        )
        return
      }
      const answer = JSON.parse(output) as ChildAnswer
      if ('result' in answer) resolve(answer.result)
      else if ('sqlError' in answer)
        reject(badRequest(API_ERRORS.invalidRequest, `SQL error: ${answer.sqlError}`))
      else reject(new Error(`The inspector could not open the database image: ${answer.failure}`))
    })
    // A child killed before it read everything closes stdin under the write: that is not news.
    child.stdin.on('error', () => {})
    const header = Buffer.from(
      JSON.stringify({
        sql,
        rows: budget.rows,
        answerBytes: budget.answerBytes,
        cellCharacters: budget.cellCharacters,
      }),
    )
    const length = Buffer.alloc(4)
    length.writeUInt32BE(header.length)
    child.stdin.write(length)
    child.stdin.write(header)
    child.stdin.end(image)
  })
}
