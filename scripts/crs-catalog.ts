// The OWASP managed ruleset, converted from the OWASP Core Rule Set 3.3.4 as Debian's
// modsecurity-crs package installs it (issue 18):
//
//   npm run crs:catalog [-- --check]
//
// reads the engine's body-processor rules (modsecurity.conf-recommended, as the reference runs
// them), crs-setup.conf and the REQUEST-9*.conf rules, and writes into resources/managed-rulesets/:
//   - <ruleset>.json: the vendor's shape, one managed rule per CRS scoring rule (a rule adding to
//     tx.anomaly_score_plN) and the final 949110 (resources/managed-rulesets/README.md);
//   - <ruleset>.crs.json: the CRS program the engine interprets, every rule of phases 1 and 2
//     in parsed form (docs/decisions/0007-crs-program-as-parsed-json.md);
//   - crs/: the phrase files @pmFromFile reads, CRS's LICENSE and a NOTICE saying what changed.
// `--check` writes nothing and exits 1 when a committed file differs from what it would write.

import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { format, resolveConfig } from 'prettier'
import { isMarker, type CrsProgram, type CrsRule } from '../src-main/engine/crs/program'
import { SecLangReader } from '../src-main/engine/crs/seclang'

export const CRS_PACKAGE = '/usr/share/modsecurity-crs'
const RULES = join(CRS_PACKAGE, 'rules')
const CRS_SETUP = '/etc/modsecurity/crs/crs-setup.conf'
const MODSECURITY_CONF = '/etc/modsecurity/modsecurity.conf-recommended'
const APACHE_LICENSE = '/usr/share/common-licenses/Apache-2.0'
const DEBIAN_COPYRIGHT = '/usr/share/doc/modsecurity-crs/copyright'

const ROOT = resolve(import.meta.dirname, '..')
export const CATALOG_DIR = join(ROOT, 'resources/managed-rulesets')
export const OWASP_RULESET = '4814384a9e5d4991b9815dcfc25d2f1f'
const FINAL_RULE = '6179ae15870a4bb7b2d480d4843b323c'
/** The catalog's own version: 1 was our hand-written rules; 2 is CRS 3.3.4. */
const VERSION = '2'
const LAST_UPDATED = '2026-11-24T00:00:00.000000Z'

/** What the anomaly-score macros CRS's scoring rules add stand for (crs-setup.conf's defaults). */
const MACRO_SCORES: Record<string, number> = {
  critical_anomaly_score: 5,
  error_anomaly_score: 4,
  warning_anomaly_score: 3,
  notice_anomaly_score: 2,
}
const SEVERITY_SCORES: Record<string, number> = { CRITICAL: 5, ERROR: 4, WARNING: 3, NOTICE: 2 }

interface ManagedRule {
  id: string
  version: string
  action: string
  categories: string[]
  description: string
  enabled: boolean
  expression: string
  score?: number
  score_threshold?: number
}

/** md5 of `<ruleset id>:crs-<CRS id>`, as the catalog's README says. */
export function managedRuleId(crsId: number): string {
  return createHash('md5').update(`${OWASP_RULESET}:crs-${crsId}`).digest('hex')
}

function* chainOf(rule: CrsRule): Generator<CrsRule> {
  for (let link: CrsRule | undefined = rule; link !== undefined; link = link.chain) yield link
}

/** The paranoia level and score of a scoring rule, from its `tx.anomaly_score_plN=+…` setvar. */
export function scoringOf(rule: CrsRule): { level: number; score: number } | undefined {
  for (const link of chainOf(rule)) {
    for (const setvar of link.setvars ?? []) {
      const level = /^(?:inbound_)?anomaly_score_pl([1-4])$/.exec(setvar.name)?.[1]
      if (setvar.collection !== 'TX' || setvar.operation !== 'add' || level === undefined) continue
      const macro = /^%\{tx\.(\w+)\}$/i.exec(setvar.value)?.[1]?.toLowerCase()
      const score =
        (macro === undefined ? Number(setvar.value) : MACRO_SCORES[macro]) ??
        SEVERITY_SCORES[rule.severity ?? '']
      if (score === undefined || Number.isNaN(score))
        throw new Error(`rule ${rule.id}: cannot tell the score of ${setvar.value}`)
      return { level: Number(level), score }
    }
  }
  return undefined
}

