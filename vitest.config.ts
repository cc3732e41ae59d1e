import { resolve } from 'node:path'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  // compiles the renderer's runes (`*.svelte.ts` state classes) for tests/unit/renderer
  plugins: [svelte({ configFile: false })],
  resolve: { alias: { '@shared': resolve(import.meta.dirname, 'src-shared') } },
  test: {
    include: ['tests/unit/**/*.test.ts', 'tests/api/**/*.test.ts'],
    environment: 'node',
    // forks, not threads: better-sqlite3 is a native addon and each test file gets its own process.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
