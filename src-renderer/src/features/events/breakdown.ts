// The Security events' top-N breakdowns, as the vendor's dashboard lists them beside its events:
// for each thing the events carry (rule, action, host, path, country, client IP), its most
// frequent values with their counts.

import type { SecurityEvent } from '@shared/api/simulate'

/** What an event can be broken down by, and the filter a click on one of its values sets. */
export const BREAKDOWNS = [
  { key: 'rule_id', label: 'Rules', one: 'rule' },
  { key: 'action', label: 'Actions', one: 'action' },
  { key: 'host', label: 'Hosts', one: 'host' },
  { key: 'path', label: 'Paths', one: 'path' },
  { key: 'country', label: 'Countries', one: 'country' },
  { key: 'client_ip', label: 'Client IPs', one: 'client IP' },
] as const satisfies readonly { key: keyof SecurityEvent; label: string; one: string }[]
export type BreakdownKey = (typeof BREAKDOWNS)[number]['key']

export interface TopValue {
  value: string
  count: number
  /** for a rule: its description, when it has one */
  name?: string
}

/** The `limit` most frequent values of `key` among `events`, most frequent first (ties by value). */
export function topValues(
  events: readonly SecurityEvent[],
  key: BreakdownKey,
  limit = 5,
): TopValue[] {
  const counts = new Map<string, TopValue>()
  for (const event of events) {
    const value = event[key]
    if (value === null || value === '') continue
    const top = counts.get(value) ?? { value, count: 0 }
    top.count++
    if (key === 'rule_id' && event.description !== '') top.name = event.description
    counts.set(value, top)
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value))
    .slice(0, limit)
}
