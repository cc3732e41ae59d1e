// The side-by-side replay of the Migration screen, run by the service as a compare job
// (…/waf_migration/compares, followed by a ServiceJobs): it goes on when the screen is left or
// reloaded, and its progress and comparison are there when the user comes back. A picked file is
// sent as the body as it is read from disk, never read into the page; pasted traffic is sent as
// text. Before validation mode the new product is the generated configuration; in it, the entry
// point deployed.

import type { ApiMessage } from '@shared/api/envelope'
import type { ReplayJob, StreamedComparison } from '@shared/api/simulate'
import type { ComparedRequest, MigrationComparison } from '@shared/api/waf'
import { ComparisonTally } from '@shared/replay/comparison-tally'
import { errorMessages } from '../../lib/api-error'
import { ServiceJobs } from '../../lib/state/service-jobs.svelte'

/**
 * The most requests a comparison lists on screen: its compared requests are read from the job's
 * file only up to this many (a day of traffic stays in the file, to export).
 */
export const LISTED_REQUESTS = 5000

export class ComparisonState {
  readonly jobs = new ServiceJobs('waf_migration/compares')
  file = $state.raw<File | null>(null)
  pasted = $state('')
  /** the compared requests of the job shown, differences first; null until read (or too many) */
  requests = $state.raw<ComparedRequest[] | null>(null)
  requestErrors = $state.raw<ApiMessage[]>([])
  /** the job whose requests were asked for */
  private requestsOf: string | null = null

  readonly hasTraffic = $derived(this.file !== null || this.pasted.trim() !== '')
  /** the job whose progress, comparison or failure is shown */
  readonly shown = $derived(this.jobs.shown)
  readonly summary = $derived(
    this.shown?.state === 'done' ? (this.shown.summary as StreamedComparison) : null,
  )
  /** the finished comparison, with its requests once they are read */
  readonly result = $derived.by((): MigrationComparison | null =>
    this.summary === null ? null : { ...this.summary, results: this.requests ?? [] },
  )
  readonly errors = $derived([
    ...(this.jobs.error === null ? [] : errorMessages(this.jobs.error)),
    ...(this.shown?.errors ?? []),
    ...this.requestErrors,
  ])
  /** The job went through and the traffic held no request. */
  readonly noRequests = $derived(this.summary?.requests === 0)

  chooseFile(file: File | null): void {
    this.file = file
  }

  /** Follows the zone's compare jobs (none: stops). */
  follow(zoneId: string | null): Promise<void> {
    this.requests = null
    this.requestsOf = null
    return this.jobs.follow(zoneId)
  }

  stop(): void {
    this.jobs.stop()
  }

  /**
   * Starts a compare of the chosen file (or else the pasted traffic) on the zone and resolves
   * once it has ended. The headless shell's page sends either as the body; through the bridge
   * (the Electron shell) the pasted traffic goes as text.
   */
  async run(zoneId: string): Promise<void> {
    this.requestErrors = []
    if (this.jobs.zoneId !== zoneId) await this.follow(zoneId)
    if (this.jobs.canUpload) {
      await this.jobs.upload(this.file ?? new Blob([this.pasted], { type: 'application/x-ndjson' }))
    } else {
      await this.jobs.post(this.pasted)
    }
    await this.jobs.idle()
  }

  /** Starts a compare of a file picked in the shell's file dialog (the Electron shell). */
  async runChosenFile(zoneId: string): Promise<void> {
    this.requestErrors = []
    if (this.jobs.zoneId !== zoneId) await this.follow(zoneId)
    await this.jobs.choose()
  }

  /**
   * Reads the compared requests of the job shown from its file, differences first, when there
   * are at most LISTED_REQUESTS of them.
   */
  async readRequests(): Promise<void> {
    const job = this.shown
    const summary = this.summary
    if (job === null || summary === null || this.requestsOf === job.id) return
    this.requestsOf = job.id
    this.requests = null
    this.requestErrors = []
    if (summary.requests > LISTED_REQUESTS) return
    try {
      const tally = new ComparisonTally(summary.new_configuration)
      for (const line of (await this.jobs.verdicts(job)).split('\n')) {
        if (line.trim() !== '') tally.add(JSON.parse(line) as ComparedRequest)
      }
      if (this.requestsOf === job.id) this.requests = tally.comparison().results
    } catch (error) {
      this.requestErrors = errorMessages(error)
    }
  }

  /** Saves the job's comparison (its counts, the outcome matrix, what was read) as JSON. */
  exportComparison(job: ReplayJob): Promise<void> {
    // the requests are the NDJSON export's: a job's summary lists none
    const comparison = { ...job.summary, results: undefined }
    return this.jobs.saveText(
      `compare-${job.id}.json`,
      () => `${JSON.stringify(comparison, null, 2)}\n`,
    )
  }

  /** Saves the job's compared requests, one a line, as NDJSON. */
  exportRequests(job: ReplayJob): Promise<void> {
    return this.jobs.saveText(`compare-${job.id}.ndjson`, () => this.jobs.verdicts(job))
  }
}
