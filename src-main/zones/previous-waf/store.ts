// Where a zone keeps its settings of the previous product: the zone's `waf` setting, the OWASP
// package's sensitivity and action, group and rule modes that differ from the catalog's, its
// URI-based overrides, and where its migration stands. Modes equal to the default are not stored,
// so "modified" means a row exists.

import type { ObjectContext } from '../../objects'
import type {
  MigrationState,
  WafActionMode,
  WafGroupMode,
  WafOverride,
  WafRuleMode,
  WafSensitivity,
} from '@shared/api/waf'

export const PREVIOUS_WAF_SCHEMA: readonly string[] = [
  `CREATE TABLE waf_settings (key TEXT PRIMARY KEY, value)`,
  `CREATE TABLE waf_group_modes (
     package_id TEXT NOT NULL, group_id TEXT NOT NULL, mode TEXT NOT NULL,
     PRIMARY KEY (package_id, group_id))`,
  `CREATE TABLE waf_rule_modes (
     package_id TEXT NOT NULL, rule_id TEXT NOT NULL, mode TEXT NOT NULL,
     PRIMARY KEY (package_id, rule_id))`,
  `CREATE TABLE waf_overrides (
     id TEXT PRIMARY KEY, description TEXT, urls TEXT NOT NULL, rules TEXT NOT NULL,
     groups TEXT NOT NULL, rewrite_action TEXT NOT NULL, priority REAL NOT NULL,
     paused INTEGER NOT NULL, seq INTEGER NOT NULL)`,
]

/** The zone-wide settings of the previous product and of its migration. */
export interface PreviousWafSettings {
  waf: 'on' | 'off'
  waf_modified_on: string | null
  sensitivity: WafSensitivity
  action_mode: WafActionMode
  migration_state: MigrationState
  migration_created: string | null
  migration_source: string | null
  /** ms since epoch when a pending migration's switch-over completes */
  migration_switch_at: number | null
}

/** A zone on the previous product starts with the WAF on and the vendor's package defaults. */
export const DEFAULT_SETTINGS: PreviousWafSettings = {
  waf: 'on',
  waf_modified_on: null,
  sensitivity: 'high',
  action_mode: 'challenge',
  migration_state: 'start',
  migration_created: null,
  migration_source: null,
  migration_switch_at: null,
}

export class PreviousWafStore {
  constructor(private readonly ctx: ObjectContext) {}

  private get sql() {
    return this.ctx.storage.sql
  }

  settings(): PreviousWafSettings {
    const stored = Object.fromEntries(
      this.sql
        .exec('SELECT key, value FROM waf_settings')
        .toArray()
        .map((row) => [String(row.key), row.value]),
    )
    return { ...DEFAULT_SETTINGS, ...(stored as Partial<PreviousWafSettings>) }
  }

  saveSettings(changes: Partial<PreviousWafSettings>): void {
    for (const [key, value] of Object.entries(changes)) {
      this.sql.exec(
        'INSERT INTO waf_settings VALUES (?, ?) ON CONFLICT DO UPDATE SET value = excluded.value',
        key,
        value ?? null,
      )
    }
  }

  /** Group modes that differ from the catalog's, by group id. */
  groupModes(packageId: string): Map<string, WafGroupMode> {
    return new Map(
      this.sql
        .exec('SELECT group_id, mode FROM waf_group_modes WHERE package_id = ?', packageId)
        .toArray()
        .map((row) => [String(row.group_id), row.mode as WafGroupMode]),
    )
  }

  /** Stores a group's mode; `undefined` puts it back to the default. */
  setGroupMode(packageId: string, groupId: string, mode: WafGroupMode | undefined): void {
    this.sql.exec(
      'DELETE FROM waf_group_modes WHERE package_id = ? AND group_id = ?',
      packageId,
      groupId,
    )
    if (mode !== undefined)
      this.sql.exec('INSERT INTO waf_group_modes VALUES (?, ?, ?)', packageId, groupId, mode)
  }

  /** Rule modes that differ from the catalog's, by rule id. */
  ruleModes(packageId: string): Map<string, WafRuleMode> {
    return new Map(
      this.sql
        .exec('SELECT rule_id, mode FROM waf_rule_modes WHERE package_id = ?', packageId)
        .toArray()
        .map((row) => [String(row.rule_id), row.mode as WafRuleMode]),
    )
  }

  /** Stores a rule's mode; `undefined` puts it back to the default. */
  setRuleMode(packageId: string, ruleId: string, mode: WafRuleMode | undefined): void {
    this.sql.exec(
      'DELETE FROM waf_rule_modes WHERE package_id = ? AND rule_id = ?',
      packageId,
      ruleId,
    )
    if (mode !== undefined)
      this.sql.exec('INSERT INTO waf_rule_modes VALUES (?, ?, ?)', packageId, ruleId, mode)
  }

  /** URI-based overrides in the order they were created. */
  overrides(): WafOverride[] {
    return this.sql
      .exec('SELECT * FROM waf_overrides ORDER BY seq')
      .toArray()
      .map((row) => ({
        id: String(row.id),
        description: row.description === null ? null : String(row.description),
        urls: JSON.parse(String(row.urls)) as string[],
        rules: JSON.parse(String(row.rules)) as WafOverride['rules'],
        groups: JSON.parse(String(row.groups)) as WafOverride['groups'],
        rewrite_action: JSON.parse(String(row.rewrite_action)) as WafOverride['rewrite_action'],
        priority: Number(row.priority),
        paused: row.paused === 1,
      }))
  }

  override(id: string): WafOverride | undefined {
    return this.overrides().find((o) => o.id === id)
  }

  saveOverride(override: WafOverride): void {
    const seq =
      this.sql.exec('SELECT seq FROM waf_overrides WHERE id = ?', override.id).toArray()[0]?.seq ??
      Number(this.sql.exec('SELECT coalesce(max(seq), 0) + 1 AS n FROM waf_overrides').one().n)
    this.sql.exec(
      `INSERT INTO waf_overrides VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET description = excluded.description, urls = excluded.urls,
         rules = excluded.rules, groups = excluded.groups, rewrite_action = excluded.rewrite_action,
         priority = excluded.priority, paused = excluded.paused`,
      override.id,
      override.description,
      JSON.stringify(override.urls),
      JSON.stringify(override.rules),
      JSON.stringify(override.groups),
      JSON.stringify(override.rewrite_action),
      override.priority,
      override.paused ? 1 : 0,
      seq,
    )
  }

  deleteOverride(id: string): void {
    this.sql.exec('DELETE FROM waf_overrides WHERE id = ?', id)
  }
}
