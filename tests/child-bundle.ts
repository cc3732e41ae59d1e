// A test's child process bundled once with esbuild, as the application ships (bench/run.ts does
// the same for the benchmarks). Started under `--import tsx` instead, every start compiles each
// module again: a second or more on two cores, which a crash test that starts its child tens of
// times pays each time. Packages stay external and load from node_modules, as they do there.
import { rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { build } from 'esbuild'

const repoRoot = join(import.meta.dirname, '..')

/**
 * Bundles the script `entry` for Node; answers the bundle's path. The bundle sits under the
 * repository (node_modules/.cache) so that its packages and resources resolve from there.
 */
export async function bundleChild(entry: string): Promise<string> {
  const name = `${basename(entry, '.ts')}-${process.pid}`
  const outfile = join(repoRoot, 'node_modules', '.cache', 'test-children', name, 'child.mjs')
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  })
  return outfile
}

/** Removes a bundle bundleChild made. */
export function removeChildBundle(bundle: string): void {
  rmSync(dirname(bundle), { recursive: true, force: true })
}
