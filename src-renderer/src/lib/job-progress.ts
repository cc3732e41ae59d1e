// How a job run by the service (lib/state/service-jobs.svelte.ts) reads on screen: its counts,
// its rate and the time it has left while it runs, and how its input was read.

import type { ReplayInputSummary, ReplayJob } from '@shared/api/simulate'

/** A count as people read it: 1,250,000. */
export const count = (n: number): string => Math.round(n).toLocaleString('en-US')

/** Requests a second of a running job; '' once it has ended. */
export function jobRate(job: ReplayJob): string {
  return job.state === 'running' ? `${count(job.progress.rate)}/s` : ''
}

/** The time a running job has left at its rate, when its input's size is known; '' otherwise. */
export function jobTimeLeft(job: ReplayJob): string {
  const seconds = job.progress.seconds_left
  if (job.state !== 'running' || seconds === undefined) return ''
  return seconds < 60 ? `${Math.ceil(seconds)} s left` : `${Math.ceil(seconds / 60)} min left`
}

/** The formats a replay reads (src-main/replay/formats/types.ts), as people call them. */
const FORMAT_NAMES: Record<string, string> = {
  requests: 'NDJSON request descriptions',
  logpush: 'Logpush http_requests',
  har: 'HAR',
  combined: 'access log, combined format',
}

/** How a job read its input: "Logpush http_requests, gzip, 3 lines skipped". */
export function inputRead(summary: ReplayInputSummary): string {
  const parts = [FORMAT_NAMES[summary.format] ?? summary.format]
  if (summary.gzip) parts.push('gzip')
  if (summary.skipped > 0) parts.push(`${count(summary.skipped)} lines skipped`)
  return parts.join(', ')
}
