// What a point in a zone's history changed, in words: the note its change left, and for a restore
// the point it went back to, by its time and note rather than its bookmark.

import type { HistoryEntry } from '@shared/api/history'

/** `when` formats an ISO 8601 time for people. */
export function describePoint(point: HistoryEntry, when: (iso: string) => string): string {
  const restored = point.restored_to
  if (restored === null) return point.note ?? 'Change'
  if (restored.undo) return 'Undid a restore: the zone is back as it was before it'
  if (restored.time === null) return 'Restored to an earlier point'
  return `Restored to the point of ${when(restored.time)} ‘${restored.note ?? 'Change'}’`
}
