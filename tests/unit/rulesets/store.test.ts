// The ruleset store on a real object's SQLite storage: any sequence of edits (adds anywhere,
// edits, moves, deletions, description changes, deleted versions) reads back, version by version,
// exactly as it was saved; a version stores what changed, not the rules it kept; and a database
// written in the old layout (every version a whole snapshot) reads back the same after migrating.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { Rule, Ruleset } from '@shared/api/rulesets'
import { ObjectNamespace, type ObjectContext } from '../../../src-main/objects'
import {
  RULESET_SCHEMA,
  RULESET_SCHEMA_V2,
  RulesetStore,
  summaryOf,
} from '../../../src-main/zones/rulesets/store'
import { migrateSchema } from '../../../src-main/zones/configured-object'

const root = mkdtempSync(join(tmpdir(), 'ruleset-store-test-'))
const namespaces: Array<ObjectNamespace<unknown, unknown>> = []
afterEach(async () => {
  for (const ns of namespaces.splice(0)) await ns.close()
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** An object holding rulesets as the zone and account objects do. */
class RulesetHolder {
  readonly store: RulesetStore
  constructor(readonly ctx: ObjectContext) {
    migrateSchema(ctx, [...RULESET_SCHEMA, ...RULESET_SCHEMA_V2])
    this.store = new RulesetStore(ctx)
  }

  /** Rows of rules stored, in every version. */
  ruleRows(): number {
    const sql = this.ctx.storage.sql
    const count = (table: string) => Number(sql.exec(`SELECT count(*) AS n FROM ${table}`).one().n)
    return count('ruleset_rules') + count('ruleset_rules_past')
  }
}

/** An object written by the store before versions were stored as changes (its SQL, verbatim). */
class OldLayoutHolder {
  constructor(readonly ctx: ObjectContext) {
    migrateSchema(ctx, RULESET_SCHEMA)
  }

  save(ruleset: Ruleset): void {
    const version = Number(ruleset.version)
    const sql = this.ctx.storage.sql
    sql.exec(
      'INSERT INTO ruleset_versions VALUES (?, ?, ?)',
      ruleset.id,
      version,
      JSON.stringify(ruleset),
    )
    sql.exec(
      `INSERT INTO rulesets VALUES (?, ?, ?, ?, (SELECT coalesce(max(created), 0) + 1 FROM rulesets))
         ON CONFLICT (id) DO UPDATE SET latest = excluded.latest`,
      ruleset.id,
      ruleset.kind,
      ruleset.phase,
      version,
    )
  }

  deleteVersion(id: string, version: number): void {
    this.ctx.storage.sql.exec(
      'DELETE FROM ruleset_versions WHERE ruleset_id = ? AND version = ?',
      id,
      version,
    )
  }
}

let folders = 0
function namespace<Instance>(
  objectClass: new (ctx: ObjectContext, env: unknown) => Instance,
  directory = join(root, `ns-${++folders}`),
) {
  const ns = new ObjectNamespace({ directory, objectClass, env: {} })
  namespaces.push(ns as ObjectNamespace<unknown, unknown>)
  return ns
}

/** Saved rulesets, version by version: what the store must answer for each. */
class Model {
  readonly versions = new Map<string, Map<number, Ruleset>>()
  private ids = 0
  private clock = 0

  newId(): string {
    return (++this.ids).toString(16).padStart(32, '0')
  }

  now(): string {
    return new Date(Date.UTC(2026, 0, 1) + ++this.clock * 1000).toISOString()
  }

  rule(description: string): Rule {
    const id = this.newId()
    return {
      id,
      version: '1',
      action: 'block',
      expression: `ip.src eq 192.0.2.${this.ids % 256}`,
      description,
      last_updated: this.now(),
      ref: id,
      enabled: true,
    }
  }

  latest(id: string): Ruleset | undefined {
    const versions = this.versions.get(id)
    return versions === undefined ? undefined : [...versions.values()].at(-1)
  }

  /** The next version of ruleset `id` (a new ruleset if it has none) with `rules`. */
  next(id: string, rules: Rule[], description?: string): Ruleset {
    const current = this.latest(id)
    const version = Math.max(0, ...(this.versions.get(id)?.keys() ?? [])) + 1
    const ruleset: Ruleset = {
      id,
      name: `ruleset ${id.slice(-2)}`,
      description: description ?? current?.description ?? '',
      source: 'firewall_custom',
      kind: 'custom',
      version: String(version),
      rules,
      last_updated: this.now(),
      phase: 'http_request_firewall_custom',
    }
    const versions = this.versions.get(id) ?? new Map<number, Ruleset>()
    versions.set(version, structuredClone(ruleset))
    this.versions.set(id, versions)
    return ruleset
  }
}

type Edit =
  | { kind: 'add'; at: number }
  | { kind: 'edit'; which: number }
  | { kind: 'move'; which: number; to: number }
  | { kind: 'remove'; which: number }
  | { kind: 'describe' }
  | { kind: 'replace'; order: number[] }
  | { kind: 'deleteVersion'; which: number }

const editArbitrary: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), at: fc.constant(Number.MAX_SAFE_INTEGER) }),
  fc.record({ kind: fc.constant('edit' as const), which: fc.nat() }),
  fc.record({ kind: fc.constant('move' as const), which: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('remove' as const), which: fc.nat() }),
  fc.record({ kind: fc.constant('describe' as const) }),
  fc.record({ kind: fc.constant('replace' as const), order: fc.array(fc.nat(), { maxLength: 8 }) }),
  fc.record({ kind: fc.constant('deleteVersion' as const), which: fc.nat() }),
)

