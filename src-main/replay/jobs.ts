// Replays and compares that belong to the service, not to the screen or the connection that
// started them: each runs on its own, its progress and its summary kept until it is removed, its
// verdicts written as NDJSON to a file in the data dir (issue 19: long work "belongs to the
// service … and its progress and result are there when the user comes back").
//
//   const jobs = new ReplayJobs(join(dataDir, 'replays'), clock)
//   const job = jobs.start(zoneId, 'replay', 'upload', (work) => runner.replay(…, work))
//   jobs.get(zoneId, 'replay', job.id)         // state, progress, summary when done
//   await jobs.cancel(zoneId, 'replay', job.id) // stops a running one, removes a finished one
//
// Jobs live in memory: a restart forgets them, and clears the folder of their verdict files. Of
// the finished jobs, only the newest KEPT_FINISHED of a zone are kept, with their files.

import { randomBytes } from 'node:crypto'
import { createWriteStream, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import { ApiError, couldNotRoute } from '@shared/api/errors'
import { API_ERRORS } from '@shared/api/error-codes'
import type { ApiMessage } from '@shared/api/envelope'
import type {
  ReplayJob,
  ReplayJobKind,
  ReplayJobSummary,
  ReplayProgress,
} from '@shared/api/simulate'
import type { Clock } from '../objects'

/** Finished jobs kept per zone, the newest. */
export const KEPT_FINISHED = 4

/** A run's answer, or `cancelled` when its signal stopped it first. */
export type RunAnswer<S> = { summary: S; cancelled: false } | { cancelled: true }

/** What a job's work is handed. */
export interface JobWork {
  signal: AbortSignal
  /** the job's verdict file */
  verdicts: Writable
  /** the job's file of the requests judged, line for line with its verdicts (drill-down) */
  requests: Writable
  onProgress(progress: ReplayProgress): void
  /** to call once the input is open (its format known): the job's start is answered then */
  onOpened(): void
}

interface Job {
  record: ReplayJob
  controller: AbortController
  file: string
  /** the requests judged, line for line with `file` */
  requestsFile: string
  /** settles when the work has ended and the verdict file is closed */
  settled: Promise<void>
}

const NO_PROGRESS: ReplayProgress = {
  done: 0,
  skipped: 0,
  bytes: 0,
  rate: 0,
  bytes_per_second: 0,
}

const copy = (record: ReplayJob): ReplayJob => structuredClone(record)

export class ReplayJobs {
  private readonly jobs = new Map<string, Job>()

  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
  ) {
    rmSync(dir, { recursive: true, force: true })
    // The folder's files hold the requests replayed, cookies and credentials included (the
    // uploads spooled, the requests judged): only the user who runs the service may read them.
    mkdirSync(dir, { recursive: true, mode: 0o700 })
  }

  /**
   * Starts `work` as a job; resolves to the job once its input is open, or rejects with the
   * work's refusal if it fails before that (nothing is kept of it then).
   */
  start(
    zoneId: string,
    kind: ReplayJobKind,
    source: string,
    work: (job: JobWork) => Promise<RunAnswer<ReplayJobSummary>>,
  ): Promise<ReplayJob> {
    const id = randomBytes(16).toString('hex')
    const file = join(this.dir, `${id}.ndjson`)
    const verdicts = createWriteStream(file)
    const requestsFile = join(this.dir, `${id}.requests.ndjson`)
    const requests = createWriteStream(requestsFile)
    const controller = new AbortController()
    const record: ReplayJob = {
      id,
      zone_id: zoneId,
      kind,
      state: 'running',
      started_on: this.timestamp(),
      source,
      progress: { ...NO_PROGRESS },
    }
    const job: Job = { record, controller, file, requestsFile, settled: Promise.resolve() }
    let opened = false
    return new Promise((resolve, reject) => {
      const onOpened = () => {
        if (opened) return
        opened = true
        this.jobs.set(id, job)
        resolve(copy(record))
      }
      const run = work({
        signal: controller.signal,
        verdicts,
        requests,
        onProgress: (progress) => (record.progress = progress),
        onOpened,
      })
      job.settled = run
        .then(
          (answer) => {
            if (answer.cancelled) record.state = 'cancelled'
            else {
              record.state = 'done'
              record.summary = answer.summary
              record.progress = { ...record.progress, done: answer.summary.requests }
            }
            onOpened()
          },
          (error: unknown) => {
            if (!opened) {
              reject(error instanceof Error ? error : new Error(String(error)))
              return
            }
            record.state = controller.signal.aborted ? 'cancelled' : 'failed'
            if (record.state === 'failed') record.errors = messagesOf(error)
          },
        )
        .then(async () => {
          await Promise.all(
            [verdicts, requests].map((stream) => new Promise<void>((closed) => stream.end(closed))),
          )
          record.finished_on = this.timestamp()
          if (opened) this.prune(zoneId)
          else for (const written of [file, requestsFile]) rmSync(written, { force: true })
        })
    })
  }

  /** A new file's path in the jobs' folder, for an upload spooled there (removed with the folder). */
  uploadFile(): string {
    return join(this.dir, `${randomBytes(16).toString('hex')}.upload`)
  }

  /** The zone's jobs of `kind`, newest first. */
  list(zoneId: string, kind: ReplayJobKind): ReplayJob[] {
    return [...this.jobs.values()]
      .filter((job) => job.record.zone_id === zoneId && job.record.kind === kind)
      .reverse()
      .map((job) => copy(job.record))
  }

  get(zoneId: string, kind: ReplayJobKind, id: string, path: string): ReplayJob {
    return copy(this.job(zoneId, kind, id, path).record)
  }

  /** The job's verdict file: what it has written so far, all of it once done. */
  verdictsFile(zoneId: string, kind: ReplayJobKind, id: string, path: string): string {
    return this.job(zoneId, kind, id, path).file
  }

  /** The job's requests judged, line for line with its verdict file. */
  requestsFile(zoneId: string, kind: ReplayJobKind, id: string, path: string): string {
    return this.job(zoneId, kind, id, path).requestsFile
  }

  /** Cancels a running job (answering it once stopped), or removes a finished one. */
  async cancel(zoneId: string, kind: ReplayJobKind, id: string, path: string): Promise<ReplayJob> {
    const job = this.job(zoneId, kind, id, path)
    if (job.record.state === 'running') {
      job.controller.abort()
      await job.settled
      return copy(job.record)
    }
    this.remove(job)
    return copy(job.record)
  }

  /** Stops every job and removes their files. */
  async close(): Promise<void> {
    const jobs = [...this.jobs.values()]
    for (const job of jobs) job.controller.abort()
    await Promise.all(jobs.map((job) => job.settled))
    rmSync(this.dir, { recursive: true, force: true })
  }

  private job(zoneId: string, kind: ReplayJobKind, id: string, path: string): Job {
    const job = this.jobs.get(id)
    if (job === undefined || job.record.zone_id !== zoneId || job.record.kind !== kind) {
      throw couldNotRoute(path)
    }
    return job
  }

  private remove(job: Job): void {
    this.jobs.delete(job.record.id)
    for (const written of [job.file, job.requestsFile]) rmSync(written, { force: true })
  }

  /** Keeps the zone's newest KEPT_FINISHED finished jobs. */
  private prune(zoneId: string): void {
    const finished = [...this.jobs.values()].filter(
      (job) => job.record.zone_id === zoneId && job.record.state !== 'running',
    )
    for (const job of finished.slice(0, Math.max(0, finished.length - KEPT_FINISHED))) {
      this.remove(job)
    }
  }

  private timestamp(): string {
    return new Date(this.clock.now()).toISOString()
  }
}

function messagesOf(error: unknown): ApiMessage[] {
  if (error instanceof ApiError) return error.toMessages()
  return [{ code: API_ERRORS.internalError, message: (error as Error).message }]
}
