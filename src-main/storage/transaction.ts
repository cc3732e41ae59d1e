// The `txn` handed to a transaction() closure. On the SQL backend it is an alias of the storage
// it came from (everything the closure does is in the transaction); it refuses use after
// rollback() or after the closure finished, with the runtime's messages.
import type { GetOptions, PutOptions } from './storage'
import type { ListOptions } from './list-options'
import { DELETE_ALL_IN_TRANSACTION } from './messages'

/** The storage methods a transaction forwards to. */
export interface TransactionScope {
  get(keyOrKeys: string | string[], options?: GetOptions): Promise<unknown>
  put(...args: unknown[]): Promise<void>
  delete(keyOrKeys: string | string[], options?: PutOptions): Promise<boolean | number>
  list(options?: ListOptions): Promise<Map<string, unknown>>
  getAlarm(options?: GetOptions): Promise<number | null>
  setAlarm(scheduledTime: Date | number, options?: PutOptions): Promise<void>
  deleteAlarm(options?: PutOptions): Promise<void>
}

type TransactionState = 'open' | 'rolled back' | 'finished'

export class StorageTransaction {
  private state: TransactionState = 'open'

  /** @internal created by Storage.transaction() */
  constructor(
    private readonly scope: TransactionScope,
    /** Nesting depth: 0 for the outermost transaction. */
    readonly depth: number,
    private readonly rollbackSavepoint: () => void,
  ) {}

  get(key: string, options?: GetOptions): Promise<unknown>
  get(keys: string[], options?: GetOptions): Promise<Map<string, unknown>>
  async get(keyOrKeys: string | string[], options?: GetOptions): Promise<unknown> {
    this.check('get()')
    return this.scope.get(keyOrKeys, options)
  }

  put(key: string, value: unknown, options?: PutOptions): Promise<void>
  put(entries: Record<string, unknown>, options?: PutOptions): Promise<void>
  async put(...args: unknown[]): Promise<void> {
    this.check('put()')
    return this.scope.put(...args)
  }

  delete(key: string, options?: PutOptions): Promise<boolean>
  delete(keys: string[], options?: PutOptions): Promise<number>
  async delete(keyOrKeys: string | string[], options?: PutOptions): Promise<boolean | number> {
    this.check('delete()')
    return this.scope.delete(keyOrKeys, options)
  }

  async list(options?: ListOptions): Promise<Map<string, unknown>> {
    this.check('list()')
    return this.scope.list(options)
  }

  async deleteAll(): Promise<never> {
    throw new Error(DELETE_ALL_IN_TRANSACTION)
  }

  async getAlarm(options?: GetOptions): Promise<number | null> {
    this.check('getAlarm()')
    return this.scope.getAlarm(options)
  }

  async setAlarm(scheduledTime: Date | number, options?: PutOptions): Promise<void> {
    this.check('setAlarm()')
    return this.scope.setAlarm(scheduledTime, options)
  }

  async deleteAlarm(options?: PutOptions): Promise<void> {
    this.check('deleteAlarm()')
    return this.scope.deleteAlarm(options)
  }

  /** Undoes everything the transaction did; later use of `txn` throws. Idempotent. */
  rollback(): void {
    if (this.state === 'finished') this.check('rollback()')
    if (this.state === 'rolled back') return
    this.rollbackSavepoint()
    this.state = 'rolled back'
  }

  /** @internal the closure has finished */
  finish(): void {
    this.state = 'finished'
  }

  private check(operation: string): void {
    if (this.state === 'rolled back')
      throw new Error(`Cannot ${operation} on rolled back transaction`)
    if (this.state === 'finished') {
      throw new Error(
        `Cannot call ${operation} on transaction that has already committed: did you move \`txn\` outside of the closure?`,
      )
    }
  }
}
