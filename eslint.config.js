import js from '@eslint/js'
import svelte from 'eslint-plugin-svelte'
import globals from 'globals'
import ts from 'typescript-eslint'

// The layers point one way (docs/architecture.md#layers): shared ← storage ← objects ← zones ← api,
// bridge, export, bundles ← service ← shells; engine sees only shared; the renderer sees only
// shared. Each rule below forbids the imports that would point the other way.
const layer = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
})
const nodeBuiltins = { group: ['node:*'], message: 'src-shared and the renderer run in a browser.' }
const electron = {
  group: ['electron', 'electron/*'],
  message: 'Only the Electron shell may import electron; the service core runs on plain Node.',
}
const upward = (...dirs) => ({
  // src-shared's own folders (e.g. @shared/api) are everyone's to import.
  group: [...dirs.flatMap((d) => [`**/${d}`, `**/${d}/*`, `**/${d}/**`]), '!@shared/**'],
  message:
    'Dependencies point one way: shared ← storage ← objects ← zones ← api ← service ← shells.',
})
// Inside the expression language the sub-layers point one way too (src-shared/expression/README.md):
// values ← regex ← scheme ← syntax ← compile ← waf ← the public face (index.ts, tooling.ts). The
// generic language never reaches the vendor's embedding, as wirefilter's engine never reaches its
// scheme's (https://github.com/cloudflare/wirefilter).
const EXPRESSION_LAYERS = ['values', 'regex', 'scheme', 'syntax', 'compile', 'waf']
const expressionLayer = (dir, index) =>
  layer(
    [`src-shared/expression/${dir}/**`],
    [
      nodeBuiltins,
      electron,
      upward('src-main', 'src-renderer'),
      {
        group: [
          ...EXPRESSION_LAYERS.slice(index + 1).flatMap((d) => [`**/${d}`, `**/${d}/*`]),
          '**/expression',
          '**/expression/index',
          '**/expression/tooling',
          '../index',
          '../tooling',
        ],
        message: `Inside src-shared/expression, ${dir}/ may import only the layers below it: ${EXPRESSION_LAYERS.slice(0, index).join(', ') || 'none, it is the lowest'}.`,
      },
    ],
  )

export default ts.config(
  {
    ignores: [
      'out/**',
      '.builds/**',
      'node_modules/**',
      'test-results/**',
      'playwright-report/**',
      'coverage/**',
      '.data/**',
    ],
  },
  js.configs.recommended,
  ...ts.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-eval': 'error',
      'no-new-func': 'error',
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: ts.parser, extraFileExtensions: ['.svelte'] } },
  },
  // Tests read JSON envelopes of many shapes; typing each one would test the types, not the code.
  { files: ['tests/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  layer(['src-shared/**'], [nodeBuiltins, electron, upward('src-main', 'src-renderer')]),
  ...EXPRESSION_LAYERS.map(expressionLayer),
  layer(['src-renderer/**'], [nodeBuiltins, electron, upward('src-main')]),
  layer(
    ['src-main/engine/**'],
    [
      electron,
      upward('storage', 'objects', 'zones', 'api', 'bridge', 'export', 'bundles', 'electron'),
    ],
  ),
  layer(
    ['src-main/storage/**'],
    [
      electron,
      upward('objects', 'zones', 'api', 'bridge', 'export', 'bundles', 'electron', 'engine'),
    ],
  ),
  layer(
    ['src-main/objects/**'],
    [electron, upward('zones', 'api', 'bridge', 'export', 'bundles', 'electron', 'engine')],
  ),
  layer(
    ['src-main/zones/**'],
    [electron, upward('api', 'bridge', 'export', 'bundles', 'electron')],
  ),
  layer(
    ['src-main/api/**', 'src-main/bridge/**', 'src-main/export/**', 'src-main/bundles/**'],
    [electron, upward('electron')],
  ),
  layer(
    ['src-main/service.ts', 'src-main/headless.ts', 'src-main/cli/**'],
    [electron, upward('electron')],
  ),
)
