// A zone as a stateful object: everything the zone holds lives in its own storage (SQL backend),
// so its whole configuration has one history that can be listed and restored.

import type { EngineFirewallRule } from '../engine'
import type { AlarmInvocationInfo, ObjectContext } from '../objects'
import { isOriginBookmark, type HistoryPoint } from '../storage'
import type { WafProduct, ZonePlan, ZoneType } from '@shared/api/zones'
import { ConfiguredObject, migrateSchema } from './configured-object'
import type { SecurityEventRecord } from './events'
import { FirewallStore, FIREWALL_SCHEMA } from './firewall/store'
import { PageRuleStore, PAGE_RULES_SCHEMA } from './page-rules/store'
import { PreviousWafStore, PREVIOUS_WAF_SCHEMA } from './previous-waf/store'
import { RULESET_SCHEMA, RULESET_SCHEMA_V2, RulesetStore } from './rulesets/store'
import { SampleStore, SAMPLES_SCHEMA } from './samples'
import { vendorTimestamp } from './vendor-format'

/** The zone's own settings, one row of the `zone` table. */
export interface ZoneRecord {
  id: string
  name: string
  type: ZoneType
  plan: ZonePlan
  waf_product: WafProduct
  paused: boolean
  created_on: string
  modified_on: string
  /** the custom name servers set with PATCH /zones/{id}; absent when none were */
  vanity_name_servers?: string[]
}

type ZoneRow = Omit<ZoneRecord, 'paused' | 'vanity_name_servers'> & {
  paused: number
  vanity_name_servers?: string | null
}

/**
 * The table in which a zone kept its security events until they moved to an object of their own
 * (events.ts). A zone that still has it hands its rows over on first use (ZoneEvents); restoring
 * a point from before that brings it back, to be handed over again.
 */
const LEGACY_EVENTS_TABLE = 'security_events'

const EVENTS_MOVED_NOTE = 'Security events moved to the zone’s event log'

/**
 * Notes of points that are not configuration changes: events recorded into the zone (its history
 * holds such points from before the events moved out) and the point that dropped their table.
 */
const EVENT_NOTES = new Set(['Security events recorded', EVENTS_MOVED_NOTE])

// Numbered schema steps, applied once each; `schema_version` in `_wb_meta` says how far a file got.
const SCHEMA: readonly string[] = [
  `CREATE TABLE zone (
     id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, plan TEXT NOT NULL,
     waf_product TEXT NOT NULL, paused INTEGER NOT NULL, created_on TEXT NOT NULL,
     modified_on TEXT NOT NULL)`,
  ...RULESET_SCHEMA,
  ...FIREWALL_SCHEMA,
  // These two steps created the legacy events table and its index. They stay, doing nothing, so
  // that the steps after them keep their numbers; a zone that ran them moves its events out.
  "SELECT 'step retired: security_events moved to the events namespace'",
  "SELECT 'step retired: security_events_time moved to the events namespace'",
  ...PREVIOUS_WAF_SCHEMA,
  ...PAGE_RULES_SCHEMA,
  ...RULESET_SCHEMA_V2,
  ...SAMPLES_SCHEMA,
  // JSON array of host names, NULL when none were set.
  'ALTER TABLE zone ADD COLUMN vanity_name_servers TEXT',
]

const SETTING_LABELS: Partial<Record<keyof ZoneRecord, string>> = {
  name: 'name',
  plan: 'plan',
  type: 'type',
  paused: 'paused',
  waf_product: 'WAF product',
  vanity_name_servers: 'vanity name servers',
}

const vanityColumn = (record: ZoneRecord) =>
  record.vanity_name_servers === undefined ? null : JSON.stringify(record.vanity_name_servers)

const settingText = (record: ZoneRecord, key: keyof ZoneRecord) => {
  const value = record[key]
  if (value === undefined) return 'none'
  if (!Array.isArray(value)) return String(value)
  return value.length === 0 ? 'none' : value.join(' ')
}

/** e.g. "plan: pro → enterprise, paused: false → true" */
function describeSettingsChange(before: ZoneRecord, after: ZoneRecord): string {
  const changed = (Object.keys(SETTING_LABELS) as (keyof ZoneRecord)[])
    .filter((key) => settingText(before, key) !== settingText(after, key))
    .map(
      (key) => `${SETTING_LABELS[key]}: ${settingText(before, key)} → ${settingText(after, key)}`,
    )
  if (changed.length === 0) return 'Zone settings saved unchanged'
  if (changed.length === 1 && before.name !== after.name) return `Renamed the zone to ${after.name}`
  return `Zone ${changed.join(', ')}`
}

