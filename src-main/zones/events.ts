// The zone's security events: what each simulated or replayed request that matched a logging,
// blocking, challenging or rewriting rule left behind, as the vendor's activity log shows it.
// Each zone's events are an object of their own (the `events` namespace, which keeps no history),
// so recording them writes no point in the zone's history and restoring the zone leaves them be.
// The log is capped by count and by bytes, dropping the oldest first and counting what it
// dropped; an alarm prunes events past the retention period.

import type {
  EventLogLimits,
  EventLogSettings,
  EventLogStatus,
  SecurityEvent,
} from '@shared/api/simulate'
import type { AlarmInvocationInfo, ObjectContext } from '../objects'
import { migrateSchema } from './configured-object'

const SCHEMA: readonly string[] = [
  `CREATE TABLE security_events (
     id INTEGER PRIMARY KEY, time INTEGER NOT NULL, ray_id TEXT NOT NULL, method TEXT NOT NULL,
     host TEXT NOT NULL, path TEXT NOT NULL, client_ip TEXT, country TEXT, outcome TEXT NOT NULL,
     source TEXT NOT NULL, ruleset_id TEXT, rule_id TEXT NOT NULL, action TEXT NOT NULL,
     description TEXT NOT NULL)`,
  // Also serves the oldest-first order (time, id) of pruning and eviction: an index holds the rowid.
  `CREATE INDEX security_events_time ON security_events (time)`,
  `CREATE TABLE event_log (key TEXT PRIMARY KEY, value)`,
]

/** How long events are kept. */
export const EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000

export const DEFAULT_EVENT_LIMITS: EventLogLimits = {
  max_events: 100_000,
  max_bytes: 64 * 1024 * 1024,
}

/** An event as stored: its time in milliseconds since the epoch. */
export type SecurityEventRecord = Omit<SecurityEvent, 'time'> & { time: number }

/** An event as the simulator records it (the log gives it its id). */
export type NewSecurityEvent = Omit<SecurityEventRecord, 'id'>

export interface EventQuery {
  since?: number
  until?: number
  rule_id?: string
  action?: string
  host?: string
  /** substring of the path */
  path?: string
  limit: number
}

type Counter = 'dropped' | 'legacy_moved_through'

const INSERT = 'INSERT INTO security_events VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
const DROP_OLDEST =
  'DELETE FROM security_events WHERE id IN (SELECT id FROM security_events ORDER BY time, id LIMIT ?)'

export class EventLog {
  /** rows in security_events, kept here so that recording need not count them */
  private stored: number

  constructor(private readonly ctx: ObjectContext) {
    migrateSchema(ctx, SCHEMA)
    this.stored = this.count()
  }

  private count(): number {
    return Number(this.sql.exec('SELECT count(*) AS n FROM security_events').one().n)
  }

  private get sql() {
    return this.ctx.storage.sql
  }

  record(events: readonly NewSecurityEvent[]): void {
    if (events.length === 0) return
    this.write(() => this.insert(events))
  }

  /**
   * Takes events a zone held before they had an object of their own: those with an id above the
   * last one taken, so a batch read twice, or again after a restore, is taken once.
   */
  importLegacy(events: readonly SecurityEventRecord[]): void {
    const through = this.counter('legacy_moved_through')
    const fresh = events.filter((event) => event.id > through)
    if (fresh.length === 0) return
    this.write(() => {
      this.insert(fresh)
      this.put('legacy_moved_through', Math.max(...fresh.map((event) => event.id)))
    })
  }

  /** The id of the last event taken from the zone's own table (0 when none). */
  legacyMovedThrough(): number {
    return this.counter('legacy_moved_through')
  }

  query(query: EventQuery): SecurityEvent[] {
    const where: string[] = []
    const args: (string | number)[] = []
    const add = (clause: string, value: string | number | undefined) => {
      if (value === undefined) return
      where.push(clause)
      args.push(value)
    }
    add('time >= ?', query.since)
    add('time < ?', query.until)
    add('rule_id = ?', query.rule_id)
    add('action = ?', query.action)
    add('host = ?', query.host)
    add('instr(path, ?) > 0', query.path)
    const sql = `SELECT * FROM security_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY time DESC, id DESC LIMIT ?`
    return this.sql
      .exec(sql, ...args, query.limit)
      .toArray()
      .map((row) => ({
        ...(row as unknown as Omit<SecurityEvent, 'time'>),
        time: new Date(Number(row.time)).toISOString(),
      }))
  }

