import { BACKSLASH, DELETE, DOUBLE_QUOTE, SPACE } from './chars'
// Byte strings. The language's Bytes values are held as "binary strings": one UTF-16 code unit
// per byte (0..255). These helpers convert between text, Uint8Array and binary strings without
// any Node API, so the module runs unchanged in the renderer.

const encoder = new TextEncoder()
const decoder = new TextDecoder('utf-8', { fatal: false })
const strictDecoder = new TextDecoder('utf-8', { fatal: true })

// eslint-disable-next-line no-control-regex
const ASCII_ONLY = /^[\x00-\x7f]*$/

/** Binary string of the UTF-8 encoding of `text`. ASCII text is returned unchanged. */
export function utf8Bytes(text: string): string {
  if (ASCII_ONLY.test(text)) return text
  return fromUint8Array(encoder.encode(text))
}

/** Binary string holding exactly the bytes of `bytes`. */
export function fromUint8Array(bytes: Uint8Array): string {
  let out = ''
  const CHUNK = 8192
  for (let i = 0; i < bytes.length; i += CHUNK) {
    // apply() takes the typed array as it is: copying it into an Array first cost 5× the call.
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[])
  }
  return out
}

export function toUint8Array(binary: string): Uint8Array {
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i) & 0xff
  return out
}

/** Text of a binary string read as UTF-8 (invalid sequences become U+FFFD). */
export function bytesToText(binary: string): string {
  if (ASCII_ONLY.test(binary)) return binary
  return decoder.decode(toUint8Array(binary))
}

/** Text of a binary string if it is valid UTF-8, else undefined. */
export function bytesToTextStrict(binary: string): string | undefined {
  if (ASCII_ONLY.test(binary)) return binary
  try {
    return strictDecoder.decode(toUint8Array(binary))
  } catch {
    return undefined
  }
}

export function isAsciiOnly(s: string): boolean {
  return ASCII_ONLY.test(s)
}

/** ASCII-only lower-casing: other bytes are left untouched (vendor's `lower()`). */
const LOWER = /[a-z]/
const HIGH = /[\u0080-\uffff]/
const LATIN1_UPPER = /[\u00c0-\u00de]/
const UPPER_RUNS = /[A-Z]+/g
const LOWER_RUNS = /[a-z]+/g

/**
 * ASCII-only lower-casing: other bytes are left untouched (vendor's `lower()`). The native
 * toLowerCase() is exact on ASCII-only text; with bytes >= 0x80 only the ASCII runs are mapped.
 */
export function asciiLower(s: string): string {
  const lower = s.toLowerCase()
  // toLowerCase() also maps the Latin-1 capitals U+00C0..U+00DE (bytes 0xC0..0xDE), which are not
  // ASCII: only then do the slow, exact thing
  if (lower === s || !LATIN1_UPPER.test(s)) return lower
  return s.replace(UPPER_RUNS, (m) => m.toLowerCase())
}

/** ASCII-only upper-casing (vendor's `upper()`). */
export function asciiUpper(s: string): string {
  if (!LOWER.test(s)) return s
  if (!HIGH.test(s)) return s.toUpperCase()
  return s.replace(LOWER_RUNS, (m) => m.toUpperCase())
}

const HEX = '0123456789ABCDEF'

export function hexByte(b: number): string {
  return (HEX[b >> 4] ?? '0') + (HEX[b & 15] ?? '0')
}

/**
 * A quoted-string literal of the language that denotes exactly these bytes: printable ASCII as
 * is, `"` and `\` escaped, everything else as `\xHH`. Valid UTF-8 sequences of printable
 * characters are kept as text so that printed expressions stay readable.
 */
export function quoteBytes(binary: string): string {
  let out = '"'
  let i = 0
  while (i < binary.length) {
    const c = binary.charCodeAt(i)
    if (c === DOUBLE_QUOTE || c === BACKSLASH) {
      out += '\\' + binary[i]
      i++
    } else if (c >= SPACE && c < DELETE) {
      out += binary[i]
      i++
    } else if (c >= 0xc2 && c <= 0xf4) {
      const len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2
      const seq = binary.slice(i, i + len)
      const text = seq.length === len ? bytesToTextStrict(seq) : undefined
      if (text !== undefined && !/[\p{C}\p{Z}]/u.test(text)) {
        out += text
        i += len
      } else {
        out += '\\x' + hexByte(c)
        i++
      }
    } else {
      out += '\\x' + hexByte(c)
      i++
    }
  }
  return out + '"'
}
