// `npm run serve -- [--host H] [--port N|0] [--data-dir DIR] [--api-token T]`: the headless shell.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { buildIfStale } from './build-if-stale.mjs'

buildIfStale()
const child = spawn(
  process.execPath,
  [join(import.meta.dirname, '..', 'out', 'main', 'headless.js'), ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
)
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))
