// What the vendor's functions compute on binary-string values (docs/vendor-behaviour.md#functions):
// URL and base64 decoding, JSON lookups, regex_replace()'s replacement syntax, UUIDs, HMAC
// validity; functions.ts gives them their signatures.

import type { FunctionParam } from '../scheme/functions'
import { bytesToText, utf8Bytes } from '../values/bytes'
import { formatIp } from '../values/ip'
import { parseJson, type JsonValue } from '../values/json'
import { hmacSha256 } from '../values/sha256'
import type { IpAddress, Type, Value } from '../values/types'
import { hexDigitValue, LOWER_U, PERCENT, PLUS, UPPER_U } from '../values/chars'

// Runs of plain bytes are copied whole (one slice per run, not one concatenation per byte).
function urlDecodeOnce(s: string, unicode: boolean): string {
  if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return s
  let out = ''
  let run = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c !== PLUS && c !== PERCENT) continue
    if (c === PLUS) {
      out += s.slice(run, i) + ' '
      run = i + 1
      continue
    }
    const h1 = hexDigitValue(s.charCodeAt(i + 1))
    const h2 = hexDigitValue(s.charCodeAt(i + 2))
    if (h1 >= 0 && h2 >= 0) {
      out += s.slice(run, i) + String.fromCharCode(h1 * 16 + h2)
      i += 2
      run = i + 1
      continue
    }
    const u = s.charCodeAt(i + 1)
    if (unicode && (u === LOWER_U || u === UPPER_U)) {
      const hex = s.slice(i + 2, i + 6)
      if (/^[0-9a-fA-F]{4}$/.test(hex)) {
        let cp = parseInt(hex, 16)
        let consumed = 6
        if (
          cp >= 0xd800 &&
          cp <= 0xdbff &&
          s[i + 6] === '%' &&
          /^[uU][0-9a-fA-F]{4}$/.test(s.slice(i + 7, i + 12))
        ) {
          const lo = parseInt(s.slice(i + 8, i + 12), 16)
          if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00)
            consumed = 12
          }
        }
        out +=
          s.slice(run, i) +
          utf8Bytes(String.fromCodePoint(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp))
        i += consumed - 1
        run = i + 1
      }
    }
  }
  return out + s.slice(run)
}

export function urlDecode(s: string, options = ''): string {
  const unicode = options.includes('u')
  if (!options.includes('r')) return urlDecodeOnce(s, unicode)
  let cur = s
  for (let i = 0; i < 32; i++) {
    const next = urlDecodeOnce(cur, unicode)
    if (next === cur) return cur
    cur = next
  }
  return cur
}

let jsonCacheInput: string | undefined
let jsonCacheValue: JsonValue | undefined

export function jsonOf(binary: string): JsonValue | undefined {
  if (binary !== jsonCacheInput) {
    jsonCacheInput = binary
    jsonCacheValue = parseJson(bytesToText(binary))
  }
  return jsonCacheValue
}

export function jsonPath(params: readonly FunctionParam[]): (string | number)[] {
  return params
    .slice(1)
    .map((p) => (typeof p.value === 'number' ? p.value : bytesToText(p.value as string)))
}

export function base64Decode(s: string): string | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined
  try {
    return atob(s)
  } catch {
    return undefined
  }
}

export function base64Encode(s: string, flags: string): string {
  let out = btoa(s)
  if (flags.includes('u')) out = out.replace(/\+/g, '-').replace(/\//g, '_')
  if (!flags.includes('p')) out = out.replace(/=+$/, '')
  return out
}

/** `${N}` references (at most 8) and `$$`; returns the problem with a replacement, if any. */
export function replacementProblem(repl: string, maxGroup: number): string | undefined {
  let refs = 0
  for (let i = 0; i < repl.length; i++) {
    if (repl[i] !== '$') continue
    if (repl[i + 1] === '$') {
      i++
      continue
    }
    const m = /^\$\{([0-9]+)\}/.exec(repl.slice(i))
    if (!m) return `invalid replacement: "$" must be followed by "$" or "{N}"`
    if (Number(m[1]) > maxGroup)
      return `invalid replacement: reference \${${m[1]}} to a missing capture group`
    if (++refs > 8) return 'invalid replacement: at most 8 capture references'
    i += m[0].length - 1
  }
  return undefined
}

export function expandReplacement(repl: string, groups: readonly (string | undefined)[]): string {
  let out = ''
  for (let i = 0; i < repl.length; i++) {
    const c = repl[i]
    if (c !== '$') {
      out += c
      continue
    }
    if (repl[i + 1] === '$') {
      out += '$'
      i++
      continue
    }
    const m = /^\$\{([0-9]+)\}/.exec(repl.slice(i))
    if (m) {
      out += groups[Number(m[1])] ?? ''
      i += m[0].length - 1
    }
  }
  return out
}

export function uuidFrom(seed: string): string {
  const bytes: number[] = []
  for (let i = 0; i < 16; i++) bytes.push(seed.charCodeAt(i % Math.max(1, seed.length)) & 0xff)
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export function valueToString(type: Type, v: Value): string {
  if (type === 'Ip') return formatIp(v as IpAddress)
  if (type === 'Bool') return v ? 'true' : 'false'
  return String(v)
}

export function hmacValid(
  key: string,
  messageMac: string,
  ttl: number,
  now: number,
  sepLen: number,
  flags: string,
): boolean {
  // MessageMAC: message, separator, 10-digit timestamp, '-', base64 MAC of 43+ characters
  for (
    let dash = messageMac.lastIndexOf('-');
    dash >= 11;
    dash = messageMac.lastIndexOf('-', dash - 1)
  ) {
    const mac = messageMac.slice(dash + 1)
    if (mac.length < 43) continue
    const ts = messageMac.slice(dash - 10, dash)
    if (!/^[0-9]{10}$/.test(ts)) continue
    const head = messageMac.slice(0, dash - 10)
    if (head.length < sepLen + 1) continue
    const message = head.slice(0, head.length - sepLen)
    const raw = flags.includes('s')
      ? mac.replace(/-/g, '+').replace(/_/g, '/')
      : urlDecode(mac).replace(/=+$/, '')
    const expected = btoa(hmacSha256(key, message + ts)).replace(/=+$/, '')
    const issued = Number(ts)
    return raw.replace(/=+$/, '') === expected && now >= issued && now - issued <= ttl
  }
  return false
}
