// Runs one object's alarm: at its time, one handler at a time, with the runtime's retry policy
// (2 s, 4 s, 8 s … plus up to 25 % jitter, at most 6 retries, then the alarm is dropped).
import type { Clock } from './clock'

export interface AlarmInvocationInfo {
  /** How many times this alarm has been retried before this run. */
  retryCount: number
  isRetry: boolean
  /** When the alarm was set to run, in milliseconds since the epoch. */
  scheduledTime: number
}

export const ALARM_MAX_RETRIES = 6
const FIRST_RETRY_DELAY_MS = 2000
const JITTER_FRACTION = 0.25

export interface AlarmTarget {
  /** Runs the handler; resolves when it succeeded, rejects when it failed. */
  run(info: AlarmInvocationInfo): Promise<void>
  /** The handler failed for the last time: the alarm is dropped. */
  giveUp(scheduledTime: number): void
}

export class AlarmScheduler {
  private cancelTimer: (() => void) | null = null
  private running: Promise<void> = Promise.resolve()
  private stopped = false

  constructor(
    private readonly clock: Clock,
    private readonly target: AlarmTarget,
    private readonly random: () => number = Math.random,
  ) {}

  /** The committed alarm changed (or is known at start): replaces any pending run or retry. */
  schedule(scheduledTime: number | null): void {
    this.cancel()
    if (scheduledTime === null || this.stopped) return
    this.arm(scheduledTime, scheduledTime - this.clock.now(), 0)
  }

  stop(): void {
    this.stopped = true
    this.cancel()
  }

  private arm(scheduledTime: number, delayMs: number, retryCount: number): void {
    this.cancelTimer = this.clock.setTimer(
      () => {
        this.cancelTimer = null
        // A handler that is still running is never cancelled; the next run waits for it.
        this.running = this.running.then(() => this.fire(scheduledTime, retryCount))
      },
      Math.max(0, delayMs),
    )
  }

  private async fire(scheduledTime: number, retryCount: number): Promise<void> {
    if (this.stopped) return
    try {
      await this.target.run({ retryCount, isRetry: retryCount > 0, scheduledTime })
    } catch {
      if (this.stopped || this.cancelTimer !== null) return
      if (retryCount >= ALARM_MAX_RETRIES) {
        this.target.giveUp(scheduledTime)
        return
      }
      const delay = FIRST_RETRY_DELAY_MS * 2 ** retryCount
      this.arm(scheduledTime, delay + this.random() * JITTER_FRACTION * delay, retryCount + 1)
    }
  }

  private cancel(): void {
    this.cancelTimer?.()
    this.cancelTimer = null
  }
}
