// The managed-ruleset catalog: the vendor's pre-built rulesets, shipped in
// resources/managed-rulesets/ and installed into the account object at start. Every version ever
// installed is kept, so a deployment pinned to `action_parameters.version` keeps resolving after
// a newer catalog arrives; `latest` means the highest version.
//
// The rules' expressions are ours and stay inside the service: the API shows managed rules
// without them, as the vendor does (publicView).

import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Rule, Ruleset } from '@shared/api/rulesets'
import type { CrsBundle, CrsProgram } from '../../engine/crs/program'

/** A managed rule as the catalog holds it: with its expression and, for scoring rules, its score. */
export interface CatalogRule extends Rule {
  expression: string
  /** what a matching `score` rule adds to the request's anomaly score */
  score?: number
}

export interface ManagedRuleset extends Ruleset {
  rules: CatalogRule[]
  /** the OWASP ruleset's CRS program, which its scoring rules stand for (docs/decisions/0007-crs-program-as-parsed-json.md) */
  crs?: CrsBundle
}

/** `<id>.crs.json` beside a ruleset's file, with the phrase files it names (in `crs/`). */
function readCrsBundle(dir: string, id: string): CrsBundle | undefined {
  const file = join(dir, `${id}.crs.json`)
  if (!existsSync(file)) return undefined
  const program = JSON.parse(readFileSync(file, 'utf8')) as CrsProgram
  const data: Record<string, string[]> = {}
  for (const name of program.dataFiles) {
    // ModSecurity reads a phrase file's lines trimmed, without comments and blank lines.
    data[name] = readFileSync(join(dir, 'crs', name), 'latin1')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'))
  }
  return { program, data }
}

const MANAGED_SOURCE = 'firewall_managed'

/** Reads the catalog files named by `<resourcesDir>/managed-rulesets/index.json`. */
export function readCatalogFiles(resourcesDir: string): ManagedRuleset[] {
  const dir = join(resourcesDir, 'managed-rulesets')
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { rulesets: string[] }
  return index.rulesets.map((file) => readCatalogFile(join(dir, file)))
}

/**
 * One managed ruleset's file, with its CRS program when one lies beside it; its rules take the
 * ruleset's date and their own id as ref where the file leaves them out.
 */
export function readCatalogFile(file: string): ManagedRuleset {
  const ruleset = JSON.parse(readFileSync(file, 'utf8')) as ManagedRuleset
  const crs = readCrsBundle(dirname(file), ruleset.id)
  return {
    ...ruleset,
    ...(crs === undefined ? {} : { crs }),
    source: MANAGED_SOURCE,
    rules: ruleset.rules.map((rule) => ({
      ...rule,
      ref: rule.ref ?? rule.id,
      last_updated: rule.last_updated ?? ruleset.last_updated,
    })),
  }
}

export class ManagedCatalog {
  private readonly byId = new Map<string, ManagedRuleset[]>()

  /** `versions`: every installed version of every managed ruleset, in any order. */
  constructor(versions: readonly ManagedRuleset[]) {
    for (const ruleset of versions) {
      const list = this.byId.get(ruleset.id) ?? []
      list.push(ruleset)
      this.byId.set(ruleset.id, list)
    }
    for (const list of this.byId.values())
      list.sort((a, b) => Number(a.version) - Number(b.version))
  }

  has(id: string): boolean {
    return this.byId.has(id)
  }

  /** The latest version of every managed ruleset. */
  latest(): ManagedRuleset[] {
    return [...this.byId.values()].map((list) => list[list.length - 1]!)
  }

  /** `version` undefined or `latest` for the newest. */
  resolve(id: string, version?: string): ManagedRuleset | undefined {
    const list = this.byId.get(id)
    if (list === undefined) return undefined
    if (version === undefined || version === 'latest') return list[list.length - 1]
    return list.find((ruleset) => ruleset.version === version)
  }

  versions(id: string): ManagedRuleset[] {
    return this.byId.get(id) ?? []
  }
}

/**
 * A managed ruleset as the API shows it: the rules keep their tags but not their expressions
 * (nor the credential expressions of the exposed-credentials rules). A scoring rule shows its
 * score the way the vendor's schema shapes a `score` rule, as `action_parameters.increment`.
 */
export function publicView({ crs: _crs, ...ruleset }: ManagedRuleset): Ruleset {
  return {
    ...ruleset,
    rules: ruleset.rules.map(
      ({ expression: _expression, exposed_credential_check: _check, score, ...rule }) =>
        score === undefined ? rule : { ...rule, action_parameters: { increment: score } },
    ),
  }
}