  status(): EventLogStatus {
    return {
      ...this.limits(),
      stored_events: this.stored,
      stored_bytes: this.sql.databaseSize,
      dropped: this.counter('dropped'),
    }
  }

  /** Sets the caps (null: back to the default); events over a lowered cap are dropped now. */
  setLimits(limits: EventLogSettings): EventLogStatus {
    this.write(() => {
      for (const key of ['max_events', 'max_bytes'] as const) {
        const value = limits[key]
        if (value === null) this.sql.exec('DELETE FROM event_log WHERE key = ?', key)
        else if (value !== undefined) this.put(key, value)
      }
    })
    return this.status()
  }

  /** Deletes events as old as the retention period and sets the alarm for the next ones. */
  async alarm(info: AlarmInvocationInfo): Promise<void> {
    const cutoff = info.scheduledTime - EVENT_RETENTION_MS
    this.sql.exec('DELETE FROM security_events WHERE time <= ?', cutoff)
    this.stored = this.count()
    const oldest = this.sql.exec('SELECT min(time) AS t FROM security_events').one().t
    if (oldest !== null) await this.ctx.storage.setAlarm(Number(oldest) + EVENT_RETENTION_MS)
  }

  /** Runs `work` and the caps as one write; the count kept in memory follows only a commit. */
  private write(work: () => void): void {
    const before = this.stored
    try {
      this.ctx.storage.transactionSync(() => {
        work()
        this.enforceLimits()
      })
    } catch (error) {
      this.stored = before
      throw error
    }
  }

  private insert(events: readonly NewSecurityEvent[]): void {
    for (const e of events) {
      this.sql.exec(
        INSERT,
        e.time,
        e.ray_id,
        e.method,
        e.host,
        e.path,
        e.client_ip,
        e.country,
        e.outcome,
        e.source,
        e.ruleset_id,
        e.rule_id,
        e.action,
        e.description,
      )
    }
    this.stored += events.length
    // The pruning alarm is set when the first events arrive and re-set by each pruning.
    if (this.ctx.storage.scheduledAlarm() === null) {
      const oldest = Math.min(...events.map((event) => event.time))
      void this.ctx.storage.setAlarm(oldest + EVENT_RETENTION_MS)
    }
  }

  /** Drops the oldest events until the log is within both caps. */
  private enforceLimits(): void {
    const { max_events, max_bytes } = this.limits()
    if (this.stored > max_events) this.dropOldest(this.stored - max_events)
    // The size is the database's pages in use; deleting rows frees whole pages only, so the
    // estimate of how many to drop is made again until the size is under the cap.
    for (let size = this.sql.databaseSize; size > max_bytes && this.stored > 0;) {
      const perEvent = size / this.stored
      this.dropOldest(Math.ceil((size - max_bytes) / perEvent))
      size = this.sql.databaseSize
    }
  }

  private dropOldest(count: number): void {
    const dropped = Math.min(count, this.stored)
    this.sql.exec(DROP_OLDEST, dropped)
    this.stored -= dropped
    this.put('dropped', this.counter('dropped') + dropped)
  }

  private limits(): EventLogLimits {
    const rows = this.sql
      .exec("SELECT key, value FROM event_log WHERE key IN ('max_events', 'max_bytes')")
      .toArray()
    const set = Object.fromEntries(rows.map((row) => [row.key, Number(row.value)]))
    return { ...DEFAULT_EVENT_LIMITS, ...set }
  }

  private counter(key: Counter): number {
    const row = this.sql.exec('SELECT value FROM event_log WHERE key = ?', key).toArray()[0]
    return Number(row?.value ?? 0)
  }

  private put(key: Counter | keyof EventLogLimits, value: number): void {
    this.sql.exec(
      'INSERT INTO event_log VALUES (?, ?) ON CONFLICT DO UPDATE SET value = excluded.value',
      key,
      value,
    )
  }
}
