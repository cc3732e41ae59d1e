// Where an object (a zone, or the account) keeps its own rulesets, every version of each, stored
// as changes: a version writes its summary (name, description, version, last_updated …) and the
// rules it added, changed, moved or removed, never the rules it kept. So storage grows with what
// changed, not with the size of the ruleset times its number of versions (and the history that
// archives each commit's pages archives what changed too).
//
// A rule row holds one rule as it was over a range of versions [since, until): the rules of
// version v are the rows with since ≤ v < until, in the order of their order keys (order-keys.ts).
// Rows still in the latest version are in `ruleset_rules` (until is open), the rest in
// `ruleset_rules_past`, so reading the ruleset as it stands, which every simulated request does,
// reads its own rules and nothing else. A rule that changes or moves closes its row and opens a
// new one; an unchanged rule keeps its row however many versions pass.
//
// The ruleset as it stands is its latest version. Deleting an old version removes its summary and
// the rows no remaining version holds; its number is never used again, since the latest version
// (the highest number ever given) cannot be deleted.

import type { ObjectContext } from '../../objects'
import type { Phase, Rule, Ruleset, RulesetKind, RulesetSummary } from '@shared/api/rulesets'
import { keysBetween } from './order-keys'

/** Schema steps for the objects that hold rulesets (appended to each object's own steps). */
export const RULESET_SCHEMA: readonly string[] = [
  `CREATE TABLE rulesets (
     id TEXT PRIMARY KEY, kind TEXT NOT NULL, phase TEXT NOT NULL, latest INTEGER NOT NULL,
     created INTEGER NOT NULL)`,
  `CREATE TABLE ruleset_versions (
     ruleset_id TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,
     PRIMARY KEY (ruleset_id, version))`,
]

// The order key of the rule at `idx` (0-based) of a version stored whole: the keys keysBetween
// gives a ruleset's rules in order ('a0' … 'az', 'b00' … 'bzz', 'c000' …), for up to 242,234 rules.
const KEY_DIGITS = `'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'`
const keyOfIndex = (idx: string): string =>
  `CASE WHEN ${idx} < 62 THEN 'a' || substr(${KEY_DIGITS}, ${idx} + 1, 1)
     WHEN ${idx} < 3906 THEN 'b' || substr(${KEY_DIGITS}, (${idx} - 62) / 62 + 1, 1)
       || substr(${KEY_DIGITS}, (${idx} - 62) % 62 + 1, 1)
     ELSE 'c' || substr(${KEY_DIGITS}, (${idx} - 3906) / 3844 + 1, 1)
       || substr(${KEY_DIGITS}, (${idx} - 3906) / 62 % 62 + 1, 1)
       || substr(${KEY_DIGITS}, (${idx} - 3906) % 62 + 1, 1) END`

/**
 * Versions stored as changes. The tables are WITHOUT ROWID so that a row written is one b-tree
 * entry (a rowid table with a key writes a second one, in its index). Versions stored whole
 * before this step become rule rows: a rule at the same index with the same content in
 * consecutive stored versions is one row (one run), so a ruleset built by appending shares its
 * rows. The runs are found by window functions, whose sorts use SQLite's temporary storage: only
 * the runs themselves are written to the database, and so to its history.
 */
