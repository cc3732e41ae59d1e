// The object's one alarm as storage keeps it (docs/vendor-behaviour.md#stateful-object-storage):
// the time stored in `_cf_METADATA` with the open transaction's change, the time last committed
// (the one the object runtime's scheduler runs), and the alarm whose handler is running, which
// getAlarm() reads as null meanwhile, as the runtime does.
import type { KvTable } from './kv-table'

export class AlarmState {
  /** As stored, including uncommitted changes; undefined until first read and after a rollback. */
  private stored: number | null | undefined = undefined
  private committed: number | null
  /** Scheduled time of the alarm whose handler is running. */
  private running: number | null = null
  private refusal: string | null = null

  constructor(private readonly table: KvTable) {
    this.committed = table.readAlarm()
  }

  /** The alarm as stored, with the open transaction's change. */
  current(): number | null {
    this.stored ??= this.table.readAlarm()
    return this.stored
  }

  /** What getAlarm() answers: null while the handler of the stored alarm runs. */
  visible(): number | null {
    const alarm = this.current()
    return alarm !== null && alarm === this.running ? null : alarm
  }

  /** The committed alarm, as the scheduler must see it. */
  scheduled(): number | null {
    return this.committed
  }

  /** Writes `time` (null: none) into the open transaction. */
  store(time: number | null): void {
    this.table.writeAlarm(time)
    this.stored = time
  }

  /** setAlarm(), or a transaction's alarm change: the running handler's end no longer clears it. */
  set(time: number | null): void {
    this.running = null
    this.store(time)
  }

  /** A rollback may have undone the stored change: read it again when next asked. */
  forget(): void {
    this.stored = undefined
  }

  /** After a commit: the committed alarm when the commit changed it, else undefined. */
  committedChange(): number | null | undefined {
    const alarm = this.current()
    if (alarm === this.committed) return undefined
    this.committed = alarm
    return alarm
  }

  /** Makes setAlarm() fail with `message` (the object's class has no alarm() handler). */
  refuse(message: string): void {
    this.refusal = message
  }

  /** Checks a time as setAlarm() does; answers it in whole milliseconds, not before `now`. */
  checkedTime(scheduledTime: unknown, now: number): number {
    if (typeof scheduledTime !== 'number' && !(scheduledTime instanceof Date)) {
      throw new TypeError(
        "Failed to execute 'setAlarm' on 'DurableObjectStorage': parameter 1 is not of type 'date'.",
      )
    }
    const time = Math.trunc(Number(scheduledTime))
    if (Number.isNaN(time))
      throw new TypeError('The value cannot be converted because it is not a valid Date.')
    if (time <= 0) throw new TypeError('setAlarm() cannot be called with an alarm time <= 0')
    if (this.refusal !== null) throw new TypeError(this.refusal)
    return Math.max(time, now)
  }

  handlerStarted(scheduledTime: number): void {
    this.running = scheduledTime
  }

  /**
   * The handler finished: answers whether the alarm must now be deleted (it succeeded and did not
   * set another).
   */
  handlerFinished(succeeded: boolean): boolean {
    const ran = this.running
    this.running = null
    return succeeded && ran !== null && this.current() === ran
  }
}
