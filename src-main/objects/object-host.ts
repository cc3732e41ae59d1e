// One live object: its storage, its instance, its gates and its alarm. Events (calls and alarms)
// enter through the input gate; results leave through the output gate.
import { InputGate, OutputGate, openStorage, type Backend, type Storage } from '../storage'
import { AlarmScheduler, type AlarmInvocationInfo } from './alarm-scheduler'
import type { Clock } from './clock'

export interface ObjectContext {
  /** The object's private storage. */
  readonly storage: Storage
  /** The object's id: 64 hex digits; `name` when it was derived from a name. */
  readonly id: ObjectId
  /** Resets the object: unflushed writes are discarded and the next call gets a new instance. */
  abort(reason?: string): void
  /** Holds back every other event until `callback` settles. */
  blockConcurrencyWhile<T>(callback: () => Promise<T> | T): Promise<T>
}

export interface ObjectId {
  toString(): string
  readonly name?: string
}

/** What a class must look like to be run as an object. */
export type ObjectClass<Env, Instance> = new (ctx: ObjectContext, env: Env) => Instance

interface WithAlarm {
  alarm(info: AlarmInvocationInfo): unknown
}

/** The runtime's marker on errors that reset an object. */
export type ResetError = Error & { durableObjectReset: true }

const DEFAULT_ABORT_REASON = 'Application called abort() to reset Durable Object.'
/** The runtime resets an object whose blockConcurrencyWhile() callback runs longer than this. */
export const BLOCK_CONCURRENCY_TIMEOUT_MS = 30_000
const BLOCK_CONCURRENCY_TIMED_OUT =
  'A call to blockConcurrencyWhile() in a Durable Object waited for too long. The call was canceled and the Durable Object was reset.'
export const MAX_BLOCK_CONCURRENCY_DEPTH = 64
const BLOCK_CONCURRENCY_TOO_DEEP = 'blockConcurrencyWhile() calls are nested too deeply.'
const NO_ALARM_HANDLER =
  'Your Durable Object class must have an alarm() handler in order to call setAlarm()'

export interface HostOptions<Env, Instance> {
  file: string
  id: ObjectId
  backend: Backend
  history: boolean
  objectClass: ObjectClass<Env, Instance>
  env: Env
  clock: Clock
  random: () => number
  /** The object reset itself (abort, failed commit); the namespace forgets this host. */
  onReset: () => void
}

export class ObjectHost<Env, Instance> {
  private readonly inputGate = new InputGate()
  private readonly outputGate = new OutputGate()
  private readonly alarms: AlarmScheduler
  private instance: Instance | null = null
  private storage: Storage | null = null
  private resetError: Error | null = null
  private blockDepth = 0

  constructor(private readonly options: HostOptions<Env, Instance>) {
    this.alarms = new AlarmScheduler(
      options.clock,
      { run: (info) => this.runAlarm(info), giveUp: () => void this.storage?.deleteAlarm() },
      options.random,
    )
  }

  /** Opens storage and constructs the instance; an alarm that fell due meanwhile runs now. */
  async start(): Promise<void> {
    const storage = await openStorage(this.options.file, {
      backend: this.options.backend,
      history: this.options.history,
      now: () => this.options.clock.now(),
      runtime: {
        inputGate: this.inputGate,
        outputGate: this.outputGate,
        onAlarmCommitted: (time) => this.alarms.schedule(time),
        onBroken: (error) => this.reset(error),
      },
    })
    this.storage = storage
    const context: ObjectContext = {
      storage,
      id: this.options.id,
      abort: (reason) => this.abort(reason),
      blockConcurrencyWhile: (callback) => this.blockConcurrencyWhile(callback),
    }
    const instance = await this.blockConcurrencyWhile(
      () => new this.options.objectClass(context, this.options.env),
    )
    this.instance = instance
    if (!hasAlarmHandler(instance)) storage.refuseAlarms(NO_ALARM_HANDLER)
    this.alarms.schedule(storage.scheduledAlarm())
  }

  /** Delivers one call; its result is released once the writes it made are durable. */
  call<Result>(invoke: (instance: Instance) => Result | Promise<Result>): Promise<Awaited<Result>> {
    return this.inputGate.deliver(async () => {
      try {
        return await invoke(this.live())
      } finally {
        await this.outputGate.wait()
      }
    })
  }

  /**
   * Runs `look` against the object's storage, as one event through the input gate: how the
   * workbench's Objects screen reads an object without going around its runtime.
   */
  inspect<Result>(look: (storage: Storage) => Result | Promise<Result>): Promise<Awaited<Result>> {
    return this.inputGate.deliver(async () => {
      this.live()
      const storage = this.storage
      if (storage === null) throw new Error('The object has not finished starting.')
      return await look(storage)
    })
  }

  /** Closes storage (committing what is pending) and stops the alarm. */
  close(): void {
    this.alarms.stop()
    this.storage?.close()
  }

  /**
   * Resets the object for good with `error` (what calls in flight and later fail with):
   * unflushed writes are discarded, the alarm stops and the database file is closed.
   */
  destroy(error: Error): void {
    this.reset(error)
  }

  private runAlarm(info: AlarmInvocationInfo): Promise<void> {
    return this.inputGate.deliver(async () => {
      const instance = this.live()
      const storage = this.storage
      if (!hasAlarmHandler(instance) || storage === null) return
      storage.alarmHandlerStarted(info.scheduledTime)
      let succeeded = false
      try {
        await instance.alarm(info)
        succeeded = true
      } finally {
        if (this.resetError === null) storage.alarmHandlerFinished(succeeded)
        await this.outputGate.wait()
      }
    })
  }

  // Holds back every other event while `callback` runs. As in the runtime, a callback that runs
  // too long resets the object, and so does nesting calls too deeply.
  private async blockConcurrencyWhile<T>(callback: () => Promise<T> | T): Promise<T> {
    if (this.blockDepth >= MAX_BLOCK_CONCURRENCY_DEPTH) {
      const error = resetError(BLOCK_CONCURRENCY_TOO_DEEP)
      this.reset(error)
      throw error
    }
    const release = this.inputGate.hold()
    this.blockDepth++
    let cancelTimer = (): void => undefined
    const timedOut = new Promise<never>((_, reject) => {
      cancelTimer = this.options.clock.setTimer(() => {
        const error = resetError(BLOCK_CONCURRENCY_TIMED_OUT)
        this.reset(error)
        reject(error)
      }, BLOCK_CONCURRENCY_TIMEOUT_MS)
    })
    try {
      return await Promise.race([Promise.resolve().then(callback), timedOut])
    } finally {
      cancelTimer()
      this.blockDepth--
      release()
    }
  }

  private abort(reason?: string): void {
    this.reset(resetError(reason ?? DEFAULT_ABORT_REASON))
  }

  private reset(error: Error): void {
    if (this.resetError !== null) return
    this.resetError = error
    this.alarms.stop()
    this.storage?.abandon(error)
    this.options.onReset()
  }

  private live(): Instance {
    if (this.resetError !== null) throw this.resetError
    if (this.instance === null) throw new Error('The object has not finished starting.')
    return this.instance
  }
}

/** An error that resets the object, marked as the runtime marks it. */
export function resetError(message: string): ResetError {
  const error = new Error(message) as ResetError
  error.durableObjectReset = true
  return error
}

function hasAlarmHandler(instance: unknown): instance is WithAlarm {
  return typeof (instance as Partial<WithAlarm> | null)?.alarm === 'function'
}
