// libinjection's SQL tokenizer (3.9.2, as ModSecurity 2.9.7 bundles it), written for binary
// strings: one UTF-16 code unit per byte. It splits an input into typed tokens the way
// libinjection_sqli_tokenize does, in any of its contexts (as is, or as if it began inside a
// single- or double-quoted string) and SQL dialects (ANSI, MySQL), quirks included, since
// @detectSQLi's answer depends on them. The algorithm is described in
// https://github.com/client9/libinjection/blob/master/src/libinjection_sqli.c; the character
// classes, keywords and fingerprints are its data, converted into sqli-data.json (see LICENSE).
//
// One piece over 500 lines: one class, the tokenizer, whose parse steps (one per character
// class, chosen by the CLASS_OF table) all read and advance its one position and write its
// current token, as libinjection_sqli.c's parse_* functions share their state.
import { BACK_QUOTE, DOUBLE_QUOTE, NUL, SINGLE_QUOTE } from './bytes'
import data from './sqli-data.json'

/** The character class of each byte 0..255, naming the tokenizer step that starts there. */
const CHAR_CLASSES: readonly string[] = data.charClasses
/** Upper-cased keywords, functions, operators and phrases, each with its token type. */
const KEYWORDS: Readonly<Record<string, string>> = data.keywords
/** Upper-cased fingerprints (token-type sequences) that libinjection reports as SQLi. */
const FINGERPRINTS: readonly string[] = data.fingerprints

/** Token types: the characters of a fingerprint. */
export const TYPE = {
  NONE: '',
  KEYWORD: 'k',
  UNION: 'U',
  GROUP: 'B',
  EXPRESSION: 'E',
  SQLTYPE: 't',
  FUNCTION: 'f',
  BAREWORD: 'n',
  NUMBER: '1',
  VARIABLE: 'v',
  STRING: 's',
  OPERATOR: 'o',
  LOGIC_OPERATOR: '&',
  COMMENT: 'c',
  COLLATE: 'A',
  LEFTPARENS: '(',
  RIGHTPARENS: ')',
  LEFTBRACE: '{',
  RIGHTBRACE: '}',
  DOT: '.',
  COMMA: ',',
  COLON: ':',
  SEMICOLON: ';',
  TSQL: 'T',
  UNKNOWN: '?',
  EVIL: 'X',
  FINGERPRINT: 'F',
  BACKSLASH: '\\',
} as const

/** The context and dialect of one tokenizer pass (libinjection's FLAG_* bits). */
export const FLAG = {
  QUOTE_NONE: 1,
  QUOTE_SINGLE: 2,
  QUOTE_DOUBLE: 4,
  SQL_ANSI: 8,
  SQL_MYSQL: 16,
} as const

/** A token keeps at most this many characters of its value (libinjection's `char val[32]`). */
export const TOKEN_VALUE_MAX = 31

/**
 * One token. `val` holds at most TOKEN_VALUE_MAX characters and `len` is its length; `pos` is
 * where the value starts in the input. Strings keep their opening and closing delimiter
 * (`''` when there was none), variables how many `@` began them.
 */
export class SqliToken {
  type: string = TYPE.NONE
  pos = 0
  len = 0
  val = ''
  strOpen = ''
  strClose = ''
  count = 0

  clear(): void {
    this.type = TYPE.NONE
    this.pos = 0
    this.len = 0
    this.val = ''
    this.strOpen = ''
    this.strClose = ''
    this.count = 0
  }

  /** Sets type and position, and the value from `input` (cut to TOKEN_VALUE_MAX characters). */
  assign(type: string, input: string, pos: number, len: number): void {
    const kept = len < TOKEN_VALUE_MAX ? len : TOKEN_VALUE_MAX
    this.type = type
    this.pos = pos
    this.len = kept
    this.val = input.substring(pos, pos + kept)
  }

  copyFrom(other: SqliToken): void {
    this.type = other.type
    this.pos = other.pos
    this.len = other.len
    this.val = other.val
    this.strOpen = other.strOpen
    this.strClose = other.strClose
    this.count = other.count
  }

