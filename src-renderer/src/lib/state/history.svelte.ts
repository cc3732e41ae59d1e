// The History screen's state: which zone, its points, and restoring one (with undo), through the
// workbench's history routes.

import type { ApiMessage } from '@shared/api/envelope'
import type { HistoryComparison, HistoryEntry, HistoryRestore } from '@shared/api/history'
import { workbenchApi } from '../api'
import { errorMessages } from '../api-error'
import { ZoneChoice } from './zone-choice.svelte'

/** How many of a zone's latest points the screen lists. */
const POINTS_SHOWN = 200

export class HistoryState {
  readonly choice = new ZoneChoice()
  points = $state.raw<HistoryEntry[]>([])
  loading = $state(false)
  errors = $state.raw<ApiMessage[]>([])
  /** The last restore, so the screen can offer to undo it. */
  lastRestore = $state<{ time: string; undoBookmark: string } | null>(null)

  async select(zoneId: string): Promise<void> {
    this.choice.choose(zoneId)
    this.lastRestore = null
    await this.loadPoints()
  }

  async loadPoints(): Promise<void> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return
    this.loading = true
    try {
      const points = await workbenchApi.get<HistoryEntry[]>(
        `/zones/${zoneId}/history?limit=${POINTS_SHOWN}`,
      )
      if (this.choice.zoneId !== zoneId) return
      this.points = points
      this.errors = []
    } catch (error) {
      this.errors = errorMessages(error)
    } finally {
      this.loading = false
    }
  }

  /** The zone at `bookmark` against now; null (with the API's errors shown) if refused. */
  async compareWithNow(bookmark: string): Promise<HistoryComparison | null> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return null
    try {
      const comparison = await workbenchApi.get<HistoryComparison>(
        `/zones/${zoneId}/history/${bookmark}/diff`,
      )
      this.errors = []
      return comparison
    } catch (error) {
      this.errors = errorMessages(error)
      return null
    }
  }

  /** Restores the zone to `bookmark`; answers the bookmark that undoes it, or null if refused. */
  private async restoreTo(bookmark: string): Promise<string | null> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return null
    try {
      const restored = await workbenchApi.post<HistoryRestore>(`/zones/${zoneId}/history/restore`, {
        bookmark,
      })
      // A restore may bring back an earlier name: the picker reads the zones again.
      await this.choice.load()
      await this.loadPoints()
      return restored.undo_bookmark
    } catch (error) {
      this.errors = errorMessages(error)
      return null
    }
  }

  async restore(point: Pick<HistoryEntry, 'bookmark' | 'time' | 'note'>): Promise<void> {
    const undoBookmark = await this.restoreTo(point.bookmark)
    if (undoBookmark !== null) this.lastRestore = { time: point.time, undoBookmark }
  }

  async undo(): Promise<void> {
    const last = this.lastRestore
    if (last === null) return
    if ((await this.restoreTo(last.undoBookmark)) !== null) this.lastRestore = null
  }
}