export const RULESET_SCHEMA_V2: readonly string[] = [
  `CREATE TABLE ruleset_rules (
     ruleset_id TEXT NOT NULL, position TEXT NOT NULL, since INTEGER NOT NULL, body TEXT NOT NULL,
     PRIMARY KEY (ruleset_id, position)) WITHOUT ROWID;
   CREATE TABLE ruleset_rules_past (
     ruleset_id TEXT NOT NULL, until INTEGER NOT NULL, position TEXT NOT NULL,
     since INTEGER NOT NULL, body TEXT NOT NULL,
     PRIMARY KEY (ruleset_id, until, position)) WITHOUT ROWID;
   CREATE TABLE ruleset_migration_runs (
     ruleset_id TEXT NOT NULL, idx INTEGER NOT NULL, since INTEGER NOT NULL, until INTEGER,
     body TEXT NOT NULL, PRIMARY KEY (ruleset_id, idx, since)) WITHOUT ROWID;
   INSERT INTO ruleset_migration_runs
     SELECT ruleset_id, idx, min(version), CASE WHEN count(next) = count(*) THEN max(next) END,
       min(body)
     FROM (
       SELECT *, sum(starts) OVER (PARTITION BY ruleset_id, idx ORDER BY n) AS run
       FROM (
         SELECT *, CASE WHEN lag(n) OVER by_index = n - 1 AND lag(body) OVER by_index = body
                   THEN 0 ELSE 1 END AS starts
         FROM (
           SELECT v.ruleset_id, v.version, v.n, v.next, rule.key AS idx, rule.value AS body
           FROM (
             SELECT ruleset_id, version, body, row_number() OVER by_version AS n,
               lead(version) OVER by_version AS next
             FROM ruleset_versions
             WINDOW by_version AS (PARTITION BY ruleset_id ORDER BY version)) AS v,
           json_each(v.body, '$.rules') AS rule)
         WINDOW by_index AS (PARTITION BY ruleset_id, idx ORDER BY n)))
     GROUP BY ruleset_id, idx, run;
   INSERT INTO ruleset_rules
     SELECT ruleset_id, ${keyOfIndex('idx')}, since, body
     FROM ruleset_migration_runs WHERE until IS NULL;
   INSERT INTO ruleset_rules_past
     SELECT ruleset_id, until, ${keyOfIndex('idx')}, since, body
     FROM ruleset_migration_runs WHERE until IS NOT NULL;
   DROP TABLE ruleset_migration_runs;
   CREATE TABLE ruleset_summaries (
     ruleset_id TEXT NOT NULL, version INTEGER NOT NULL, summary TEXT NOT NULL,
     PRIMARY KEY (ruleset_id, version)) WITHOUT ROWID;
   INSERT INTO ruleset_summaries
     SELECT ruleset_id, version, json_remove(body, '$.rules') FROM ruleset_versions;
   DROP TABLE ruleset_versions;
   ALTER TABLE rulesets DROP COLUMN latest`,
]

export function summaryOf(ruleset: Ruleset): RulesetSummary {
  const { rules: _rules, ...summary } = ruleset
  return summary
}

/** A summary and its rules as one ruleset, its fields in the order the API has always shown. */
function withRules(summary: RulesetSummary, rules: Rule[]): Ruleset {
  const { last_updated, phase, ...head } = summary
  return { ...head, rules, last_updated, phase }
}

const parseSummary = (row: Record<string, unknown>): RulesetSummary =>
  JSON.parse(String(row.summary)) as RulesetSummary
const parseRule = (row: Record<string, unknown>): Rule => JSON.parse(String(row.body)) as Rule

/**
 * The positions in `sequence` of one of its longest strictly increasing subsequences: the kept
 * rules that need not move, when `sequence` lists their old places in their new order.
 */
function longestIncreasing(sequence: readonly number[]): Set<number> {
  // tails[k]: the position of the smallest value ending an increasing run of length k + 1
  const tails: number[] = []
  const before: number[] = []
  sequence.forEach((value, at) => {
    let low = 0
    let high = tails.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (sequence[tails[middle]!]! < value) low = middle + 1
      else high = middle
    }
    before[at] = low > 0 ? tails[low - 1]! : -1
    tails[low] = at
  })
  const kept = new Set<number>()
  for (let at = tails.at(-1) ?? -1; at >= 0; at = before[at]!) kept.add(at)
  return kept
}

interface LiveRow {
  position: string
  since: number
  /** the rule as JSON.stringify writes it, to tell an unchanged rule from a changed one */
  json: string
  id: string
}

export class RulesetStore {
  constructor(private readonly ctx: ObjectContext) {}

