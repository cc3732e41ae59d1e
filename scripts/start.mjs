// `npm start`: builds, then opens the Electron window where Electron's binary is installed. Where
// it is not (its download is unreachable on some machines), says so in one line and runs the
// headless shell instead, whose UI opens in any browser.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildIfStale } from './build-if-stale.mjs'

const root = join(import.meta.dirname, '..')

/** The Electron executable the `electron` package would run, if its binary is present. */
function electronBinary() {
  const packageDir = join(root, 'node_modules', 'electron')
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH
  const pathFile = join(packageDir, 'path.txt')
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : 'electron'
  const candidate = override ? join(override, relative) : join(packageDir, 'dist', relative)
  return existsSync(candidate) ? candidate : undefined
}

buildIfStale()
const binary = electronBinary()
const args = process.argv.slice(2)
let child
if (binary) {
  child = spawn(binary, [root, ...args], { stdio: 'inherit' })
} else {
  console.log(
    "Electron's binary is not installed on this machine: running the headless shell; open the UI address below in a browser.",
  )
  child = spawn(process.execPath, [join(root, 'out', 'main', 'headless.js'), ...args], {
    stdio: 'inherit',
  })
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))