  /** The value as C reads it: up to its first NUL byte. */
  cValue(): string {
    const nul = this.val.indexOf('\0')
    return nul < 0 ? this.val : this.val.substring(0, nul)
  }
}

const WORDS = new Map<string, string>(Object.entries(KEYWORDS))
// libinjection keeps the fingerprints in the keyword table as '0' + fingerprint, typed 'F'.
for (const fingerprint of FINGERPRINTS) WORDS.set('0' + fingerprint, TYPE.FINGERPRINT)
const LONGEST_WORD = Math.max(...[...WORDS.keys()].map((word) => word.length))

function upperCode(code: number): number {
  return code >= 0x61 && code <= 0x7a ? code - 0x20 : code
}

/** A word's length, first and last byte (upper-cased), as an index into SKETCHES. */
function sketch(length: number, first: number, last: number): number {
  return (length << 12) | ((upperCode(first) & 0x3f) << 6) | (upperCode(last) & 0x3f)
}

/** Marks the sketch of every word, so that most words that are none are told without a copy. */
const SKETCHES = new Uint8Array((LONGEST_WORD + 1) << 12)
for (const word of WORDS.keys()) {
  SKETCHES[sketch(word.length, word.charCodeAt(0), word.charCodeAt(word.length - 1))] = 1
}

/**
 * The type of `text` from `start` to `end` as a word (keyword, function, operator, phrase or
 * '0'-prefixed fingerprint), or ''. Words are compared with a-z upper-cased and nothing else
 * (libinjection's cstrcasecmp), so a string with a NUL or a byte above 0x7f is never one.
 */
export function lookupWord(text: string, start = 0, end = text.length): string {
  const length = end - start
  if (length <= 0 || length > LONGEST_WORD) return TYPE.NONE
  const first = text.charCodeAt(start)
  if (SKETCHES[sketch(length, first, text.charCodeAt(end - 1))] !== 1) return TYPE.NONE
  let lowerCase = false
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i)
    if (code === NUL || code > 0x7f) return TYPE.NONE
    if (code >= 0x61 && code <= 0x7a) lowerCase = true
  }
  const word = start === 0 && end === text.length ? text : text.substring(start, end)
  return WORDS.get(lowerCase ? word.toUpperCase() : word) ?? TYPE.NONE
}

/** Bytes in a set as a 256-entry table; NUL is always in it (libinjection tests with strchr). */
function byteSet(chars: string): Uint8Array {
  const set = new Uint8Array(256)
  for (let i = 0; i < chars.length; i++) set[chars.charCodeAt(i)] = 1
  set[NUL] = 1
  return set
}

const WHITE = byteSet(' \t\n\v\f\r\u00a0')
const WORD_END = byteSet(' []{}<>:\\?=@!#~+-*/&|^%(),\';\t\n\v\f\r"\u00a0')
const VARIABLE_END = byteSet(' <>:\\?=@!#~+-*/&|^%(),\';\t\n\v\f\r`"')
const BINARY_DIGITS = byteSet('01')
const HEX_DIGITS = byteSet('0123456789ABCDEFabcdef')
const MONEY_DIGITS = byteSet('0123456789.,')
const LETTERS = byteSet('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')

function inSet(set: Uint8Array, code: number): boolean {
  return code < 256 && set[code] === 1
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39
}

/**
 * One tokenizer pass over an input. `next(token)` fills `token` with the next token and answers
 * whether there was one. The pass counts what detection's heuristics ask about: tokens produced,
 * `#` seen, and `--x` comments read as ANSI comments.
 */
export class SqliTokenizer {
  input = ''
  flags = 0
  pos = 0
  statsTokens = 0
  statsCommentHash = 0
  statsCommentDdx = 0
  private token = new SqliToken()

  constructor(input: string, flags: number) {
    this.start(input, flags)
  }

  /** Starts over on `input` in the context and dialect of `flags`. */
  start(input: string, flags: number): void {
    this.input = input
    this.flags = flags
    this.pos = 0
    this.statsTokens = 0
    this.statsCommentHash = 0
    this.statsCommentDdx = 0
  }

