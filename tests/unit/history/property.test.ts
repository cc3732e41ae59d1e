import fc from 'fast-check'
import { expect, it } from 'vitest'
import { propertyRuns } from '../../property-runs'
import { TestClock, dump, openSession, tempDatabase, type Session } from './session'

type Step =
  | { kind: 'put'; key: number; size: number }
  | { kind: 'delete'; key: number }
  | { kind: 'bulk'; rows: number }
  | { kind: 'schema'; change: 'create' | 'alter' | 'drop' | 'index' }
  | { kind: 'checkpoint' }
  | { kind: 'restart' }
  | { kind: 'mark' }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      key: fc.nat(30),
      size: fc.nat(3000),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.nat(30) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bulk' as const),
      rows: fc.integer({ min: 1, max: 40 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('schema' as const),
      change: fc.constantFrom(
        'create' as const,
        'alter' as const,
        'drop' as const,
        'index' as const,
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'checkpoint' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'mark' as const }) },
)

const SETUP = `CREATE TABLE _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
  CREATE TABLE _cf_METADATA (key INTEGER PRIMARY KEY, value BLOB);
  CREATE TABLE bulk (id INTEGER PRIMARY KEY, data BLOB)`

function apply(s: Session, next: Step, stepIndex: number, extraTables: number): number {
  switch (next.kind) {
    case 'put':
      s.write(`INSERT INTO _cf_KV VALUES ('k${next.key}', randomblob(${next.size}))
               ON CONFLICT DO UPDATE SET value = excluded.value;
               INSERT INTO _cf_METADATA VALUES (2, ${next.key}) ON CONFLICT DO UPDATE SET value = excluded.value`)
      return extraTables
    case 'delete':
      s.write(`DELETE FROM _cf_KV WHERE key = 'k${next.key}'`)
      return extraTables
    case 'bulk':
      s.write(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${next.rows})
               INSERT INTO bulk (data) SELECT randomblob(20000) FROM n;
               DELETE FROM bulk WHERE id % 3 = 0`)
      return extraTables
    case 'schema':
      if (next.change === 'create' || extraTables === 0) {
        s.write(
          `CREATE TABLE extra${extraTables + 1} (a TEXT); INSERT INTO extra${extraTables + 1} VALUES ('x')`,
        )
        return extraTables + 1
      }
      if (next.change === 'alter')
        s.write(`ALTER TABLE extra${extraTables} ADD COLUMN c${stepIndex} INTEGER DEFAULT 7`)
      else if (next.change === 'index')
        s.write(`CREATE INDEX IF NOT EXISTS extra${extraTables}_a ON extra${extraTables}(a)`)
      else {
        s.write(`DROP TABLE extra${extraTables}`)
        return extraTables - 1
      }
      return extraTables
    default:
      return extraTables
  }
}

it('restoring to any bookmark reproduces the dump taken at that bookmark', () => {
  fc.assert(
    fc.property(
      fc.array(step, { minLength: 1, maxLength: 30 }),
      fc.nat(),
      fc.nat(),
      (steps, pick, clockStep) => {
        const { file, cleanup } = tempDatabase()
        const clock = new TestClock()
        let s = openSession(file, { now: clock.now })
        try {
          s.write(SETUP)
          const marks = [{ bookmark: s.history.currentBookmark(), state: dump(s.db) }]
          let extraTables = 0
          for (const [stepIndex, next] of steps.entries()) {
            clock.advance(clockStep % 5000)
            if (next.kind === 'checkpoint') s.history.checkpoint()
            else if (next.kind === 'restart') {
              s.close()
              s = openSession(file, { now: clock.now })
            } else if (next.kind === 'mark')
              marks.push({ bookmark: s.history.currentBookmark(), state: dump(s.db) })
            else extraTables = apply(s, next, stepIndex, extraTables)
          }
          const target = marks[pick % marks.length]
          if (target === undefined) throw new Error('no mark')
          const finalState = dump(s.db)
          const undo = s.history.scheduleRestore(target.bookmark)
          s.close()
          s = openSession(file, { now: clock.now })
          expect(dump(s.db)).toEqual(target.state)
          s.history.scheduleRestore(undo)
          s.close()
          s = openSession(file, { now: clock.now })
          expect(dump(s.db)).toEqual(finalState)
        } finally {
          s.close()
          cleanup()
        }
      },
    ),
    { numRuns: propertyRuns(40) },
  )
})
