// The History screen's state: which zone, its points, and restoring one (with undo).

import type { Zone } from '@shared/api/zones'
import type { HistoryEntry } from '@shared/bridge'
import { bridge, describeError } from '../bridge'

export class HistoryState {
  zones = $state.raw<Zone[]>([])
  zoneId = $state<string | null>(null)
  points = $state.raw<HistoryEntry[]>([])
  loading = $state(false)
  error = $state<string | null>(null)
  /** The last restore, so the screen can offer to undo it. */
  lastRestore = $state<{ time: string; undoBookmark: string } | null>(null)

  async loadZones(): Promise<void> {
    try {
      this.zones = (await bridge.listZones({ perPage: 1000 })).zones
      if (this.zoneId === null && this.zones[0]) await this.select(this.zones[0].id)
    } catch (error) {
      this.error = describeError(error)
    }
  }

  async select(zoneId: string): Promise<void> {
    this.zoneId = zoneId
    this.lastRestore = null
    await this.loadPoints()
  }

  async loadPoints(): Promise<void> {
    if (this.zoneId === null) return
    this.loading = true
    try {
      this.points = await bridge.zoneHistory({ zoneId: this.zoneId, limit: 200 })
      this.error = null
    } catch (error) {
      this.error = describeError(error)
    } finally {
      this.loading = false
    }
  }

  async restore(point: HistoryEntry): Promise<void> {
    if (this.zoneId === null) return
    try {
      const { undoBookmark } = await bridge.restoreZone({
        zoneId: this.zoneId,
        bookmark: point.bookmark,
      })
      await this.loadZones()
      await this.loadPoints()
      this.lastRestore = { time: point.time, undoBookmark }
    } catch (error) {
      this.error = describeError(error)
    }
  }

  async undo(): Promise<void> {
    const last = this.lastRestore
    if (this.zoneId === null || last === null) return
    try {
      await bridge.restoreZone({ zoneId: this.zoneId, bookmark: last.undoBookmark })
      this.lastRestore = null
      await this.loadZones()
      await this.loadPoints()
    } catch (error) {
      this.error = describeError(error)
    }
  }
}
