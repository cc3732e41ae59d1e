// Events over time: the window split into equal buckets, each counting its events by action.

import type { SecurityEvent } from '@shared/api/simulate'
import type { EventWindow } from '../../lib/state/security-events.svelte'

export interface TimeBucket {
  start: number
  end: number
  /** action → events */
  counts: Record<string, number>
  total: number
}

const MINUTE = 60 * 1000

export function bucketEvents(
  events: readonly SecurityEvent[],
  window: EventWindow,
  count = 24,
): TimeBucket[] {
  const times = events.map((event) => Date.parse(event.time))
  // An unbounded window starts at the oldest event shown.
  const start = window.since ?? (times.length > 0 ? Math.min(...times) : window.until - 60 * MINUTE)
  const span = Math.max(window.until - start, MINUTE)
  const width = span / count
  const buckets: TimeBucket[] = Array.from({ length: count }, (_, index) => ({
    start: start + index * width,
    end: start + (index + 1) * width,
    counts: {},
    total: 0,
  }))
  events.forEach((event, index) => {
    const offset = Math.floor((times[index]! - start) / width)
    const bucket = buckets[Math.min(Math.max(offset, 0), count - 1)]!
    bucket.counts[event.action] = (bucket.counts[event.action] ?? 0) + 1
    bucket.total++
  })
  return buckets
}

/** The actions present, most frequent first. */
export function actionsOf(events: readonly SecurityEvent[]): { action: string; count: number }[] {
  const counts = new Map<string, number>()
  for (const event of events) counts.set(event.action, (counts.get(event.action) ?? 0) + 1)
  return [...counts].map(([action, count]) => ({ action, count })).sort((a, b) => b.count - a.count)
}
