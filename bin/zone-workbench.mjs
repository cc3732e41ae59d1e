#!/usr/bin/env node
// `npx zone-workbench …`: runs the command line from the build (src-main/cli/main.ts, built to
// out/main/cli.js by `npm run build`).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const built = join(import.meta.dirname, '..', 'out', 'main', 'cli.js')
if (!existsSync(built)) {
  console.error('zone-workbench is not built: run `npm run build` first')
  process.exit(1)
}
const { runCli } = await import(pathToFileURL(built).href)
process.exitCode = await runCli(process.argv.slice(2))
