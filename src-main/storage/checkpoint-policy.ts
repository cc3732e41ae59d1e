// When history checkpoints (archiving the WAL first; src-main/storage/history/types.ts). Small
// transactions checkpoint as soon as the WAL passes the first size, so that the WAL is rewritten
// in place: a commit that grows the file costs a much slower sync. Large transactions make growing
// the file cheap by comparison and archiving dear (about what writing cost), so their checkpoint
// waits for a pause in the object's writes; past the second size it happens at once, bounding
// the WAL. The pause is measured on the event loop's own timers, not the service's clock: it
// paces disk work and changes nothing an object or a test can observe.
import type { History } from './history'

const CHECKPOINT_WAL_BYTES = 4 * 1024 * 1024
const CHECKPOINT_WAL_BYTES_NOW = 64 * 1024 * 1024
const LARGE_COMMIT_BYTES = 256 * 1024
const CHECKPOINT_PAUSE_MS = 100

export class CheckpointPolicy {
  private pausedCheckpoint: NodeJS.Timeout | null = null
  /** The WAL's size when history last reported a change, and commits made since. */
  private walBytesSeen = 0
  private commitsSinceWalChange = 0

  constructor(
    private readonly history: History,
    /** Whether a checkpoint may run now: no transaction open, no commit pending. */
    private readonly idle: () => boolean,
  ) {}

  /** A commit was archived: checkpoints now, after a pause, or not yet. */
  afterCommit(): void {
    this.commitsSinceWalChange++
    const walBytes = this.history.walBytes()
    if (walBytes === this.walBytesSeen) return
    const bytesPerCommit = (walBytes - this.walBytesSeen) / this.commitsSinceWalChange
    this.walBytesSeen = walBytes
    this.commitsSinceWalChange = 0
    if (walBytes < CHECKPOINT_WAL_BYTES) return
    if (walBytes < CHECKPOINT_WAL_BYTES_NOW && bytesPerCommit >= LARGE_COMMIT_BYTES)
      this.checkpointAfterPause()
    else this.checkpoint()
  }

  /** Checkpoints at once (and forgets a paused one). */
  checkpoint(): void {
    if (this.pausedCheckpoint !== null) clearTimeout(this.pausedCheckpoint)
    this.pausedCheckpoint = null
    this.history.checkpoint()
  }

  private checkpointAfterPause(): void {
    if (this.pausedCheckpoint !== null) clearTimeout(this.pausedCheckpoint)
    this.pausedCheckpoint = setTimeout(() => {
      this.pausedCheckpoint = null
      // A transaction open by then has writes of its own to finish first.
      if (this.idle()) this.checkpoint()
    }, CHECKPOINT_PAUSE_MS)
    this.pausedCheckpoint.unref()
  }
}
