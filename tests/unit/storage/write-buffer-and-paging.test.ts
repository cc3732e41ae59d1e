// Key-value writes reach SQLite in batches and list() reads it page by page: neither may show.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compareKeys, encodeKey, keyAsStored } from '../../../src-main/storage/encoding'
import { compileListOptions, type ListOptions } from '../../../src-main/storage/list-options'
import { newFile, nextTurn, open } from './temp-storage'

/** The value stored under the key at `index`: some are Maps, which V8 alone reads. */
const valueAt = (index: number): unknown => (index % 7 === 3 ? new Map([[index, 'm']]) : index)

/** What list() must return for `keys` (each stored with valueAt(index)), by a plain model. */
function expectedListing(keys: string[], options: ListOptions): Array<[string, unknown]> {
  const range = compileListOptions(options)
  if (range === null) return []
  const inRange = keys
    .map((key, index) => [key, index] as [string, number])
    .filter(([key]) => {
      const bytes = encodeKey(key)
      return (
        Buffer.compare(bytes, range.start) >= 0 &&
        (range.end === null || Buffer.compare(bytes, range.end) < 0)
      )
    })
    .sort(([a], [b]) => Buffer.compare(encodeKey(a), encodeKey(b)))
  if (range.reverse) inRange.reverse()
  return inRange
    .slice(0, range.limit ?? undefined)
    .map(([key, index]) => [keyAsStored(key), valueAt(index)] as [string, unknown])
}

// Many keys sharing prefixes, some with characters outside the BMP and lone surrogates, so that
// pages (256 rows) end on every kind of key.
const keyArbitrary = fc.oneof(
  fc.string({ maxLength: 3 }).map((s) => `p/${s}`),
  fc.nat({ max: 999 }).map((n) => `n/${String(n).padStart(3, '0')}`),
  fc.constantFrom('😀', '\uFFFD', '\uD800', 'é', '\u0000').map((c) => `u/${c}`),
  fc.string({ maxLength: 4, unit: 'binary' }),
)
const optionsArbitrary: fc.Arbitrary<ListOptions> = fc.record(
  {
    start: fc.constantFrom('', 'n/', 'n/5', 'p/', 'u/'),
    end: fc.constantFrom('n/2', 'n/9', 'p/~', 'v'),
    prefix: fc.constantFrom('n/', 'p/', 'u/', 'n/1'),
    reverse: fc.boolean(),
    limit: fc.oneof(fc.integer({ min: 1, max: 600 }), fc.constantFrom(255, 256, 257, 512)),
  },
  { requiredKeys: [] },
)

describe.each(['sql', 'kv'] as const)('on the %s backend', (backend) => {
  it('list() pages through any number of keys in order, in both directions', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(keyArbitrary, { minLength: 200, maxLength: 900, selector: keyAsStored }),
        fc.array(optionsArbitrary, { minLength: 1, maxLength: 6 }),
        async (keys, listings) => {
          const storage = await open(backend)
          for (let i = 0; i < keys.length; i += 128) {
            const chunk = keys.slice(i, i + 128)
            await storage.put(Object.fromEntries(chunk.map((key, j) => [key, valueAt(i + j)])))
          }
          // Half of the keys are still pending (unflushed) when listed, half committed.
          await storage.sync()
          for (const [index, key] of keys.entries())
            if (index % 2 === 0) void storage.put(key, valueAt(index))
          for (const options of [{}, ...listings]) {
            expect([...(await storage.list(options))]).toEqual(expectedListing(keys, options))
          }
          storage.close()
        },
      ),
      { numRuns: 15 },
    )
  })

  it('list() carries on past a page that ends on a key with a lone surrogate', async () => {
    const storage = await open(backend)
    // Read back, 'b\uD800' is 'b\uFFFD\uFFFD\uFFFD', whose bytes sort after both of its neighbours.
    const odd = ['b\uD800', 'b\uD800a', 'b\uFFFD', 'c']
    const keys = [
      ...Array.from({ length: 255 }, (_, i) => `a${String(i).padStart(3, '0')}`),
      ...odd,
    ]
    for (let i = 0; i < keys.length; i += 128)
      await storage.put(Object.fromEntries(keys.slice(i, i + 128).map((k) => [k, k])))
    const stored = keys.map(keyAsStored)
    expect([...(await storage.list()).keys()]).toEqual(stored)
    const fromEnd = await storage.list({ reverse: true, limit: 4 + 256 })
    expect([...fromEnd.keys()]).toEqual([...stored].reverse())
    const lastPage = await storage.list({ reverse: true, start: 'a003' })
    expect([...lastPage.keys()]).toEqual(stored.slice(3).reverse())
  })

  it('reads its own pending writes and deletes before they reach SQLite', async () => {
    const storage = await open(backend)
    await storage.put({ kept: 1, gone: 2 })
    await storage.sync()
    void storage.put('new', 3)
    expect(await storage.delete('gone')).toBe(true)
    expect(await storage.delete('gone')).toBe(false)
    expect(await storage.delete('never')).toBe(false)
    void storage.put('kept', 4, { noCache: true })
    expect(await storage.get(['kept', 'gone', 'new'])).toEqual(
      new Map([
        ['kept', 4],
        ['new', 3],
      ]),
    )
    expect(await storage.get('gone')).toBeUndefined()
    await nextTurn()
    expect(await storage.get('kept')).toBe(4)
    expect([...(await storage.list())]).toEqual([
      ['kept', 4],
      ['new', 3],
    ])
  })

  it('keeps pending writes across reopening once committed, and drops them on abandon', async () => {
    const file = newFile()
    const first = await open(backend, file)
    await first.put('committed', 1)
    await first.sync()
    void first.put('abandoned', 2)
    first.abandon(new Error('reset'))
    const second = await open(backend, file)
    expect([...(await second.list())]).toEqual([['committed', 1]])
  })

  it('orders a batch of writes to the same key by the last one', async () => {
    const storage = await open(backend)
    for (let i = 0; i < 1000; i++) void storage.put(`k${i % 10}`, i)
    void storage.delete('k3')
    await storage.sync()
    const listing = await storage.list()
    expect(listing.size).toBe(9)
    expect(listing.get('k9')).toBe(999)
    expect(listing.has('k3')).toBe(false)
    expect([...listing.keys()]).toEqual([...listing.keys()].sort(compareKeys))
  })
})

describe('on the sql backend', () => {
  it('keeps the writes of a rolled-back transaction out, pending or not', async () => {
    const storage = await open('sql')
    void storage.put('before', 1)
    await storage.transaction(async (txn) => {
      await txn.put('inside', 2)
      storage.sql.exec('CREATE TABLE t (x)')
      expect(() =>
        storage.transactionSync(() => {
          void storage.put('nested', 3)
          throw new Error('undo nested')
        }),
      ).toThrow('undo nested')
    })
    expect(await storage.get(['before', 'inside', 'nested'])).toEqual(
      new Map([
        ['before', 1],
        ['inside', 2],
      ]),
    )
    await storage.transaction(async (txn) => {
      await txn.put('rolled back', 4)
      txn.rollback()
    })
    expect(await storage.get('rolled back')).toBeUndefined()
    expect(storage.db.prepare('SELECT key FROM _cf_KV ORDER BY key').pluck().all()).toEqual([
      'before',
      'inside',
    ])
  })
})
