// The Replay screen's jobs: the zone's replays run by the service (ServiceJobs), with what this
// screen adds to them: the job the address names (`#/zones/<id>/replay/<job>`, so a reload or a
// link opens it), and a finished job's summary and verdicts saved as files.

import type { ReplayJob, StreamedReplaySummary } from '@shared/api/simulate'
import { ServiceJobs } from '../../lib/state/service-jobs.svelte'

export class ReplayJobs extends ServiceJobs {
  /** the job the address named, which the service no longer holds (a restart forgets jobs) */
  missing = $state<string | null>(null)

  constructor() {
    super('replays')
  }

  /** A finished replay's summary, or null. */
  readonly summary = $derived(
    this.shown?.state === 'done' ? (this.shown.summary as StreamedReplaySummary) : null,
  )

  /** the zone whose jobs have been listed since open() */
  private listed: string | null = null

  /** Follows the zone's jobs, showing the one `asked` names if the service has it. */
  async open(zoneId: string, asked: string | null): Promise<void> {
    this.missing = null
    this.listed = null
    await this.follow(zoneId)
    if (this.zoneId !== zoneId) return
    this.listed = zoneId
    this.show(zoneId, asked)
  }

  /**
   * Shows the job `asked` names in the zone's list, or says it is gone; nothing before the zone's
   * jobs are listed (open() shows it then) or for another zone (open() will).
   */
  show(zoneId: string | null, asked: string | null): void {
    if (asked === null || asked === this.shownId || zoneId !== this.listed) return
    if (this.jobs.some((job) => job.id === asked)) {
      this.shownId = asked
      this.missing = null
    } else this.missing = asked
  }

  /**
   * Reads the jobs again; with none shown, a running one is (a job started by an upload is
   * answered only once the upload ends, and its progress is worth following before).
   */
  override async refresh(): Promise<void> {
    await super.refresh()
    this.shownId ??= this.jobs.find((job) => job.state === 'running')?.id ?? null
  }

  /** Saves a finished job's summary (JSON). */
  exportSummary(job: ReplayJob): Promise<void> {
    return this.saveText(`replay-${job.id}.summary.json`, () =>
      JSON.stringify(job.summary, null, 2),
    )
  }

  /** Saves a finished job's verdicts (NDJSON, one request a line). */
  exportVerdicts(job: ReplayJob): Promise<void> {
    return this.saveText(`replay-${job.id}.ndjson`, () => this.verdicts(job))
  }
}
