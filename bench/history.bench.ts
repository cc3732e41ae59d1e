// Point-in-time recovery's costs: write throughput with history kept vs without, and restoring a
// ~50 MB database vs copying its file. Databases are set up by the storage core's own
// configureConnection() (WAL, exclusive locking, synchronous=FULL, with history automatic
// checkpoints off); history.checkpoint() runs once the WAL's content passes 4 MB. The goal lines
// use those settings. One more line repeats the small transactions at synchronous=NORMAL, which
// the core does not use: there commits are cheapest, so history's share of the cost is largest.

import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serialize } from 'node:v8'
import Database from 'better-sqlite3'
import { configureConnection } from '../src-main/storage'
import { applyScheduledRestore, openHistory, type History } from '../src-main/storage/history'
import { heading, report, throughput } from './measure'

const WAL_CHECKPOINT_BYTES = 4 << 20
const dir = mkdtempSync(join(tmpdir(), 'history-bench-'))
let databases = 0

interface Target {
  db: Database.Database
  history: History | null
  /** what the core does after each commit: report it, and checkpoint when the WAL is large */
  afterCommit(): void
  close(): void
}

type Synchronous = 'FULL' | 'NORMAL'

function openTarget(
  withHistory: boolean,
  synchronous: Synchronous = 'FULL',
  file = join(dir, `db${databases++}.sqlite`),
): Target {
  const options = { now: Date.now }
  if (withHistory) applyScheduledRestore(file, options)
  const db = new Database(file)
  configureConnection(db, withHistory)
  if (synchronous !== 'FULL') db.pragma(`synchronous = ${synchronous}`)
  db.exec(`CREATE TABLE IF NOT EXISTS _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID`)
  const history = withHistory ? openHistory(db, file, options) : null
  return {
    db,
    history,
    afterCommit() {
      if (history === null) return
      history.afterCommit()
      if (history.walBytes() > WAL_CHECKPOINT_BYTES) history.checkpoint()
    },
    close() {
      history?.checkpoint()
      history?.close()
      db.close()
    },
  }
}

async function writeThroughput(
  withHistory: boolean,
  label: string,
  ops: number,
  run: (t: Target) => void,
  synchronous: Synchronous = 'FULL',
) {
  return throughput(label, ops, () => {
    const target = openTarget(withHistory, synchronous)
    run(target)
    target.close()
  })
}

const value = serialize({ action: 'block', enabled: true, score: 40 })
// SQLite skips writing a row rewritten with the bytes it holds, which makes such a commit free:
// each small transaction stores a value of its own so that every one writes its page.
const valueNumbered = (i: number): Buffer =>
  serialize({ action: 'block', enabled: true, score: 40, revision: i })

function smallTransactions(count: number) {
  return (t: Target): void => {
    const put = t.db.prepare(
      `INSERT INTO _cf_KV VALUES (?, ?) ON CONFLICT DO UPDATE SET value = excluded.value`,
    )
    for (let i = 0; i < count; i++) {
      put.run(`rule:${i % 5000}`, valueNumbered(i))
      t.afterCommit()
    }
  }
}

function oneLargeTransaction(rows: number) {
  return (t: Target): void => {
    const put = t.db.prepare(
      `INSERT INTO _cf_KV VALUES (?, ?) ON CONFLICT DO UPDATE SET value = excluded.value`,
    )
    t.db.transaction(() => {
      for (let i = 0; i < rows; i++) put.run(`event:${i.toString().padStart(8, '0')}`, value)
    })()
    t.afterCommit()
  }
}

heading('history: write throughput, kept vs not kept')
const small = 20_000
report(
  await writeThroughput(
    true,
    '20k small transactions, history kept',
    small,
    smallTransactions(small),
  ),
  await writeThroughput(false, 'without history', small, smallTransactions(small)),
  0.8,
)
const large = 100_000
report(
  await writeThroughput(
    true,
    '100k rows in one transaction, history kept',
    large,
    oneLargeTransaction(large),
  ),
  await writeThroughput(false, 'without history', large, oneLargeTransaction(large)),
  0.8,
)
report(
  await writeThroughput(
    true,
    'stress: 20k small at synchronous=NORMAL, kept',
    small,
    smallTransactions(small),
    'NORMAL',
  ),
  await writeThroughput(false, 'without history', small, smallTransactions(small), 'NORMAL'),
)

heading('history: restore vs file copy (~50 MB database)')
const file = join(dir, 'large.sqlite')
const target = openTarget(true, 'FULL', file)
const insert = target.db.prepare(`INSERT INTO _cf_KV VALUES (?, randomblob(4000))`)
for (let batch = 0; batch < 25; batch++) {
  target.db.transaction(() => {
    for (let i = 0; i < 500; i++) insert.run(`blob:${batch}:${i}`)
  })()
  target.afterCommit()
}
const bookmark = target.history?.currentBookmark() ?? ''
const update = target.db.prepare(`UPDATE _cf_KV SET value = randomblob(4000) WHERE key = ?`)
for (let i = 0; i < 2000; i++) {
  update.run(`blob:${i % 25}:${i % 500}`)
  target.afterCommit()
}
target.close()
const megabytes = statSync(file).size / 1e6

const copy = await throughput(`file copy of ${megabytes.toFixed(0)} MB`, 1, () =>
  copyFileSync(file, join(dir, 'copy.sqlite')),
)
const restore = await throughput('restore (schedule + apply at open)', 1, () => {
  const session = openTarget(true, 'FULL', file)
  session.history?.scheduleRestore(bookmark)
  session.close()
  if (!applyScheduledRestore(file, { now: Date.now }))
    throw new Error('the scheduled restore was not applied')
})
report(restore, copy, 0.25)

rmSync(dir, { recursive: true, force: true })
