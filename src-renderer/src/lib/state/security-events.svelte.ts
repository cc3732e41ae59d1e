// The Security events screen's state: the zone, the filters, and the events they select with the
// time window they were asked for (the chart spans that window); and the zone's event log: its
// caps, what it holds and how many events the caps dropped. Country and client IP, which the
// events route does not filter on, narrow the events loaded; the shown events export as CSV or
// JSON.

import type { ApiMessage } from '@shared/api/envelope'
import { workbenchApi } from '../api'
import { errorMessages } from '../api-error'
import { bridge } from '../bridge'
import { toCsv } from '../csv'
import { eventQuery } from '../event-query'
import type { EventLogSettings, EventLogStatus, SecurityEvent } from '@shared/api/simulate'
import { ZoneChoice } from './zone-choice.svelte'
import { keepDraft, readDraft } from './zone-drafts'
import { assignFields } from './assign-fields.svelte'

const HOUR = 3600 * 1000

export const TIME_RANGES = [
  { id: 'hour', label: 'Last hour', span: HOUR },
  { id: 'day', label: 'Last day', span: 24 * HOUR },
  { id: 'week', label: 'Last week', span: 7 * 24 * HOUR },
  { id: 'all', label: 'All', span: null },
] as const
export type TimeRangeId = (typeof TIME_RANGES)[number]['id']

export const EVENT_LIMITS = [100, 1000, 10000] as const

/** The fields of an event, in the order an export lists them. */
export const EVENT_FIELDS = [
  'time',
  'ray_id',
  'action',
  'outcome',
  'rule_id',
  'ruleset_id',
  'description',
  'source',
  'method',
  'host',
  'path',
  'client_ip',
  'country',
] as const satisfies readonly (keyof SecurityEvent)[]

/** What a click on a breakdown's value filters by. */
export type EventFilterKey = 'action' | 'rule_id' | 'host' | 'path' | 'country' | 'client_ip'

/** The filters kept for a zone between visits (zone-drafts.ts). */
interface EventFilters {
  action: string
  ruleId: string
  host: string
  path: string
  range: TimeRangeId
  limit: number
  /** absent from drafts kept before these filters existed */
  country?: string
  clientIp?: string
}
const FILTERS_DRAFT = 'events'

export interface EventWindow {
  /** milliseconds since the epoch; null when the range is unbounded */
  since: number | null
  until: number
}

export class SecurityEventsState {
  readonly choice = new ZoneChoice()
  action = $state('')
  ruleId = $state('')
  host = $state('')
  path = $state('')
  /** narrows the events loaded (the route has no such filter) */
  country = $state('')
  /** likewise */
  clientIp = $state('')
  range = $state<TimeRangeId>('day')
  limit = $state<number>(1000)
  events = $state.raw<SecurityEvent[]>([])
  log = $state.raw<EventLogStatus | null>(null)
  window = $state.raw<EventWindow>({ since: null, until: Date.now() })
  loading = $state(false)
  errors = $state.raw<ApiMessage[]>([])
  /** the event whose fields are open */
  openId = $state<number | null>(null)

  /** The events loaded that the country and client IP filters keep. */
  readonly shown = $derived(
    this.events.filter(
      (event) =>
        (this.country === '' || event.country === this.country) &&
        (this.clientIp === '' || event.client_ip === this.clientIp),
    ),
  )

  /** Filters by one value of an event's field, as a click on a breakdown's entry does; applied. */
  async filterBy(key: EventFilterKey, value: string): Promise<void> {
    if (key === 'country') this.country = value
    if (key === 'client_ip') this.clientIp = value
    if (key === 'action') this.action = value
    if (key === 'rule_id') this.ruleId = value
    if (key === 'host') this.host = value
    if (key === 'path') this.path = value
    await this.refresh()
  }

  /** The shown events as a file: CSV with a column per field, or JSON as the route answers them. */
  exportFile(format: 'csv' | 'json'): { suggestedName: string; text: string } {
    const text =
      format === 'csv'
        ? toCsv(this.shown, EVENT_FIELDS)
        : `${JSON.stringify(this.shown, null, 2)}\n`
    return { suggestedName: `security-events-${this.choice.zoneId ?? 'zone'}.${format}`, text }
  }

  async exportEvents(format: 'csv' | 'json'): Promise<void> {
    await bridge.saveFile(this.exportFile(format))
  }

  async select(zoneId: string): Promise<void> {
    this.choice.choose(zoneId)
    this.events = []
    this.log = null
    const kept = readDraft<EventFilters>(FILTERS_DRAFT, zoneId)
    if (kept !== null) {
      assignFields<SecurityEventsState>(this, { country: '', clientIp: '', ...kept })
    }
    await this.refresh()
  }

  /** Loads the events the filters select, and keeps the filters for the zone. */
  async refresh(): Promise<void> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return
    const { action, ruleId, host, path, range, limit, country, clientIp } = this
    keepDraft(FILTERS_DRAFT, zoneId, {
      action,
      ruleId,
      host,
      path,
      range,
      limit,
      country,
      clientIp,
    })
    const until = Date.now()
    const span = TIME_RANGES.find((range) => range.id === this.range)?.span ?? null
    const since = span === null ? null : until - span
    const query = eventQuery({
      since,
      limit: this.limit,
      action: this.action,
      ruleId: this.ruleId,
      host: this.host,
      path: this.path,
    })
    this.loading = true
    try {
      const [events, log] = await Promise.all([
        workbenchApi.get<SecurityEvent[]>(`/zones/${zoneId}/events?${query}`),
        workbenchApi.get<EventLogStatus>(`/zones/${zoneId}/events/settings`),
      ])
      if (this.choice.zoneId !== zoneId) return
      this.events = events
      this.log = log
      this.window = { since, until }
      this.errors = []
    } catch (error) {
      this.errors = errorMessages(error)
    } finally {
      this.loading = false
    }
  }

  /** Sets the log's caps (null: the default); a lowered cap drops events, so they are reloaded. */
  async setLimits(limits: EventLogSettings): Promise<boolean> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return false
    try {
      await workbenchApi.patch(`/zones/${zoneId}/events/settings`, limits)
    } catch (error) {
      this.errors = errorMessages(error)
      return false
    }
    await this.refresh()
    return true
  }
}
