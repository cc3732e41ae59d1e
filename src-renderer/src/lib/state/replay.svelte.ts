// The Replay screen's state: the zone, the traffic file, and the replay of it chunk by chunk with
// its progress and running totals. A refused chunk stops the replay; the chunks before it have run
// (and, when recording, left their events).

import type { ApiMessage } from '@shared/api/envelope'
import { errorMessages, workbenchApi } from '../api'
import { addSummary, emptyTotals, splitTraffic, type ReplayTotals } from '../replay-chunks'
import type { ReplaySummary } from '@shared/api/simulate'
import { ZoneChoice } from './zone-choice.svelte'

export class ReplayState {
  readonly choice = new ZoneChoice()
  file = $state.raw<File | null>(null)
  record = $state(true)
  running = $state(false)
  progress = $state({ done: 0, total: 0 })
  totals = $state.raw<ReplayTotals | null>(null)
  /** set when the user stops a running replay; checked between chunks */
  private stopping = false
  stopped = $state(false)
  errors = $state.raw<ApiMessage[]>([])

  async load(): Promise<void> {
    try {
      const zoneId = await this.choice.load()
      if (zoneId !== null) this.select(zoneId)
    } catch (error) {
      this.errors = errorMessages(error)
    }
  }

  select(zoneId: string): void {
    this.choice.choose(zoneId)
    this.clearResults()
  }

  chooseFile(file: File | null): void {
    this.file = file
    this.clearResults()
  }

  private clearResults(): void {
    this.totals = null
    this.progress = { done: 0, total: 0 }
    this.stopped = false
    this.errors = []
  }

  async run(): Promise<void> {
    const zoneId = this.choice.zoneId
    const file = this.file
    if (zoneId === null || file === null) return
    this.running = true
    this.stopping = false
    this.stopped = false
    this.errors = []
    try {
      const chunks = splitTraffic(await file.text())
      const total = chunks.reduce((sum, chunk) => sum + chunk.count, 0)
      this.progress = { done: 0, total }
      let totals = emptyTotals()
      this.totals = totals
      const query = `?results=true${this.record ? '' : '&record=false'}`
      for (const chunk of chunks) {
        if (this.stopping) {
          this.stopped = true
          return
        }
        let summary: ReplaySummary
        try {
          summary = await workbenchApi.post<ReplaySummary>(
            `/zones/${zoneId}/replay${query}`,
            chunk.body,
          )
        } catch (error) {
          const range = `Requests ${chunk.first}–${chunk.first + chunk.count - 1}`
          this.errors = errorMessages(error).map((m) => ({
            ...m,
            message: `${range}: ${m.message}`,
          }))
          return
        }
        totals = addSummary(totals, summary)
        this.totals = totals
        this.progress = { done: this.progress.done + chunk.count, total }
      }
    } catch (error) {
      this.errors = errorMessages(error)
    } finally {
      this.running = false
    }
  }

  stop(): void {
    this.stopping = true
  }
}
