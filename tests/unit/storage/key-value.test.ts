import { describe, expect, it } from 'vitest'
import { open, newFile } from './temp-storage'

describe.each(['sql', 'kv'] as const)('key-value on the %s backend', (backend) => {
  it('round-trips structured-clone values as fresh copies', async () => {
    const storage = await open(backend)
    const value = {
      map: new Map([[1, 'a']]),
      set: new Set([2]),
      date: new Date(5),
      bytes: new Uint8Array([1, 2]),
    }
    await storage.put('k', value)
    value.map.set(2, 'b')
    const read = await storage.get('k')
    expect(read).toEqual({
      map: new Map([[1, 'a']]),
      set: new Set([2]),
      date: new Date(5),
      bytes: new Uint8Array([1, 2]),
    })
    expect(await storage.get('k')).not.toBe(read)
  })

  it('orders keys by UTF-8 bytes in get() and list(), leaving out missing keys', async () => {
    const storage = await open(backend)
    await storage.put({ z: 1, é: 2, b: 3, a: 4, '😀': 5, '\uFFFD': 6 })
    const expected = ['a', 'b', 'z', 'é', '\uFFFD', '😀']
    expect([
      ...(await storage.get(['z', 'é', 'b', 'a', 'missing', '😀', '\uFFFD', 'b'])).keys(),
    ]).toEqual(expected)
    expect([...(await storage.list()).keys()]).toEqual(expected)
  })

  it('stores a lone surrogate as WTF-8 and reads it back with one U+FFFD per byte', async () => {
    const storage = await open(backend)
    await storage.put('\uD800x', 1)
    await storage.sync()
    expect([...(await storage.list()).keys()]).toEqual(['\uFFFD\uFFFD\uFFFDx'])
    expect([...(await storage.get(['\uD800x'])).keys()]).toEqual(['\uFFFD\uFFFD\uFFFDx'])
    expect(await storage.get('\uD800x')).toBe(1)
    expect(storage.db.prepare('SELECT hex(key) AS k, hex(value) AS v FROM _cf_KV').get()).toEqual({
      k: 'EDA08078',
      v: 'FF0F4902',
    })
  })

  it('writes the runtime encoding of values', async () => {
    const storage = await open(backend)
    await storage.put({ s: 'héllo', u: new Uint8Array([1, 2, 3]), d: new Date(86400000) })
    await storage.sync()
    const rows = storage.db.prepare('SELECT key, hex(value) AS v FROM _cf_KV ORDER BY key').all()
    expect(rows).toEqual([
      { key: 'd', v: 'FF0F440000000070999441' },
      { key: 's', v: 'FF0F220568E96C6C6F' },
      { key: 'u', v: 'FF0F42030102035642000300' },
    ])
  })

  it('deletes single and several keys, counting each key once', async () => {
    const storage = await open(backend)
    await storage.put({ d1: 1, d2: 2 })
    expect([
      await storage.delete('d1'),
      await storage.delete('d1'),
      await storage.delete(['d1', 'd2', 'd2']),
      await storage.delete([]),
    ]).toEqual([true, false, 1, 0])
  })

  it('coerces keys and skips undefined entries', async () => {
    const storage = await open(backend)
    await storage.put(123 as unknown as string, 'n')
    await storage.put({ a: 1, b: undefined })
    expect(await storage.get('123')).toBe('n')
    expect([...(await storage.list()).keys()]).toEqual(['123', 'a'])
  })

  it('refuses what the runtime refuses, with its messages', async () => {
    const storage = await open(backend)
    await expect(storage.put('k', undefined)).rejects.toThrow(
      new TypeError('put() called with undefined value.'),
    )
    await expect(storage.put('k', () => 1)).rejects.toMatchObject({
      name: 'DataCloneError',
      message: '() => 1 could not be cloned.',
    })
    await expect(storage.put({ a: 1 }, 5 as never)).rejects.toThrow(
      /^put\(\) may only be called with a single key-value pair/,
    )
    await expect(storage.put('x'.repeat(2049), 1)).rejects.toThrow(
      new RangeError('Keys cannot be larger than 2048 bytes. A key of size 2049 was provided.'),
    )
    await expect(storage.put('k', new Uint8Array(131172))).rejects.toThrow(
      'Values cannot be larger than 131072 bytes. A value of size 131185 was provided.',
    )
    await storage.put('k', 'x'.repeat(131072))
    const keys = Array.from({ length: 129 }, (_, i) => `k${i}`)
    await expect(storage.get(keys)).rejects.toThrow(
      'Maximum number of key value pairs is 128. 129 pairs were provided.',
    )
    await expect(storage.delete(keys)).rejects.toThrow(
      'Maximum number of key value pairs is 128. 129 pairs were provided.',
    )
    await expect(storage.put(Object.fromEntries(keys.map((k) => [k, 1])))).rejects.toThrow(
      '129 pairs were provided.',
    )
    expect(await storage.get('k0')).toBeUndefined()
  })

  it('leaves a multi-put with an uncloneable value entirely unwritten', async () => {
    const storage = await open(backend)
    await expect(storage.put({ a: 1, b: Symbol('x') })).rejects.toMatchObject({
      name: 'DataCloneError',
    })
    expect(await storage.get('a')).toBeUndefined()
  })

  it('compiles list options like the runtime', async () => {
    const storage = await open(backend)
    await storage.put({ a: 1, b: 1, c: 1, ca: 1, cb: 1, d: 1, e: 1 })
    const keys = async (options: object): Promise<string[]> => [
      ...(await storage.list(options)).keys(),
    ]
    expect(await keys({ prefix: 'c', start: 'ca' })).toEqual(['ca', 'cb'])
    expect(await keys({ prefix: 'c', start: 'a' })).toEqual(['c', 'ca', 'cb'])
    expect(await keys({ prefix: 'c', start: 'd' })).toEqual([])
    expect(await keys({ prefix: 'c', end: 'cb' })).toEqual(['c', 'ca'])
    expect(await keys({ prefix: 'c', startAfter: 'c' })).toEqual(['ca', 'cb'])
    expect(await keys({ start: 'c', end: 'c' })).toEqual([])
    expect(await keys({ reverse: true, limit: 2, start: 'b', end: 'e' })).toEqual(['d', 'cb'])
    expect(await keys({ startAfter: 'b', limit: '2' })).toEqual(['c', 'ca'])
    expect(await keys({ limit: 1.7 })).toEqual(['a'])
    await expect(storage.list({ start: 'a', startAfter: 'b' })).rejects.toThrow(
      new TypeError('list() cannot be called with both start and startAfter values.'),
    )
    await expect(storage.list({ limit: 0 })).rejects.toThrow(
      new TypeError('List limit must be positive.'),
    )
    await expect(storage.list({ limit: 2 ** 31 })).rejects.toThrow(
      'Value out of range. Must be between -2147483648 and 2147483647 (inclusive).',
    )
  })

  it('keeps data across reopening and keeps the alarm through deleteAll', async () => {
    const file = newFile()
    const first = await open(backend, file)
    await first.put('k', 'v')
    await first.setAlarm(4102444800000)
    first.close()
    const second = await open(backend, file)
    expect(await second.get('k')).toBe('v')
    await second.deleteAll()
    expect(await second.list()).toEqual(new Map())
    expect(await second.getAlarm()).toBe(4102444800000)
  })
})

describe('backend differences', () => {
  it('refuses SQL, transactionSync and recovery on the kv backend with clear messages', async () => {
    const storage = await open('kv')
    expect(() => storage.sql).toThrow(
      /not backed by SQLite storage, so the SQL API is not available/,
    )
    expect(() => storage.transactionSync(() => 1)).toThrow('Durable Object is not backed by SQL.')
    await expect(storage.getCurrentBookmark()).rejects.toThrow(
      "This Durable Object's storage back-end does not implement point-in-time recovery.",
    )
  })
})
