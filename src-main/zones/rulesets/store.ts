// Where an object (a zone, or the account) keeps its own rulesets: every version of each, as a
// whole snapshot. The ruleset as it stands is its latest version; deleting an old version removes
// its snapshot, and its number is never used again (the `latest` counter only grows).

import type { ObjectContext } from '../../objects'
import type { Phase, Ruleset, RulesetKind, RulesetSummary } from '@shared/api/rulesets'

/** Schema steps for the objects that hold rulesets (appended to each object's own steps). */
export const RULESET_SCHEMA: readonly string[] = [
  `CREATE TABLE rulesets (
     id TEXT PRIMARY KEY, kind TEXT NOT NULL, phase TEXT NOT NULL, latest INTEGER NOT NULL,
     created INTEGER NOT NULL)`,
  `CREATE TABLE ruleset_versions (
     ruleset_id TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,
     PRIMARY KEY (ruleset_id, version))`,
]

export function summaryOf(ruleset: Ruleset): RulesetSummary {
  const { rules: _rules, ...summary } = ruleset
  return summary
}

export class RulesetStore {
  constructor(private readonly ctx: ObjectContext) {}

  private get sql() {
    return this.ctx.storage.sql
  }

  private read(id: string, version: number): Ruleset | undefined {
    const row = this.sql
      .exec('SELECT body FROM ruleset_versions WHERE ruleset_id = ? AND version = ?', id, version)
      .toArray()[0]
    return row === undefined ? undefined : (JSON.parse(String(row.body)) as Ruleset)
  }

  /** Every ruleset as it stands, in the order they were created. */
  list(): Ruleset[] {
    return this.sql
      .exec(
        `SELECT v.body FROM rulesets r
           JOIN ruleset_versions v ON v.ruleset_id = r.id AND v.version = r.latest
         ORDER BY r.created`,
      )
      .toArray()
      .map((row) => JSON.parse(String(row.body)) as Ruleset)
  }

  get(id: string): Ruleset | undefined {
    const row = this.sql.exec('SELECT latest FROM rulesets WHERE id = ?', id).toArray()[0]
    return row === undefined ? undefined : this.read(id, Number(row.latest))
  }

  /** The entry point of `phase`: the one ruleset of kind `zone` (or `root` in an account). */
  entrypoint(phase: Phase, kind: RulesetKind): Ruleset | undefined {
    const row = this.sql
      .exec('SELECT id FROM rulesets WHERE phase = ? AND kind = ?', phase, kind)
      .toArray()[0]
    return row === undefined ? undefined : this.get(String(row.id))
  }

  /** Stores `ruleset` as its version `ruleset.version` and makes that the latest. */
  save(ruleset: Ruleset): void {
    const version = Number(ruleset.version)
    this.sql.exec(
      'INSERT INTO ruleset_versions VALUES (?, ?, ?)',
      ruleset.id,
      version,
      JSON.stringify(ruleset),
    )
    this.sql.exec(
      `INSERT INTO rulesets VALUES (?, ?, ?, ?, (SELECT coalesce(max(created), 0) + 1 FROM rulesets))
         ON CONFLICT (id) DO UPDATE SET latest = excluded.latest`,
      ruleset.id,
      ruleset.kind,
      ruleset.phase,
      version,
    )
  }

  /** The highest version number `id` ever had (deleted versions included). */
  latestVersion(id: string): number | undefined {
    const row = this.sql.exec('SELECT latest FROM rulesets WHERE id = ?', id).toArray()[0]
    return row === undefined ? undefined : Number(row.latest)
  }

  versions(id: string): RulesetSummary[] {
    return this.sql
      .exec('SELECT body FROM ruleset_versions WHERE ruleset_id = ? ORDER BY version', id)
      .toArray()
      .map((row) => summaryOf(JSON.parse(String(row.body)) as Ruleset))
  }

  version(id: string, version: number): Ruleset | undefined {
    return this.read(id, version)
  }

  deleteVersion(id: string, version: number): void {
    this.sql.exec('DELETE FROM ruleset_versions WHERE ruleset_id = ? AND version = ?', id, version)
  }

  delete(id: string): void {
    this.sql.exec('DELETE FROM ruleset_versions WHERE ruleset_id = ?', id)
    this.sql.exec('DELETE FROM rulesets WHERE id = ?', id)
  }
}
