// The side-by-side replay of the Migration screen: a traffic file (uploaded or pasted, NDJSON or
// HAR) sent to the compare route chunk by chunk (a ChunkedRun), with its progress and the
// comparison added up so far. Before validation mode the new product is the generated
// configuration; in it, the entry point deployed. A refused chunk stops the comparison.

import type { MigrationComparison } from '@shared/api/waf'
import { ComparisonTally } from '@shared/replay/comparison-tally'
import { workbenchApi } from '../../lib/api'
import { ChunkedRun } from '../../lib/state/chunked-run.svelte'

export class ComparisonState extends ChunkedRun<MigrationComparison> {
  file = $state.raw<File | null>(null)
  pasted = $state('')

  readonly hasTraffic = $derived(this.file !== null || this.pasted.trim() !== '')

  chooseFile(file: File | null): void {
    this.file = file
    this.clear()
  }

  async run(zoneId: string): Promise<void> {
    this.clear()
    const tally = new ComparisonTally()
    await this.runChunks({
      // an uploaded file wins over pasted text
      text: () => (this.file ? this.file.text() : this.pasted),
      post: (body) =>
        workbenchApi.post<MigrationComparison>(`/zones/${zoneId}/waf_migration/compare`, body),
      empty: () => tally.comparison(),
      add: (_comparison, part, chunk) => {
        tally.addComparison(part, chunk.first)
        return tally.comparison()
      },
    })
  }
}
