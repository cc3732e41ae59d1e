// The bounds on request input as functions: the nesting scan that runs before JSON.parse agrees
// with the nesting of the parsed value, whatever its strings hold, and so does the walk that
// measures a value before JSON.stringify; storage failures a request's content can cause map to
// 4xx, while the rest stay ours (500).

import Database from 'better-sqlite3'
import fc from 'fast-check'
import type { FastifyError } from 'fastify'
import { describe, expect, it } from 'vitest'
import { jsonTextNestsDeeperThan, valueNestsDeeperThan } from '@shared/api/limits'
import { toApiError } from '../../../src-main/api/error-replies'
import { checkScriptLength } from '../../../src-main/storage/sql/limits'

const depth = (value: unknown): number =>
  typeof value === 'object' && value !== null
    ? 1 + Math.max(0, ...Object.values(value).map(depth))
    : 0

/** Text made of what the scan must not take for structure when it is inside a string. */
const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', ':', ',', 'a') })
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 3 }),
  ),
}))

describe('nesting limits', () => {
  it('the text scan and the value walk agree with the parsed nesting, at every limit', () => {
    fc.assert(
      fc.property(
        value,
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom(0, 2),
        (v, limit, indent) => {
          const deeper = depth(v) > limit
          expect(jsonTextNestsDeeperThan(JSON.stringify(v, null, indent), limit)).toBe(deeper)
          expect(valueNestsDeeperThan(v, limit)).toBe(deeper)
        },
      ),
      { seed: 15_007, numRuns: 500 },
    )
  })
})

/** What `work` throws. */
function thrown(work: () => unknown): FastifyError {
  try {
    work()
  } catch (error) {
    return error as FastifyError
  }
  throw new Error('nothing was thrown')
}

describe('storage failures', () => {
  const db = new Database(':memory:')
  db.exec('CREATE TABLE named (name TEXT PRIMARY KEY)')
  db.prepare('INSERT INTO named VALUES (?)').run('taken')

  it.each([
    ['a constraint', () => db.prepare('INSERT INTO named VALUES (?)').run('taken'), 400],
    ['a number SQLite cannot take', () => db.prepare('SELECT 1 LIMIT ?').get(1e300), 400],
    ['a statement over the length limit', () => checkScriptLength('x'.repeat(100_001)), 413],
    ['a fault of ours (SQL that does not parse)', () => db.exec('SELEC 1'), 500],
  ])('maps %s to %i', (_what, work, status) => {
    expect(toApiError(thrown(work), 1024).status).toBe(status)
  })
})
