// Order keys: any number of keys fits between any two, in byte order (SQLite's BINARY collation),
// and keys made by appending, prepending or filling one gap stay short.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { keyBetween, keysBetween } from '../../../src-main/zones/rulesets/order-keys'

/** Byte order, as SQLite compares TEXT keys. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

function expectStrictlyBetween(keys: string[], low: string | null, high: string | null): void {
  const bounded = [...(low === null ? [] : [low]), ...keys, ...(high === null ? [] : [high])]
  for (let i = 1; i < bounded.length; i++) {
    expect(byBytes(bounded[i - 1]!, bounded[i]!), `${bounded[i - 1]} < ${bounded[i]}`).toBe(-1)
  }
}

describe('order keys', () => {
  it('keeps the keys of 10,000 appends, or prepends, at most four characters long', () => {
    let last: string | null = null
    let first: string | null = null
    for (let i = 0; i < 10_000; i++) {
      const appended = keyBetween(last, null)
      const prepended = keyBetween(null, first)
      if (last !== null) expect(byBytes(last, appended)).toBe(-1)
      if (first !== null) expect(byBytes(prepended, first)).toBe(-1)
      last = appended
      first = prepended
    }
    expect(last!.length).toBeLessThanOrEqual(4)
    expect(first!.length).toBeLessThanOrEqual(4)
  })

  it('makes many keys for one gap in log(count) characters', () => {
    const keys = keysBetween('a1', 'a2', 10_000)
    expectStrictlyBetween(keys, 'a1', 'a2')
    expect(Math.max(...keys.map((k) => k.length))).toBeLessThanOrEqual(2 + 4)
    expect(keysBetween(null, null, 3)).toEqual(['a0', 'a1', 'a2'])
    expect(keysBetween('a0', 'a1', 0)).toEqual([])
  })

  it('fits keys between any two keys, in any sequence of insertions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 5 })), { maxLength: 200 }),
        (insertions) => {
          const keys: string[] = []
          for (const [at, count] of insertions) {
            const index = at % (keys.length + 1)
            const low = keys[index - 1] ?? null
            const high = keys[index] ?? null
            const made = keysBetween(low, high, count)
            expectStrictlyBetween(made, low, high)
            keys.splice(index, 0, ...made)
          }
          expectStrictlyBetween(keys, null, null)
        },
      ),
    )
  })

  it('refuses bounds out of order', () => {
    expect(() => keyBetween('a1', 'a0')).toThrow('is not below')
    expect(() => keyBetween('a1', 'a1')).toThrow('is not below')
  })
})
