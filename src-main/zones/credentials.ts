// The leaked-credential database the exposed-credentials check asks: SHA-1 hashes of
// `username:password` pairs (the username lower-cased) and of passwords alone, each made with the
// salt of the list it came from (none for the common public lists). It is reference data, not
// configuration: its object keeps no history.
//
// Lists are kept apart, each under its name (`list_hashes` holds a hash once per list, with the
// count that list gives it), so importing a name again replaces that list instead of adding to it.
// An import streams its content into rows of a new list id recorded in `staging`, a batch per
// call; lookups see only the lists in `lists`, so the whole list appears in the one transaction
// that moves its id from `staging` to `lists` and drops the list it replaces. A killed import
// leaves only rows of a staged id, which the object discards when it next starts.
//
// `list_hashes` is keyed by hash first: each line inserted and each lookup (one per simulated
// login) walks that one B-tree, as when the database was a single table of hashes (a million
// lines import in about as long as before). Dropping a list's rows, which only replacing a list or
// recovering from a crash does, pays for it with a scan of the table.

import { createReadStream } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { StringDecoder } from 'node:string_decoder'
import { badRequest } from '@shared/api/errors'
import type {
  CredentialCounts,
  CredentialDatabase,
  CredentialKind,
  CredentialList,
} from '@shared/api/credentials'
import type { ObjectContext, ObjectNamespace } from '../objects'
import { migrateSchema } from './configured-object'
import { API_ERRORS } from '@shared/api/error-codes'

const SCHEMA: readonly string[] = [
  `CREATE TABLE leaked (hash TEXT NOT NULL, kind TEXT NOT NULL, count INTEGER NOT NULL,
     PRIMARY KEY (hash, kind)) WITHOUT ROWID`,
  `CREATE TABLE salts (salt TEXT PRIMARY KEY)`,
  `CREATE TABLE imports (name TEXT PRIMARY KEY, kind TEXT NOT NULL, lines INTEGER NOT NULL)`,
  `CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
     lines INTEGER NOT NULL, hashes INTEGER NOT NULL)`,
  `CREATE TABLE staging (list INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,
     salt TEXT NOT NULL, lines INTEGER NOT NULL)`,
  `CREATE TABLE list_hashes (hash TEXT NOT NULL, list INTEGER NOT NULL, count INTEGER NOT NULL,
     PRIMARY KEY (hash, list)) WITHOUT ROWID`,
  // What one table held before lists were kept apart stays, as one list per kind.
  `INSERT INTO lists (name, kind, lines, hashes)
     SELECT 'imported before lists were kept apart (' || kind || ')', kind, count(*), count(*)
       FROM leaked GROUP BY kind`,
  `INSERT INTO list_hashes SELECT leaked.hash, lists.id, leaked.count FROM leaked JOIN lists USING (kind)`,
  `DROP TABLE leaked`,
  `DROP TABLE imports`,
]

const sha1 = (text: string) => createHash('sha1').update(text, 'utf8').digest('hex').toUpperCase()

/** What the database knows of a username and password. */
export type LeakLookup = 'pair' | 'password' | undefined

/** The listed hashes among a pair's and a password's, with their lists' kinds. */
export const LEAK_QUERY = `SELECT list_hashes.hash, lists.kind FROM list_hashes JOIN lists ON lists.id = list_hashes.list
  WHERE list_hashes.hash IN (?, ?)`

/**
 * What the database knows of a username and password, `rows` running LEAK_QUERY on it (the
 * object's own storage, or a replay worker's read-only connection to its file).
 */
export function lookupLeak(
  salts: readonly string[],
  username: string,
  password: string,
  rows: (pair: string, alone: string) => Iterable<Record<string, unknown>>,
): LeakLookup {
  let passwordListed = false
  for (const salt of salts) {
    const pair = sha1(`${salt}${username.toLowerCase()}:${password}`)
    const alone = sha1(`${salt}${password}`)
    for (const row of rows(pair, alone)) {
      if (row.hash === pair && row.kind === 'pair') return 'pair'
      if (row.hash === alone && row.kind === 'password') passwordListed = true
    }
  }
  return passwordListed ? 'password' : undefined
}

/** One well-formed line of a list: `HASH` or `HASH:COUNT`. */
export interface HashEntry {
  hash: string
  count: number
}

export class CredentialsObject {
  private salts: string[]

  constructor(private readonly ctx: ObjectContext) {
    migrateSchema(ctx, SCHEMA)
    this.discardStaged()
    this.salts = this.readSalts()
  }

