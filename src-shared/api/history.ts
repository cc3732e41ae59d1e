// A zone's history (`/workbench/v1/zones/{zone_id}/history`): the points a zone's changes left,
// and restoring one, which is reversible: the answer names the point that undoes it.

import { Type } from 'typebox'
import type { ConfigurationChange } from './bundle'

/** A point in a zone's history, as its history names it: 8-8-8-32 lower-case hex digits. */
export const Bookmark = Type.String({
  pattern: '^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$',
})

export interface HistoryEntry {
  bookmark: string
  /** ISO 8601 */
  time: string
  note: string | null
  /** What a restore point went back to: null for any other point. */
  restored_to: RestoredPoint | null
  /** Why restoring to this point would be refused; null when it can be restored. */
  restore_refusal: string | null
}

/** The point a restore went back to, as the history still lists it. */
export interface RestoredPoint {
  bookmark: string
  /** true for the undo of an earlier restore (its bookmark names no listed point) */
  undo: boolean
  /** ISO 8601; null when the point is not among those listed */
  time: string | null
  note: string | null
}

/** What `GET …/history/{bookmark}/diff` answers: the zone at that point against now. */
export interface HistoryComparison {
  bookmark: string
  /** what differs, resource by resource, going from the point to now */
  changes: ConfigurationChange[]
  /** a unified diff of the zone's bundle text at the point (`---`) against now (`+++`) */
  patch: string
}

/** What `POST …/history/restore` answers. */
export interface HistoryRestore {
  restored: string
  /** the point to restore to undo this restore */
  undo_bookmark: string
}
