// A clock the test moves by hand, so alarms and their retries run without sleeping.
import type { Clock } from '../../../src-main/objects'

export class FakeClock implements Clock {
  private timers: Array<{ due: number; callback: () => void; cancelled: boolean }> = []

  constructor(private time: number) {}

  now(): number {
    return this.time
  }

  setTimer(callback: () => void, delayMs: number): () => void {
    const timer = { due: this.time + delayMs, callback, cancelled: false }
    this.timers.push(timer)
    return () => {
      timer.cancelled = true
    }
  }

  /** Moves time forward, firing due timers in order and letting each one's work settle. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms
    for (;;) {
      await settle()
      const next = this.timers
        .filter((t) => !t.cancelled && t.due <= target)
        .sort((a, b) => a.due - b.due)[0]
      if (next === undefined) break
      this.time = Math.max(this.time, next.due)
      next.cancelled = true
      next.callback()
    }
    this.time = target
    await settle()
  }
}

/** Lets pending commits (on later turns) and the handlers they trigger finish. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve))
}
