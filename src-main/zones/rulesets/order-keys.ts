// Order keys: strings whose byte order (SQLite's BINARY collation) is the order of a ruleset's
// rules, so that a rule placed between two others gets a key between theirs and no other rule's
// key changes. The scheme is David Greenspan's fractional indexing as the `fractional-indexing`
// package implements it (https://observablehq.com/@dgreensp/implementing-fractional-indexing):
// a key is an integer part, whose first character says how many digits follow ('a' one, 'b'
// two, … ; 'Z' one, 'Y' two, … below them), and an optional fraction with no trailing zero.
// Keys made at the ends step the integer, so a ruleset built by appending (or prepending) keeps
// keys a few characters long; only keys squeezed between two neighbours grow, by a character per
// about six halvings of the same gap.

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const BASE = DIGITS.length
const ZERO = DIGITS[0]!
/** The key of a ruleset's first rule. */
const FIRST_KEY = `a${ZERO}`

const digitValue = (char: string | undefined): number =>
  char === undefined ? 0 : DIGITS.indexOf(char)

/** How many characters the integer part headed by `head` takes, head included. */
function integerLength(head: string): number {
  if (head >= 'a' && head <= 'z') return head.charCodeAt(0) - 'a'.charCodeAt(0) + 2
  if (head >= 'A' && head <= 'Z') return 'Z'.charCodeAt(0) - head.charCodeAt(0) + 2
  throw new Error(`Order key head ${head} is not a letter`)
}

function integerPart(key: string): string {
  const length = integerLength(key[0] ?? '')
  if (length > key.length) throw new Error(`Order key ${key} is shorter than its integer part`)
  return key.slice(0, length)
}

/** A string that sorts strictly between fractions `a` and `b` (null: above every fraction). */
function midpoint(a: string, b: string | null): string {
  if (b !== null) {
    let shared = 0
    while ((a[shared] ?? ZERO) === b[shared]) shared++
    if (shared > 0) return b.slice(0, shared) + midpoint(a.slice(shared), b.slice(shared))
  }
  const low = digitValue(a[0])
  const high = b === null ? BASE : digitValue(b[0])
  if (high - low > 1) return DIGITS[Math.round((low + high) / 2)]!
  if (b !== null && b.length > 1) return b.slice(0, 1)
  return DIGITS[low]! + midpoint(a.slice(1), null)
}

/** The integer after (`step` 1) or before (-1) `integer`; null past the largest or smallest. */
function stepInteger(integer: string, step: 1 | -1): string | null {
  const head = integer[0]!
  const digits = integer.slice(1).split('')
  const [carryFrom, carryTo] = step === 1 ? [BASE - 1, 0] : [0, BASE - 1]
  let at = digits.length - 1
  while (at >= 0 && digitValue(digits[at]) === carryFrom) digits[at--] = DIGITS[carryTo]!
  if (at >= 0) {
    digits[at] = DIGITS[digitValue(digits[at]) + step]!
    return head + digits.join('')
  }
  // Every digit carried: the integer needs one digit more (or, stepping down, one fewer).
  const nextHead = String.fromCharCode(head.charCodeAt(0) + step)
  if (nextHead === '{' || nextHead === '@') return null
  if (head === 'a' && step === -1) return `Z${DIGITS[BASE - 1]}`
  if (head === 'Z' && step === 1) return `a${ZERO}`
  return nextHead + DIGITS[carryTo]!.repeat(integerLength(nextHead) - 1)
}

/** A key strictly between `a` and `b`; null for an open end. */
export function keyBetween(a: string | null, b: string | null): string {
  if (a !== null && b !== null && a >= b) throw new Error(`Order key ${a} is not below ${b}`)
  if (a === null) {
    if (b === null) return FIRST_KEY
    const integer = integerPart(b)
    const fraction = b.slice(integer.length)
    if (fraction !== '') return integer
    const below = stepInteger(integer, -1)
    if (below === null) throw new Error(`No order key is below ${b}`)
    return below
  }
  const integer = integerPart(a)
  const fraction = a.slice(integer.length)
  if (b !== null && integerPart(b) === integer) {
    return integer + midpoint(fraction, b.slice(integer.length))
  }
  const above = stepInteger(integer, 1)
  if (above === null || (b !== null && above >= b)) return integer + midpoint(fraction, null)
  return above
}

/**
 * `count` keys in order, strictly between `a` and `b`. Between two keys they are made by halving
 * the gap recursively, so their length grows with log(count), not with count.
 */
export function keysBetween(a: string | null, b: string | null, count: number): string[] {
  if (count === 0) return []
  if (a === null || b === null) {
    const keys: string[] = []
    if (b === null) {
      let previous = a
      for (let i = 0; i < count; i++) keys.push((previous = keyBetween(previous, null)))
      return keys
    }
    let next: string = b
    for (let i = 0; i < count; i++) keys.unshift((next = keyBetween(null, next)))
    return keys
  }
  const half = Math.floor(count / 2)
  const middle = keyBetween(a, b)
  return [...keysBetween(a, middle, half), middle, ...keysBetween(middle, b, count - half - 1)]
}
