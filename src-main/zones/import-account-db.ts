// Data dirs written before zones became objects kept the zones in `<dataDir>/account.sqlite`.
// At start, such a file is imported into the account and zone objects once, then renamed to
// `account.sqlite.imported` (kept, not deleted, so nothing a user had is ever lost). Each zone is
// adopted on its own, crash-safely; an import a kill interrupted resumes at the next start with
// the zones not yet adopted.

import Database from 'better-sqlite3'
import { existsSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import type { ZoneRecord } from './zone-object'
import type { ZoneRegistry } from './registry'

interface LegacyZoneRow extends Omit<ZoneRecord, 'paused'> {
  paused: number
}

/** Imports a foundation-era account database, if the data dir has one; returns how many zones. */
export async function importAccountDatabase(
  dataDir: string,
  registry: ZoneRegistry,
): Promise<number> {
  const file = join(dataDir, 'account.sqlite')
  if (!existsSync(file)) return 0
  const db = new Database(file, { readonly: true })
  let rows: LegacyZoneRow[]
  try {
    rows = db.prepare('SELECT * FROM zones ORDER BY created_on').all() as LegacyZoneRow[]
  } finally {
    db.close()
  }
  for (const row of rows) {
    if (await registry.holds(row.id)) continue
    await registry.adopt({ ...row, paused: row.paused === 1 })
  }
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(file + suffix)) renameSync(file + suffix, `${file}.imported${suffix}`)
  }
  return rows.length
}
