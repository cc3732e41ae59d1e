import { DOT, hexDigitValue, HYPHEN, isAlnum, PERCENT, TILDE, UNDERSCORE } from '../values/chars'
// URL path normalization as the vendor's `http_request_sanitize` phase does it
// (docs/vendor-behaviour.md#url-normalisation): RFC 3986 mode percent-decodes unreserved
// characters, upper-cases the remaining escapes, percent-encodes bytes that may not appear in a
// path and removes dot segments; the vendor's own mode (the default) first turns `\` into `/` and
// merges runs of `/`. Paths are binary strings.

export type NormalizationMode = 'cloudflare' | 'rfc3986' | 'none'

const HEX = '0123456789ABCDEF'

/** RFC 3986's unreserved characters (letters, digits, `-._~`). */
export function isUnreserved(c: number): boolean {
  return isAlnum(c) || c === HYPHEN || c === DOT || c === UNDERSCORE || c === TILDE
}

/** Reserved characters kept as they are (gen-delims and sub-delims). */
const RESERVED = new Set(":/?#[]@!$&'()*+,;=".split('').map((c) => c.charCodeAt(0)))

function encode(c: number): string {
  return '%' + HEX[c >> 4] + HEX[c & 15]
}

function normalizeEscapes(path: string): string {
  let out = ''
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i)
    if (c === PERCENT) {
      const h1 = hexDigitValue(path.charCodeAt(i + 1))
      const h2 = hexDigitValue(path.charCodeAt(i + 2))
      if (h1 >= 0 && h2 >= 0) {
        const b = h1 * 16 + h2
        out += isUnreserved(b) ? String.fromCharCode(b) : encode(b)
        i += 2
      } else {
        out += '%25'
      }
    } else if (isUnreserved(c) || RESERVED.has(c)) {
      out += path[i]
    } else {
      out += encode(c & 0xff)
    }
  }
  return out
}

/** RFC 3986 §5.2.4. */
export function removeDotSegments(path: string): string {
  let input = path
  const output: string[] = []
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3)
    else if (input.startsWith('./')) input = input.slice(2)
    else if (input.startsWith('/./')) input = input.slice(2)
    else if (input === '/.') input = '/'
    else if (input.startsWith('/../')) {
      input = input.slice(3)
      output.pop()
    } else if (input === '/..') {
      input = '/'
      output.pop()
    } else if (input === '.' || input === '..') input = ''
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0)
      const segment = next < 0 ? input : input.slice(0, next)
      output.push(segment)
      input = next < 0 ? '' : input.slice(next)
    }
  }
  return output.join('')
}

export function normalizePath(path: string, mode: NormalizationMode = 'cloudflare'): string {
  if (mode === 'none') return path
  let p = path
  if (mode === 'cloudflare') p = p.replace(/\\/g, '/').replace(/\/{2,}/g, '/')
  p = removeDotSegments(normalizeEscapes(p))
  return p.length === 0 ? '/' : p
}