  next(token: SqliToken): boolean {
    const input = this.input
    const length = input.length
    if (length === 0) return false
    token.clear()
    this.token = token
    if (this.pos === 0 && (this.flags & (FLAG.QUOTE_SINGLE | FLAG.QUOTE_DOUBLE)) !== 0) {
      const delimiter = this.flags & FLAG.QUOTE_SINGLE ? SINGLE_QUOTE : DOUBLE_QUOTE
      this.pos = this.quoted(0, delimiter, 0)
      this.statsTokens += 1
      return true
    }
    while (this.pos < length) {
      const code = input.charCodeAt(this.pos)
      // A code unit above 0xff (the input is not a binary string) reads as a word character.
      this.pos = this.step(code < 256 ? CLASS_OF[code]! : CHAR_WORD)
      if (token.type !== TYPE.NONE) {
        this.statsTokens += 1
        return true
      }
    }
    return false
  }

  private step(charClass: number): number {
    switch (charClass) {
      case CHAR_WHITE:
        return this.pos + 1
      case CHAR_WORD:
        return this.word(this.pos)
      case CHAR_OP1:
      case CHAR_UNARY:
        return this.singleOperator()
      case CHAR_OP2:
      case CHAR_BANG:
        return this.operator()
      case CHAR_BACK:
        return this.backslash()
      case CHAR_DASH:
        return this.dash()
      case CHAR_STR:
        return this.quoted(this.pos, this.input.charCodeAt(this.pos), 1)
      case CHAR_HASH:
        return this.hash()
      case CHAR_NUM:
        return this.number()
      case CHAR_SLASH:
        return this.slash()
      case CHAR_PUNCTUATION:
        return this.punctuation()
      case CHAR_VAR:
        return this.variable()
      case CHAR_OTHER:
        return this.unknown()
      case CHAR_MONEY:
        return this.money()
      case CHAR_TICK:
        return this.backtick(this.pos)
      case CHAR_USTRING:
        return this.unicodeString()
      case CHAR_QSTRING:
        return this.oracleQString(0)
      case CHAR_NQSTRING:
        return this.nationalString()
      case CHAR_XSTRING:
        return this.bitString(HEX_DIGITS)
      case CHAR_BSTRING:
        return this.bitString(BINARY_DIGITS)
      case CHAR_ESTRING:
        return this.escapeString()
      case CHAR_BWORD:
        return this.bracketWord()
      default:
        throw new Error(`libinjection: character class ${charClass} has no tokenizer step`)
    }
  }

  private char(pos: number): number {
    return this.input.charCodeAt(pos)
  }

  /** One-character token whose type is the character itself: ( ) , ; { }. */
  private punctuation(): number {
    const pos = this.pos
    this.token.assign(this.input[pos]!, this.input, pos, 1)
    return pos + 1
  }

  private singleOperator(): number {
    this.token.assign(TYPE.OPERATOR, this.input, this.pos, 1)
    return this.pos + 1
  }

  private unknown(): number {
    this.token.assign(TYPE.UNKNOWN, this.input, this.pos, 1)
    return this.pos + 1
  }

  /** Comment to the end of the line (the newline is consumed, not kept). */
  private lineComment(): number {
    const pos = this.pos
    const newline = this.input.indexOf('\n', pos)
    const end = newline < 0 ? this.input.length : newline
    this.token.assign(TYPE.COMMENT, this.input, pos, end - pos)
    return newline < 0 ? end : newline + 1
  }

  /** `#` is an operator in ANSI SQL and a line comment in MySQL. */
  private hash(): number {
    this.statsCommentHash += 1
    if (this.flags & FLAG.SQL_MYSQL) {
      this.statsCommentHash += 1
      return this.lineComment()
    }
    this.token.assign(TYPE.OPERATOR, this.input, this.pos, 1)
    return this.pos + 1
  }

