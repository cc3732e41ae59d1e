// `npm run bench`: runs every benchmark in bench/ in turn, each in its own process so one cannot
// warm caches or skew the heap for the next.
//
// Each benchmark is first bundled the way the application's own code ships (plain esbuild, no
// names kept): a development loader such as tsx wraps every closure created at run time in a
// naming call, which costs the engine's per-request code several percent that the shipped
// application never pays. Packages stay external and load from node_modules as they do there.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'

const dir = import.meta.dirname
const outDir = join(dir, '..', 'node_modules', '.cache', 'bench')
const only = process.argv.slice(2)
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort()

mkdirSync(outDir, { recursive: true })
let failed = 0
for (const file of benches) {
  const bundle = join(outDir, file.replace(/\.ts$/, '.mjs'))
  await build({
    entryPoints: [join(dir, file)],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    // The bundle lives elsewhere; the benchmarks find their fixtures from bench/. Its modules are
    // not the program run (a script's `import.meta.filename === process.argv[1]` main stays off).
    define: {
      'import.meta.dirname': JSON.stringify(dir),
      'import.meta.filename': JSON.stringify(join(dir, file)),
    },
    logLevel: 'error',
  })
  const run = spawnSync(process.execPath, ['--enable-source-maps', bundle], { stdio: 'inherit' })
  if (run.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
