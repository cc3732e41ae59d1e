// How a job run by the service (lib/state/service-jobs.svelte.ts) reads on screen: its counts,
// its rate and the time it has left while it runs.

import type { ReplayJob } from '@shared/api/simulate'

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