/** Where edits are saved: the store, or an object in the old layout. */
type Target = Pick<RulesetStore, 'save' | 'deleteVersion'>

/** Applies `edit` to the latest version of ruleset `id` in `model`, and to `target`. */
function apply(model: Model, id: string, edit: Edit, target: Target): void {
  const save = (ruleset: Ruleset) => target.save(ruleset)
  const current = model.latest(id)!
  const rules = [...current.rules]
  const pick = (n: number) => n % rules.length
  switch (edit.kind) {
    case 'add':
      rules.splice(Math.min(edit.at, rules.length), 0, model.rule(`added ${rules.length}`))
      break
    case 'edit': {
      if (rules.length === 0) return
      const at = pick(edit.which)
      const rule = rules[at]!
      rules[at] = {
        ...rule,
        version: String(Number(rule.version) + 1),
        expression: `${rule.expression} or ip.src eq 198.51.100.${edit.which % 256}`,
        last_updated: model.now(),
      }
      break
    }
    case 'move': {
      if (rules.length === 0) return
      const [rule] = rules.splice(pick(edit.which), 1)
      rules.splice(edit.to % (rules.length + 1), 0, rule!)
      break
    }
    case 'remove':
      if (rules.length === 0) return
      rules.splice(pick(edit.which), 1)
      break
    case 'describe':
      save(model.next(id, rules, `described at ${model.now()}`))
      return
    case 'replace': {
      // A PUT of the whole list: some rules again in another order, the rest dropped, one new.
      const chosen = [...new Set(edit.order.filter(() => rules.length > 0).map(pick))]
      save(model.next(id, [...chosen.map((at) => rules[at]!), model.rule('put')]))
      return
    }
    case 'deleteVersion': {
      const versions = model.versions.get(id)!
      const old = [...versions.keys()].slice(0, -1)
      if (old.length === 0) return
      const version = old[edit.which % old.length]!
      versions.delete(version)
      target.deleteVersion(id, version)
      return
    }
  }
  save(model.next(id, rules))
}

/** Every version of every ruleset in `model` reads back as it was saved, fields in order. */
function expectAsSaved(store: RulesetStore, model: Model): void {
  for (const [id, versions] of model.versions) {
    for (const [version, saved] of versions) {
      expect(JSON.stringify(store.version(id, version))).toBe(JSON.stringify(saved))
    }
    const latest = [...versions.values()].at(-1)!
    expect(JSON.stringify(store.get(id))).toBe(JSON.stringify(latest))
    expect(store.versions(id)).toEqual([...versions.values()].map(summaryOf))
    expect(store.latestVersion(id)).toBe(Number(latest.version))
  }
  expect(store.list().map((r) => JSON.stringify(r))).toEqual(
    [...model.versions.keys()].map((id) => JSON.stringify(model.latest(id))),
  )
}