function readProgram(): CrsProgram {
  const reader = new SecLangReader()
  reader.read(readFileSync(MODSECURITY_CONF, 'latin1'), MODSECURITY_CONF)
  reader.read(readFileSync(CRS_SETUP, 'latin1'), CRS_SETUP)
  // Apache's Include reads a wildcard's files in name order; response rules run after the request.
  const files = readdirSync(RULES)
    .filter((f) => f.startsWith('REQUEST-') && f.endsWith('.conf'))
    .sort()
  for (const file of files) reader.read(readFileSync(join(RULES, file), 'latin1'), file)
  const items = reader.items.filter((item) => isMarker(item) || item.phase <= 2)
  const dataFiles = new Set<string>()
  for (const item of items) {
    if (isMarker(item)) continue
    for (const link of chainOf(item))
      if (link.operator.name === 'pmfromfile')
        for (const name of link.operator.parameter.split(/\s+/)) dataFiles.add(name)
  }
  const version = execFileSync('dpkg-query', ['-W', '-f=${Version}', 'modsecurity-crs'], {
    encoding: 'utf8',
  })
  return {
    source: `OWASP CRS 3.3.4 (Debian modsecurity-crs ${version})`,
    items,
    dataFiles: [...dataFiles].sort(),
  }
}

function attackFamily(rule: CrsRule): string {
  const tags = (rule.tags ?? []).map((t) => t.toLowerCase()).filter((t) => t.startsWith('attack-'))
  return tags[0] ?? 'attack-generic'
}

function catalogOf(program: CrsProgram): unknown {
  const rules: ManagedRule[] = []
  for (const item of program.items) {
    if (isMarker(item) || item.id === undefined) continue
    const scoring = scoringOf(item)
    if (scoring === undefined) continue
    rules.push({
      id: managedRuleId(item.id),
      version: VERSION,
      action: 'score',
      categories: [`paranoia-level-${scoring.level}`, attackFamily(item)],
      description: `${item.id}: ${(item.msg ?? '').replace(/\s*%\{[^}]*\}/g, '').trim()}`,
      enabled: true,
      expression: 'true',
      score: scoring.score,
    })
  }
  rules.push({
    id: FINAL_RULE,
    version: VERSION,
    action: 'block',
    categories: ['anomaly-score'],
    description: '949110: Inbound Anomaly Score Exceeded',
    enabled: true,
    expression: 'true',
    score_threshold: 40,
  })
  return {
    id: OWASP_RULESET,
    name: 'Cloudflare OWASP Core Ruleset',
    description:
      "The OWASP ModSecurity Core Rule Set 3.3.4: anomaly scoring rules by paranoia level, and a final rule that acts when the request's score reaches the threshold.",
    kind: 'managed',
    phase: 'http_request_firewall_managed',
    version: VERSION,
    last_updated: LAST_UPDATED,
    rules,
  }
}

const NOTICE = `The files of this folder and ../${OWASP_RULESET}.crs.json are converted from the OWASP
ModSecurity Core Rule Set 3.3.4 as Debian's modsecurity-crs package ships it, by
scripts/crs-catalog.ts: the .data phrase files are copied unchanged; the rules of
REQUEST-9*.conf (phases 1 and 2), crs-setup.conf and modsecurity.conf-recommended are
rewritten as parsed JSON; the managed rules of ../${OWASP_RULESET}.json are derived
from the scoring rules (id, message, paranoia level, attack tag, score).

OWASP ModSecurity Core Rule Set
Copyright (c) 2006-2020 Trustwave and contributors. All rights reserved.
Copyright (c) 2021-2022 Core Rule Set project. All rights reserved.
Licensed under the Apache License, Version 2.0 (LICENSE); Debian's notice is in copyright.
`

/** Every file the converter writes, by path, with its content. */
export async function convert(): Promise<Map<string, string>> {
  const program = readProgram()
  const options = { ...(await resolveConfig(join(CATALOG_DIR, 'x.json'))), parser: 'json' }
  const json = (value: unknown) => format(JSON.stringify(value), options)
  const files = new Map<string, string>()
  files.set(join(CATALOG_DIR, `${OWASP_RULESET}.json`), await json(catalogOf(program)))
  files.set(join(CATALOG_DIR, `${OWASP_RULESET}.crs.json`), await json(program))
  for (const name of program.dataFiles)
    files.set(join(CATALOG_DIR, 'crs', name), readFileSync(join(RULES, name), 'latin1'))
  files.set(join(CATALOG_DIR, 'crs', 'LICENSE'), readFileSync(APACHE_LICENSE, 'utf8'))
  files.set(join(CATALOG_DIR, 'crs', 'copyright'), readFileSync(DEBIAN_COPYRIGHT, 'utf8'))
  files.set(join(CATALOG_DIR, 'crs', 'NOTICE'), NOTICE)
  return files
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check')
  const files = await convert()
  const differing = [...files].filter(
    ([path, text]) => !existsSync(path) || readFileSync(path, 'latin1') !== text,
  )
  if (check) {
    for (const [path] of differing) console.log(`differs: ${path}`)
    process.exitCode = differing.length === 0 ? 0 : 1
    return
  }
  mkdirSync(join(CATALOG_DIR, 'crs'), { recursive: true })
  for (const [path, text] of differing) writeFileSync(path, text, 'latin1')
  console.log(`${differing.length} of ${files.size} files written`)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) await main()
