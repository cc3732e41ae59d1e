// The service's one clock: every time it records (zones' and rules' timestamps, security events,
// points in history, a bundle's exported_at) and every alarm it runs (a migration's switch-over,
// event pruning) reads it. createService takes it as ServiceOptions.clock, the object runtime
// hands its `now` to storage; tests pass a clock they move, so that nothing waits in real time.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  /** Runs `callback` after `delayMs`; returns a function that cancels it. */
  setTimer(callback: () => void, delayMs: number): () => void
}

// Node's timers take at most a signed 32-bit delay; a longer wait is taken in steps.
const MAX_TIMER_MS = 2 ** 31 - 1

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, delayMs) {
    let timer: NodeJS.Timeout
    const due = Date.now() + delayMs
    const arm = (): void => {
      const remaining = due - Date.now()
      timer = setTimeout(
        remaining > MAX_TIMER_MS ? arm : callback,
        Math.min(Math.max(remaining, 0), MAX_TIMER_MS),
      )
      timer.unref()
    }
    arm()
    return () => clearTimeout(timer)
  },
}
