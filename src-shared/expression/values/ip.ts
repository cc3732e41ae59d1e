// IP addresses: parsing with the same accept/reject rules as Rust's std::net parsers (which the
// vendor's engine uses), canonical formatting, CIDR networks and sorted range sets.

import type { IpAddress, Ipv4Address, Ipv6Address } from './types'
import { COLON, DOT, hexDigitValue } from './chars'
import { inRanges, mergeSortedBigintRanges, mergeSortedRanges } from './sorted-ranges'

const MAX_V6 = (1n << 128n) - 1n

export function ipv4(n: number): Ipv4Address {
  return { family: 4, n: n >>> 0 }
}

export function ipv6(n: bigint): Ipv6Address {
  return { family: 6, n: BigInt.asUintN(128, n) }
}

class Reader {
  pos = 0
  constructor(readonly s: string) {}
  peek(): number {
    return this.pos < this.s.length ? this.s.charCodeAt(this.pos) : -1
  }
  atEnd(): boolean {
    return this.pos >= this.s.length
  }
}

/** std's read_number: up to `maxDigits` digits in `radix`; optional rejection of leading zeros. */
function readNumber(
  r: Reader,
  radix: 10 | 16,
  maxDigits: number,
  allowZeroPrefix: boolean,
  max: number,
): number | undefined {
  const start = r.pos
  let value = 0
  let digits = 0
  while (digits < maxDigits) {
    const d = hexDigitValue(r.peek())
    if (d < 0 || d >= radix) break
    if (digits === 1 && value === 0 && !allowZeroPrefix) {
      r.pos = start
      return undefined
    }
    value = value * radix + d
    digits++
    r.pos++
    if (value > max) {
      r.pos = start
      return undefined
    }
  }
  if (digits === 0) {
    r.pos = start
    return undefined
  }
  return value
}

function readIpv4(r: Reader): number | undefined {
  const start = r.pos
  let n = 0
  for (let i = 0; i < 4; i++) {
    if (i > 0) {
      if (r.peek() !== DOT) {
        r.pos = start
        return undefined
      }
      r.pos++
    }
    const part = readNumber(r, 10, 3, false, 255)
    if (part === undefined) {
      r.pos = start
      return undefined
    }
    n = n * 256 + part
  }
  return n
}

/** Reads up to `limit` 16-bit groups; returns [count, endedWithIpv4]. */
function readGroups(r: Reader, groups: number[], offset: number, limit: number): [number, boolean] {
  for (let i = 0; i < limit; i++) {
    if (i < limit - 1) {
      const save = r.pos
      if (i > 0) {
        if (r.peek() === COLON) r.pos++
        else {
          return [i, false]
        }
      }
      const v4 = readIpv4(r)
      if (v4 !== undefined) {
        groups[offset + i] = Math.floor(v4 / 65536)
        groups[offset + i + 1] = v4 % 65536
        return [i + 2, true]
      }
      r.pos = save
    }
    const save = r.pos
    if (i > 0) {
      if (r.peek() !== COLON) return [i, false]
      r.pos++
    }
    const g = readNumber(r, 16, 4, true, 0xffff)
    if (g === undefined) {
      r.pos = save
      return [i, false]
    }
    groups[offset + i] = g
  }
  return [limit, false]
}

function readIpv6(r: Reader): bigint | undefined {
  const head: number[] = []
  const [headSize, headIpv4] = readGroups(r, head, 0, 8)
  let groups: number[]
  if (headSize === 8) {
    groups = head
  } else {
    if (headIpv4) return undefined
    if (r.s.charCodeAt(r.pos) !== COLON || r.s.charCodeAt(r.pos + 1) !== COLON) return undefined
    r.pos += 2
    const tail: number[] = []
    // `::` stands for at least one group of zeros
    const [tailSize] = readGroups(r, tail, 0, 8 - (headSize + 1))
    groups = new Array<number>(8).fill(0)
    for (let i = 0; i < headSize; i++) groups[i] = head[i] ?? 0
    for (let i = 0; i < tailSize; i++) groups[8 - tailSize + i] = tail[i] ?? 0
  }
  let n = 0n
  for (const g of groups) n = (n << 16n) | BigInt(g)
  return n
}

export function parseIpv4(text: string): Ipv4Address | undefined {
  if (text.length > 15) return undefined
  const r = new Reader(text)
  const n = readIpv4(r)
  return n !== undefined && r.atEnd() ? ipv4(n) : undefined
}

