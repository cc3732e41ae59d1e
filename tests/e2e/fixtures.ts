// The headless shell, started as a user starts it (the built `out/main/headless.js` on a free port
// and a fresh data dir), one per test so that each starts from an empty workbench.

import { test as base } from '@playwright/test'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Engineers testing side by side build into their own folders (`electron-vite build --outDir`).
const BUILD_DIR = process.env.WORKBENCH_BUILD_DIR ?? 'out'

export interface Workbench {
  ui: string
  api: string
  token: string
}

export async function startHeadless(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; workbench: Workbench }> {
  const child = spawn(
    process.execPath,
    [join(BUILD_DIR, 'main/headless.js'), '--port', '0', '--data-dir', dataDir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  )
  let output = ''
  const workbench = await new Promise<Workbench>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`headless shell did not start:\n${output}`)),
      30_000,
    )
    child.stderr?.on('data', (chunk) => (output += chunk))
    child.stdout?.on('data', (chunk) => {
      output += chunk
      const ui = /^UI (\S+)$/m.exec(output)?.[1]
      const api = /^API (\S+)$/m.exec(output)?.[1]
      const token = /^Token (\S+)$/m.exec(output)?.[1]
      if (ui && api && token) {
        clearTimeout(timer)
        resolve({ ui, api, token })
      }
    })
    child.on('exit', (code) => reject(new Error(`headless shell exited with ${code}:\n${output}`)))
  })
  return { child, workbench }
}

export const test = base.extend<{ workbench: Workbench; workbenchEnv: Record<string, string> }>({
  /** Environment variables the shell starts with, e.g. `test.use({ workbenchEnv: {…} })`. */
  workbenchEnv: [{}, { option: true }],
  workbench: async ({ workbenchEnv }, use) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zw-e2e-'))
    const { child, workbench } = await startHeadless(dataDir, workbenchEnv)
    await use(workbench)
    // The shell writes until it exits; removing its data dir earlier can race its last writes.
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  },
})

export { expect } from '@playwright/test'
