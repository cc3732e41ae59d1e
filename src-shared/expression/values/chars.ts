// Character codes by name, and the ASCII classes built on them, for the scanners that compare code
// units (the lexer, the regex parser, JSON, IP addresses, URL decoding and normalisation): a
// test reads `c === RIGHT_PAREN`, not `c === 41`. Codes are ASCII's (RFC 20,
// https://www.rfc-editor.org/rfc/rfc20).

export const BELL = 0x07
export const TAB = 0x09
export const LINE_FEED = 0x0a
export const VERTICAL_TAB = 0x0b
export const FORM_FEED = 0x0c
export const CARRIAGE_RETURN = 0x0d
export const SPACE = 0x20
export const EXCLAMATION_MARK = 0x21
export const DOUBLE_QUOTE = 0x22
export const HASH = 0x23
export const DOLLAR = 0x24
export const PERCENT = 0x25
export const AMPERSAND = 0x26
export const LEFT_PAREN = 0x28
export const RIGHT_PAREN = 0x29
export const ASTERISK = 0x2a
export const PLUS = 0x2b
export const COMMA = 0x2c
export const HYPHEN = 0x2d
export const DOT = 0x2e
export const SLASH = 0x2f
export const DIGIT_0 = 0x30
export const DIGIT_7 = 0x37
export const DIGIT_9 = 0x39
export const COLON = 0x3a
export const LESS_THAN = 0x3c
export const EQUALS = 0x3d
export const GREATER_THAN = 0x3e
export const QUESTION_MARK = 0x3f
export const AT_SIGN = 0x40
export const UPPER_A = 0x41
export const UPPER_B = 0x42
export const UPPER_D = 0x44
export const UPPER_F = 0x46
export const UPPER_P = 0x50
export const UPPER_R = 0x52
export const UPPER_S = 0x53
export const UPPER_U = 0x55
export const UPPER_W = 0x57
export const UPPER_Z = 0x5a
export const LEFT_BRACKET = 0x5b
export const BACKSLASH = 0x5c
export const RIGHT_BRACKET = 0x5d
export const CARET = 0x5e
export const UNDERSCORE = 0x5f
export const GRAVE_ACCENT = 0x60
export const LOWER_A = 0x61
export const LOWER_B = 0x62
export const LOWER_D = 0x64
export const LOWER_F = 0x66
export const LOWER_I = 0x69
export const LOWER_M = 0x6d
export const LOWER_N = 0x6e
export const LOWER_P = 0x70
export const LOWER_R = 0x72
export const LOWER_S = 0x73
export const LOWER_T = 0x74
export const LOWER_U = 0x75
export const LOWER_V = 0x76
export const LOWER_W = 0x77
export const LOWER_X = 0x78
export const LOWER_Z = 0x7a
export const LEFT_BRACE = 0x7b
export const VERTICAL_BAR = 0x7c
export const RIGHT_BRACE = 0x7d
export const TILDE = 0x7e
export const DELETE = 0x7f

/** The distance from an ASCII upper-case letter to its lower-case one. */
export const CASE_BIT = 0x20

export function isDigit(c: number): boolean {
  return c >= DIGIT_0 && c <= DIGIT_9
}

export function isUpper(c: number): boolean {
  return c >= UPPER_A && c <= UPPER_Z
}

export function isLower(c: number): boolean {
  return c >= LOWER_A && c <= LOWER_Z
}

/** An ASCII letter, of either case. */
export function isLetter(c: number): boolean {
  return isUpper(c) || isLower(c)
}

export function isAlnum(c: number): boolean {
  return isDigit(c) || isLetter(c)
}

/** A letter, digit or `_`: a character of an identifier, and of `\w` in ASCII. */
export function isWordChar(c: number): boolean {
  return isAlnum(c) || c === UNDERSCORE
}

export function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= UPPER_A && c <= UPPER_F) || (c >= LOWER_A && c <= LOWER_F)
}

/** The value of a hexadecimal digit, or -1. */
export function hexDigitValue(c: number): number {
  if (isDigit(c)) return c - DIGIT_0
  if (c >= LOWER_A && c <= LOWER_F) return c - LOWER_A + 10
  if (c >= UPPER_A && c <= UPPER_F) return c - UPPER_A + 10
  return -1
}
