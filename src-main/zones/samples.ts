// A zone's saved sample requests, in the zone's object: each write is a configuration change with
// its own point in the zone's history, and the bundle carries them (src-shared/api/samples.ts).

import { couldNotRoute } from '@shared/api/errors'
import type { Sample, SampleBody } from '@shared/api/samples'
import type { ObjectContext } from '../objects'

export const SAMPLES_SCHEMA: readonly string[] = [
  `CREATE TABLE samples (
     id TEXT PRIMARY KEY, name TEXT NOT NULL, expected TEXT NOT NULL, request TEXT NOT NULL,
     created_on TEXT NOT NULL, modified_on TEXT NOT NULL, seq INTEGER NOT NULL)`,
]

export interface SampleContext {
  /** the zone's path in the API, for the 7003 wording */
  basePath: string
  /** The time stamped on what is written, in the vendor's format (the service's clock). */
  timestamp: () => string
  newId: () => string
  describe: (note: string) => void
}

export class SampleStore {
  constructor(private readonly ctx: ObjectContext) {}

  private get sql() {
    return this.ctx.storage.sql
  }

  /** In creation order. */
  list(): Sample[] {
    return this.sql
      .exec('SELECT * FROM samples ORDER BY seq')
      .toArray()
      .map((row) => ({
        id: String(row.id),
        name: String(row.name),
        expected: row.expected as Sample['expected'],
        request: JSON.parse(String(row.request)) as Sample['request'],
        created_on: String(row.created_on),
        modified_on: String(row.modified_on),
      }))
  }

  get(id: string, basePath: string): Sample {
    const sample = this.list().find((s) => s.id === id)
    if (sample === undefined) throw couldNotRoute(`${basePath}/samples/${id}`)
    return sample
  }

  create(body: SampleBody, context: SampleContext): Sample {
    const at = context.timestamp()
    const sample: Sample = { id: context.newId(), ...body, created_on: at, modified_on: at }
    context.describe(`Sample request ${sample.name} saved (expected ${sample.expected})`)
    this.write(sample)
    return sample
  }

  replace(id: string, body: SampleBody, context: SampleContext): Sample {
    const current = this.get(id, context.basePath)
    const sample: Sample = { ...current, ...body, modified_on: context.timestamp() }
    context.describe(`Sample request ${sample.name} changed (expected ${sample.expected})`)
    this.write(sample)
    return sample
  }

  delete(id: string, context: SampleContext): { id: string } {
    const sample = this.get(id, context.basePath)
    context.describe(`Sample request ${sample.name} deleted`)
    this.remove(id)
    return { id }
  }

  /** Stores `sample` as it is, its id and times kept (a bundle's import). */
  write(sample: Sample): void {
    const seq =
      this.sql.exec('SELECT seq FROM samples WHERE id = ?', sample.id).toArray()[0]?.seq ??
      Number(this.sql.exec('SELECT coalesce(max(seq), 0) + 1 AS n FROM samples').one().n)
    this.sql.exec(
      `INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, expected = excluded.expected,
         request = excluded.request, modified_on = excluded.modified_on`,
      sample.id,
      sample.name,
      sample.expected,
      JSON.stringify(sample.request),
      sample.created_on,
      sample.modified_on,
      seq,
    )
  }

  /** Removes a sample; the caller describes the change (a bundle's import, once for all). */
  remove(id: string): void {
    this.sql.exec('DELETE FROM samples WHERE id = ?', id)
  }
}
