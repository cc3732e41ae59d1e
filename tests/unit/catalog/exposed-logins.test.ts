// The exposed-credentials rules against the login shapes in tests/fixtures/traffic: each row's rule
// expression matches its request, and the credential expressions extract the pair the row is
// labelled with. (Whether the pair is leaked is the engine's business; here the always-exposed test
// credentials stand in for the database.) Also checks the traffic corpus is well-formed.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile, compileCredentialExpression, requestContext } from '@shared/expression'
import type { RequestDescription } from '@shared/expression'

const ROOT = resolve(import.meta.dirname, '../../..')
const ECC = 'c2e184081120413c86c3ab7e14069605'

interface Label {
  class: string
  note: string
  rule?: string
  rule_id?: string
  exposed?: boolean
}
type Row = RequestDescription & { label: Label }

function ndjson(file: string): Row[] {
  return readFileSync(resolve(ROOT, 'tests/fixtures/traffic', file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row)
}

interface EccRule {
  id: string
  expression: string
  exposed_credential_check?: { username_expression: string; password_expression: string }
}
const ecc = JSON.parse(
  readFileSync(resolve(ROOT, 'resources/managed-rulesets', `${ECC}.json`), 'utf8'),
) as { rules: EccRule[] }
const rules = new Map(ecc.rules.map((r) => [r.id, r]))

const EXPOSED_USERS = new Set(['CF_EXPOSED_USERNAME', 'CF_EXPOSED_USERNAME@example.com'])
const EXPOSED_PASSWORD = 'CF_EXPOSED_PASSWORD'

describe('traffic corpus', () => {
  it.each([
    ['attacks.ndjson', 200],
    ['benign.ndjson', 200],
    ['exposed-logins.ndjson', 20],
  ])('%s has at least %i labelled requests that build a request context', (file, min) => {
    const rows = ndjson(file)
    expect(rows.length).toBeGreaterThanOrEqual(min)
    for (const row of rows) {
      expect(typeof row.method).toBe('string')
      expect(row.url).toMatch(/^https?:\/\//)
      expect(typeof row.label.class).toBe('string')
      expect(typeof row.label.note).toBe('string')
      if (file === 'attacks.ndjson') expect(row.label.class).not.toBe('benign')
      if (file === 'benign.ndjson') expect(row.label.class).toBe('benign')
      expect(() => requestContext(row)).not.toThrow()
    }
  })
})

describe('exposed-credentials rules on real login shapes', () => {
  const rows = ndjson('exposed-logins.ndjson')

  it('covers every rule of the ruleset, with leaked and clean credentials', () => {
    const covered = new Set(rows.map((r) => r.label.rule_id))
    for (const id of rules.keys()) expect(covered).toContain(id)
    expect(rows.some((r) => r.label.exposed === true)).toBe(true)
    expect(rows.some((r) => r.label.exposed === false && r.label.class === 'benign')).toBe(true)
  })

  it.each(rows.map((r) => [r.label.note, r] as const))('%s', (_note, row) => {
    const rule = rules.get(row.label.rule_id ?? '')
    expect(rule).toBeDefined()
    const ctx = requestContext(row)
    expect(compile(rule!.expression).evaluate(ctx)).toBe(true)
    const check = rule!.exposed_credential_check
    if (!check) return
    const user = compileCredentialExpression(check.username_expression).evaluate(ctx)
    const pass = compileCredentialExpression(check.password_expression).evaluate(ctx)
    expect(typeof user).toBe('string')
    expect(typeof pass).toBe('string')
    const exposed = EXPOSED_USERS.has(user as string) && pass === EXPOSED_PASSWORD
    expect(exposed).toBe(row.label.exposed)
  })

  it('does not match the header-spoofing rule on ordinary logins', () => {
    const spoof = ecc.rules.find((r) => !r.exposed_credential_check)!
    const matcher = compile(spoof.expression)
    for (const row of rows) {
      expect(matcher.evaluate(requestContext(row))).toBe(row.label.class === 'header-spoofing')
    }
  })
})