  private readSalts(): string[] {
    return this.ctx.storage.sql
      .exec('SELECT salt FROM salts')
      .toArray()
      .map((row) => String(row.salt))
  }

  /** Rows of imports that never finished: the process stopped during them. */
  private discardStaged(): void {
    const sql = this.ctx.storage.sql
    if (sql.exec('SELECT 1 FROM staging LIMIT 1').toArray().length === 0) return
    this.ctx.storage.transactionSync(() => {
      sql.exec('DELETE FROM list_hashes WHERE list IN (SELECT list FROM staging)')
      sql.exec('DELETE FROM staging')
    })
  }

  /** `pair` when the pair is listed, `password` when only the password is. */
  lookup(username: string, password: string): LeakLookup {
    return lookupLeak(this.salts, username, password, (pair, alone) =>
      this.ctx.storage.sql.exec(LEAK_QUERY, pair, alone),
    )
  }

  imported(name: string): boolean {
    return (
      this.ctx.storage.sql.exec('SELECT 1 FROM lists WHERE name = ?', name).toArray().length > 0
    )
  }

  /** Starts an import: its rows stay invisible until `finishImport`. Answers the staged list's id. */
  beginImport(name: string, kind: CredentialKind, salt: string): number {
    const sql = this.ctx.storage.sql
    // Ids of replaced or discarded lists may be given again: their rows went with them.
    const { id } = sql
      .exec(
        `SELECT coalesce(max(id), 0) + 1 AS id
           FROM (SELECT id FROM lists UNION ALL SELECT list AS id FROM staging)`,
      )
      .one()
    sql.exec('INSERT INTO staging VALUES (?, ?, ?, ?, 0)', id, name, kind, salt)
    return Number(id)
  }

  /** Adds a batch to a staged list; a hash listed twice in one list adds its counts. */
  stageEntries(list: number, entries: readonly HashEntry[]): void {
    const sql = this.ctx.storage.sql
    if (sql.exec('SELECT 1 FROM staging WHERE list = ?', list).toArray().length === 0) {
      throw new Error(`Credential import ${list} is not staged: it was discarded`)
    }
    for (const { hash, count } of entries) {
      sql.exec(
        `INSERT INTO list_hashes VALUES (?, ?, ?)
           ON CONFLICT (hash, list) DO UPDATE SET count = count + excluded.count`,
        hash,
        list,
        count,
      )
    }
    sql.exec('UPDATE staging SET lines = lines + ? WHERE list = ?', entries.length, list)
  }

  /**
   * Makes a staged list visible in one transaction, in place of the list imported under its name
   * before, if any; answers whether there was one, and the database's counts after.
   */
  finishImport(list: number): { replaced: boolean; counts: CredentialCounts } {
    const sql = this.ctx.storage.sql
    const replaced = this.ctx.storage.transactionSync(() => {
      const staged = sql.exec('SELECT * FROM staging WHERE list = ?', list).toArray()[0]
      if (staged === undefined) {
        throw new Error(`Credential import ${list} is not staged: it was discarded`)
      }
      const previous = sql.exec('SELECT id FROM lists WHERE name = ?', staged.name).toArray()[0]
      if (previous !== undefined) {
        sql.exec('DELETE FROM list_hashes WHERE list = ?', previous.id)
        sql.exec('DELETE FROM lists WHERE id = ?', previous.id)
      }
      const { hashes } = sql
        .exec('SELECT count(*) AS hashes FROM list_hashes WHERE list = ?', list)
        .one()
      sql.exec(
        'INSERT INTO lists VALUES (?, ?, ?, ?, ?)',
        list,
        staged.name,
        staged.kind,
        staged.lines,
        hashes,
      )
      sql.exec('INSERT INTO salts VALUES (?) ON CONFLICT DO NOTHING', staged.salt)
      sql.exec('DELETE FROM staging WHERE list = ?', list)
      return previous !== undefined
    })
    this.salts = this.readSalts()
    return { replaced, counts: this.counts() }
  }

  /** Drops a staged list and its rows (an import that failed). */
  discardImport(list: number): void {
    const sql = this.ctx.storage.sql
    this.ctx.storage.transactionSync(() => {
      sql.exec('DELETE FROM list_hashes WHERE list = ?', list)
      sql.exec('DELETE FROM staging WHERE list = ?', list)
    })
  }

