// What the zone's object and the account's share: a configuration in SQL tables brought up to
// date by numbered schema steps, changed one atomic transaction at a time (each described for
// the object's history), and a version that says whether it changed since it was last read.

import type { ObjectContext } from '../objects'
import { RefusedAfterWrite } from './problems'

/** Brings an object's SQL schema up to date; the steps run in the object's implicit transaction. */
export function migrateSchema(ctx: ObjectContext, steps: readonly string[]): void {
  const sql = ctx.storage.sql
  sql.exec('CREATE TABLE IF NOT EXISTS _wb_meta (key TEXT PRIMARY KEY, value)')
  const row = sql.exec("SELECT value FROM _wb_meta WHERE key = 'schema_version'").toArray()[0]
  const applied = Number(row?.value ?? 0)
  for (const [index, step] of steps.entries()) if (index >= applied) sql.exec(step)
  if (applied < steps.length) {
    sql.exec(
      "INSERT INTO _wb_meta VALUES ('schema_version', ?) ON CONFLICT DO UPDATE SET value = excluded.value",
      steps.length,
    )
  }
}

const DRY_RUN = Symbol('dry run')

const VERSION_KEY = 'configuration_version'

/**
 * How many changes the object's configuration has had: transact counts each one inside its own
 * transaction, so the count commits and rolls back with the change it counts.
 */
function storedVersion(ctx: ObjectContext): number {
  const row = ctx.storage.sql
    .exec('SELECT value FROM _wb_meta WHERE key = ?', VERSION_KEY)
    .toArray()[0]
  return Number(row?.value ?? 0)
}

/** Rows written through the object's connection since it opened (SQLite's total_changes()). */
function rowsWritten(ctx: ObjectContext): number {
  return Number(ctx.storage.sql.exec('SELECT total_changes() AS n').one().n)
}

function countChange(ctx: ObjectContext): void {
  ctx.storage.sql.exec(
    'INSERT INTO _wb_meta VALUES (?, 1) ON CONFLICT DO UPDATE SET value = value + 1',
    VERSION_KEY,
  )
}

/** Numbers the instances of objects made in this process (see configurationVersion). */
let incarnations = 0

/**
 * The version of an object's configuration: equal for two reads only when no change came
 * between them. A restore brings back the file with the count it had then, and restarts the
 * object, so the count is paired with the instance that reads it.
 */
function configurationVersion(ctx: ObjectContext, incarnation: number): string {
  return `${incarnation}.${storedVersion(ctx)}`
}

/**
 * Runs one change of an object's configuration as a single atomic write: everything `work`
 * writes commits together, or (when it throws) nothing does. With `dryRun`, `work` runs to the
 * end, its answer is kept and its writes are rolled back. A RefusedAfterWrite commits what was
 * written and then refuses. Each change that commits a write moves the configuration's version on.
 */
function transact<R>(ctx: ObjectContext, work: () => R, options: { dryRun?: boolean } = {}): R {
  let answer: { value: R } | undefined
  let refusal: RefusedAfterWrite | undefined
  try {
    ctx.storage.transactionSync(() => {
      const written = rowsWritten(ctx)
      try {
        answer = { value: work() }
      } catch (error) {
        if (!(error instanceof RefusedAfterWrite) || options.dryRun) throw error
        refusal = error
      }
      if (options.dryRun) throw DRY_RUN
      // A read (the routes read through a change too) writes nothing and is no change.
      if (rowsWritten(ctx) !== written) countChange(ctx)
    })
  } catch (error) {
    if (error !== DRY_RUN) throw error
  }
  if (refusal !== undefined) throw refusal.error
  return answer!.value
}

/** An object whose configuration changes through `change`: the zone's and the account's. */
export abstract class ConfiguredObject {
  private readonly incarnation = ++incarnations

  constructor(protected readonly ctx: ObjectContext) {}

  /** Changes only when the object's configuration does (see configurationVersion). */
  configurationVersion(): string {
    return configurationVersion(this.ctx, this.incarnation)
  }

  /** Runs one configuration change atomically (see transact). */
  change<R>(work: () => R, options: { dryRun?: boolean } = {}): R {
    return transact(this.ctx, work, options)
  }

  /** Says what the change being written does, for the object's history. */
  describe(note: string): void {
    this.ctx.storage.describeChange(note)
  }
}
