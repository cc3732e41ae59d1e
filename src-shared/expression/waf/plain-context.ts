// Evaluation contexts and lists from plain values:
//  - createContext(values) takes user-friendly values (text, numbers, IP strings, objects) for
//    named fields and converts them to the runtime representation, checking their types.
//  - createList(kind, items) builds what a `$name` resolves to.

import type { Scheme } from '../scheme/scheme'
import { asciiLower, fromUint8Array, utf8Bytes } from '../values/bytes'
import type { EvaluationContext, ListKind, ListMatcher } from '../values/evaluation'
import { ipv4, ipv6, IpRangeSet, type IpRange } from '../values/ip'
import { isArray, isMap, typeDisplay, type IpAddress, type Type, type Value } from '../values/types'
import { byName, parseClientIp } from './context'
import { WAF_SCHEME } from './scheme'

function sortedMap<T>(entries: Iterable<[string, T]>): Map<string, T> {
  return new Map([...entries].sort(byName))
}

function describe(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (v instanceof Map) return 'map'
  if (v instanceof Uint8Array) return 'bytes'
  return typeof v
}

function convert(type: Type, v: unknown, path: string): Value {
  const bad = (): never => {
    throw new TypeError(
      `${path}: expected value of type ${typeDisplay(type)}, but got ${describe(v)}`,
    )
  }
  if (type === 'Bytes') {
    if (typeof v === 'string') return utf8Bytes(v)
    if (v instanceof Uint8Array) return fromUint8Array(v)
    return bad()
  }
  if (type === 'Int') {
    if (typeof v === 'number' && Number.isInteger(v)) return v
    if (typeof v === 'bigint') return Number(v)
    return bad()
  }
  if (type === 'Bool') return typeof v === 'boolean' ? v : bad()
  if (type === 'Ip') {
    if (typeof v === 'string') return parseClientIp(v) ?? bad()
    if (v && typeof v === 'object' && 'family' in v) return v as IpAddress
    return bad()
  }
  if (isArray(type)) {
    if (!Array.isArray(v)) return bad()
    return v.map((item, i) => convert(type.of, item, `${path}[${i}]`))
  }
  if (isMap(type)) {
    const entries: [string, unknown][] =
      v instanceof Map
        ? [...(v as Map<string, unknown>).entries()]
        : v && typeof v === 'object'
          ? Object.entries(v)
          : bad()
    return sortedMap(
      entries.map(([k, item]) => [
        utf8Bytes(k),
        convert(type.of, item, `${path}[${JSON.stringify(k)}]`),
      ]),
    )
  }
  return bad()
}

export interface CreateContextOptions {
  readonly scheme?: Scheme
  readonly lists?: Readonly<Record<string, ListMatcher>>
  readonly warn?: (message: string) => void
}

/**
 * A context from plain values: text for Bytes fields (encoded as UTF-8), numbers, booleans, IP
 * strings, arrays, and objects or Maps for Map fields. Throws TypeError for an unknown field or a
 * value of the wrong type. `undefined` leaves a field missing.
 */
export function createContext(
  values: Readonly<Record<string, unknown>>,
  options: CreateContextOptions = {},
): EvaluationContext {
  const scheme = options.scheme ?? WAF_SCHEME
  const fields: Record<string, Value | undefined> = {}
  for (const [name, v] of Object.entries(values)) {
    const def = scheme.fields.get(name)
    if (!def) throw new TypeError(`unknown field ${name}`)
    if (v !== undefined) fields[name] = convert(def.type, v, name)
  }
  return {
    fields,
    ...(options.lists ? { lists: options.lists } : {}),
    ...(options.warn ? { warn: options.warn } : {}),
  }
}

function parseListRange(item: string): IpRange {
  const text = item.trim()
  const dots = text.indexOf('..')
  if (dots >= 0) {
    const a = parseClientIp(text.slice(0, dots))
    const b = parseClientIp(text.slice(dots + 2))
    if (!a || !b || a.family !== b.family || a.n > b.n)
      throw new TypeError(`invalid IP range ${JSON.stringify(item)}`)
    return { start: a, end: b }
  }
  const slash = text.indexOf('/')
  const addr = parseClientIp(slash < 0 ? text : text.slice(0, slash))
  if (!addr) throw new TypeError(`invalid IP address ${JSON.stringify(item)}`)
  if (slash < 0) return { start: addr, end: addr }
  const bits = Number(text.slice(slash + 1))
  const max = addr.family === 4 ? 32 : 128
  if (!Number.isInteger(bits) || bits < 0 || bits > max)
    throw new TypeError(`invalid prefix length in ${JSON.stringify(item)}`)
  if (addr.family === 4) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
    const start = (addr.n & mask) >>> 0
    return { start: ipv4(start), end: ipv4((start | (~mask >>> 0)) >>> 0) }
  }
  const all = (1n << 128n) - 1n
  const host = bits === 128 ? 0n : all >> BigInt(bits)
  const start = addr.n & ~host & all
  return { start: ipv6(start), end: ipv6(start | host) }
}

/**
 * A list for `$name`: `ip` (addresses, CIDRs, `a..b` ranges), `bytes` (hostnames; `*.example.com`
 * also matches subdomains; case-insensitive) or `int` (ASNs).
 */
export function createList(kind: ListKind, items: Iterable<string | number>): ListMatcher {
  if (kind === 'ip') {
    const set = new IpRangeSet([...items].map((i) => parseListRange(String(i))))
    return { kind, has: (v) => set.has(v as IpAddress) }
  }
  if (kind === 'int') {
    const set = new Set([...items].map((i) => Number(i)))
    return { kind, has: (v) => set.has(v as number) }
  }
  const exact = new Set<string>()
  const suffixes: string[] = []
  for (const item of items) {
    const host = asciiLower(utf8Bytes(String(item)))
    if (host.startsWith('*.')) suffixes.push(host.slice(1))
    else exact.add(host)
  }
  return {
    kind,
    has: (v) => {
      const s = asciiLower(v as string)
      return exact.has(s) || suffixes.some((suffix) => s.endsWith(suffix))
    },
  }
}