  /** Distinct hashes of the imported lists, by kind. */
  counts(): CredentialCounts {
    const count = (kind: CredentialKind) =>
      Number(
        this.ctx.storage.sql
          .exec(
            `SELECT count(DISTINCT hash) AS n FROM list_hashes
              WHERE list IN (SELECT id FROM lists WHERE kind = ?)`,
            kind,
          )
          .one().n,
      )
    return { pair: count('pair'), password: count('password') }
  }

  database(): CredentialDatabase {
    const lists = this.ctx.storage.sql
      .exec('SELECT name, kind, lines, hashes FROM lists ORDER BY name')
      .toArray() as unknown as CredentialList[]
    return { ...this.counts(), lists }
  }
}

export type CredentialNamespace = ObjectNamespace<undefined, CredentialsObject>

export interface ImportCounts {
  /** well-formed lines */
  added: number
  /** lines that are neither blank nor `HASH[:COUNT]` */
  skipped: number
}

export interface ImportOutcome extends ImportCounts {
  replaced: boolean
  counts: CredentialCounts
}

const BATCH_LINES = 5000
/** A list's line is 40 hex digits and a count: a longer one is skipped without being kept whole. */
const MAX_LINE_CHARS = 1024
const HASH_LINE = /^([0-9A-Fa-f]{40})(?::(\d{1,15}))?\s*$/

/** The lines of a text stream; `null` stands for a line too long to be a list's. */
async function* textLines(content: AsyncIterable<Buffer | string>): AsyncGenerator<string | null> {
  const decoder = new StringDecoder('utf8')
  let partial = ''
  let overlong = false
  for await (const chunk of content) {
    const text = partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk))
    let start = 0
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      yield overlong ? null : text.slice(start, end)
      overlong = false
      start = end + 1
    }
    partial = text.slice(start)
    if (partial.length > MAX_LINE_CHARS) {
      overlong = true
      partial = ''
    }
  }
  const last = partial + decoder.end()
  if (overlong) yield null
  else if (last !== '') yield last
}

/**
 * Imports a hash list (`HASH:COUNT` per line) from a stream, a batch at a time, as the list
 * `name`: all of it or, when the stream fails or holds no well-formed line, none of it. Reports
 * progress after each batch.
 */
export async function importHashList(
  namespace: CredentialNamespace,
  content: AsyncIterable<Buffer | string>,
  list: { name: string; kind: CredentialKind; salt?: string },
  onProgress?: (progress: ImportCounts) => void,
): Promise<ImportOutcome> {
  const id = namespace.idFromName('credentials')
  const staged = await namespace.call(id, (db) =>
    db.beginImport(list.name, list.kind, list.salt ?? ''),
  )
  const progress: ImportCounts = { added: 0, skipped: 0 }
  try {
    let batch: HashEntry[] = []
    const flush = async () => {
      const entries = batch
      batch = []
      await namespace.call(id, (db) => db.stageEntries(staged, entries))
      progress.added += entries.length
      onProgress?.({ ...progress })
    }
    for await (const line of textLines(content)) {
      const match = line === null ? null : HASH_LINE.exec(line)
      if (match === null) {
        if (line === null || line.trim() !== '') progress.skipped++
        continue
      }
      batch.push({ hash: match[1]!.toUpperCase(), count: Number(match[2] ?? 1) })
      if (batch.length >= BATCH_LINES) await flush()
    }
    if (batch.length > 0) await flush()
    if (progress.added === 0) {
      throw badRequest(
        API_ERRORS.invalidRequest,
        progress.skipped === 0
          ? "Invalid request: the upload is empty; send the list's content as the request body"
          : `Invalid request: no line of the list is HASH or HASH:COUNT (${progress.skipped} skipped)`,
      )
    }
  } catch (error) {
    await namespace.call(id, (db) => db.discardImport(staged))
    throw error
  }
  const finished = await namespace.call(id, (db) => db.finishImport(staged))
  return { ...progress, ...finished }
}

/** Imports the sample lists shipped in `<resourcesDir>/credentials/` that are not in yet. */
export async function importSampleCredentials(
  namespace: CredentialNamespace,
  resourcesDir: string,
): Promise<void> {
  const dir = join(resourcesDir, 'credentials')
  const id = namespace.idFromName('credentials')
  const lists: [string, CredentialKind][] = [
    ['pairs.txt', 'pair'],
    ['passwords.txt', 'password'],
  ]
  const present = new Set(await readdir(dir))
  for (const [file, kind] of lists) {
    const name = `sample:${file}`
    if (!present.has(file) || (await namespace.call(id, (db) => db.imported(name)))) continue
    await importHashList(namespace, createReadStream(join(dir, file)), { name, kind })
  }
}
