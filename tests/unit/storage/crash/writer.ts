// Child process of crash-safety.test.ts, which bundles it: writes numbered batches forever and
// reports each one on stdout once its promise has resolved (storage confirms it durable), until
// it is killed.
import { openStorage } from '../../../../src-main/storage'

const [file, firstBatchArgument, keysArgument] = process.argv.slice(2)
if (file === undefined)
  throw new Error('usage: writer.ts <database file> <first batch> <keys per batch>')
const keysPerBatch = Number(keysArgument ?? 5)
const storage = await openStorage(file, { backend: 'sql' })
storage.sql.exec('CREATE TABLE IF NOT EXISTS batches (n INTEGER PRIMARY KEY)')
// Ready means the table is durable: a kill right after must still find it.
await storage.sync()
process.stdout.write('ready\n')
for (let batch = Number(firstBatchArgument ?? 0); ; batch++) {
  const entries: Record<string, number> = {}
  for (let k = 0; k < keysPerBatch; k++) entries[`batch-${batch}-${k}`] = batch
  void storage.put(entries)
  storage.sql.exec('INSERT INTO batches VALUES (?)', batch)
  await storage.sync()
  process.stdout.write(`${batch}\n`)
}