  /**
   * `--` then white space or the end is a comment everywhere; `--x` is a comment in ANSI SQL and
   * two minus signs in MySQL; a lone `-` is an operator.
   */
  private dash(): number {
    const pos = this.pos
    const length = this.input.length
    const doubled = pos + 1 < length && this.char(pos + 1) === 0x2d
    if (doubled && pos + 2 < length && inSet(WHITE, this.char(pos + 2))) return this.lineComment()
    if (doubled && pos + 2 === length) return this.lineComment()
    if (doubled && this.flags & FLAG.SQL_ANSI) {
      this.statsCommentDdx += 1
      return this.lineComment()
    }
    this.token.assign(TYPE.OPERATOR, this.input, pos, 1)
    return pos + 1
  }

  /**
   * `/` alone is an operator; `/*` opens a comment to the next `*\/` (or the end). A comment that
   * holds another `/*` (PostgreSQL nests them) or is a MySQL `/*!` comment is evil: no
   * fingerprint can describe it.
   */
  private slash(): number {
    const input = this.input
    const pos = this.pos
    if (pos + 1 === input.length || this.char(pos + 1) !== 0x2a) return this.singleOperator()
    const close = input.indexOf('*/', pos + 2)
    const length = close < 0 ? input.length - pos : close + 2 - pos
    let type: string = TYPE.COMMENT
    // libinjection looks for a nested opening only before a closing it found.
    const nested = close < 0 ? -1 : input.indexOf('/*', pos + 2)
    if (nested >= 0 && nested < close) type = TYPE.EVIL
    else if (pos + 2 < input.length && this.char(pos + 2) === 0x21) type = TYPE.EVIL
    this.token.assign(type, input, pos, length)
    return pos + length
  }

  /** `\N` is MySQL's NULL; any other backslash is a token of its own. */
  private backslash(): number {
    const pos = this.pos
    if (pos + 1 < this.input.length && this.char(pos + 1) === 0x4e) {
      this.token.assign(TYPE.NUMBER, this.input, pos, 2)
      return pos + 2
    }
    this.token.assign(TYPE.BACKSLASH, this.input, pos, 1)
    return pos + 1
  }

  /** `<=>`, a two-character operator of the keyword table, `:`, or a one-character operator. */
  private operator(): number {
    const input = this.input
    const pos = this.pos
    if (pos + 1 >= input.length) return this.singleOperator()
    if (pos + 2 < input.length && input.startsWith('<=>', pos)) {
      this.token.assign(TYPE.OPERATOR, input, pos, 3)
      return pos + 3
    }
    const type = lookupWord(input, pos, pos + 2)
    if (type !== TYPE.NONE) {
      this.token.assign(type, input, pos, 2)
      return pos + 2
    }
    if (this.char(pos) === 0x3a) {
      this.token.assign(TYPE.COLON, input, pos, 1)
      return pos + 1
    }
    return this.singleOperator()
  }

  /**
   * A string from `pos + offset` to the next unescaped `delimiter` (a backslash before it, or a
   * doubled delimiter, escapes it), or to the end. An offset of 0 is the string the quote
   * contexts pretend the input opened.
   */
  private quoted(pos: number, delimiter: number, offset: number): number {
    const input = this.input
    const token = this.token
    const start = pos + offset
    const quote = String.fromCharCode(delimiter)
    token.strOpen = offset > 0 ? quote : ''
    let at = input.indexOf(quote, start)
    while (at >= 0) {
      if (this.escapedByBackslashes(at, start)) {
        at = input.indexOf(quote, at + 1)
      } else if (at + 1 < input.length && this.char(at + 1) === delimiter) {
        at = input.indexOf(quote, at + 2)
      } else {
        token.assign(TYPE.STRING, input, start, at - start)
        token.strClose = quote
        return at + 1
      }
    }
    token.assign(TYPE.STRING, input, start, input.length - start)
    token.strClose = ''
    return input.length
  }

  /** Whether an odd number of backslashes (not before `start`) precedes `at`. */
  private escapedByBackslashes(at: number, start: number): boolean {
    let i = at - 1
    while (i >= start && this.char(i) === 0x5c) i--
    return (at - 1 - i) % 2 === 1
  }

  /** E'…' (PostgreSQL) and N'…' (MySQL): a string opened by the quote after the letter. */
  private escapeString(): number {
    const pos = this.pos
    if (pos + 2 >= this.input.length || this.char(pos + 1) !== SINGLE_QUOTE) return this.word(pos)
    return this.quoted(pos, SINGLE_QUOTE, 2)
  }

