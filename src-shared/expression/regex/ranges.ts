// Sets of code points (or bytes) as sorted ranges: their arithmetic, the ASCII and Perl classes,
// and their text in RE2 syntax.

import type { Ranges } from './tree'
import {
  AT_SIGN,
  CARRIAGE_RETURN,
  CASE_BIT,
  COLON,
  DELETE,
  DIGIT_0,
  DIGIT_9,
  EXCLAMATION_MARK,
  GRAVE_ACCENT,
  isAlnum,
  LEFT_BRACE,
  LEFT_BRACKET,
  LOWER_A,
  LOWER_F,
  LOWER_Z,
  SLASH,
  SPACE,
  TAB,
  TILDE,
  UNDERSCORE,
  UPPER_A,
  UPPER_F,
  UPPER_Z,
} from '../values/chars'

export function normalize(r: Ranges): Ranges {
  const sorted = r.filter(([a, b]) => a <= b).sort((x, y) => x[0] - y[0])
  const out: Ranges = []
  for (const [a, b] of sorted) {
    const last = out[out.length - 1]
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b)
    else out.push([a, b])
  }
  return out
}

export function negateRanges(r: Ranges, max: number): Ranges {
  const out: Ranges = []
  let next = 0
  for (const [a, b] of normalize(r)) {
    if (a > next) out.push([next, a - 1])
    next = b + 1
  }
  if (next <= max) out.push([next, max])
  return out
}

export function intersectRanges(a: Ranges, b: Ranges, max: number): Ranges {
  return negateRanges([...negateRanges(a, max), ...negateRanges(b, max)], max)
}

export function differenceRanges(a: Ranges, b: Ranges, max: number): Ranges {
  return intersectRanges(a, negateRanges(b, max), max)
}

export function symdiffRanges(a: Ranges, b: Ranges, max: number): Ranges {
  return normalize([...differenceRanges(a, b, max), ...differenceRanges(b, a, max)])
}

/** Adds the other ASCII case of every ASCII letter in the set. */
export function asciiFold(r: Ranges): Ranges {
  const extra: Ranges = []
  for (const [a, b] of r) {
    const lo = Math.max(a, UPPER_A)
    const hi = Math.min(b, UPPER_Z)
    if (lo <= hi) extra.push([lo + CASE_BIT, hi + CASE_BIT])
    const lo2 = Math.max(a, LOWER_A)
    const hi2 = Math.min(b, LOWER_Z)
    if (lo2 <= hi2) extra.push([lo2 - CASE_BIT, hi2 - CASE_BIT])
  }
  return normalize([...r, ...extra])
}

export const ASCII_CLASSES: Record<string, Ranges> = {
  alnum: [
    [DIGIT_0, DIGIT_9],
    [UPPER_A, UPPER_Z],
    [LOWER_A, LOWER_Z],
  ],
  alpha: [
    [UPPER_A, UPPER_Z],
    [LOWER_A, LOWER_Z],
  ],
  ascii: [[0, DELETE]],
  blank: [
    [TAB, TAB],
    [SPACE, SPACE],
  ],
  cntrl: [
    [0, SPACE - 1],
    [DELETE, DELETE],
  ],
  digit: [[DIGIT_0, DIGIT_9]],
  graph: [[EXCLAMATION_MARK, TILDE]],
  lower: [[LOWER_A, LOWER_Z]],
  print: [[SPACE, TILDE]],
  punct: [
    [EXCLAMATION_MARK, SLASH],
    [COLON, AT_SIGN],
    [LEFT_BRACKET, GRAVE_ACCENT],
    [LEFT_BRACE, TILDE],
  ],
  space: [
    [TAB, CARRIAGE_RETURN],
    [SPACE, SPACE],
  ],
  upper: [[UPPER_A, UPPER_Z]],
  word: [
    [DIGIT_0, DIGIT_9],
    [UPPER_A, UPPER_Z],
    [UNDERSCORE, UNDERSCORE],
    [LOWER_A, LOWER_Z],
  ],
  xdigit: [
    [DIGIT_0, DIGIT_9],
    [UPPER_A, UPPER_F],
    [LOWER_A, LOWER_F],
  ],
}

export const PERL_DIGIT: Ranges = [[DIGIT_0, DIGIT_9]]
export const PERL_SPACE: Ranges = [
  [TAB, CARRIAGE_RETURN],
  [SPACE, SPACE],
]
export const PERL_WORD = ASCII_CLASSES.word as Ranges

export function cpText(cp: number): string {
  if (isAlnum(cp)) return String.fromCharCode(cp)
  return `\\x{${cp.toString(16)}}`
}

export function rangesText(r: Ranges): string {
  let out = ''
  for (const [a, b] of r) out += a === b ? cpText(a) : `${cpText(a)}-${cpText(b)}`
  return out
}
