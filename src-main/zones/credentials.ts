// The leaked-credential database the exposed-credentials check asks: a table of SHA-1 hashes of
// `username:password` pairs (the username lower-cased) and of passwords alone, each made with the
// salt of the list it came from (none for the common public lists). It is reference data, not
// configuration: its object keeps no history, and lists are imported a batch at a time from a
// file streamed line by line, so a list of any size never sits in memory.

import { createHash } from 'node:crypto'
import { createReadStream, statSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { ObjectContext, ObjectNamespace } from '../objects'
import { migrateSchema } from './zone-object'

export type CredentialKind = 'pair' | 'password'

const SCHEMA: readonly string[] = [
  `CREATE TABLE leaked (hash TEXT NOT NULL, kind TEXT NOT NULL, count INTEGER NOT NULL,
     PRIMARY KEY (hash, kind)) WITHOUT ROWID`,
  `CREATE TABLE salts (salt TEXT PRIMARY KEY)`,
  `CREATE TABLE imports (name TEXT PRIMARY KEY, kind TEXT NOT NULL, lines INTEGER NOT NULL)`,
]

const sha1 = (text: string) => createHash('sha1').update(text, 'utf8').digest('hex').toUpperCase()

/** What the database knows of a username and password. */
export type LeakLookup = 'pair' | 'password' | undefined

export class CredentialsObject {
  private salts: string[]

  constructor(private readonly ctx: ObjectContext) {
    migrateSchema(ctx, SCHEMA)
    this.salts = this.readSalts()
  }

  private readSalts(): string[] {
    return this.ctx.storage.sql
      .exec('SELECT salt FROM salts')
      .toArray()
      .map((row) => String(row.salt))
  }

  /** `pair` when the pair is listed, `password` when only the password is. */
  lookup(username: string, password: string): LeakLookup {
    const sql = this.ctx.storage.sql
    let passwordListed = false
    for (const salt of this.salts) {
      const pair = sha1(`${salt}${username.toLowerCase()}:${password}`)
      const alone = sha1(`${salt}${password}`)
      for (const row of sql.exec(
        "SELECT kind FROM leaked WHERE (hash = ? AND kind = 'pair') OR (hash = ? AND kind = 'password')",
        pair,
        alone,
      )) {
        if (row.kind === 'pair') return 'pair'
        passwordListed = true
      }
    }
    return passwordListed ? 'password' : undefined
  }

  imported(name: string): boolean {
    return (
      this.ctx.storage.sql.exec('SELECT 1 FROM imports WHERE name = ?', name).toArray().length > 0
    )
  }

  /** Adds `HASH:COUNT` lines; malformed lines are counted and skipped. */
  addLines(
    lines: readonly string[],
    kind: CredentialKind,
    salt: string,
  ): { added: number; skipped: number } {
    const sql = this.ctx.storage.sql
    if (!this.salts.includes(salt)) {
      sql.exec('INSERT INTO salts VALUES (?)', salt)
      this.salts = this.readSalts()
    }
    let added = 0
    let skipped = 0
    for (const line of lines) {
      const match = /^([0-9A-Fa-f]{40})(?::(\d+))?\s*$/.exec(line)
      if (match === null) {
        if (line.trim() !== '') skipped++
        continue
      }
      sql.exec(
        `INSERT INTO leaked VALUES (?, ?, ?)
           ON CONFLICT (hash, kind) DO UPDATE SET count = count + excluded.count`,
        match[1]!.toUpperCase(),
        kind,
        Number(match[2] ?? 1),
      )
      added++
    }
    return { added, skipped }
  }

  finishImport(name: string, kind: CredentialKind, lines: number): void {
    this.ctx.storage.sql.exec(
      'INSERT INTO imports VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET lines = excluded.lines',
      name,
      kind,
      lines,
    )
  }

  counts(): Record<CredentialKind, number> {
    const rows = this.ctx.storage.sql
      .exec('SELECT kind, count(*) AS n FROM leaked GROUP BY kind')
      .toArray()
    const count = (kind: string) => Number(rows.find((row) => row.kind === kind)?.n ?? 0)
    return { pair: count('pair'), password: count('password') }
  }
}

export type CredentialNamespace = ObjectNamespace<undefined, CredentialsObject>

export interface ImportProgress {
  bytesRead: number
  totalBytes: number
  added: number
  skipped: number
}

const BATCH_LINES = 5000

/**
 * Streams a hash list (`HASH:COUNT` per line) into the database in batches, reporting progress
 * after each batch.
 */
export async function importHashList(
  namespace: CredentialNamespace,
  file: string,
  options: {
    kind: CredentialKind
    salt?: string
    name?: string
    onProgress?: (p: ImportProgress) => void
  },
): Promise<ImportProgress> {
  const id = namespace.idFromName('credentials')
  const progress: ImportProgress = {
    bytesRead: 0,
    totalBytes: statSync(file).size,
    added: 0,
    skipped: 0,
  }
  const input = createReadStream(file, { encoding: 'utf8' })
  const lines = createInterface({ input, crlfDelay: Infinity })
  let batch: string[] = []
  const flush = async () => {
    const lines = batch
    batch = []
    const result = await namespace.call(id, (db) =>
      db.addLines(lines, options.kind, options.salt ?? ''),
    )
    progress.added += result.added
    progress.skipped += result.skipped
    progress.bytesRead = input.bytesRead
    options.onProgress?.({ ...progress })
  }
  for await (const line of lines) {
    batch.push(line)
    if (batch.length >= BATCH_LINES) await flush()
  }
  await flush()
  await namespace.call(id, (db) =>
    db.finishImport(options.name ?? file, options.kind, progress.added),
  )
  return progress
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
    await importHashList(namespace, join(dir, file), { kind, name })
  }
}
