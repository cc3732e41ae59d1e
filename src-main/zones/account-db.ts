// The account database: the zones the account holds. One SQLite file under the data dir, in WAL
// mode so that readers never wait for the writer. Schema changes are numbered migrations keyed
// by `PRAGMA user_version`, applied in one transaction at open.

import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE zones (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     type TEXT NOT NULL,
     plan TEXT NOT NULL,
     waf_product TEXT NOT NULL,
     paused INTEGER NOT NULL DEFAULT 0,
     created_on TEXT NOT NULL,
     modified_on TEXT NOT NULL
   )`,
]

export function openAccountDatabase(dataDir: string): Database.Database {
  mkdirSync(dataDir, { recursive: true })
  const db = new Database(join(dataDir, 'account.sqlite'))
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  const applied = db.pragma('user_version', { simple: true }) as number
  db.transaction(() => {
    for (const [index, sql] of MIGRATIONS.entries()) {
      if (index < applied) continue
      db.exec(sql)
    }
    db.pragma(`user_version = ${MIGRATIONS.length}`)
  })()
  return db
}
