// `wildcard` / `strict wildcard` patterns: a whole-value match where `*` stands for any run of
// bytes (crossing `/`), `?` is not special, `\*` is a literal star and `\\` a literal backslash.
// `wildcard` folds ASCII case, `strict wildcard` does not. Matching is linear in the input for
// each literal segment (no backtracking beyond one leftmost search per segment).

import { asciiLower } from './bytes'

export class WildcardError extends Error {}

export interface CompiledWildcard {
  readonly pattern: string
  readonly strict: boolean
  readonly starCount: number
  test(value: string): boolean
  /** the text matched by each `*` (lazy, as the vendor's wildcard_replace), or undefined */
  captures(value: string): string[] | undefined
}

/** Parses a pattern (bytes, after string unescaping) into its literal segments. */
function segmentsOf(pattern: string, starLimit: number): string[] {
  const segments: string[] = []
  let current = ''
  let prevStar = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') {
      const next = pattern[i + 1]
      if (next === undefined) {
        throw new WildcardError(
          `invalid wildcard: wildcard syntax error at position ${i}: incomplete escape sequence at the end of the wildcard`,
        )
      }
      if (next !== '*' && next !== '\\') {
        throw new WildcardError(
          `invalid wildcard: wildcard syntax error at position ${i}: invalid escape sequence`,
        )
      }
      current += next
      i++
      prevStar = false
    } else if (c === '*') {
      segments.push(current)
      current = ''
      if (prevStar) {
        // checked after the star limit, as the vendor does
        segments.push('\u0000double-star')
      }
      prevStar = true
    } else {
      current += c
      prevStar = false
    }
  }
  segments.push(current)
  const stars = segments.filter((s) => s !== '\u0000double-star').length - 1
  if (stars > starLimit) {
    throw new WildcardError(
      `wildcard has ${stars} star metacharacters, but the limit is ${starLimit}`,
    )
  }
  if (segments.includes('\u0000double-star'))
    throw new WildcardError('wildcard contains a double star')
  return segments
}

export function compileWildcard(
  pattern: string,
  strict: boolean,
  starLimit = Infinity,
): CompiledWildcard {
  const raw = segmentsOf(pattern, starLimit)
  const segments = strict ? raw : raw.map(asciiLower)
  const first = segments[0] ?? ''
  const last = segments[segments.length - 1] ?? ''
  const middle = segments.slice(1, -1)
  const starCount = segments.length - 1
  const fold = (v: string) => (strict ? v : asciiLower(v))

  const locate = (value: string): number[] | undefined => {
    // returns [start0, end0, start1, end1, ...] of each star's capture
    if (value.length < first.length + last.length) return undefined
    if (!value.startsWith(first)) return undefined
    const tailStart = value.length - last.length
    if (!value.endsWith(last)) return undefined
    const spans: number[] = []
    let pos = first.length
    for (const seg of middle) {
      const at = value.indexOf(seg, pos)
      if (at < 0 || at + seg.length > tailStart) return undefined
      spans.push(pos, at)
      pos = at + seg.length
    }
    spans.push(pos, tailStart)
    return spans
  }

  if (starCount === 0) {
    return {
      pattern,
      strict,
      starCount,
      test: (value) => fold(value) === first,
      captures: (value) => (fold(value) === first ? [] : undefined),
    }
  }
  const test = (value: string): boolean => {
    if (
      value.length < first.length + last.length ||
      !value.startsWith(first) ||
      !value.endsWith(last)
    )
      return false
    const tailStart = value.length - last.length
    let pos = first.length
    for (const seg of middle) {
      const at = value.indexOf(seg, pos)
      if (at < 0 || at + seg.length > tailStart) return false
      pos = at + seg.length
    }
    return true
  }
  return {
    pattern,
    strict,
    starCount,
    test: strict ? test : (value) => test(asciiLower(value)),
    captures: (value) => {
      const spans = locate(fold(value))
      if (!spans) return undefined
      const out: string[] = []
      for (let i = 0; i < spans.length; i += 2) out.push(value.slice(spans[i], spans[i + 1]))
      return out
    },
  }
}

/** The vendor's error text for an invalid pattern, or undefined. */
export function wildcardError(pattern: string, starLimit = Infinity): string | undefined {
  try {
    segmentsOf(pattern, starLimit)
    return undefined
  } catch (e) {
    if (e instanceof WildcardError) return e.message
    throw e
  }
}
