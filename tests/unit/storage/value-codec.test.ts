// The fast path for common values must write exactly V8's bytes and read them exactly as V8 does.
import fc from 'fast-check'
import { Deserializer, Serializer } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { deserializeValue, serializeValue } from '../../../src-main/storage/encoding'
import {
  copyCommonValue,
  decodeCommonValue,
  encodeCommonValue,
  NOT_COMMON,
} from '../../../src-main/storage/value-codec'

function v8Serialize(value: unknown): Buffer {
  const serializer = new Serializer()
  serializer.writeHeader()
  serializer.writeValue(value)
  return serializer.releaseBuffer()
}

function v8Deserialize(bytes: Buffer): unknown {
  const deserializer = new Deserializer(bytes)
  deserializer.readHeader()
  return deserializer.readValue()
}

const isInt32 = (n: number): boolean => (n | 0) === n && !Object.is(n, -0)

function hasIndexOrProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const keys = Array.isArray(value) ? [] : Object.keys(value)
  return (
    keys.some((key) => key === '__proto__' || /^(?:0|[1-9]\d*)$/.test(key)) ||
    Object.values(value).some(hasIndexOrProtoKey)
  )
}

// V8 writes a number according to how it is held, which JS cannot observe: a small integer held as
// a double (in an array that also holds fractions, or created at a site that once did) is written
// as a double. JSON.parse() decides from the content alone, as the fast path does, so generated
// values for byte comparison go through it; other leaves are compared by hand below.
const finiteNonInt32 = fc
  .double({ noNaN: true, noDefaultInfinity: true })
  .filter((n) => !isInt32(n))
const strings = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.string({ minLength: 65, maxLength: 300, unit: 'grapheme-ascii' }),
  fc.string({ minLength: 65, maxLength: 300, unit: 'binary' }),
)
const objectKeys = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('0', '7', '__proto__'))

// JSON.parse() holds an integer of ten or more digits as a double even when it is a small
// integer, and so then does every object field that ever held one; it holds every number of an
// object with a "__proto__" key as a double too.
const nineDigits = fc.integer({ min: -999_999_999, max: 999_999_999 })
const jsonKeys = fc
  .oneof(fc.string({ maxLength: 6 }), fc.constantFrom('0', '7'))
  .filter((key) => key !== '__proto__')

/** JSON values whose objects hold no fractions (a field that once held one holds doubles). */
const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    nineDigits,
    strings,
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.oneof(finiteNonInt32, tie('json')), { maxLength: 5 }),
    fc.array(fc.oneof(nineDigits, finiteNonInt32), { maxLength: 5 }),
    fc.dictionary(jsonKeys, tie('json'), { maxKeys: 5 }),
  ),
}))
/**
 * The value as V8 holds it when nothing has been parsed before: JSON.parse() in a context of its
 * own. V8 lays objects out by the names they were given in order, and a field's layout only ever
 * widens; within one context, objects parsed earlier (in this test or another) can leave a field
 * held as doubles, after which V8 writes an integer stored there as a double, as DEVIATIONS.md
 * says. A fresh context has no such history, so its bytes are the ones decided by content alone.
 */
const freshlyParsed = (text: string): unknown => runInNewContext('JSON.parse(text)', { text })

/** Anything the structured clone algorithm accepts, for decoding. */
const { anything } = fc.letrec<{ anything: unknown }>((tie) => ({
  anything: fc.oneof(
    { depthSize: 'small' },
    fc.double(),
    fc.integer(),
    strings,
    fc.boolean(),
    fc.constant(null),
    fc.date({ noInvalidDate: false }),
    fc.bigInt(),
    fc.array(tie('anything'), { maxLength: 4 }),
    fc.sparseArray(tie('anything'), { maxLength: 4 }),
    fc.dictionary(objectKeys, tie('anything'), { maxKeys: 4 }),
    fc.array(fc.tuple(tie('anything'), tie('anything')), { maxLength: 3 }).map((e) => new Map(e)),
    fc.array(tie('anything'), { maxLength: 3 }).map((items) => new Set(items)),
    fc.uint8Array({ maxLength: 4 }),
    tie('anything').map((shared) => ({ a: shared, b: shared })),
  ),
}))