/** What the note of the point that starts a zone's switch-over off the previous WAF says. */
export const MIGRATION_STARTED_NOTE = 'WAF migration started'

/** The first page of history read for a list of configuration points (see ZoneObject.history). */
const HISTORY_FIRST_PAGE = 100

// The origin point is the object's empty file, from before the zone was written into it.
const isConfigurationPoint = (point: HistoryPoint) =>
  !isOriginBookmark(point.bookmark) && !EVENT_NOTES.has(point.note ?? '')

export class ZoneObject extends ConfiguredObject {
  readonly rulesets: RulesetStore
  readonly firewall: FirewallStore
  readonly previousWaf: PreviousWafStore
  readonly pageRules: PageRuleStore
  readonly samples: SampleStore

  constructor(ctx: ObjectContext) {
    super(ctx)
    this.rulesets = new RulesetStore(ctx)
    this.firewall = new FirewallStore(ctx)
    this.previousWaf = new PreviousWafStore(ctx)
    this.pageRules = new PageRuleStore(ctx)
    this.samples = new SampleStore(ctx)
    // A new zone's schema is written together with its record (initialize), so that the first
    // point in its history is the zone as created, never an empty shell.
    if (this.exists()) migrateSchema(ctx, SCHEMA)
  }

  private exists(): boolean {
    const tables = this.ctx.storage.sql.exec(
      "SELECT count(*) AS n FROM sqlite_master WHERE name = 'zone'",
    )
    return Number(tables.one().n) > 0
  }

  record(): ZoneRecord | undefined {
    if (!this.exists()) return undefined
    const row = this.ctx.storage.sql.exec('SELECT * FROM zone').toArray()[0] as ZoneRow | undefined
    if (row === undefined) return undefined
    const { vanity_name_servers: vanity, ...rest } = row
    return {
      ...rest,
      paused: row.paused === 1,
      ...(vanity === null || vanity === undefined
        ? {}
        : { vanity_name_servers: JSON.parse(vanity) as string[] }),
    }
  }

