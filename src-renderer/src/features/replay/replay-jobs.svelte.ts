// The Replay screen's jobs: replays run by the service (POST …/replays), not by the page, so they
// go on when the screen is left and are found again, with their progress and summary, when it
// comes back (issue 19: long work belongs to the service). The page starts one by sending the
// picked file as the request's body, never reading it into the page; the list is polled while a
// job runs.

import type { Envelope } from '@shared/api/envelope'
import type { ReplayJob } from '@shared/api/simulate'
import { ApiCallError } from '../../lib/api-error'
import { workbenchApi } from '../../lib/api'
import { bridge } from '../../lib/bridge'

/** How often the list is read again while a job runs. */
const POLL_MS = 500

export class ReplayJobs {
  jobs = $state.raw<ReplayJob[]>([])
  /** the job whose summary is shown */
  shownId = $state<string | null>(null)
  error = $state<unknown>(null)
  /** a file is being sent to start a job */
  uploading = $state(false)
  private zoneId: string | null = null
  private timer: ReturnType<typeof setTimeout> | undefined

  readonly shown = $derived(this.jobs.find((job) => job.id === this.shownId) ?? null)

  /** Whether the page can send a file as a body: the headless shell's page (a session cookie). */
  readonly canUpload = window.workbench === undefined

  /** Follows the zone's jobs (none: stops). */
  async follow(zoneId: string | null): Promise<void> {
    this.zoneId = zoneId
    clearTimeout(this.timer)
    this.jobs = []
    if (zoneId !== null) await this.refresh()
  }

  stop(): void {
    this.zoneId = null
    clearTimeout(this.timer)
  }

  async refresh(): Promise<void> {
    const zoneId = this.zoneId
    if (zoneId === null) return
    try {
      const jobs = await workbenchApi.get<ReplayJob[]>(`/zones/${zoneId}/replays`)
      if (zoneId !== this.zoneId) return
      this.jobs = jobs
      if (!jobs.some((job) => job.id === this.shownId)) {
        this.shownId = jobs.find((job) => job.state === 'done')?.id ?? null
      }
    } catch (error) {
      this.error = error
    }
    clearTimeout(this.timer)
    if (this.uploading || this.jobs.some((job) => job.state === 'running')) {
      this.timer = setTimeout(() => void this.refresh(), POLL_MS)
    }
  }

  /**
   * Starts a replay of `file` in the service, sent as the body as it is read from disk. The
   * service answers once the input is open, but a browser reads that answer only when its upload
   * ends, and the service reads the upload as fast as it replays: the list is polled meanwhile,
   * where the job shows as soon as it runs. A job cancelled mid-upload ends the upload's
   * connection, which is no error.
   */
  async start(file: File): Promise<void> {
    const zoneId = this.zoneId
    if (zoneId === null) return
    this.error = null
    this.uploading = true
    void this.refresh()
    try {
      const response = await fetch(`/workbench/v1/zones/${zoneId}/replays`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': file.type || 'application/octet-stream' },
        body: file,
      })
      const envelope = (await response.json()) as Envelope<ReplayJob>
      if (!envelope.success || envelope.result === null) {
        this.error = new ApiCallError(response.status, envelope.errors)
      } else {
        this.shownId = envelope.result.id
      }
    } catch {
      // The connection ended with the job (cancelled during the upload): the list says so.
    } finally {
      this.uploading = false
    }
    await this.refresh()
  }

  /** Cancels a running job, or removes a finished one. */
  async cancel(job: ReplayJob): Promise<void> {
    await workbenchApi.delete(`/zones/${job.zone_id}/replays/${job.id}`)
    await this.refresh()
  }

  /** Saves the job's verdicts (NDJSON, one request a line). */
  async exportVerdicts(job: ReplayJob): Promise<void> {
    const text = await workbenchApi.getText(`/zones/${job.zone_id}/replays/${job.id}/verdicts`)
    await bridge.saveFile({ suggestedName: `replay-${job.id}.ndjson`, text })
  }
}
