// The cursor sql.exec() returns. Results are read in full when the statement runs: better-sqlite3
// allows no other statement on the connection while an iterator is open, and an object may well
// write between two next() calls. Row counters are modelled (see DEVIATIONS.md).

/** A value as a row carries it: BLOBs come back as ArrayBuffer, like the runtime's. */
export type SqlValue = number | string | ArrayBuffer | null
export type SqlRow = Record<string, SqlValue>

interface CursorLike<T> extends IterableIterator<T> {
  toArray(): T[]
  one(): T
}

/** Iterates over rows as objects; `raw()` gives the same results as arrays, sharing the position. */
export class SqlCursor implements CursorLike<SqlRow> {
  private position = 0

  constructor(
    readonly columnNames: string[],
    private readonly rows: SqlValue[][],
    /** Rows read before any result row was consumed. */
    private readonly readBeforeRows: number,
    readonly rowsWritten: number,
  ) {}

  /** Rows read so far; like the runtime's counter it runs one row ahead of what was consumed. */
  get rowsRead(): number {
    return this.readBeforeRows + Math.min(this.position + 1, this.rows.length)
  }

  next(): IteratorResult<SqlRow> {
    const row = this.nextRaw()
    return row === undefined ? done() : { done: false, value: this.toObject(row) }
  }

  toArray(): SqlRow[] {
    return this.remaining().map((row) => this.toObject(row))
  }

  one(): SqlRow {
    return this.toObject(this.oneRaw())
  }

  raw(): CursorLike<SqlValue[]> & { columnNames: string[] } {
    return {
      columnNames: this.columnNames,
      next: (): IteratorResult<SqlValue[]> => {
        const row = this.nextRaw()
        return row === undefined ? done() : { done: false, value: row }
      },
      toArray: () => this.remaining(),
      one: () => this.oneRaw(),
      [Symbol.iterator]() {
        return this
      },
    }
  }

  [Symbol.iterator](): this {
    return this
  }

  get [Symbol.toStringTag](): string {
    return 'SqlStorageCursor'
  }

  private nextRaw(): SqlValue[] | undefined {
    const row = this.rows[this.position]
    if (row !== undefined) this.position++
    return row
  }

  private remaining(): SqlValue[][] {
    const rows = this.rows.slice(this.position)
    this.position = this.rows.length
    return rows
  }

  private oneRaw(): SqlValue[] {
    const rows = this.remaining()
    const [row] = rows
    if (row === undefined)
      throw new Error('Expected exactly one result from SQL query, but got no results.')
    if (rows.length > 1)
      throw new Error('Expected exactly one result from SQL query, but got multiple results.')
    return row
  }

  // Duplicate column names: the last one wins, as in the runtime.
  private toObject(row: SqlValue[]): SqlRow {
    const object: SqlRow = {}
    this.columnNames.forEach((name, index) => {
      object[name] = row[index] ?? null
    })
    return object
  }
}

// The runtime's final result has no `value` key at all.
const done = <T>(): IteratorResult<T> => ({ done: true }) as unknown as IteratorResult<T>
