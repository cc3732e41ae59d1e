// A zone's event log as the simulator and the API reach it: only a zone that exists has one (the
// vendor's 7003 otherwise), and events the zone still keeps in its own object, from before they
// moved out, are handed over to the log before it is used.

import type { EventLogSettings, EventLogStatus, SecurityEvent } from '@shared/api/simulate'
import type { ObjectNamespace } from '../objects'
import type { EventLog, EventQuery, NewSecurityEvent } from './events'
import type { ZoneRegistry } from './registry'

/** Legacy events handed over per write: one zone call and one log call each. */
const HANDOVER_BATCH = 5_000

export class ZoneEvents {
  /** Handovers under way, by zone id, so that concurrent requests wait for the one. */
  private readonly handovers = new Map<string, Promise<void>>()

  constructor(
    private readonly zones: ZoneRegistry,
    private readonly logs: ObjectNamespace<undefined, EventLog>,
  ) {}

  record(zoneId: string, events: readonly NewSecurityEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve()
    return this.inLog(zoneId, (log) => log.record(events))
  }

  query(
    zoneId: string,
    query: EventQuery,
  ): Promise<{ events: SecurityEvent[]; status: EventLogStatus }> {
    return this.inLog(zoneId, (log) => ({ events: log.query(query), status: log.status() }))
  }

  status(zoneId: string): Promise<EventLogStatus> {
    return this.inLog(zoneId, (log) => log.status())
  }

  setLimits(zoneId: string, limits: EventLogSettings): Promise<EventLogStatus> {
    return this.inLog(zoneId, (log) => log.setLimits(limits))
  }

  private async inLog<R>(zoneId: string, work: (log: EventLog) => R): Promise<Awaited<R>> {
    if (await this.zones.inZone(zoneId, (zone) => zone.holdsLegacyEvents())) {
      await this.handOver(zoneId)
    }
    return this.logs.call(this.logs.idFromName(zoneId), work)
  }

  private handOver(zoneId: string): Promise<void> {
    let handover = this.handovers.get(zoneId)
    if (handover === undefined) {
      handover = this.moveLegacyEvents(zoneId).finally(() => this.handovers.delete(zoneId))
      this.handovers.set(zoneId, handover)
    }
    return handover
  }

  /**
   * Copies the zone's legacy events into its log a batch at a time, then drops them from the
   * zone. Each batch commits with the id it reached, so a handover cut short resumes there.
   */
  private async moveLegacyEvents(zoneId: string): Promise<void> {
    const logId = this.logs.idFromName(zoneId)
    for (;;) {
      const through = await this.logs.call(logId, (log) => log.legacyMovedThrough())
      const batch = await this.zones.inZone(zoneId, (zone) =>
        zone.legacyEvents(through, HANDOVER_BATCH),
      )
      if (batch.length === 0) break
      await this.logs.call(logId, (log) => log.importLegacy(batch))
    }
    await this.zones.inZone(zoneId, (zone) => zone.dropLegacyEvents())
  }
}
