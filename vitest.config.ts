import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'

export default defineConfig({
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
