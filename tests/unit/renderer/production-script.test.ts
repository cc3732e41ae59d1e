// The rehearsed migration as a production script: valid shell, the rehearsed entry point byte for
// byte, and the vendor's calls in the order the migration needs them.

import { execFileSync, spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { productionScript } from '../../../src-renderer/src/features/migration/production-script'

const config = {
  name: 'default',
  rules: [
    {
      id: '',
      version: '',
      ref: '',
      enabled: true,
      action: 'skip',
      expression: 'http.request.uri.path eq "/it\'s $HOME"',
      description: 'Migrated from firewall rule 1',
      action_parameters: { ruleset: 'current' },
    },
  ],
}

const script = (validation: boolean) =>
  productionScript({ zoneName: 'shop.example', config, validation, rehearsedAt: '2026-11-22' })

/** The JSON documents the script sends, in order. */
function bodies(text: string): unknown[] {
  return [...text.matchAll(/<<'JSON'\n([\s\S]*?)\nJSON\n/g)].map((m) => JSON.parse(m[1]!))
}

describe('production script', () => {
  it('is valid shell', () => {
    for (const validation of [false, true]) {
      expect(() => execFileSync('sh', ['-n'], { input: script(validation) })).not.toThrow()
    }
  })

  it('sends the rehearsed entry point unchanged, quoted against the shell', () => {
    expect(bodies(script(false))).toEqual([config])
    expect(bodies(script(true))).toEqual([config, config])
  })

  it('checks, deploys (through validation when asked) and follows the status, in that order', () => {
    const calls = (text: string) =>
      [...text.matchAll(/waf_migration(?:\/(\w+)|=(\w+))/g)].map((m) => m[1] ?? m[2])
    expect(calls(script(false))).toEqual(['check', 'pending', 'status'])
    expect(calls(script(true))).toEqual(['check', 'validation', 'pending', 'status'])
  })

  it('refuses to run without a zone id and a token', () => {
    const run = spawnSync('sh', ['-c', script(false)], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    })
    expect(run.status).not.toBe(0)
    expect(run.stderr).toMatch(/ZONE_ID/)
    expect(run.stdout).toBe('')
  })
})
