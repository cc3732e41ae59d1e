// The vendor's runtime (workerd, through Miniflare) as an oracle: one instance per test file, one
// Durable Object per sequence, one RPC call per sequence.
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Miniflare } from 'miniflare'

export type Operation = Record<string, unknown> & { kind: string }
export type OperationResult = { ok: unknown } | { error: { name: string; message: string } }

/** One `_cf_KV` row as hex, to compare files byte for byte. */
export interface RawRow {
  key: string
  value: string
}

const WORKER = `import { DurableObject } from 'cloudflare:workers'
import { runOperations } from './interpreter.mjs'
export class Probe extends DurableObject {
  run(operations) { return runOperations(this.ctx.storage, operations) }
  alarm() {}
}
export default { fetch() { return new Response('') } }`

interface ProbeStub {
  run(operations: Operation[]): Promise<OperationResult[]>
}

// Miniflare's own namespace type is the Workers one, which does not line up with Node's types.
interface ProbeNamespace {
  idFromName(name: string): { toString(): string }
  get(id: { toString(): string }): ProbeStub
}

export class MiniflareOracle {
  private readonly persist: string | null
  private readonly miniflare: Miniflare

  /** `ephemeral`: the in-memory backend, the only one that enforces the key-value limits. */
  constructor(mode: 'persisted' | 'ephemeral') {
    this.persist = mode === 'persisted' ? mkdtempSync(join(tmpdir(), 'miniflare-oracle-')) : null
    const modulesRoot = import.meta.dirname
    this.miniflare = new Miniflare({
      modules: [
        { type: 'ESModule', path: join(modulesRoot, 'worker.mjs'), contents: WORKER },
        { type: 'ESModule', path: join(modulesRoot, 'interpreter.mjs') },
      ],
      modulesRoot,
      // Before 2026-02-24, when deleteAll() began to delete the alarm; the workbench keeps it
      // (src-main/storage/DEVIATIONS.md).
      compatibilityDate: '2026-02-01',
      durableObjects: { PROBE: { className: 'Probe', useSQLite: this.persist !== null } },
      ...(this.persist === null
        ? { unsafeEphemeralDurableObjects: true }
        : { durableObjectsPersist: this.persist }),
    })
  }

  /** Runs a sequence in the object named `name`; returns the results and the object's file id. */
  async run(
    name: string,
    operations: Operation[],
  ): Promise<{ results: OperationResult[]; id: string }> {
    const namespace = (await this.miniflare.getDurableObjectNamespace(
      'PROBE',
    )) as unknown as ProbeNamespace
    const id = namespace.idFromName(name)
    const stub = namespace.get(id)
    return { results: await stub.run(operations), id: id.toString() }
  }

  /** The raw `_cf_KV` rows of a persisted object. */
  rawRows(id: string): RawRow[] {
    if (this.persist === null) throw new Error('An ephemeral oracle keeps no file.')
    const db = new Database(join(this.persist, '-Probe', `${id}.sqlite`), { readonly: true })
    try {
      return rawKvRows(db)
    } finally {
      db.close()
    }
  }

  async dispose(): Promise<void> {
    await this.miniflare.dispose()
    if (this.persist !== null) rmSync(this.persist, { recursive: true, force: true })
  }
}

export function rawKvRows(db: Database.Database): RawRow[] {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE name = '_cf_KV'").get()
  if (exists === undefined) return []
  return db
    .prepare<[], RawRow>('SELECT hex(key) AS key, hex(value) AS value FROM _cf_KV ORDER BY key')
    .all()
}
