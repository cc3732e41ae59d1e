// The zone's security events: what each simulated or replayed request that matched a logging,
// blocking, challenging or rewriting rule left behind, as the vendor's activity log shows it.
// They live in the zone's object; an alarm prunes those past the retention period.

import type { SecurityEvent } from '@shared/api/simulate'
import type { ObjectContext } from '../objects'

export const EVENTS_SCHEMA: readonly string[] = [
  `CREATE TABLE security_events (
     id INTEGER PRIMARY KEY, time INTEGER NOT NULL, ray_id TEXT NOT NULL, method TEXT NOT NULL,
     host TEXT NOT NULL, path TEXT NOT NULL, client_ip TEXT, country TEXT, outcome TEXT NOT NULL,
     source TEXT NOT NULL, ruleset_id TEXT, rule_id TEXT NOT NULL, action TEXT NOT NULL,
     description TEXT NOT NULL)`,
  `CREATE INDEX security_events_time ON security_events (time)`,
]

/** How long events are kept. */
export const EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000

/** The history note of event writes: the zone's timeline lists configuration changes only. */
export const EVENTS_NOTE = 'Security events recorded'

export type NewSecurityEvent = Omit<SecurityEvent, 'id' | 'time'> & { time: number }

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

export class EventStore {
  constructor(private readonly ctx: ObjectContext) {}

  record(events: readonly NewSecurityEvent[]): void {
    if (events.length === 0) return
    const sql = this.ctx.storage.sql
    for (const e of events) {
      sql.exec(
        'INSERT INTO security_events VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
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
    // The pruning alarm is set when the first events arrive and re-set by each pruning.
    if (this.ctx.storage.scheduledAlarm() === null) {
      void this.ctx.storage.setAlarm(events[0]!.time + EVENT_RETENTION_MS)
    }
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
    return this.ctx.storage.sql
      .exec(sql, ...args, query.limit)
      .toArray()
      .map((row) => ({
        ...(row as unknown as Omit<SecurityEvent, 'time'>),
        time: new Date(Number(row.time)).toISOString(),
      }))
  }

  /** Deletes events older than the retention period; answers when the next pruning is due. */
  prune(now: number): number | null {
    const sql = this.ctx.storage.sql
    sql.exec('DELETE FROM security_events WHERE time < ?', now - EVENT_RETENTION_MS)
    const oldest = sql.exec('SELECT min(time) AS t FROM security_events').one().t
    return oldest === null ? null : Number(oldest) + EVENT_RETENTION_MS
  }
}
