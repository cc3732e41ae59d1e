// Stateful-object storage: our storage against raw better-sqlite3 prepared statements (the floor
// it is built on) and against Miniflare's Durable Object running the vendor's runtime, on 100k keys.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serialize, deserialize } from 'node:v8'
import Database from 'better-sqlite3'
import { Miniflare } from 'miniflare'
import { openStorage, type Storage } from '../src-main/storage'
import { heading, report, throughput, type Throughput } from './measure'

const KEYS = 100_000
const key = (i: number): string => `key-${String(i).padStart(6, '0')}`
// SQLite skips writing a row rewritten with the bytes it holds, so each round of puts stores new
// values (its own revision): otherwise every round after the first would measure writes of nothing.
const value = (i: number, revision = 0): { id: number; name: string; revision: number } => ({
  id: i,
  name: `value ${i}`,
  revision,
})
let revisions = 0
const nextRevision = (): number => ++revisions
const dir = mkdtempSync(join(tmpdir(), 'storage-bench-'))
let fileCounter = 0
const newFile = (): string => join(dir, `bench-${++fileCounter}.sqlite`)

// ---- raw better-sqlite3, the same table and encoding ---------------------------------------------
function rawDatabase(): {
  db: Database.Database
  put: Database.Statement
  get: Database.Statement
} {
  const db = new Database(newFile())
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.exec('CREATE TABLE _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID')
  return {
    db,
    put: db.prepare(
      'INSERT INTO _cf_KV VALUES (?, ?) ON CONFLICT DO UPDATE SET value = excluded.value',
    ),
    get: db.prepare('SELECT value FROM _cf_KV WHERE key = ?').pluck(),
  }
}

// ---- Miniflare ------------------------------------------------------------------------------
const WORKER = `import { DurableObject } from 'cloudflare:workers'
const key = (i) => 'key-' + String(i).padStart(6, '0')
export class Bench extends DurableObject {
  async put(n, revision) { for (let i = 0; i < n; i++) await this.ctx.storage.put(key(i), { id: i, name: 'value ' + i, revision }) }
  async get(n) { let found = 0; for (let i = 0; i < n; i++) if ((await this.ctx.storage.get(key(i))) !== undefined) found++; return found }
  async list() { return (await this.ctx.storage.list()).size }
  sqlInsert(n, revision) {
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)')
    for (let i = 0; i < n; i++) this.ctx.storage.sql.exec('INSERT OR REPLACE INTO t VALUES (?, ?)', i, 'value ' + i + ' r' + revision)
  }
  sqlSelect(n) { let found = 0; for (let i = 0; i < n; i++) found += this.ctx.storage.sql.exec('SELECT v FROM t WHERE id = ?', i).toArray().length; return found }
}
export default { fetch() { return new Response('') } }`

interface BenchStub {
  put(n: number, revision: number): Promise<void>
  get(n: number): Promise<number>
  list(): Promise<number>
  sqlInsert(n: number, revision: number): Promise<void>
  sqlSelect(n: number): Promise<number>
}

async function miniflareFigures(): Promise<Record<string, Throughput>> {
  const miniflare = new Miniflare({
    modules: true,
    script: WORKER,
    compatibilityDate: '2026-02-01',
    durableObjects: { BENCH: { className: 'Bench', useSQLite: true } },
    durableObjectsPersist: join(dir, 'miniflare'),
  })
  try {
    const namespace = (await miniflare.getDurableObjectNamespace('BENCH')) as unknown as {
      idFromName(name: string): unknown
      get(id: unknown): BenchStub
    }
    const stub = namespace.get(namespace.idFromName('bench'))
    return {
      put: await throughput('Miniflare put (awaited)', KEYS, () => stub.put(KEYS, nextRevision())),
      get: await throughput('Miniflare get (awaited)', KEYS, () => stub.get(KEYS)),
      list: await throughput('Miniflare list() rows', KEYS, () => stub.list()),
      sqlInsert: await throughput('Miniflare sql.exec INSERT', KEYS, () =>
        stub.sqlInsert(KEYS, nextRevision()),
      ),
      sqlSelect: await throughput('Miniflare sql.exec point SELECT', KEYS, () =>
        stub.sqlSelect(KEYS),
      ),
    }
  } finally {
    await miniflare.dispose()
  }
}

// ---- ours -------------------------------------------------------------------------------------
async function putAll(storage: Storage): Promise<void> {
  const revision = nextRevision()
  for (let i = 0; i < KEYS; i++) await storage.put(key(i), value(i, revision))
  await storage.sync()
}

async function getAll(storage: Storage): Promise<void> {
  for (let i = 0; i < KEYS; i++) await storage.get(key(i))
}

