// The managed-ruleset catalog (resources/managed-rulesets): shape, ids, counts, actions, every
// expression compiles with the Rules-language module, and the OWASP ruleset is CRS 3.3.4.
// Detection rates are measured elsewhere (the engine's tests), not here.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile, compileCredentialExpression, PHASE_MANAGED } from '@shared/expression'
import { publicView, readCatalogFiles } from '../../../src-main/zones/rulesets/catalog'

const DIR = resolve(import.meta.dirname, '../../../resources/managed-rulesets')
const CMR = 'efb7b8c949ac4650a09736fc376e9aee'
const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
const ECC = 'c2e184081120413c86c3ab7e14069605'
const OWASP_FINAL = '6179ae15870a4bb7b2d480d4843b323c'
const HEX32 = /^[0-9a-f]{32}$/

interface CatalogRule {
  id: string
  version: string
  action: string
  categories: string[]
  description: string
  enabled: boolean
  expression: string
  ref?: string
  score?: number
  score_threshold?: number
  action_parameters?: { headers?: Record<string, { operation: string; value: string }> }
  exposed_credential_check?: { username_expression: string; password_expression: string }
}

interface CatalogRuleset {
  id: string
  name: string
  description: string
  kind: string
  phase: string
  version: string
  last_updated: string
  rules: CatalogRule[]
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(resolve(DIR, file), 'utf8')) as T
}

const index = readJson<{ version: string; rulesets: string[] }>('index.json')
const rulesets = index.rulesets.map((f) => readJson<CatalogRuleset>(f))
const byId = new Map(rulesets.map((r) => [r.id, r]))
const allRules = rulesets.flatMap((rs) => rs.rules.map((rule) => ({ rs, rule })))

function ruleset(id: string): CatalogRuleset {
  const rs = byId.get(id)
  if (!rs) throw new Error(`ruleset ${id} missing from index.json`)
  return rs
}

describe('catalog index', () => {
  it('lists the three managed rulesets, each file named after its id', () => {
    expect(index.rulesets).toEqual([`${CMR}.json`, `${OWASP}.json`, `${ECC}.json`])
    index.rulesets.forEach((file, i) => expect(file).toBe(`${rulesets[i]!.id}.json`))
  })
})

describe.each(rulesets.map((rs) => [rs.name, rs] as const))('%s', (_name, rs) => {
  it('has the ruleset fields', () => {
    expect(rs.id).toMatch(HEX32)
    expect(rs.name.length).toBeGreaterThan(0)
    expect(typeof rs.description).toBe('string')
    expect(rs.kind).toBe('managed')
    expect(rs.phase).toBe('http_request_firewall_managed')
    expect(rs.version).toMatch(/^[1-9][0-9]*$/)
    expect(Number.isNaN(Date.parse(rs.last_updated))).toBe(false)
    expect(rs.rules.length).toBeGreaterThan(0)
  })

  it('has well-formed rules', () => {
    for (const rule of rs.rules) {
      const where = `${rs.name}: ${rule.description}`
      expect(rule.id, where).toMatch(HEX32)
      expect(rule.version, where).toMatch(/^[1-9][0-9]*$/)
      expect(typeof rule.enabled, where).toBe('boolean')
      expect(rule.description.length, where).toBeGreaterThan(0)
      expect(rule.expression.length, where).toBeGreaterThan(0)
      expect(rule.expression.length, where).toBeLessThanOrEqual(4096)
      expect(Array.isArray(rule.categories) && rule.categories.length > 0, where).toBe(true)
      expect(new Set(rule.categories).size, where).toBe(rule.categories.length)
      for (const c of rule.categories) expect(c, where).toMatch(/^[a-z0-9][a-z0-9.-]*$/)
      if (rule.ref !== undefined) expect(rule.ref.length, where).toBeGreaterThan(0)
    }
  })

  it('compiles every expression with the Rules-language module', () => {
    for (const rule of rs.rules) {
      expect(
        () => compile(rule.expression, { phase: PHASE_MANAGED }),
        `${rule.description}: ${rule.expression}`,
      ).not.toThrow()
      const ecc = rule.exposed_credential_check
      if (ecc) {
        for (const text of [ecc.username_expression, ecc.password_expression]) {
          expect(
            () => compileCredentialExpression(text),
            `${rule.description}: ${text}`,
          ).not.toThrow()
          expect(text.length).toBeLessThanOrEqual(1024)
        }
      }
    }
  })
})