describe('ruleset store', () => {
  it('reads every version back as saved after any sequence of edits to two rulesets', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.boolean(), editArbitrary), { minLength: 1, maxLength: 60 }),
        async (edits) => {
          const directory = join(root, `ns-${++folders}`)
          const ns = namespace(RulesetHolder, directory)
          const model = new Model()
          const ids = [model.newId(), model.newId()]
          await ns.call(ns.idFromName('zone'), ({ store }) => {
            for (const id of ids) store.save(model.next(id, [model.rule('first')]))
            for (const [second, edit] of edits) {
              apply(model, ids[second ? 1 : 0]!, edit, store)
            }
            expectAsSaved(store, model)
          })
          await ns.close()
          // Everything was committed: a new instance on the same file reads the same.
          const reopened = namespace(RulesetHolder, directory)
          await reopened.call(reopened.idFromName('zone'), ({ store }) =>
            expectAsSaved(store, model),
          )
        },
      ),
      { numRuns: 30 },
    )
  })

  it('stores one row per rule added, edited or moved, never the rules a version kept', async () => {
    const ns = namespace(RulesetHolder)
    const model = new Model()
    const id = model.newId()
    const { rows, moves } = await ns.call(ns.idFromName('zone'), (holder) => {
      holder.store.save(model.next(id, []))
      const order = () =>
        model
          .latest(id)!
          .rules.map((rule) => rule.id)
          .join()
      for (let i = 0; i < 300; i++)
        apply(model, id, { kind: 'add', at: i % 3 === 0 ? 0 : i }, holder.store)
      for (let i = 0; i < 100; i++) apply(model, id, { kind: 'edit', which: i * 7 }, holder.store)
      let moves = 0
      for (let i = 0; i < 100; i++) {
        const before = order()
        apply(model, id, { kind: 'move', which: i * 11, to: i * 13 }, holder.store)
        if (order() !== before) moves++
      }
      expectAsSaved(holder.store, model)
      return { rows: holder.ruleRows(), moves }
    })
    // A row per rule added, edited or moved (a whole-list copy per version would be 105,000 rows).
    expect(moves).toBeGreaterThan(90)
    expect(rows).toBe(300 + 100 + moves)
  })

  it('drops the rows only a deleted version held, and keeps reading the others', async () => {
    const ns = namespace(RulesetHolder)
    const model = new Model()
    const id = model.newId()
    await ns.call(ns.idFromName('zone'), (holder) => {
      holder.store.save(model.next(id, [model.rule('a'), model.rule('b')]))
      apply(model, id, { kind: 'edit', which: 0 }, holder.store) // version 2: a edited
      apply(model, id, { kind: 'edit', which: 0 }, holder.store) // version 3: a edited again
      apply(model, id, { kind: 'add', at: 2 }, holder.store) // version 4
      expect(holder.ruleRows()).toBe(5)
      model.versions.get(id)!.delete(2)
      holder.store.deleteVersion(id, 2)
      // a as of version 2 was in no other version; b and the others stay.
      expect(holder.ruleRows()).toBe(4)
      expect(holder.store.version(id, 2)).toBeUndefined()
      expect(() => holder.store.deleteVersion(id, 4)).toThrow('is its latest')
      apply(model, id, { kind: 'remove', which: 1 }, holder.store)
      expect(holder.store.latestVersion(id)).toBe(5)
      expectAsSaved(holder.store, model)
    })
  })

  it('migrates a database of whole-snapshot versions and reads every version back', async () => {
    const directory = join(root, `ns-${++folders}`)
    const old = namespace(OldLayoutHolder, directory)
    const model = new Model()
    const ids = [model.newId(), model.newId(), model.newId()]
    const edits: Edit[] = [
      // Appends, as most rulesets grow, then one rule put first: every later index shifts.
      ...Array.from({ length: 40 }, (): Edit => ({ kind: 'add', at: Number.MAX_SAFE_INTEGER })),
      { kind: 'add', at: 0 },
      { kind: 'edit', which: 3 },
      { kind: 'move', which: 1, to: 30 },
      { kind: 'remove', which: 10 },
      { kind: 'describe' },
      { kind: 'deleteVersion', which: 7 },
      { kind: 'replace', order: [5, 2, 9] },
      { kind: 'add', at: Number.MAX_SAFE_INTEGER },
    ]
    await old.call(old.idFromName('zone'), (holder) => {
      holder.save(model.next(ids[0]!, [model.rule('first')]))
      holder.save(model.next(ids[1]!, []))
      holder.save(model.next(ids[2]!, [model.rule('only')]))
      for (const edit of edits) {
        apply(model, ids[0]!, edit, holder)
      }
      apply(model, ids[1]!, { kind: 'add', at: 0 }, holder)
    })
    await old.close()

    const migrated = namespace(RulesetHolder, directory)
    await migrated.call(migrated.idFromName('zone'), (holder) => {
      expectAsSaved(holder.store, model)
      // Consecutive versions share the rows of the rules they have at the same place.
      const copies = [...model.versions.values()]
        .flatMap((versions) => [...versions.values()])
        .reduce((sum, ruleset) => sum + ruleset.rules.length, 0)
      expect(copies).toBeGreaterThan(1000)
      expect(holder.ruleRows()).toBeLessThan(copies / 5)
      for (const edit of edits.slice(0, 20)) {
        apply(model, ids[0]!, edit, holder.store)
      }
      expectAsSaved(holder.store, model)
    })
  })

  it('migrates any sequence of whole-snapshot versions, then keeps storing changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(editArbitrary, { minLength: 1, maxLength: 40 }),
        fc.array(editArbitrary, { maxLength: 10 }),
        async (before, after) => {
          const directory = join(root, `ns-${++folders}`)
          const old = namespace(OldLayoutHolder, directory)
          const model = new Model()
          const id = model.newId()
          await old.call(old.idFromName('zone'), (holder) => {
            holder.save(model.next(id, [model.rule('first')]))
            for (const edit of before) {
              apply(model, id, edit, holder)
            }
          })
          await old.close()
          const migrated = namespace(RulesetHolder, directory)
          await migrated.call(migrated.idFromName('zone'), ({ store }) => {
            expectAsSaved(store, model)
            for (const edit of after) {
              apply(model, id, edit, store)
            }
            expectAsSaved(store, model)
          })
        },
      ),
      { numRuns: 20 },
    )
  })
})
