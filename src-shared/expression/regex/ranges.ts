// Sets of code points (or bytes) as sorted ranges: their arithmetic, the ASCII and Perl classes,
// and their text in RE2 syntax.

import type { Ranges } from './tree'

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
    const lo = Math.max(a, 65)
    const hi = Math.min(b, 90)
    if (lo <= hi) extra.push([lo + 32, hi + 32])
    const lo2 = Math.max(a, 97)
    const hi2 = Math.min(b, 122)
    if (lo2 <= hi2) extra.push([lo2 - 32, hi2 - 32])
  }
  return normalize([...r, ...extra])
}

export const ASCII_CLASSES: Record<string, Ranges> = {
  alnum: [
    [48, 57],
    [65, 90],
    [97, 122],
  ],
  alpha: [
    [65, 90],
    [97, 122],
  ],
  ascii: [[0, 127]],
  blank: [
    [9, 9],
    [32, 32],
  ],
  cntrl: [
    [0, 31],
    [127, 127],
  ],
  digit: [[48, 57]],
  graph: [[33, 126]],
  lower: [[97, 122]],
  print: [[32, 126]],
  punct: [
    [33, 47],
    [58, 64],
    [91, 96],
    [123, 126],
  ],
  space: [
    [9, 13],
    [32, 32],
  ],
  upper: [[65, 90]],
  word: [
    [48, 57],
    [65, 90],
    [95, 95],
    [97, 122],
  ],
  xdigit: [
    [48, 57],
    [65, 70],
    [97, 102],
  ],
}

export const PERL_DIGIT: Ranges = [[48, 57]]
export const PERL_SPACE: Ranges = [
  [9, 13],
  [32, 32],
]
export const PERL_WORD = ASCII_CLASSES.word as Ranges

export function cpText(cp: number): string {
  if ((cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122))
    return String.fromCharCode(cp)
  return `\\x{${cp.toString(16)}}`
}

export function rangesText(r: Ranges): string {
  let out = ''
  for (const [a, b] of r) out += a === b ? cpText(a) : `${cpText(a)}-${cpText(b)}`
  return out
}
