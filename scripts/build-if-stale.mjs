// Builds with electron-vite when out/ is missing or older than any source file, so that
// `npm start` and `npm run serve` always run what the sources say without rebuilding needlessly.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const SOURCES = [
  'src-main',
  'src-renderer',
  'src-shared',
  'resources',
  'electron.vite.config.ts',
  'package.json',
]

function newestMtime(path) {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce(
    (newest, name) => Math.max(newest, newestMtime(join(path, name))),
    stat.mtimeMs,
  )
}

export function buildIfStale() {
  const built = join(root, 'out', 'main', 'headless.js')
  const sources = SOURCES.map((p) => join(root, p)).filter(existsSync)
  const stale = !existsSync(built) || sources.some((p) => newestMtime(p) > statSync(built).mtimeMs)
  if (!stale) return
  console.log('Building Zone Workbench…')
  const result = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  )
  if (result.status !== 0) process.exit(result.status ?? 1)
}
