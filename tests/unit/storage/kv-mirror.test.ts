// The in-memory mirror of `_cf_KV` must list exactly what a plain model of the table holds, in
// byte order, whatever writes it took in, and hand out fresh values every time.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  deserializeValue,
  encodeKey,
  keyAsStored,
  serializeValue,
} from '../../../src-main/storage/encoding'
import { KvMirror, KvMirrorLoader } from '../../../src-main/storage/kv-mirror'
import { compileListOptions, type ListOptions } from '../../../src-main/storage/list-options'

type Table = Map<string, Buffer>

const byBytes = (a: string, b: string): number => Buffer.compare(encodeKey(a), encodeKey(b))

/** What a listing of `table` must give, by the model: filtered, ordered and cut by the options. */
function modelListing(table: Table, options: ListOptions): Array<[string, unknown]> {
  const range = compileListOptions(options)
  if (range === null) return []
  const keys = [...table.keys()]
    .filter((key) => {
      const bytes = encodeKey(key)
      return (
        Buffer.compare(bytes, range.start) >= 0 &&
        (range.end === null || Buffer.compare(bytes, range.end) < 0)
      )
    })
    .sort(byBytes)
  if (range.reverse) keys.reverse()
  return keys
    .slice(0, range.limit ?? undefined)
    .map((key) => [keyAsStored(key), deserializeValue(table.get(key) as Buffer)])
}

/** The mirror's listing, read `pageRows` at a time as the synchronous API's iterator reads it. */
function mirrorListing(
  mirror: KvMirror,
  options: ListOptions,
  pageRows: number,
): Array<[string, unknown]> {
  const range = compileListOptions(options)
  if (range === null) return []
  const listed: Array<[string, unknown]> = []
  let remaining = range.limit ?? Infinity
  let from: Buffer | null = null
  do {
    const page = mirror.visit(range, from, Math.min(remaining, pageRows), (key, value) =>
      listed.push([key, value]),
    )
    remaining -= page.count
    from = page.next
  } while (from !== null && remaining > 0)
  return listed
}

/** A mirror of `table` as a listing of the whole table would load it, one page of stored rows. */
function loadedMirror(table: Table): KvMirror {
  const loader = new KvMirrorLoader()
  const keys = [...table.keys()].sort(byBytes)
  const values = keys.map((key) => table.get(key) as Buffer)
  loader.addStored(
    keys,
    Buffer.concat(values),
    values.map((bytes) => bytes.length),
  )
  const mirror = loader.finish(false)
  if (mirror === null) throw new Error('the loader gave up')
  return mirror
}

// Keys around shared prefixes, outside the BMP and with lone surrogates (which only writes bring:
// a listing reads them back as U+FFFD).
const loadableKey = fc.oneof(
  fc.nat({ max: 2999 }).map((n) => `n/${String(n).padStart(4, '0')}`),
  fc.string({ maxLength: 3 }).map((s) => `p/${s}`),
  fc.constantFrom('😀', 'é', '\u0000', 'ÿ').map((c) => `u/${c}`),
)
const writtenKey = fc.oneof(loadableKey, fc.constantFrom('u/\uD800', 'u/\uDFFF', 'u/\uFFFD'))
// Common values, which the mirror keeps decoded, and Maps, which only V8 decodes.
const value = fc
  .oneof(
    fc.integer(),
    fc.string({ maxLength: 4 }),
    fc.record({ n: fc.integer(), tags: fc.array(fc.string({ maxLength: 2 }), { maxLength: 3 }) }),
    fc.date({ noInvalidDate: true }),
    fc.integer().map((n) => new Map([[n, 'm']])),
  )
  .map(serializeValue)
const write = fc.tuple(writtenKey, fc.option(value, { nil: null }))
const listOptions: fc.Arbitrary<ListOptions> = fc
  .record(
    {
      start: fc.constantFrom('', 'n/', 'n/1', 'p/', 'u/'),
      startAfter: fc.constantFrom('n/0100', 'u/'),
      end: fc.constantFrom('n/2', 'p/~', 'u/\uFFFF', 'v'),
      prefix: fc.constantFrom('n/', 'n/1', 'p/', 'u/'),
      reverse: fc.boolean(),
      limit: fc.integer({ min: 1, max: 1500 }),
    },
    { requiredKeys: [] },
  )
  // list() refuses start and startAfter together.
  .map(({ startAfter, ...options }) =>
    options.start === undefined && startAfter !== undefined ? { ...options, startAfter } : options,
  )
const step = fc.oneof(
  {
    arbitrary: fc.array(write, { maxLength: 300, size: 'medium' }).map((writes) => ({ writes })),
    weight: 2,
  },
  {
    arbitrary: fc.record({ options: listOptions, pageRows: fc.constantFrom(1, 7, 256, Infinity) }),
    weight: 3,
  },
)