  /** U&'…' (a Unicode string), else a word. */
  private unicodeString(): number {
    const pos = this.pos
    const input = this.input
    if (
      pos + 2 < input.length &&
      this.char(pos + 1) === 0x26 &&
      this.char(pos + 2) === SINGLE_QUOTE
    ) {
      const end = this.quoted(pos + 2, SINGLE_QUOTE, 1)
      this.token.strOpen = 'u'
      if (this.token.strClose === "'") this.token.strClose = 'u'
      return end
    }
    return this.word(pos)
  }

  /** N'…' goes as E'…'; nq'…' as Oracle's q-string. */
  private nationalString(): number {
    const pos = this.pos
    if (pos + 2 < this.input.length && this.char(pos + 1) === SINGLE_QUOTE)
      return this.escapeString()
    return this.oracleQString(1)
  }

  /**
   * Oracle's q'<delim>…<delim>' (after `offset` letters): the delimiter is any printable ASCII
   * character, brackets closing with their pair; else the letters start a word.
   */
  private oracleQString(offset: number): number {
    const input = this.input
    const pos = this.pos + offset
    const length = input.length
    if (pos >= length) return this.word(this.pos)
    const q = this.char(pos)
    if ((q !== 0x71 && q !== 0x51) || pos + 2 >= length || this.char(pos + 1) !== SINGLE_QUOTE) {
      return this.word(this.pos)
    }
    const open = this.char(pos + 2)
    // libinjection's char is signed: bytes above 0x7f are below 33 too.
    if (open < 33 || open > 0x7f) return this.word(this.pos)
    const close = CLOSING_BRACKET.get(open) ?? open
    const end = input.indexOf(String.fromCharCode(close) + "'", pos + 3)
    const token = this.token
    token.assign(TYPE.STRING, input, pos + 3, (end < 0 ? length : end) - pos - 3)
    token.strOpen = 'q'
    token.strClose = end < 0 ? '' : 'q'
    return end < 0 ? length : end + 2
  }

  /** b'0101' and x'1f' literals are numbers; without their closing quote, a word. */
  private bitString(digits: Uint8Array): number {
    const input = this.input
    const pos = this.pos
    if (pos + 2 >= input.length || this.char(pos + 1) !== SINGLE_QUOTE) return this.word(pos)
    const end = this.span(pos + 2, digits)
    if (end >= input.length || this.char(end) !== SINGLE_QUOTE) return this.word(pos)
    this.token.assign(TYPE.NUMBER, input, pos, end + 1 - pos)
    return end + 1
  }

  /** SQL Server's [bracketed name], to `]` or the end. */
  private bracketWord(): number {
    const input = this.input
    const pos = this.pos
    const close = input.indexOf(']', pos)
    const end = close < 0 ? input.length : close + 1
    this.token.assign(TYPE.BAREWORD, input, pos, end - pos)
    return end
  }

  /** The first position from `pos` whose byte is not in `set`. */
  private span(pos: number, set: Uint8Array): number {
    const length = this.input.length
    while (pos < length && inSet(set, this.char(pos))) pos++
    return pos
  }

  /**
   * A word runs to the next separator. If a keyword stands before a `.` or a backtick inside it
   * (`SELECT.1`, SELECT`x`), the token is that keyword alone; otherwise the whole word is looked
   * up (when short enough to be kept whole), else it is a bare word.
   */
  private word(pos: number): number {
    const input = this.input
    const length = input.length
    let end = pos
    while (end < length && !inSet(WORD_END, this.char(end))) end++
    const token = this.token
    token.assign(TYPE.BAREWORD, input, pos, end - pos)
    const value = token.val
    for (let i = 0; i < token.len; i++) {
      const code = value.charCodeAt(i)
      if (code === 0x2e || code === BACK_QUOTE) {
        const type = lookupWord(value, 0, i)
        if (type !== TYPE.NONE && type !== TYPE.BAREWORD) {
          token.clear()
          token.assign(type, input, pos, i)
          return pos + i
        }
      }
    }
    if (end - pos <= TOKEN_VALUE_MAX) {
      const type = lookupWord(value)
      token.type = type === TYPE.NONE ? TYPE.BAREWORD : type
    }
    return end
  }