describe('common values, written directly', () => {
  it('are the bytes V8 writes', () => {
    fc.assert(
      fc.property(json, (generated) => {
        const text = JSON.stringify(generated)
        const direct = encodeCommonValue(JSON.parse(text))
        // a value with index keys is left to V8, which writes it as it holds it (no comparison)
        if (direct === null) return
        expect(direct.toString('hex')).toBe(v8Serialize(freshlyParsed(text)).toString('hex'))
      }),
      { numRuns: 2000 },
    )
  })

  it('take the fast path unless they hold index keys or "__proto__"', () => {
    fc.assert(
      fc.property(json, (value) => {
        fc.pre(!hasIndexOrProtoKey(value))
        expect(encodeCommonValue(value)).not.toBeNull()
      }),
    )
  })

  it('decode as V8 decodes them, and round-trip', () => {
    fc.assert(
      fc.property(anything, (value) => {
        const ours = serializeValue(value)
        const theirs = v8Serialize(value)
        expect(deserializeValue(theirs)).toStrictEqual(v8Deserialize(theirs))
        expect(v8Deserialize(ours)).toStrictEqual(v8Deserialize(theirs))
        expect(deserializeValue(ours)).toStrictEqual(v8Deserialize(theirs))
      }),
      { numRuns: 2000 },
    )
  })

  it('match V8 for numbers at the edges of small integers', () => {
    // Each number is parsed on its own and each object is made in a fresh context: a number read
    // from an array of doubles, or stored in a field that once held a double, is held as a double
    // (in this context, the property tests' random objects may have given a key such a field).
    // The pairs are parsed too: an array literal's site remembers that it once held a double (V8's
    // allocation-site feedback), after which it makes [1, 1] an array of doubles as well.
    const edges = ['0', '-0', '1', '-1', '1073741824', '2147483647', '-2147483648', '2147483648']
    for (const [index, text] of [...edges, '-2147483649', 'NaN'].entries()) {
      const n = Number(text)
      const pair = text === 'NaN' ? [NaN, 1] : (JSON.parse(`[${text}, 1]`) as number[])
      expect(serializeValue(n)).toEqual(v8Serialize(n))
      expect(serializeValue(pair)).toEqual(v8Serialize(pair))
      expect(serializeValue(['x', n])).toEqual(v8Serialize(['x', n]))
      const object: unknown = runInNewContext(`({ n${index}: ${text} })`)
      expect(serializeValue(object)).toEqual(v8Serialize(object))
      expect(deserializeValue(v8Serialize(n))).toBe(n)
    }
  })

  it('match V8 for undefined, dates and special numbers inside values', () => {
    const values: unknown[] = [
      undefined,
      new Date(86400000),
      new Date(NaN),
      { when: new Date(5), missing: undefined },
      [undefined, null, true, false],
      [Number('-0'), Number('0.5')],
      [NaN, Infinity, -Infinity],
      ['text', Number('-0'), new Date(0)],
      { nested: [{ deeper: ['x'] }], empty: {}, list: [] },
    ]
    for (const value of values) {
      expect(serializeValue(value)).toEqual(v8Serialize(value))
      expect(deserializeValue(serializeValue(value))).toStrictEqual(value)
    }
  })

  it('pad two-byte strings to an even offset as V8 does', () => {
    for (const value of ['😀', 'a😀', ['x', '😀'], { k: '\uD800' }, { ab: 'é€' }]) {
      expect(serializeValue(value)).toEqual(v8Serialize(value))
      expect(deserializeValue(serializeValue(value))).toStrictEqual(value)
    }
  })

  it('leave shared references, cycles, holes and exotic objects to V8', () => {
    const shared = { x: 1 }
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const withExtra = Object.assign([1, 2], { extra: true })
    const holey = [1, 2, 3]
    delete holey[1]
    for (const value of [
      { a: shared, b: shared },
      cyclic,
      holey,
      withExtra,
      new Proxy({}, {}),
      new Map([[1, 2]]),
      Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
      { 1: 'index key' },
    ]) {
      expect(encodeCommonValue(value)).toBeNull()
    }
    expect(deserializeValue(serializeValue(cyclic))).toHaveProperty('self.self.self')
    expect(() => serializeValue(new Proxy({}, {}))).toThrow(
      expect.objectContaining({ name: 'DataCloneError' }),
    )
  })

  it('keep "__proto__" an own property when reading', () => {
    const bytes = v8Serialize(JSON.parse('{"__proto__": {"polluted": true}}'))
    expect(decodeCommonValue(bytes)).toBe(NOT_COMMON)
    const value = deserializeValue(bytes) as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(['__proto__'])
  })

  it('hand legacy and damaged bytes to V8', () => {
    expect(decodeCommonValue(Buffer.from('54', 'hex'))).toBe(NOT_COMMON)
    expect(deserializeValue(Buffer.from('54', 'hex'))).toBe(true)
    expect(deserializeValue(Buffer.from('ff0d54', 'hex'))).toBe(true)
    expect(decodeCommonValue(Buffer.from('ff0f2205616263', 'hex'))).toBe(NOT_COMMON)
  })

  it('serialize a value nested in a getter of the value being serialized', () => {
    const inner = { n: 1 }
    const value = {
      get nested(): unknown {
        return deserializeValue(serializeValue(inner))
      },
    }
    expect(serializeValue(value)).toEqual(v8Serialize({ nested: { n: 1 } }))
  })
})

describe('copies of decoded common values', () => {
  // Same keys in the same order, same leaves, and no object shared with the original.
  function expectFreshCopy(copy: unknown, original: unknown): void {
    if (typeof original !== 'object' || original === null) {
      expect(Object.is(copy, original)).toBe(true)
      return
    }
    expect(copy).not.toBe(original)
    expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(original))
    if (original instanceof Date) {
      expect(Object.is((copy as Date).getTime(), original.getTime())).toBe(true)
      return
    }
    const source = original as Record<string, unknown>
    const target = copy as Record<string, unknown>
    expect(Object.keys(target)).toEqual(Object.keys(source))
    for (const key of Object.keys(source)) expectFreshCopy(target[key], source[key])
  }

  it('are what decoding the bytes again gives, sharing no object', () => {
    fc.assert(
      fc.property(anything, (value) => {
        const bytes = serializeValue(value)
        const decoded = decodeCommonValue(bytes)
        fc.pre(decoded !== NOT_COMMON)
        const copy = copyCommonValue(decoded)
        expectFreshCopy(copy, decoded)
        expectFreshCopy(copy, decodeCommonValue(bytes))
        expect(copy).toStrictEqual(v8Deserialize(bytes))
      }),
      { numRuns: 1000 },
    )
  })
})
