// The Replay screen's state: a replay of a file run from the page (ReplayState), and the zone's
// replays run by the service (ReplayJobs), whose shown job is the screen's step in the address.

import { ReplayState } from '../../lib/state/replay.svelte'
import { ReplayJobs } from './replay-jobs.svelte'

export class ReplayScreenState extends ReplayState {
  readonly jobs = new ReplayJobs()

  /** The job shown, which the address carries after the zone. */
  get step(): string | null {
    return this.jobs.shownId
  }

  override select(zoneId: string, step: string | null = null): Promise<void> {
    super.select(zoneId)
    return this.jobs.open(zoneId, step)
  }
}