export function parseIpv6(text: string): Ipv6Address | undefined {
  const r = new Reader(text)
  const n = readIpv6(r)
  return n !== undefined && r.atEnd() ? ipv6(n) : undefined
}

/** Parses an IPv4 or IPv6 address exactly as Rust's `IpAddr::from_str` does. */
export function parseIp(text: string): IpAddress | undefined {
  return parseIpv4(text) ?? parseIpv6(text)
}

export function formatIpv4(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
}

/** RFC 5952 text, as Rust's Display prints it (IPv4-mapped addresses in dotted form). */
export function formatIpv6(n: bigint): string {
  const groups: number[] = []
  for (let i = 7; i >= 0; i--) groups.push(Number((n >> BigInt(i * 16)) & 0xffffn))
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const v4 = Number(n & 0xffffffffn)
    return `::ffff:${formatIpv4(v4)}`
  }
  let bestStart = -1
  let bestLen = 0
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i
      bestLen = j - i
    }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart < 0) return hex.join(':')
  const left = hex.slice(0, bestStart).join(':')
  const right = hex.slice(bestStart + bestLen).join(':')
  return `${left}::${right}`
}

export function formatIp(ip: IpAddress): string {
  return ip.family === 4 ? formatIpv4(ip.n) : formatIpv6(ip.n)
}

/** -1, 0, 1, or undefined when the families differ (the vendor's "incomparable"). */
export function compareIp(a: IpAddress, b: IpAddress): number | undefined {
  if (a.family === 4 && b.family === 4) return a.n < b.n ? -1 : a.n > b.n ? 1 : 0
  if (a.family === 6 && b.family === 6) return a.n < b.n ? -1 : a.n > b.n ? 1 : 0
  return undefined
}

export function ipEquals(a: IpAddress, b: IpAddress): boolean {
  return a.family === b.family && a.n === b.n
}

/** The first address of `ip`'s network of `bits` leading bits. */
export function maskIp(ip: IpAddress, bits: number): IpAddress {
  if (ip.family === 4) {
    if (bits <= 0) return ipv4(0)
    if (bits >= 32) return ip
    const mask = (0xffffffff << (32 - bits)) >>> 0
    return ipv4((ip.n & mask) >>> 0)
  }
  if (bits <= 0) return ipv6(0n)
  if (bits >= 128) return ip
  const mask = (MAX_V6 >> BigInt(128 - bits)) << BigInt(128 - bits)
  return ipv6(ip.n & mask)
}

export function lastInNetwork(ip: IpAddress, bits: number): IpAddress {
  if (ip.family === 4) {
    if (bits >= 32) return ip
    const host = bits <= 0 ? 0xffffffff : (0xffffffff >>> bits) >>> 0
    return ipv4((ip.n | host) >>> 0)
  }
  if (bits >= 128) return ip
  const host = bits <= 0 ? MAX_V6 : MAX_V6 >> BigInt(bits)
  return ipv6(ip.n | host)
}

export interface IpRange {
  readonly start: IpAddress
  readonly end: IpAddress
}

/**
 * A set of IPv4 and IPv6 ranges, merged and sorted so that membership is a binary search.
 * Built once per `in {…}` literal or per IP list.
 */
export class IpRangeSet {
  private readonly v4Starts: Float64Array
  private readonly v4Ends: Float64Array
  private readonly v6Starts: bigint[]
  private readonly v6Ends: bigint[]

  constructor(ranges: Iterable<IpRange>) {
    const v4: [number, number][] = []
    const v6: [bigint, bigint][] = []
    for (const { start, end } of ranges) {
      if (start.family === 4 && end.family === 4) v4.push([start.n, end.n])
      else if (start.family === 6 && end.family === 6) v6.push([start.n, end.n])
    }
    v4.sort((a, b) => a[0] - b[0])
    v6.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    const m4 = mergeSortedRanges(v4)
    this.v4Starts = Float64Array.from(m4.map((r) => r[0]))
    this.v4Ends = Float64Array.from(m4.map((r) => r[1]))
    const m6 = mergeSortedBigintRanges(v6)
    this.v6Starts = m6.map((r) => r[0])
    this.v6Ends = m6.map((r) => r[1])
  }

  get size(): number {
    return this.v4Starts.length + this.v6Starts.length
  }

  has(ip: IpAddress): boolean {
    return ip.family === 4
      ? inRanges(this.v4Starts, this.v4Ends, ip.n)
      : inRanges(this.v6Starts, this.v6Ends, ip.n)
  }
}
