// `npm run bench`: runs every benchmark in bench/ in turn, each in its own process so one cannot
// warm caches or skew the heap for the next.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const dir = import.meta.dirname
const only = process.argv.slice(2)
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort()

let failed = 0
for (const file of benches) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(dir, file)], {
    stdio: 'inherit',
  })
  if (run.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