  /** MySQL's `name`: a bare word, or a function if the table says so. */
  private backtick(pos: number): number {
    const end = this.quoted(pos, BACK_QUOTE, 1)
    const token = this.token
    token.type = lookupWord(token.val) === TYPE.FUNCTION ? TYPE.FUNCTION : TYPE.BAREWORD
    return end
  }

  /** @name or @@name; the name may be quoted (@@`version`, @'x'). */
  private variable(): number {
    const input = this.input
    const length = input.length
    const token = this.token
    let pos = this.pos + 1
    if (pos < length && this.char(pos) === 0x40) {
      pos += 1
      token.count = 2
    } else {
      token.count = 1
    }
    if (pos < length) {
      const code = this.char(pos)
      if (code === BACK_QUOTE || code === SINGLE_QUOTE || code === DOUBLE_QUOTE) {
        const end = code === BACK_QUOTE ? this.backtick(pos) : this.quoted(pos, code, 1)
        token.type = TYPE.VARIABLE
        return end
      }
    }
    let end = pos
    while (end < length && !inSet(VARIABLE_END, this.char(end))) end++
    token.assign(TYPE.VARIABLE, input, pos, end - pos)
    return end
  }

  /**
   * `$` starts money ($1,000.00: a number), PostgreSQL's $$…$$ and $tag$…$tag$ strings, or is a
   * bare word of its own.
   */
  private money(): number {
    const input = this.input
    const length = input.length
    const pos = this.pos
    const token = this.token
    if (pos + 1 === length) {
      token.assign(TYPE.BAREWORD, input, pos, 1)
      return length
    }
    const digitsEnd = this.span(pos + 1, MONEY_DIGITS)
    if (digitsEnd === pos + 2 && this.char(pos + 1) === 0x2e) return this.word(pos)
    if (digitsEnd > pos + 1) {
      token.assign(TYPE.NUMBER, input, pos, digitsEnd - pos)
      return digitsEnd
    }
    if (this.char(pos + 1) === 0x24) {
      const close = input.indexOf('$$', pos + 2)
      return this.dollarString(pos + 2, close < 0 ? -1 : close, 2)
    }
    const tagEnd = this.span(pos + 1, LETTERS)
    if (tagEnd === pos + 1 || tagEnd === length || this.char(tagEnd) !== 0x24) {
      token.assign(TYPE.BAREWORD, input, pos, 1)
      return pos + 1
    }
    // The closing $tag$ is searched for as libinjection 3.9.2 does: from the offset of the tag's
    // length, not from the opening tag, and no further than the input's length less the opening
    // tag's position; a first match before the string's start leaves the string unterminated.
    const tag = input.substring(pos, tagEnd + 1)
    const contentStart = tagEnd + 1
    const searchFrom = tag.length
    const lastStart = length - pos - tag.length
    const found = searchFrom <= lastStart ? input.indexOf(tag, searchFrom) : -1
    const close = found >= 0 && found <= lastStart && found >= contentStart ? found : -1
    return this.dollarString(contentStart, close, tag.length)
  }

  /** A dollar-quoted string from `start` to `close` (or to the end if -1), then its delimiter. */
  private dollarString(start: number, close: number, delimiterLength: number): number {
    const input = this.input
    const token = this.token
    token.assign(TYPE.STRING, input, start, (close < 0 ? input.length : close) - start)
    token.strOpen = '$'
    token.strClose = close < 0 ? '' : '$'
    return close < 0 ? input.length : close + delimiterLength
  }

