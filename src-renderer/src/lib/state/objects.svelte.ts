// The Objects screen's state: the objects, the selected one's tables, keys and alarm, and the
// result of the last read-only query.

import type { ApiMessage } from '@shared/api/envelope'
import type {
  ObjectDetails,
  ObjectKeyEntry,
  ObjectQueryResult,
  ObjectSummary,
} from '@shared/bridge'
import { errorMessages } from '../api-error'
import { bridge } from '../bridge'

export class ObjectsState {
  objects = $state.raw<ObjectSummary[]>([])
  selected = $state<ObjectSummary | null>(null)
  details = $state.raw<ObjectDetails | null>(null)
  keys = $state.raw<ObjectKeyEntry[]>([])
  prefix = $state('')
  query = $state('SELECT * FROM sqlite_master')
  result = $state.raw<ObjectQueryResult | null>(null)
  errors = $state.raw<ApiMessage[]>([])

  private ref() {
    const selected = this.selected
    if (selected === null) throw new Error('No object is selected')
    return { namespace: selected.namespace, objectId: selected.objectId }
  }

  private async attempt(work: () => Promise<void>): Promise<void> {
    try {
      await work()
      this.errors = []
    } catch (error) {
      this.errors = errorMessages(error)
    }
  }

  load(): Promise<void> {
    return this.attempt(async () => {
      this.objects = await bridge.listObjects({})
      const first = this.objects[0]
      if (this.selected === null && first) await this.select(first)
    })
  }

  select(object: ObjectSummary): Promise<void> {
    this.selected = object
    this.result = null
    return this.attempt(async () => {
      this.details = await bridge.objectDetails(this.ref())
      await this.loadKeys()
    })
  }

  loadKeys(): Promise<void> {
    return this.attempt(async () => {
      this.keys = await bridge.objectKeys({
        ...this.ref(),
        prefix: this.prefix || undefined,
        limit: 200,
      })
    })
  }

  run(): Promise<void> {
    return this.attempt(async () => {
      this.result = null
      this.result = await bridge.queryObject({ ...this.ref(), query: this.query })
    })
  }
}
