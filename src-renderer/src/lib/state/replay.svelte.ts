// The Replay screen's state: the zone, the traffic file, and the replay of it chunk by chunk with
// its progress and running totals (a ChunkedRun). A refused chunk stops the replay; the chunks
// before it have run (and, when recording, left their events).

import type { ReplaySummary } from '@shared/api/simulate'
import { workbenchApi } from '../api'
import { ReplayTally } from '@shared/replay/replay-tally'
import { ChunkedRun } from './chunked-run.svelte'
import { ZoneChoice } from './zone-choice.svelte'

export class ReplayState extends ChunkedRun<ReplaySummary> {
  readonly choice = new ZoneChoice()
  file = $state.raw<File | null>(null)
  /** Off by default: bulk traffic would crowd the zone's capped event log. */
  record = $state(false)

  select(zoneId: string): void {
    this.choice.choose(zoneId)
    this.clear()
  }

  chooseFile(file: File | null): void {
    this.file = file
    this.clear()
  }

  async run(): Promise<void> {
    const zoneId = this.choice.zoneId
    const file = this.file
    if (zoneId === null || file === null) return
    const query = `?results=true${this.record ? '&record=true' : ''}`
    const tally = new ReplayTally()
    await this.runChunks({
      text: () => file.text(),
      post: (body) => workbenchApi.post<ReplaySummary>(`/zones/${zoneId}/replay${query}`, body),
      empty: () => tally.summary(),
      add: (_totals, summary) => {
        tally.addSummary(summary)
        return tally.summary()
      },
    })
  }
}
