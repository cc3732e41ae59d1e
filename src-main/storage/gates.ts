// The two gates that make an object's storage look strongly consistent to the code around it.

/**
 * Input gate: while held, no new event is delivered to the object. A storage read holds it until
 * the code awaiting that read has run (the end of the current turn), so a read-modify-write with
 * only storage awaits in between cannot interleave with another call.
 */
export class InputGate {
  private holds = 0
  private waiters: Array<() => void> = []
  private heldThisTurn = false

  /** Holds the gate until `release` is called. */
  hold(): () => void {
    this.holds++
    let released = false
    return () => {
      if (released) return
      released = true
      this.holds--
      if (this.holds === 0) this.wake()
    }
  }

  /** Holds the gate until the current turn of the event loop (and its microtasks) has finished. */
  holdForThisTurn(): void {
    if (this.heldThisTurn) return
    this.heldThisTurn = true
    const release = this.hold()
    setImmediate(() => {
      this.heldThisTurn = false
      release()
    })
  }

  /**
   * Delivers an event: starts `event` as soon as nothing holds the gate. The check and the start
   * happen in one synchronous step, so an event that takes the gate keeps the next one out.
   */
  async deliver<T>(event: () => T): Promise<Awaited<T>> {
    while (this.holds > 0) await new Promise<void>((resolve) => this.waiters.push(resolve))
    return await event()
  }

  private wake(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const wake of waiters) wake()
  }
}

/**
 * Output gate: what an object sends out waits until the writes it made before are durable. If
 * such a write fails, waiting results become that failure.
 */
export class OutputGate {
  private pending = new Set<Promise<void>>()

  /** Keeps the gate shut until `durable` settles. */
  lockUntil(durable: Promise<void>): void {
    if (this.pending.has(durable)) return
    this.pending.add(durable)
    durable.then(
      () => this.pending.delete(durable),
      () => this.pending.delete(durable),
    )
  }

  /** Resolves when every write locked so far is durable; rejects with the first failure. */
  async wait(): Promise<void> {
    if (this.pending.size === 0) return
    await Promise.all([...this.pending])
  }
}