  /**
   * Numbers: 0x… and 0b… (a bare word when no digit follows), decimals, a lone `.` (a dot token),
   * exponents (`1e` without digits is a bare word), and Oracle's d/f suffix.
   */
  private number(): number {
    const input = this.input
    const length = input.length
    const token = this.token
    const start = this.pos
    if (this.char(start) === 0x30 && start + 1 < length) {
      const radix = this.char(start + 1) | 0x20
      const digits = radix === 0x78 ? HEX_DIGITS : radix === 0x62 ? BINARY_DIGITS : undefined
      if (digits) {
        const end = this.span(start + 2, digits)
        token.assign(end === start + 2 ? TYPE.BAREWORD : TYPE.NUMBER, input, start, end - start)
        return end
      }
    }
    let pos = start
    while (pos < length && isDigit(this.char(pos))) pos++
    if (pos < length && this.char(pos) === 0x2e) {
      pos++
      while (pos < length && isDigit(this.char(pos))) pos++
      if (pos - start === 1) {
        token.assign(TYPE.DOT, input, start, 1)
        return pos
      }
    }
    let exponentWithoutDigits = false
    if (pos < length && (this.char(pos) | 0x20) === 0x65) {
      pos++
      if (pos < length && (this.char(pos) === 0x2b || this.char(pos) === 0x2d)) pos++
      exponentWithoutDigits = true
      while (pos < length && isDigit(this.char(pos))) {
        exponentWithoutDigits = false
        pos++
      }
    }
    if (pos < length) {
      const suffix = this.char(pos) | 0x20
      if (suffix === 0x64 || suffix === 0x66) {
        const after = pos + 1 < length ? this.char(pos + 1) : -1
        // "1.2f" at the end or before white space or ';', and "1fUNION" as "1f UNION".
        if (after === -1 || inSet(WHITE, after) || after === 0x3b || (after | 0x20) === 0x75) {
          pos++
        }
      }
    }
    token.assign(exponentWithoutDigits ? TYPE.BAREWORD : TYPE.NUMBER, input, start, pos - start)
    return pos
  }
}

const CLOSING_BRACKET = new Map([
  [0x28, 0x29],
  [0x5b, 0x5d],
  [0x7b, 0x7d],
  [0x3c, 0x3e],
])

const CHAR_WHITE = 0
const CHAR_WORD = 1
const CHAR_OP1 = 2
const CHAR_UNARY = 3
const CHAR_OP2 = 4
const CHAR_BANG = 5
const CHAR_BACK = 6
const CHAR_DASH = 7
const CHAR_STR = 8
const CHAR_HASH = 9
const CHAR_NUM = 10
const CHAR_SLASH = 11
const CHAR_PUNCTUATION = 12
const CHAR_VAR = 13
const CHAR_OTHER = 14
const CHAR_MONEY = 15
const CHAR_TICK = 16
const CHAR_USTRING = 17
const CHAR_QSTRING = 18
const CHAR_NQSTRING = 19
const CHAR_XSTRING = 20
const CHAR_BSTRING = 21
const CHAR_ESTRING = 22
const CHAR_BWORD = 23

/** The data's class names, each to the tokenizer step that starts there. */
const CLASS_NAMES: Record<string, number> = {
  CHAR_WHITE,
  CHAR_WORD,
  CHAR_OP1,
  CHAR_UNARY,
  CHAR_OP2,
  CHAR_BANG,
  CHAR_BACK,
  CHAR_DASH,
  CHAR_STR,
  CHAR_HASH,
  CHAR_NUM,
  CHAR_SLASH,
  CHAR_SEMICOLON: CHAR_PUNCTUATION,
  CHAR_COMMA: CHAR_PUNCTUATION,
  CHAR_LEFTPARENS: CHAR_PUNCTUATION,
  CHAR_RIGHTPARENS: CHAR_PUNCTUATION,
  CHAR_LEFTBRACE: CHAR_PUNCTUATION,
  CHAR_RIGHTBRACE: CHAR_PUNCTUATION,
  CHAR_VAR,
  CHAR_OTHER,
  CHAR_MONEY,
  CHAR_TICK,
  CHAR_USTRING,
  CHAR_QSTRING,
  CHAR_NQSTRING,
  CHAR_XSTRING,
  CHAR_BSTRING,
  CHAR_ESTRING,
  CHAR_BWORD,
}

const CLASS_OF = Uint8Array.from(CHAR_CLASSES, (name) => {
  const charClass = CLASS_NAMES[name]
  if (charClass === undefined) throw new Error(`libinjection: unknown character class ${name}`)
  return charClass
})
