// The side-by-side replay of the Migration screen: a traffic file (uploaded or pasted, NDJSON or
// HAR) sent to the compare route chunk by chunk, with its progress and the comparison added up so
// far. Before validation mode the new product is the generated configuration; in it, the entry
// point deployed. A refused chunk stops the comparison.

import type { ApiMessage } from '@shared/api/envelope'
import type { MigrationComparison } from '@shared/api/waf'
import { errorMessages, workbenchApi } from '../../lib/api'
import { splitTraffic } from '../../lib/replay-chunks'
import { addComparison, emptyComparison } from './comparison-chunks'

export class ComparisonState {
  file = $state.raw<File | null>(null)
  pasted = $state('')
  running = $state(false)
  progress = $state({ done: 0, total: 0 })
  result = $state.raw<MigrationComparison | null>(null)
  /** set when the user stops a running comparison; checked between chunks */
  private stopping = false
  stopped = $state(false)
  errors = $state.raw<ApiMessage[]>([])

  readonly hasTraffic = $derived(this.file !== null || this.pasted.trim() !== '')

  chooseFile(file: File | null): void {
    this.file = file
    this.clear()
  }

  clear(): void {
    this.result = null
    this.progress = { done: 0, total: 0 }
    this.stopped = false
    this.errors = []
  }

  async run(zoneId: string): Promise<void> {
    this.running = true
    this.stopping = false
    this.clear()
    try {
      // an uploaded file wins over pasted text
      const text = this.file ? await this.file.text() : this.pasted
      const chunks = splitTraffic(text)
      const total = chunks.reduce((sum, chunk) => sum + chunk.count, 0)
      this.progress = { done: 0, total }
      let comparison = emptyComparison()
      this.result = comparison
      for (const chunk of chunks) {
        if (this.stopping) {
          this.stopped = true
          return
        }
        let part: MigrationComparison
        try {
          part = await workbenchApi.post<MigrationComparison>(
            `/zones/${zoneId}/waf_migration/compare`,
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
        comparison = addComparison(comparison, part, chunk.first)
        this.result = comparison
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
