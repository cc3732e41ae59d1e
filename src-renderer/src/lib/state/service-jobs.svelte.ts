// A zone's jobs run by the service (…/replays, …/waf_migration/compares: src-main/replay/jobs.ts)
// as a screen follows them: they go on when the screen is left and are found again, with their
// progress and summary, when it comes back (issue 19: long work belongs to the service). A job is
// started from a file sent as the request's body, never read into the page, or from a body the
// bridge carries (a file named by path, a pasted text); the list is polled while a job runs.

import type { Envelope } from '@shared/api/envelope'
import type { ReplayJob, ReplayJobKind } from '@shared/api/simulate'
import { ApiCallError } from '../api-error'
import { workbenchApi } from '../api'
import { bridge } from '../bridge'

/** How often the list is read again while a job runs. */
const POLL_MS = 500

/** The families of jobs (their path under the zone) and the kind of job each holds. */
const KINDS = {
  replays: 'replay',
  'waf_migration/compares': 'compare',
} as const satisfies Record<string, ReplayJobKind>
export type ServiceJobFamily = keyof typeof KINDS

export class ServiceJobs {
  jobs = $state.raw<ReplayJob[]>([])
  /** the job whose progress or summary is shown */
  shownId = $state<string | null>(null)
  error = $state<unknown>(null)
  /** a file is being sent to start a job */
  uploading = $state(false)
  /** the zone whose jobs are followed (read by the buttons that start a job) */
  private followed = $state<string | null>(null)
  private timer: ReturnType<typeof setTimeout> | undefined
  /** how many lists have been asked for: only the latest one's answer is taken */
  private listings = 0
  /** the latest list asked for, which the caller of an older one waits for instead */
  private latestListing: Promise<void> = Promise.resolve()
  /** callers of idle(), answered once nothing runs */
  private waiting: (() => void)[] = []

  constructor(private readonly family: ServiceJobFamily) {}

  readonly shown = $derived(this.jobs.find((job) => job.id === this.shownId) ?? null)
  readonly running = $derived(this.uploading || this.jobs.some((job) => job.state === 'running'))

  /** Whether the page can send a file as a body: the headless shell's page (a session cookie). */
  readonly canUpload = window.workbench === undefined

  /** The zone whose jobs are followed, if any. */
  get zoneId(): string | null {
    return this.followed
  }

  /** The family's path under the zone, with `tail` (a job's id and what of it). */
  path(zoneId: string, tail = ''): string {
    return `/zones/${zoneId}/${this.family}${tail}`
  }

  /** Follows the zone's jobs (none: stops). */
  async follow(zoneId: string | null): Promise<void> {
    this.followed = zoneId
    clearTimeout(this.timer)
    this.jobs = []
    this.shownId = null
    this.error = null
    if (zoneId !== null) await this.refresh()
    else this.answerWaiting()
  }

  stop(): void {
    this.followed = null
    clearTimeout(this.timer)
    this.answerWaiting()
  }

  /** Reads the jobs again; resolves once the latest list asked for is taken. */
  refresh(): Promise<void> {
    this.latestListing = this.list()
    return this.latestListing
  }

  private async list(): Promise<void> {
    const zoneId = this.followed
    if (zoneId === null) return
    const listing = ++this.listings
    try {
      const jobs = await workbenchApi.get<ReplayJob[]>(this.path(zoneId))
      if (zoneId !== this.followed) return
      // Lists asked for one after the other may be answered in either order (a poll's and a
      // start's): an older list would lack the job just started and put back the one shown before.
      if (listing !== this.listings) return this.latestListing
      // A job that has just finished is shown (its result is what the user waits for), as is the
      // newest finished one when the one shown is gone.
      const finished = jobs.find(
        (job) =>
          job.state === 'done' &&
          this.jobs.some((was) => was.id === job.id && was.state === 'running'),
      )
      this.jobs = jobs
      if (finished !== undefined) this.shownId = finished.id
      else if (!jobs.some((job) => job.id === this.shownId)) {
        this.shownId = jobs.find((job) => job.state === 'done')?.id ?? null
      }
    } catch (error) {
      if (listing !== this.listings) return this.latestListing
      this.error = error
    }
    clearTimeout(this.timer)
    if (this.running) this.timer = setTimeout(() => void this.refresh(), POLL_MS)
    else this.answerWaiting()
  }

  /** Resolves once none of the zone's jobs runs, or the jobs are no longer followed. */
  idle(): Promise<void> {
    if (this.followed === null || !this.running) return Promise.resolve()
    return new Promise((resolve) => this.waiting.push(resolve))
  }

  /**
   * Starts a job of `body` (a picked file) in the service, sent as it is read from disk. The
   * service answers once the input is open, but a browser reads that answer only when its upload
   * ends, and the service reads the upload as fast as it runs: the list is polled meanwhile, where
   * the job shows as soon as it runs. A job cancelled mid-upload ends the upload's connection,
   * which is no error.
   */
  async upload(body: Blob): Promise<void> {
    const zoneId = this.followed
    if (zoneId === null) return
    this.error = null
    this.uploading = true
    void this.refresh()
    try {
      const response = await fetch(`/workbench/v1${this.path(zoneId)}`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': body.type || 'application/octet-stream' },
        body,
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

  /**
   * Starts a job of a file the user picks in the shell's file dialog (the Electron shell's: the
   * service reads the file from disk); nothing when the dialog is closed.
   */
  async choose(): Promise<void> {
    const zoneId = this.followed
    if (zoneId === null) return
    this.error = null
    try {
      const job = await bridge.replayChosenFile({ zoneId, kind: KINDS[this.family] })
      if (job !== null) this.shownId = job.id
    } catch (error) {
      this.error = error
    }
    await this.refresh()
  }

  /** Starts a job of a body the bridge carries (a pasted text). */
  async post(body: unknown): Promise<void> {
    const zoneId = this.followed
    if (zoneId === null) return
    this.error = null
    try {
      this.shownId = (await workbenchApi.post<ReplayJob>(this.path(zoneId), body)).id
    } catch (error) {
      this.error = error
    }
    await this.refresh()
  }

  /** Cancels a running job, or removes a finished one. */
  async cancel(job: ReplayJob): Promise<void> {
    try {
      await workbenchApi.delete(this.path(job.zone_id, `/${job.id}`))
    } catch (error) {
      this.error = error
    }
    await this.refresh()
  }

  /** The job's verdicts as NDJSON, one request a line (a compare's: its compared requests). */
  verdicts(job: ReplayJob): Promise<string> {
    return workbenchApi.getText(this.path(job.zone_id, `/${job.id}/verdicts`))
  }

  /** Saves a text of a job (its summary, its verdicts) as a file the user keeps. */
  async saveText(suggestedName: string, text: () => string | Promise<string>): Promise<void> {
    this.error = null
    try {
      await bridge.saveFile({ suggestedName, text: await text() })
    } catch (error) {
      this.error = error
    }
  }

  private answerWaiting(): void {
    for (const resolve of this.waiting.splice(0)) resolve()
  }
}