  initialize(record: ZoneRecord): ZoneRecord {
    migrateSchema(this.ctx, SCHEMA)
    this.ctx.storage.describeChange(`Zone ${record.name} created (${record.plan} plan)`)
    this.ctx.storage.sql.exec(
      `INSERT INTO zone (id, name, type, plan, waf_product, paused, created_on, modified_on,
         vanity_name_servers) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      record.id,
      record.name,
      record.type,
      record.plan,
      record.waf_product,
      record.paused ? 1 : 0,
      record.created_on,
      record.modified_on,
      vanityColumn(record),
    )
    return record
  }

  update(changes: Partial<Omit<ZoneRecord, 'id' | 'created_on'>>): ZoneRecord {
    const current = this.record()
    if (current === undefined)
      throw new Error(`Zone object ${this.ctx.id.name ?? ''} holds no zone`)
    const next = { ...current, ...changes }
    this.ctx.storage.describeChange(describeSettingsChange(current, next))
    this.ctx.storage.sql.exec(
      `UPDATE zone SET name = ?, type = ?, plan = ?, waf_product = ?, paused = ?, modified_on = ?,
         vanity_name_servers = ?`,
      next.name,
      next.type,
      next.plan,
      next.waf_product,
      next.paused ? 1 : 0,
      next.modified_on,
      vanityColumn(next),
    )
    return next
  }

  /** Whether the zone's migration off the previous product has begun its switch-over or ended. */
  migrationUnderway(): boolean {
    const record = this.record()
    if (record === undefined) return false
    const { migration_state, migration_created } = this.previousWaf.settings()
    return (
      migration_state === 'pending' ||
      (record.waf_product === 'managed_rulesets' && migration_created !== null)
    )
  }

  /** The firewall rules with their filters, as the engine and the migration read them. */
  firewallRulesWithFilters(): EngineFirewallRule[] {
    return this.firewall.rules().flatMap((rule): EngineFirewallRule[] => {
      const filter = this.firewall.filter(rule.filter_id)
      return filter === undefined ? [] : [{ ...rule, filter }]
    })
  }

  /** Whether the zone still holds security events from before they had an object of their own. */
  holdsLegacyEvents(): boolean {
    const tables = this.ctx.storage.sql.exec(
      'SELECT count(*) AS n FROM sqlite_master WHERE name = ?',
      LEGACY_EVENTS_TABLE,
    )
    return Number(tables.one().n) > 0
  }

  /** Up to `limit` of those events, oldest first, from the one after `afterId`. */
  legacyEvents(afterId: number, limit: number): SecurityEventRecord[] {
    return this.ctx.storage.sql
      .exec(`SELECT * FROM ${LEGACY_EVENTS_TABLE} WHERE id > ? ORDER BY id LIMIT ?`, afterId, limit)
      .toArray() as unknown as SecurityEventRecord[]
  }

  /** Drops the legacy table once the zone's event log holds its events. */
  dropLegacyEvents(): void {
    this.change(() => {
      this.describe(EVENTS_MOVED_NOTE)
      this.ctx.storage.sql.exec(`DROP TABLE IF EXISTS ${LEGACY_EVENTS_TABLE}`)
    })
  }

  /**
   * Asks for the zone's one alarm to fire by `time` at the latest. The alarm serves everything
   * timed (a migration's switch-over), and each firing sets the next.
   */
  wakeBy(time: number): void {
    const scheduled = this.ctx.storage.scheduledAlarm()
    if (scheduled === null || time < scheduled) void this.ctx.storage.setAlarm(time)
  }

  /** Completes a pending migration whose switch-over is due. */
  async alarm(info: AlarmInvocationInfo): Promise<void> {
    const now = info.scheduledTime
    const { migration_state, migration_switch_at } = this.previousWaf.settings()
    if (migration_state !== 'pending' || migration_switch_at === null) return
    if (migration_switch_at <= now) this.change(() => this.completeMigration(now))
    else await this.ctx.storage.setAlarm(migration_switch_at)
  }

  /** The switch-over: the previous product is off for good, the zone is on managed rulesets. */
  private completeMigration(now: number): void {
    this.describe('WAF migration completed: the previous WAF managed rules are off for good')
    this.previousWaf.saveSettings({ migration_state: 'completed', migration_switch_at: null })
    this.update({
      waf_product: 'managed_rulesets',
      modified_on: vendorTimestamp(now),
    })
  }

  /**
   * Points in the zone's history of configuration changes, newest first, from its creation on:
   * `limit` of them when there are as many. Pages of the history are read until that many are
   * found, each page twice the last, as points that are not configuration can be most of them.
   */
  history(options: { limit?: number; before?: string }): HistoryPoint[] {
    const { limit = Infinity } = options
    const points: HistoryPoint[] = []
    let before = options.before
    for (let page = Math.min(limit, HISTORY_FIRST_PAGE); points.length < limit; page *= 2) {
      const read = this.ctx.storage.listHistory({ limit: page, before })
      for (const point of read) {
        if (points.length < limit && isConfigurationPoint(point)) points.push(point)
      }
      if (read.length < page) break
      before = read.at(-1)!.bookmark
    }
    return points
  }

  /**
   * The point at which the zone's migration became one that cannot be undone (its switch-over was
   * set), when it is underway: a restore to any earlier point is refused (ZoneRegistry.restore).
   */
  migrationStart(): HistoryPoint | undefined {
    if (!this.migrationUnderway()) return undefined
    return this.history({}).find((point) => point.note?.includes(MIGRATION_STARTED_NOTE))
  }

  /** Writes the zone's database as it was at `bookmark` to `outPath` (see Storage). */
  copyHistoryPoint(bookmark: string, outPath: string): void {
    this.ctx.storage.copyHistoryPoint(bookmark, outPath)
  }

  /** The bookmark of the zone as it stands (everything written so far is committed first). */
  currentBookmark(): Promise<string> {
    return this.ctx.storage.getCurrentBookmark()
  }

  /**
   * Arranges for the zone to come back as it was at `bookmark`, and restarts the object so that
   * it does. Returns the bookmark that undoes the restore.
   */
  async scheduleRestore(bookmark: string): Promise<string> {
    const undo = await this.ctx.storage.onNextSessionRestoreBookmark(bookmark)
    this.ctx.abort('The zone is being restored to an earlier point in its history.')
    return undo
  }
}
