// The Replay screen's state: a replay of a file run from the page (ReplayState), and the zone's
// replays run by the service (ReplayJobs), whose shown job is the screen's step in the address.

import { FormCheck } from '../../lib/form-check.svelte'
import { ReplayState } from '../../lib/state/replay.svelte'
import { ReplayJobs } from './replay-jobs.svelte'

export class ReplayScreenState extends ReplayState {
  readonly jobs = new ReplayJobs()
  /** Replay, and Replay in the service, pressed with no file chosen say so at the file field. */
  readonly fileCheck = new FormCheck(() => ({
    file: this.file === null ? 'Choose a traffic file to replay.' : undefined,
  }))

  /** The job shown, which the address carries after the zone. */
  get step(): string | null {
    return this.jobs.shownId
  }

  override select(zoneId: string, step: string | null = null): Promise<void> {
    super.select(zoneId)
    return this.jobs.open(zoneId, step)
  }
}
