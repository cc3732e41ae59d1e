// Which characters a transformation can act on (transformations.ts): a value holding none of them
// comes out of it unchanged, so the transformation cache (transformation-cache.ts) need not run
// it. Most request values are plain words and numbers, which most of CRS's chains leave as they
// are. Classes of characters are bits; a value's classes are read once per request.

const UPPER = 1 << 0
/** `%` and `+` */
const URL_ESCAPE = 1 << 1
const AMPERSAND = 1 << 2
const BACKSLASH = 1 << 3
const NUL = 1 << 4
/** 0x80..0xff */
const HIGH = 1 << 5
/** above 0xff: no byte, which the byte-writing transformations change */
const WIDE = 1 << 6
/** C's isspace() and NBSP */
const SPACE = 1 << 7
/** `"`, `'`, `^`, `,` and `;`, which cmdLine removes or makes a space */
const SHELL = 1 << 8
const SLASH = 1 << 9
/** `*`, `<`, `-` and `#`, which with `/` make the comment markers */
const COMMENT = 1 << 10
const DOT = 1 << 11
/** every value's, plain words too */
const VALUE = 1 << 12
/** every class: a transformation that may change any value */
const ANY = -1

/** By byte: its classes. */
const BYTE_CLASSES = new Uint16Array(256)
BYTE_CLASSES.fill(UPPER, 0x41, 0x5b)
BYTE_CLASSES.fill(HIGH, 0x80, 0x100)
for (const c of '%+') BYTE_CLASSES[c.charCodeAt(0)] = URL_ESCAPE
for (const c of '"\'^,;') BYTE_CLASSES[c.charCodeAt(0)] = SHELL
for (const c of '*<-#') BYTE_CLASSES[c.charCodeAt(0)] = COMMENT
for (const c of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20]) BYTE_CLASSES[c] = SPACE
BYTE_CLASSES[0xa0] = HIGH | SPACE
BYTE_CLASSES[0x26] = AMPERSAND
BYTE_CLASSES[0x5c] = BACKSLASH
BYTE_CLASSES[0x00] = NUL
BYTE_CLASSES[0x2f] = SLASH
BYTE_CLASSES[0x2e] = DOT

/** The classes of the characters of a value. */
export function classesOf(value: string): number {
  let classes = VALUE
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    classes |= c < 0x100 ? BYTE_CLASSES[c]! : WIDE
  }
  return classes
}

/** By transformation (lower-case name): the classes it acts on; those not named act on any. */
const SCOPES = new Map<string, number>([
  ['urldecode', URL_ESCAPE],
  ['urldecodeuni', URL_ESCAPE],
  ['htmlentitydecode', AMPERSAND],
  ['jsdecode', BACKSLASH],
  ['cssdecode', BACKSLASH],
  ['escapeseqdecode', BACKSLASH],
  ['utf8tounicode', NUL | HIGH | WIDE],
  ['removenulls', NUL],
  ['replacenulls', NUL],
  ['cmdline', NUL | SHELL | BACKSLASH | UPPER | SPACE | WIDE],
  ['compresswhitespace', SPACE | WIDE],
  ['removewhitespace', SPACE | WIDE],
  ['replacecomments', SLASH],
  ['removecomments', SLASH | COMMENT | WIDE],
  ['removecommentschar', SLASH | COMMENT | WIDE],
  ['normalisepath', DOT | SLASH],
  ['normalizepath', DOT | SLASH],
  ['normalisepathwin', DOT | SLASH | BACKSLASH],
  ['normalizepathwin', DOT | SLASH | BACKSLASH],
  ['lowercase', UPPER | WIDE],
  ['trim', SPACE],
  ['trimleft', SPACE],
  ['trimright', SPACE],
])

/** The classes a transformation acts on: a value without any of them it leaves unchanged. */
export function scopeOf(name: string): number {
  return SCOPES.get(name.toLowerCase()) ?? ANY
}

/** The transformations given a scope narrower than any value (lower-case names). */
export function scopedTransformations(): string[] {
  return [...SCOPES.keys()]
}