  private get sql() {
    return this.ctx.storage.sql
  }

  private summary(id: string, version?: number): RulesetSummary | undefined {
    const row = (
      version === undefined
        ? this.sql.exec(
            'SELECT summary FROM ruleset_summaries WHERE ruleset_id = ? ORDER BY version DESC LIMIT 1',
            id,
          )
        : this.sql.exec(
            'SELECT summary FROM ruleset_summaries WHERE ruleset_id = ? AND version = ?',
            id,
            version,
          )
    ).toArray()[0]
    return row === undefined ? undefined : parseSummary(row)
  }

  /** Every ruleset as it stands, in the order they were created. */
  list(): Ruleset[] {
    const rules = new Map<string, Rule[]>()
    for (const row of this.sql
      .exec('SELECT ruleset_id, body FROM ruleset_rules ORDER BY ruleset_id, position')
      .toArray()) {
      const id = String(row.ruleset_id)
      const own = rules.get(id) ?? []
      own.push(parseRule(row))
      rules.set(id, own)
    }
    return this.sql
      .exec(
        `SELECT r.id, (SELECT summary FROM ruleset_summaries
                        WHERE ruleset_id = r.id ORDER BY version DESC LIMIT 1) AS summary
         FROM rulesets AS r ORDER BY r.created`,
      )
      .toArray()
      .map((row) => withRules(parseSummary(row), rules.get(String(row.id)) ?? []))
  }

  get(id: string): Ruleset | undefined {
    const summary = this.summary(id)
    if (summary === undefined) return undefined
    const rules = this.sql
      .exec('SELECT body FROM ruleset_rules WHERE ruleset_id = ? ORDER BY position', id)
      .toArray()
      .map(parseRule)
    return withRules(summary, rules)
  }

  /** The entry point of `phase`: the one ruleset of kind `zone` (or `root` in an account). */
  entrypoint(phase: Phase, kind: RulesetKind): Ruleset | undefined {
    const row = this.sql
      .exec('SELECT id FROM rulesets WHERE phase = ? AND kind = ?', phase, kind)
      .toArray()[0]
    return row === undefined ? undefined : this.get(String(row.id))
  }

  /** Stores `ruleset` as its version `ruleset.version`, the next after its latest. */
  save(ruleset: Ruleset): void {
    const version = Number(ruleset.version)
    this.sql.exec(
      'INSERT INTO ruleset_summaries VALUES (?, ?, ?)',
      ruleset.id,
      version,
      JSON.stringify(summaryOf(ruleset)),
    )
    this.sql.exec(
      `INSERT INTO rulesets VALUES (?, ?, ?, (SELECT coalesce(max(created), 0) + 1 FROM rulesets))
         ON CONFLICT (id) DO NOTHING`,
      ruleset.id,
      ruleset.kind,
      ruleset.phase,
    )
    this.saveRules(ruleset.id, version, ruleset.rules)
  }

