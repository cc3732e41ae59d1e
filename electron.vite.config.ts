import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'

const at = (path: string) => resolve(import.meta.dirname, path)
const alias = { '@shared': at('src-shared') }

export default defineConfig({
  main: {
    resolve: { alias },
    build: {
      rollupOptions: {
        // Three entries over one core: the Electron shell, the headless (plain Node) shell and
        // the command line (plain Node too); and the replay's worker thread, which
        // src-main/replay/pool.ts finds beside them.
        input: {
          index: at('src-main/electron/main.ts'),
          headless: at('src-main/headless.ts'),
          cli: at('src-main/cli/main.ts'),
          'replay-worker': at('src-main/replay/worker.ts'),
        },
      },
    },
  },
  preload: {
    resolve: { alias },
    build: {
      // A sandboxed preload cannot import anything: one self-contained CommonJS file.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: at('src-main/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: at('src-renderer'),
    resolve: { alias },
    plugins: [svelte()],
    build: { rollupOptions: { input: { index: at('src-renderer/index.html') } } },
  },
})
