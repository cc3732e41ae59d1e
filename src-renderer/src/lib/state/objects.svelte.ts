// The Objects screen's state: the objects, the selected one's tables, keys and alarm, the page of
// the table being browsed, and the result of the last read-only query. Browsing a table is a
// read-only query too (the inspector runs every query in its child process), a page at a time.

import type { ApiMessage } from '@shared/api/envelope'
import type {
  ObjectDetails,
  ObjectKeyEntry,
  ObjectQueryResult,
  ObjectSummary,
} from '@shared/bridge'
import { errorMessages } from '../api-error'
import { bridge } from '../bridge'

/** Rows of a table shown at a time. */
export const BROWSE_PAGE_ROWS = 50

/** A table's name as an SQL identifier: quoted, its quotes doubled (https://sqlite.org/lang_keywords.html). */
const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`

/** The page of a table being browsed, as the table was when the page was read. */
export interface TablePage {
  table: string
  /** rows before the page */
  offset: number
  result: ObjectQueryResult
  /** whether rows follow the page */
  more: boolean
  /** the rows the table holds */
  total: number
}

export class ObjectsState {
  objects = $state.raw<ObjectSummary[]>([])
  selected = $state<ObjectSummary | null>(null)
  details = $state.raw<ObjectDetails | null>(null)
  keys = $state.raw<ObjectKeyEntry[]>([])
  prefix = $state('')
  query = $state('SELECT * FROM sqlite_master')
  result = $state.raw<ObjectQueryResult | null>(null)
  browsing = $state.raw<TablePage | null>(null)
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
    this.browsing = null
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

  /**
   * The table's rows from `offset`, a page of them, in the table's own order (its rowid), with
   * one row more to tell whether any follow, and the table's count read with them: the service
   * may have added or deleted rows since the object's tables were listed.
   */
  browse(table: string, offset = 0): Promise<void> {
    return this.attempt(async () => {
      const from = identifier(table)
      const [page, count] = await Promise.all([
        bridge.queryObject({
          ...this.ref(),
          query: `SELECT * FROM ${from} LIMIT ${BROWSE_PAGE_ROWS + 1} OFFSET ${offset}`,
        }),
        bridge.queryObject({ ...this.ref(), query: `SELECT count(*) FROM ${from}` }),
      ])
      this.browsing = {
        table,
        offset,
        result: { ...page, rows: page.rows.slice(0, BROWSE_PAGE_ROWS) },
        more: page.rows.length > BROWSE_PAGE_ROWS || page.truncated,
        total: Number(count.rows[0]?.[0] ?? 0),
      }
    })
  }
}
