// The words of a polite live region that follows a long job's progress: said again at most every
// few seconds while the job runs, since each poll would talk over a screen reader, and at once
// when something other than the counts changes (the job ends, another is shown). Issue 19: live
// regions for progress; https://www.w3.org/WAI/ARIA/apg/practices/live-regions/ (“polite”).

/** How often progress is said again while a job runs. */
export const ANNOUNCE_MS = 5000

export class PacedAnnouncement {
  /** what the live region says now */
  text = $state('')
  private saidAt = -Infinity

  /** `clock` answers milliseconds (a test drives its own) */
  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** Says `words` if the last were said ANNOUNCE_MS ago or more, or at once when `now`. */
  say(words: string, now = false): void {
    const time = this.clock()
    if (!now && time - this.saidAt < ANNOUNCE_MS) return
    this.text = words
    this.saidAt = time
  }
}