describe('rule ids', () => {
  it('are unique across all catalog files', () => {
    const ids = allRules.map(({ rule }) => rule.id)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('do not reuse a ruleset id', () => {
    for (const { rule } of allRules) expect(byId.has(rule.id)).toBe(false)
  })
})

describe('Cloudflare Managed Ruleset', () => {
  const rs = ruleset(CMR)

  it('has at least 120 rules with block or log defaults, some disabled', () => {
    expect(rs.rules.length).toBeGreaterThanOrEqual(120)
    for (const rule of rs.rules) expect(['block', 'log']).toContain(rule.action)
    expect(rs.rules.some((r) => r.action === 'log')).toBe(true)
    expect(rs.rules.some((r) => !r.enabled)).toBe(true)
    expect(rs.rules.filter((r) => r.enabled).length).toBeGreaterThan(rs.rules.length / 2)
  })

  it('tags rules by technology and attack class', () => {
    const tags = new Set(rs.rules.flatMap((r) => r.categories))
    for (const t of [
      'wordpress',
      'drupal',
      'joomla',
      'magento',
      'php',
      'apache-struts',
      'microsoft-exchange',
      'jenkins',
      'oracle-weblogic',
      'sqli',
      'xss',
      'rce',
      'lfi',
      'directory-traversal',
      'ssrf',
    ])
      expect(tags, t).toContain(t)
  })

  it('names CVEs in the vendor style, with a matching tag', () => {
    for (const rule of rs.rules) {
      for (const [, cve] of rule.description.matchAll(/CVE:(CVE-\d{4}-\d{4,})/g)) {
        expect(rule.categories, rule.description).toContain(cve!.toLowerCase())
      }
    }
  })
})

describe('Cloudflare OWASP Core Ruleset', () => {
  const rs = ruleset(OWASP)
  const scoring = rs.rules.slice(0, -1)
  const last = rs.rules[rs.rules.length - 1]!

  it('ends with 949110, the anomaly score rule', () => {
    expect(last.id).toBe(OWASP_FINAL)
    expect(last.description).toBe('949110: Inbound Anomaly Score Exceeded')
    expect(last.action).toBe('block')
    expect(last.score_threshold).toBe(40)
    expect(last.expression).toBe('true')
    expect(last.enabled).toBe(true)
    expect(last.categories.some((c) => c.startsWith('paranoia-level-'))).toBe(false)
  })

  it('has at least 60 scoring rules with CRS-style numbered descriptions and scores 2..5', () => {
    expect(scoring.length).toBeGreaterThanOrEqual(60)
    for (const rule of scoring) {
      expect(rule.action, rule.description).toBe('score')
      expect(rule.description).toMatch(/^9\d{5}: \S/)
      expect(
        Number.isInteger(rule.score) && rule.score! >= 2 && rule.score! <= 5,
        rule.description,
      ).toBe(true)
      expect(rule.score_threshold).toBeUndefined()
    }
  })

  it('tags each scoring rule with exactly one paranoia level and an attack class', () => {
    const perLevel = [0, 0, 0, 0]
    for (const rule of scoring) {
      const levels = rule.categories.filter((c) => /^paranoia-level-[1-4]$/.test(c))
      expect(levels, rule.description).toHaveLength(1)
      perLevel[Number(levels[0]!.slice(-1)) - 1]! += 1
      expect(
        rule.categories.some((c) => c.startsWith('attack-')),
        rule.description,
      ).toBe(true)
    }
    for (const n of perLevel) expect(n).toBeGreaterThan(0)
    expect(perLevel[0]).toBeGreaterThan(perLevel[1]!)
  })

  it('uses unique CRS numbers', () => {
    const nums = rs.rules.map((r) => r.description.slice(0, 6))
    expect(new Set(nums).size).toBe(nums.length)
  })

  it('is CRS 3.3.4: its scoring rules, ids derived from the CRS ids, with their level and score', () => {
    for (const rule of scoring) {
      const crsId = rule.description.slice(0, 6)
      expect(rule.id).toBe(createHash('md5').update(`${OWASP}:crs-${crsId}`).digest('hex'))
      expect(rule.expression).toBe('true')
    }
    const byCrsId = new Map(scoring.map((r) => [r.description.slice(0, 6), r]))
    expect(byCrsId.get('942100')).toMatchObject({
      description: '942100: SQL Injection Attack Detected via libinjection',
      categories: ['paranoia-level-1', 'attack-sqli'],
      score: 5,
    })
    expect(byCrsId.get('920300')).toMatchObject({
      categories: ['paranoia-level-2', 'attack-protocol'],
      score: 2,
    })
    expect(byCrsId.get('941100')?.categories).toEqual(['paranoia-level-1', 'attack-xss'])
    expect(scoring).toHaveLength(212)
  })

  it('carries the CRS program the engine runs, which the API never shows', () => {
    const loaded = readCatalogFiles(resolve(DIR, '..')).find((r) => r.id === OWASP)!
    const program = loaded.crs!.program
    expect(program.source).toMatch(/^OWASP CRS 3\.3\.4/)
    const ids = new Set(program.items.flatMap((item) => ('id' in item ? [item.id] : [])))
    for (const rule of scoring) expect(ids.has(Number(rule.description.slice(0, 6)))).toBe(true)
    for (const file of program.dataFiles) expect(loaded.crs!.data[file]!.length).toBeGreaterThan(0)
    expect(publicView(loaded)).not.toHaveProperty('crs')
  })
})

describe('Cloudflare Exposed Credentials Check Ruleset', () => {
  const rs = ruleset(ECC)
  const checks = rs.rules.filter((r) => r.exposed_credential_check)

  it('has ten rules: six CMS checks, three generic checks and the header-spoofing block', () => {
    expect(rs.rules).toHaveLength(10)
    expect(checks).toHaveLength(9)
    for (const cms of ['wordpress', 'joomla', 'drupal', 'ghost', 'plone', 'magento']) {
      expect(
        checks.filter((r) => r.categories.includes(cms)),
        cms,
      ).toHaveLength(1)
    }
    expect(checks.filter((r) => r.categories.includes('generic'))).toHaveLength(3)
  })

  it('checks with the rewrite action adding Exposed-Credential-Check: 1', () => {
    for (const rule of checks) {
      expect(rule.action).toBe('rewrite')
      expect(rule.action_parameters).toEqual({
        headers: { 'Exposed-Credential-Check': { operation: 'set', value: '1' } },
      })
    }
  })

  it('blocks requests that already carry the header', () => {
    const spoof = rs.rules.filter((r) => !r.exposed_credential_check)
    expect(spoof).toHaveLength(1)
    expect(spoof[0]!.action).toBe('block')
    expect(spoof[0]!.expression).toContain('"exposed-credential-check"')
  })

  it('uses only upper, lower, url_decode and lookup_json_string, unnested, in credential expressions', () => {
    for (const rule of checks) {
      for (const text of Object.values(rule.exposed_credential_check!)) {
        const calls = [...text.matchAll(/([a-z_]+)\s*\(/g)].map((m) => m[1])
        expect(calls, text).toHaveLength(1)
        expect(['upper', 'lower', 'url_decode', 'lookup_json_string']).toContain(calls[0])
      }
    }
  })
})
