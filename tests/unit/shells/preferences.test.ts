// The credentials a user's scripts depend on: generated once on first run, kept across starts,
// replaced only when the user passes a token of their own.

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ensureCredentials, generateApiToken, openPreferences } from '../../../src-main/preferences'

const freshStore = (dir = mkdtempSync(join(tmpdir(), 'zw-prefs-'))) => openPreferences(dir)

describe('credentials in preferences', () => {
  it("generates a token shaped like the vendor's and a 37-hex global key on first run", () => {
    const credentials = ensureCredentials(freshStore())
    expect(credentials.apiToken).toMatch(/^[A-Za-z0-9]{40}$/)
    expect(credentials.apiKey).toMatch(/^[0-9a-f]{37}$/)
    expect(credentials.email).toContain('@')
  })

  it('keeps the same credentials across starts on the same data dir', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zw-prefs-'))
    const first = ensureCredentials(freshStore(dir))
    expect(ensureCredentials(freshStore(dir))).toEqual(first)
  })

  it('takes a token given by the user and keeps it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zw-prefs-'))
    ensureCredentials(freshStore(dir), 'my-script-token')
    expect(ensureCredentials(freshStore(dir)).apiToken).toBe('my-script-token')
  })

  it('refuses a token the Authorization header could not carry', () => {
    expect(() => ensureCredentials(freshStore(), 'has space')).toThrow(/at least 8 characters/)
    expect(() => ensureCredentials(freshStore(), 'short')).toThrow(/at least 8 characters/)
  })

  it('generates a different token each time', () => {
    expect(generateApiToken()).not.toBe(generateApiToken())
  })
})
