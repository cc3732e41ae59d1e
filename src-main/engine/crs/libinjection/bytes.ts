// The bytes libinjection's tokenizers name (html5.ts, xss.ts, sqli-tokenizer.ts), named once.

export const NUL = 0x00
export const TAB = 0x09
export const LF = 0x0a
export const CR = 0x0d
export const SPACE = 0x20
export const BANG = 0x21
export const DOUBLE_QUOTE = 0x22
export const HASH = 0x23
export const PERCENT = 0x25
export const AMPERSAND = 0x26
export const SINGLE_QUOTE = 0x27
export const DASH = 0x2d
export const SLASH = 0x2f
export const SEMICOLON = 0x3b
export const EQUALS = 0x3d
export const GT = 0x3e
export const QUESTION = 0x3f
export const RIGHT_BRACKET = 0x5d
export const BACK_QUOTE = 0x60