describe('KvMirror', () => {
  it('lists what the table holds, in byte order, under any writes', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(loadableKey, value), {
          maxLength: 2500,
          size: 'max',
          selector: ([key]) => key,
        }),
        fc.array(step, { minLength: 1, maxLength: 12 }),
        (initial, steps) => {
          const table: Table = new Map(initial)
          const mirror = loadedMirror(table)
          for (const current of steps) {
            if ('writes' in current) {
              const writes = new Map(current.writes)
              mirror.apply(writes)
              for (const [key, bytes] of writes) {
                if (bytes === null) table.delete(key)
                else table.set(key, bytes)
              }
            } else {
              expect(mirrorListing(mirror, current.options, current.pageRows)).toEqual(
                modelListing(table, current.options),
              )
            }
          }
          expect(mirrorListing(mirror, {}, Infinity)).toEqual(modelListing(table, {}))
        },
      ),
      { numRuns: 60 },
    )
  })

  it('hands out a fresh copy of every value at every listing', () => {
    const table: Table = new Map([
      ['a', serializeValue({ list: [1, { deep: true }], when: new Date(5) })],
      ['b', serializeValue(new Map([[1, { x: 1 }]]))],
    ])
    const mirror = loadedMirror(table)
    const first = mirrorListing(mirror, {}, Infinity)
    const [[, a], [, b]] = first as [[string, { list: unknown[] }], [string, Map<number, object>]]
    a.list.push('changed')
    b.set(2, { y: 2 })
    const second = mirrorListing(mirror, {}, Infinity)
    expect(second).toEqual(modelListing(table, {}))
    expect(second[0]?.[1]).not.toBe(a)
    expect(second[1]?.[1]).not.toBe(b)
  })

  it('updates the index only once written, and then in place', () => {
    const mirror = loadedMirror(new Map([['k', serializeValue(1)]]))
    mirror.apply(new Map([['k', serializeValue('two')]]))
    mirror.apply(new Map([['k', null]]))
    mirror.apply(new Map([['k', serializeValue(3)]]))
    expect(mirrorListing(mirror, {}, Infinity)).toEqual([['k', 3]])
  })
})

/** Loads pages of [key, value] pairs, each page's values back to back as a listing reads them. */
function load(pages: Array<Array<[string, unknown]>>, reverse = false): KvMirror | null {
  const loader = new KvMirrorLoader()
  for (const page of pages) {
    const values = page.map(([, value]) => serializeValue(value))
    loader.addStored(
      page.map(([key]) => key),
      Buffer.concat(values),
      values.map((bytes) => bytes.length),
    )
  }
  return loader.finish(reverse)
}

describe('KvMirrorLoader', () => {
  it('takes pages in either order', () => {
    const mirror = load(
      [
        [
          ['c', { c: 3 }],
          ['b', [2]],
        ],
        [
          ['a\u0000', 'a'],
          ['a', new Map([[0, 0]])],
        ],
      ],
      true,
    )
    expect(mirror && mirrorListing(mirror, {}, Infinity)).toEqual([
      ['a', new Map([[0, 0]])],
      ['a\u0000', 'a'],
      ['b', [2]],
      ['c', { c: 3 }],
    ])
  })

  it('keeps each row of a page apart when one is written over', () => {
    const mirror = load([
      [
        ['a', { n: 1 }],
        ['b', 'two'],
        ['c', [3]],
      ],
    ])
    mirror?.apply(new Map([['b', serializeValue({ changed: true })]]))
    expect(mirror && mirrorListing(mirror, {}, Infinity)).toEqual([
      ['a', { n: 1 }],
      ['b', { changed: true }],
      ['c', [3]],
    ])
  })

  it('keeps copies of the decoded values it is given', () => {
    const loader = new KvMirrorLoader()
    const values = [{ n: 1, nested: [{ deep: 'x' }] }, 'plain']
    loader.addDecoded(['a', 'b'], values, [20, 8])
    ;(values[0] as { nested: Array<{ deep: string }> }).nested[0]!.deep = 'changed'
    const mirror = loader.finish(false)
    expect(mirror && mirrorListing(mirror, {}, Infinity)).toEqual([
      ['a', { n: 1, nested: [{ deep: 'x' }] }],
      ['b', 'plain'],
    ])
  })

  it('gives up on a key read back with U+FFFD, which may stand for a lone surrogate', () => {
    expect(
      load([
        [
          ['a', 1],
          ['b\uFFFD', 2],
        ],
      ]),
    ).toBeNull()
  })

  it('gives up past its memory budget', () => {
    const loader = new KvMirrorLoader()
    const megabyte = 1024 * 1024
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`)
    loader.addStored(keys, Buffer.alloc(20 * megabyte), Array<number>(20).fill(megabyte))
    expect(loader.finish(false)).toBeNull()
  })
})