  /**
   * Makes `rules` the rules of `version`: the rows of rules kept unchanged and in order stay; the
   * others are closed at `version`, and the new, changed or moved rules get rows keyed between
   * the kept neighbours they now stand between.
   */
  private saveRules(id: string, version: number, rules: readonly Rule[]): void {
    const live = this.sql
      .exec(
        'SELECT position, since, body FROM ruleset_rules WHERE ruleset_id = ? ORDER BY position',
        id,
      )
      .toArray()
      .map((row): LiveRow => {
        // A row migrated from a whole version holds SQLite's rendering of the rule, which may
        // differ from JSON.stringify's: compare the latter's.
        const rule = parseRule(row)
        return {
          position: String(row.position),
          since: Number(row.since),
          json: JSON.stringify(rule),
          id: rule.id,
        }
      })
    const liveAt = new Map(live.map((row, at) => [row.id, at]))
    const texts = rules.map((rule) => JSON.stringify(rule))
    // New places of the rules that are unchanged, with their old places in the same order.
    const unchanged = texts.flatMap((text, at) => {
      const old = liveAt.get(rules[at]!.id)
      return old !== undefined && live[old]!.json === text ? [{ at, old }] : []
    })
    const kept = new Map<number, LiveRow>()
    for (const index of longestIncreasing(unchanged.map((u) => u.old))) {
      const { at, old } = unchanged[index]!
      kept.set(at, live[old]!)
    }
    const keptRows = new Set(kept.values())
    for (const row of live) {
      if (keptRows.has(row)) continue
      this.sql.exec(
        'INSERT INTO ruleset_rules_past VALUES (?, ?, ?, ?, ?)',
        id,
        version,
        row.position,
        row.since,
        row.json,
      )
      this.sql.exec(
        'DELETE FROM ruleset_rules WHERE ruleset_id = ? AND position = ?',
        id,
        row.position,
      )
    }
    // The rules in each gap between kept rules (or an end) get rows keyed between theirs.
    let gapStart = 0
    let keyBefore: string | null = null
    for (let at = 0; at <= texts.length; at++) {
      const keptRow = kept.get(at)
      if (at < texts.length && keptRow === undefined) continue
      const keyAfter = keptRow?.position ?? null
      keysBetween(keyBefore, keyAfter, at - gapStart).forEach((position, offset) => {
        this.sql.exec(
          'INSERT INTO ruleset_rules VALUES (?, ?, ?, ?)',
          id,
          position,
          version,
          texts[gapStart + offset]!,
        )
      })
      keyBefore = keyAfter
      gapStart = at + 1
    }
  }

  /** The highest version number `id` ever had (deleted versions included). */
  latestVersion(id: string): number | undefined {
    const row = this.sql
      .exec('SELECT max(version) AS latest FROM ruleset_summaries WHERE ruleset_id = ?', id)
      .one()
    return row.latest === null ? undefined : Number(row.latest)
  }

  versions(id: string): RulesetSummary[] {
    return this.sql
      .exec('SELECT summary FROM ruleset_summaries WHERE ruleset_id = ? ORDER BY version', id)
      .toArray()
      .map(parseSummary)
  }

  version(id: string, version: number): Ruleset | undefined {
    const summary = this.summary(id, version)
    if (summary === undefined) return undefined
    const rules = this.sql
      .exec(
        `SELECT position, body FROM ruleset_rules WHERE ruleset_id = ? AND since <= ?
         UNION ALL
         SELECT position, body FROM ruleset_rules_past
         WHERE ruleset_id = ? AND until > ? AND since <= ?
         ORDER BY position`,
        id,
        version,
        id,
        version,
        version,
      )
      .toArray()
      .map(parseRule)
    return withRules(summary, rules)
  }

  /** Deletes an old version (never the latest) and the rule rows no other version holds. */
  deleteVersion(id: string, version: number): void {
    if (version === this.latestVersion(id)) {
      throw new Error(`Version ${version} of ruleset ${id} is its latest and cannot be deleted`)
    }
    this.sql.exec('DELETE FROM ruleset_summaries WHERE ruleset_id = ? AND version = ?', id, version)
    this.sql.exec(
      `DELETE FROM ruleset_rules_past
       WHERE ruleset_id = ? AND until > ? AND since <= ? AND NOT EXISTS (
         SELECT 1 FROM ruleset_summaries AS kept
         WHERE kept.ruleset_id = ruleset_rules_past.ruleset_id
           AND kept.version >= ruleset_rules_past.since AND kept.version < ruleset_rules_past.until)`,
      id,
      version,
      version,
    )
  }

  delete(id: string): void {
    this.sql.exec('DELETE FROM ruleset_rules WHERE ruleset_id = ?', id)
    this.sql.exec('DELETE FROM ruleset_rules_past WHERE ruleset_id = ?', id)
    this.sql.exec('DELETE FROM ruleset_summaries WHERE ruleset_id = ?', id)
    this.sql.exec('DELETE FROM rulesets WHERE id = ?', id)
  }
}