async function main(): Promise<void> {
  heading(`storage: ${KEYS.toLocaleString('en-US')} keys`)
  const raw = rawDatabase()
  const rawPut = await throughput('raw better-sqlite3 put (1 txn)', KEYS, () => {
    const revision = nextRevision()
    raw.db.transaction(() => {
      for (let i = 0; i < KEYS; i++) raw.put.run(key(i), serialize(value(i, revision)))
    })()
  })
  const rawGet = await throughput('raw better-sqlite3 get', KEYS, () => {
    for (let i = 0; i < KEYS; i++) deserialize(raw.get.get(key(i)) as Buffer)
  })
  raw.db.close()
  const mf = await miniflareFigures()

  const file = newFile()
  const storage = await openStorage(file, { backend: 'sql' })
  const put = await throughput('put (awaited)', KEYS, () => putAll(storage))
  report(put, rawPut, 0.5)
  report(put, mf.put as Throughput, 2)
  const cached = await throughput('get (awaited, cached)', KEYS, () => getAll(storage))
  storage.close()
  const cold = await throughput('get (awaited, cold: freshly opened)', KEYS, async () => {
    const reopened = await openStorage(file, { backend: 'sql' })
    await getAll(reopened)
    reopened.close()
  })
  report(cold, rawGet, 0.5)
  report(cached, rawGet, 0.5)
  report(cold, mf.get as Throughput, 2)
  report(cached, mf.get as Throughput, 2)

  const listing = await openStorage(file, { backend: 'sql' })
  const list = await throughput('list() rows', KEYS, () => listing.list())
  report(list, mf.list as Throughput, 2)
  listing.sql.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)')
  const sqlInsert = await throughput('sql.exec INSERT', KEYS, async () => {
    const revision = nextRevision()
    for (let i = 0; i < KEYS; i++)
      listing.sql.exec('INSERT OR REPLACE INTO t VALUES (?, ?)', i, `value ${i} r${revision}`)
    await listing.sync()
  })
  report(sqlInsert, mf.sqlInsert as Throughput, 2)
  const sqlSelect = await throughput('sql.exec point SELECT', KEYS, () => {
    for (let i = 0; i < KEYS; i++) listing.sql.exec('SELECT v FROM t WHERE id = ?', i).toArray()
  })
  report(sqlSelect, mf.sqlSelect as Throughput, 2)

  heading('point-in-time history: cost on writes, restore vs copy')
  const withoutHistory = await openStorage(newFile(), { backend: 'sql', history: false })
  const putNoHistory = await throughput('put (awaited), history off', KEYS, () =>
    putAll(withoutHistory),
  )
  withoutHistory.close()
  // History pays per commit, so also measure small commits: one batch of 10 puts per turn.
  const smallCommits = async (target: Storage): Promise<void> => {
    for (let i = 0; i < 2000; i++) {
      for (let k = 0; k < 10; k++) void target.put(key(k), value(i))
      await target.sync()
    }
  }
  const commitsOff = await openStorage(newFile(), { backend: 'sql', history: false })
  const commitsNoHistory = await throughput('commits of 10 puts, history off', 2000, () =>
    smallCommits(commitsOff),
  )
  commitsOff.close()
  const commitsOn = await openStorage(newFile(), { backend: 'sql' })
  const commitsHistory = await throughput('commits of 10 puts, history on', 2000, () =>
    smallCommits(commitsOn),
  )
  report(put, putNoHistory, 0.8)
  report(commitsHistory, commitsNoHistory, 0.8)

  const restoreTarget = await commitsOn.getCurrentBookmark()
  commitsOn.close()
  const restoreFile = join(dir, `bench-${fileCounter}.sqlite`)
  const copy = await throughput(
    'copy of the database file',
    1,
    () => copyFileSync(restoreFile, `${restoreFile}.copy`),
    1,
  )
  const restore = await throughput(
    'restore to a bookmark (schedule + reopen)',
    1,
    async () => {
      const before = await openStorage(restoreFile, { backend: 'sql' })
      await before.onNextSessionRestoreBookmark(restoreTarget)
      before.close()
      ;(await openStorage(restoreFile, { backend: 'sql' })).close()
    },
    1,
  )
  // This database is small, so opening it twice outweighs the copy; the reopen alone shows what
  // the restore itself adds. bench/history restores a ~50 MB database against its copy.
  const reopen = await throughput(
    'open + close + reopen, nothing to restore',
    1,
    async () => {
      ;(await openStorage(restoreFile, { backend: 'sql' })).close()
      ;(await openStorage(restoreFile, { backend: 'sql' })).close()
    },
    1,
  )
  report(restore, copy)
  report(restore, reopen)
  rmSync(dir, { recursive: true, force: true })
}

await main()
