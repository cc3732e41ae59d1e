// Types of the Rules language (wirefilter): Bool, Int, Bytes, Ip, Array<T>, Map<T>, and the
// runtime representation of their values.
//
// Values at run time:
//   Bool  -> boolean
//   Int   -> number (the language's Int is an i64; values beyond 2^53 lose precision at run time,
//            literals keep their exact value in the AST as a bigint)
//   Bytes -> a "binary string": one UTF-16 code unit per byte, each in 0..255. Comparison,
//            `contains`, equality and hashing then work on raw bytes, as the vendor's engine does.
//   Ip    -> IpAddress (family 4 with a uint32, or family 6 with a bigint)
//   Array -> readonly Value[]
//   Map   -> ReadonlyMap<binary string, Value>, iterated by `[*]` in insertion order; builders
//            insert keys in byte order (the vendor keeps maps sorted by key).
//   missing -> undefined

export type ScalarType = 'Bool' | 'Int' | 'Bytes' | 'Ip'

export interface ArrayType {
  readonly kind: 'Array'
  readonly of: Type
}

export interface MapType {
  readonly kind: 'Map'
  readonly of: Type
}

export type Type = ScalarType | ArrayType | MapType

export interface Ipv4Address {
  readonly family: 4
  /** the address as an unsigned 32-bit integer */
  readonly n: number
}

export interface Ipv6Address {
  readonly family: 6
  /** the address as an unsigned 128-bit integer */
  readonly n: bigint
}

export type IpAddress = Ipv4Address | Ipv6Address

export type Value =
  boolean | number | string | IpAddress | readonly Value[] | ReadonlyMap<string, Value>

const arrayTypes = new Map<Type, ArrayType>()
const mapTypes = new Map<Type, MapType>()

/** Array<of>; interned for scalar element types so that equal types are often identical. */
export function arrayOf(of: Type): ArrayType {
  if (typeof of === 'string') {
    let t = arrayTypes.get(of)
    if (!t) {
      t = { kind: 'Array', of }
      arrayTypes.set(of, t)
    }
    return t
  }
  return { kind: 'Array', of }
}

export function mapOf(of: Type): MapType {
  if (typeof of === 'string') {
    let t = mapTypes.get(of)
    if (!t) {
      t = { kind: 'Map', of }
      mapTypes.set(of, t)
    }
    return t
  }
  return { kind: 'Map', of }
}

export const BOOL_ARRAY = arrayOf('Bool')

export function typeEquals(a: Type, b: Type): boolean {
  if (a === b) return true
  if (typeof a === 'string' || typeof b === 'string') return false
  return a.kind === b.kind && typeEquals(a.of, b.of)
}

export function isArray(t: Type): t is ArrayType {
  return typeof t !== 'string' && t.kind === 'Array'
}

export function isMap(t: Type): t is MapType {
  return typeof t !== 'string' && t.kind === 'Map'
}

/** `Array<Bytes>`: the form the vendor uses in type-mismatch messages. */
export function typeDisplay(t: Type): string {
  if (typeof t === 'string') return t
  return `${t.kind}<${typeDisplay(t.of)}>`
}

/** `Array(Bytes)`: the (Rust Debug) form the vendor uses in "cannot perform this operation". */
export function typeDebug(t: Type): string {
  if (typeof t === 'string') return t
  return `${t.kind}(${typeDebug(t.of)})`
}

/** A type, or a loose "any array" / "any map" expectation, as in the vendor's expected-type lists. */
export type ExpectedType = Type | 'Array<_>' | 'Map<_>'

export function expectedMatches(expected: ExpectedType, actual: Type): boolean {
  if (expected === 'Array<_>') return isArray(actual)
  if (expected === 'Map<_>') return isMap(actual)
  return typeEquals(expected, actual)
}

function expectedDisplay(e: ExpectedType): string {
  return e === 'Array<_>' || e === 'Map<_>' ? e : typeDisplay(e)
}

/** One expectation prints as itself, two as `A or B`, more as `{A, B, C}` (vendor format). */
export function expectedListDisplay(list: readonly ExpectedType[]): string {
  const names = list.map(expectedDisplay)
  if (names.length === 1) return names[0] ?? ''
  if (names.length === 2) return `${names[0]} or ${names[1]}`
  return `{${names.join(', ')}}`
}

export function typeMismatchMessage(expected: readonly ExpectedType[], actual: Type): string {
  return `expected value of type ${expectedListDisplay(expected)}, but got ${typeDisplay(actual)}`
}
