// Opens a database the way the storage core does (restore first, WAL with automatic checkpoints
// off, history attached) and dumps its whole content for comparison.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import {
  applyScheduledRestore,
  openHistory,
  type History,
  type HistoryOptions,
} from '../../../src-main/storage/history'

export const DAY = 86_400_000

/** A clock tests move by hand. */
export class TestClock {
  constructor(public time = Date.UTC(2026, 0, 1)) {}
  readonly now = (): number => this.time
  advance(ms: number): void {
    this.time += ms
  }
}

export interface Session {
  db: Database.Database
  history: History
  /** whether opening applied a scheduled restore */
  restored: boolean
  /** runs `sql` as one committed transaction and reports it */
  write(sql: string, note?: string): void
  close(): void
}

export function openSession(file: string, options: HistoryOptions): Session {
  const restored = applyScheduledRestore(file, options)
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('wal_autocheckpoint = 0')
  const history = openHistory(db, file, options)
  return {
    db,
    history,
    restored,
    write(sql, note) {
      db.transaction(() => db.exec(sql))()
      history.afterCommit(note)
    },
    close() {
      history.checkpoint()
      history.close()
      db.close()
    },
  }
}

export function tempDatabase(): { file: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'history-test-'))
  return {
    file: join(dir, 'object.sqlite'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** Every row of every table, and the schema itself, in a stable order. */
export function dump(db: Database.Database): Record<string, string[]> {
  const schema = db
    .prepare(`SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name`)
    .all() as { type: string; name: string; sql: string | null }[]
  const out: Record<string, string[]> = { sqlite_schema: schema.map((row) => JSON.stringify(row)) }
  for (const { type, name } of schema) {
    if (type !== 'table' || name.startsWith('sqlite_')) continue
    const rows = db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`).all()
    out[name] = rows.map((row) => JSON.stringify(row)).sort()
  }
  return out
}
