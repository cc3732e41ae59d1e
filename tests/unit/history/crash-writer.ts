// Run as a child process by crash.test.ts: commits numbered rows forever, printing each number once
// its transaction has committed, until the parent kills it with SIGKILL. Each commit has a note,
// so each stays a point of its own however many share a millisecond.
import { openSession } from './session'

const file = process.argv[2]
if (file === undefined) throw new Error('usage: crash-writer.ts <database file>')
const session = openSession(file, { now: Date.now })
session.write(`CREATE TABLE IF NOT EXISTS t (n INTEGER PRIMARY KEY, pad BLOB)`, 'create table')
for (let n = 1; ; n++) {
  session.write(`INSERT INTO t VALUES (${n}, randomblob(${(n % 7) * 300}))`, `row ${n}`)
  process.stdout.write(`${n}\n`)
  if (n % 50 === 0) session.history.checkpoint()
}
