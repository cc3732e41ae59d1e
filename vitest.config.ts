import { resolve } from 'node:path'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig } from 'vitest/config'

// The soak project: crash suites (kills per operation from CRASH_KILLS), property runs (their
// runs multiplied by PROPERTY_RUNS, tests/property-runs.ts) and the replay command's and API's
// memory (REPLAY_TEST_MB of input). `npm test` runs it short beside the unit project; `npm run
// soak` runs it alone, long.
const SOAK = [
  'tests/api/crash/**/*.test.ts',
  'tests/unit/storage/crash/**/*.test.ts',
  'tests/unit/history/property.test.ts',
  'tests/unit/expression/properties.test.ts',
  'tests/api/cli-replay.test.ts',
  'tests/api/replay-memory.test.ts',
]

export default defineConfig({
  // compiles the renderer's runes (`*.svelte.ts` state classes) for tests/unit/renderer
  plugins: [svelte({ configFile: false })],
  resolve: { alias: { '@shared': resolve(import.meta.dirname, 'src-shared') } },
  test: {
    environment: 'node',
    // forks, not threads: better-sqlite3 is a native addon and each test file gets its own process.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    coverage: {
      provider: 'v8',
      include: [
        'src-main/**/*.{ts,mjs}',
        'src-shared/**/*.ts',
        'src-renderer/src/**/*.{ts,svelte}',
      ],
      reporter: ['text-summary'],
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts', 'tests/api/**/*.test.ts'],
          exclude: SOAK,
        },
      },
      {
        extends: true,
        test: {
          name: 'soak',
          include: SOAK,
          env: {
            CRASH_KILLS: process.env.CRASH_KILLS ?? '5',
            PROPERTY_RUNS: process.env.PROPERTY_RUNS ?? '1',
            REPLAY_TEST_MB: process.env.REPLAY_TEST_MB ?? '50',
          },
        },
      },
    ],
  },
})
