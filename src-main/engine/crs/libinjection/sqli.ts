// libinjection's SQLi detection (3.9.2, as ModSecurity 2.9.7 bundles it for @detectSQLi): the
// input is tokenized (sqli-tokenizer.ts), the tokens are folded into at most five, their types
// make a fingerprint, and the input is SQLi when the fingerprint is in libinjection's table and
// its false-positive heuristics do not clear it. libinjection_sqli tries the input as is, then
// as if it began inside a single- and a double-quoted string, in ANSI SQL and, where the first
// pass saw `#` or `--x`, MySQL. Algorithm: https://github.com/client9/libinjection (see LICENSE).
//
// One piece over 500 lines: folding, the fingerprint and the false-positive heuristics all read
// the same window of at most five tokens (SqliFolding), and the heuristics decide on what the
// folding kept; the token-type sets above the class are its own vocabulary.
import { FLAG, lookupWord, SqliToken, SqliTokenizer, TOKEN_VALUE_MAX, TYPE } from './sqli-tokenizer'

/** A fingerprint has at most this many tokens. */
const MAX_TOKENS = 5

const FUNCTIONS_THAT_NAME_COLUMNS = new Set([
  // Transact-SQL functions common enough as column names
  'USER_ID',
  'USER_NAME',
  // MySQL functions
  'DATABASE',
  'PASSWORD',
  'USER',
  // words that are variables and functions (current_user is one in T-SQL:
  // https://learn.microsoft.com/en-us/sql/t-sql/functions/current-user-transact-sql)
  'CURRENT_USER',
  'CURRENT_DATE',
  'CURRENT_TIME',
  'CURRENT_TIMESTAMP',
  'LOCALTIME',
  'LOCALTIMESTAMP',
])

/** Whether a token's value, with a-z upper-cased, is `word`. */
function valueIs(token: SqliToken, word: string): boolean {
  return token.len === word.length && upperAscii(token.val) === word
}

/** `value` with a-z upper-cased and every other byte kept (toUpperCase would change some). */
function upperAscii(value: string): string {
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) {
      return value.replace(/[a-z]+/g, (letters) => letters.toUpperCase())
    }
  }
  return value.toUpperCase()
}

function isUnaryOperator(token: SqliToken): boolean {
  if (token.type !== TYPE.OPERATOR) return false
  const value = token.val
  switch (token.len) {
    case 1:
      return value === '+' || value === '-' || value === '!' || value === '~'
    case 2:
      return value === '!!'
    case 3:
      return upperAscii(value) === 'NOT'
    default:
      return false
  }
}

function isArithmeticOperator(token: SqliToken): boolean {
  const value = token.val
  return (
    token.type === TYPE.OPERATOR &&
    token.len === 1 &&
    (value === '*' || value === '/' || value === '-' || value === '+' || value === '%')
  )
}

/** Whether a token's type is one of a string's type letters, as libinjection's strchr tests. */
function typeIn(token: SqliToken, types: string): boolean {
  return token.type.length === 1 && types.includes(token.type)
}

const OPERATORS = 'o&'
const NAME_OR_VARIABLE = 'nv'
const AFTER_SQLTYPE = 'n1t(fvs'
const NAME_OR_NUMBER = 'n1'
const VALUE = 'n1vs'
const VARIABLE_OPERAND = 'v1n'
const AFTER_UNARY_IN_LIST = 'EB,'
const BEFORE_UNARY = 'kEB'
const UNARY_OPERAND = '1nvsf'

/** Five-token starts that folding drops (see restartAfterKnownFiveTokens). */
const RESTARTING_FIVE = ['1o(1)', '1,(1)', 'no(n)', 'no(1)', '1),(1', 'n)o(n']

const MERGE_FIRST = 'knoUfEtT'
const MERGE_SECOND = 'knoUfEtT&'

/**
 * One pass of libinjection over an input in one context: tokens folded into the fingerprint's
 * tokens. `tokens` has room for the five kept and the one folding reads ahead (eight, as in
 * libinjection's state).
 */
export class SqliFolding {
  readonly tokens = Array.from({ length: MAX_TOKENS + 3 }, () => new SqliToken())
  readonly tokenizer = new SqliTokenizer('', 0)
  private readonly lastComment = new SqliToken()
  private more = true
  /** where the next token goes */
  private pos = 0
  /** how many tokens are settled (part of the fingerprint) */
  private left = 0

  constructor(input: string, flags: number) {
    this.start(input, flags)
  }

  /** Starts a pass over `input` (a pass's tokens and counts are kept until the next start). */
  start(input: string, flags: number): void {
    this.tokenizer.start(input, flags)
    for (const token of this.tokens) token.clear()
    this.lastComment.clear()
    this.more = true
    this.pos = 0
    this.left = 0
  }

  private token(i: number): SqliToken {
    return this.tokens[i]!
  }

  /** Folds the input; answers how many tokens make the fingerprint. */
  fold(): number {
    const first = this.token(0)
    // Leading comments, left parentheses, SQL types and unary operators are skipped.
    do {
      this.more = this.tokenizer.next(first)
    } while (
      first.type === TYPE.COMMENT ||
      first.type === TYPE.LEFTPARENS ||
      first.type === TYPE.SQLTYPE ||
      isUnaryOperator(first)
    )
    if (!this.more) return 0
    this.pos = 1

    for (;;) {
      if (this.pos >= MAX_TOKENS) this.restartAfterKnownFiveTokens()
      if (!this.more || this.left >= MAX_TOKENS) {
        this.left = this.pos
        break
      }
      this.readUpTo(2)
      if (this.pos - this.left < 2) {
        this.left = this.pos
        continue
      }
      const pair = this.foldPair()
      if (pair === 'evil') return this.left + 2
      if (pair === 'folded') continue
      this.readUpTo(3)
      if (this.pos - this.left < 3) {
        this.left = this.pos
        continue
      }
      if (this.foldTriple()) continue
      this.left += 1
    }

    if (this.left < MAX_TOKENS && this.lastComment.type === TYPE.COMMENT) {
      this.token(this.left).copyFrom(this.lastComment)
      this.left += 1
    }
    // Folding may have read a sixth token to type the fifth.
    return Math.min(this.left, MAX_TOKENS)
  }

  /**
   * Five tokens that look like the start of a value list or arithmetic (`1,(1)`, `n=(n)`,
   * `1),(1`, `n)=(n`) are dropped, keeping the look-ahead token if there is one.
   */
  private restartAfterKnownFiveTokens(): void {
    let known = false
    for (const pattern of RESTARTING_FIVE) known ||= this.startsWith(pattern)
    if (!known) return
    if (this.pos > MAX_TOKENS) {
      this.token(1).copyFrom(this.token(MAX_TOKENS))
      this.pos = 2
    } else {
      this.pos = 1
    }
    this.left = 0
  }

  private startsWith(types: string): boolean {
    for (let i = 0; i < types.length; i++) if (this.token(i).type !== types[i]) return false
    return true
  }

  /** Reads tokens until `count` are unsettled (comments are kept aside, only the last one). */
  private readUpTo(count: number): void {
    while (this.more && this.pos <= MAX_TOKENS && this.pos - this.left < count) {
      const current = this.token(this.pos)
      this.more = this.tokenizer.next(current)
      if (!this.more) break
      if (current.type === TYPE.COMMENT) {
        this.lastComment.copyFrom(current)
      } else {
        this.lastComment.type = TYPE.NONE
        this.pos += 1
      }
    }
  }

  /** The two-token rules on tokens[left], tokens[left + 1]. */
  private foldPair(): 'folded' | 'evil' | 'none' {
    const a = this.token(this.left)
    const b = this.token(this.left + 1)
    if (
      (a.type === TYPE.STRING && b.type === TYPE.STRING) ||
      (a.type === TYPE.SEMICOLON && b.type === TYPE.SEMICOLON)
    ) {
      // "foo" "bar" is one string; repeated semicolons are one
      this.pos -= 1
      return 'folded'
    }
    if (typeIn(a, OPERATORS) && (isUnaryOperator(b) || b.type === TYPE.SQLTYPE)) {
      this.pos -= 1
      this.left = 0
      return 'folded'
    }
    if (
      (a.type === TYPE.LEFTPARENS && isUnaryOperator(b)) ||
      this.mergeWords(a, b) // UNION + ALL → UNION ALL
    ) {
      this.pos -= 1
      if (this.left > 0) this.left -= 1
      return 'folded'
    }
    if (
      a.type === TYPE.SEMICOLON &&
      b.type === TYPE.FUNCTION &&
      upperAscii(b.val).startsWith('IF')
    ) {
      // IF after a semicolon is Transact-SQL's statement, not the function
      b.type = TYPE.TSQL
      return 'folded'
    }
    if (
      typeIn(a, NAME_OR_VARIABLE) &&
      b.type === TYPE.LEFTPARENS &&
      FUNCTIONS_THAT_NAME_COLUMNS.has(upperAscii(a.val))
    ) {
      a.type = TYPE.FUNCTION
      return 'folded'
    }
    if (a.type === TYPE.KEYWORD && (valueIs(a, 'IN') || valueIs(a, 'NOT IN'))) {
      // IN ( is an operator; otherwise (IN BOOLEAN MODE) a word that may merge later
      a.type = b.type === TYPE.LEFTPARENS ? TYPE.OPERATOR : TYPE.BAREWORD
      return 'folded'
    }
    if (a.type === TYPE.OPERATOR && (valueIs(a, 'LIKE') || valueIs(a, 'NOT LIKE'))) {
      if (b.type === TYPE.LEFTPARENS) a.type = TYPE.FUNCTION
      return 'none'
    }
    if (a.type === TYPE.SQLTYPE && typeIn(b, AFTER_SQLTYPE)) {
      a.copyFrom(b)
      this.pos -= 1
      this.left = 0
      return 'folded'
    }
    if (a.type === TYPE.COLLATE && b.type === TYPE.BAREWORD) {
      // too many collations to list: a bare word with '_' after COLLATE is one
      if (b.cValue().includes('_')) {
        b.type = TYPE.SQLTYPE
        this.left = 0
      }
      return 'none'
    }
    if (a.type === TYPE.BACKSLASH) {
      if (isArithmeticOperator(b)) {
        // T-SQL reads \%1 as 0 % 1
        a.type = TYPE.NUMBER
      } else {
        // and \1 as 1
        a.copyFrom(b)
        this.pos -= 1
      }
      this.left = 0
      return 'folded'
    }
    if (
      (a.type === TYPE.LEFTPARENS && b.type === TYPE.LEFTPARENS) ||
      (a.type === TYPE.RIGHTPARENS && b.type === TYPE.RIGHTPARENS)
    ) {
      this.pos -= 1
      this.left = 0
      return 'folded'
    }
    if (a.type === TYPE.LEFTBRACE && b.type === TYPE.BAREWORD) {
      // MySQL's { ``.``.id } cannot be folded: evil. Otherwise ODBC's {foo expr} is expr.
      if (b.len === 0) {
        b.type = TYPE.EVIL
        return 'evil'
      }
      this.left = 0
      this.pos -= 2
      return 'folded'
    }
    if (b.type === TYPE.RIGHTBRACE) {
      this.pos -= 1
      this.left = 0
      return 'folded'
    }
    return 'none'
  }

  /** Merges two words into one when the pair is a phrase of the keyword table. */
  private mergeWords(a: SqliToken, b: SqliToken): boolean {
    if (!typeIn(a, MERGE_FIRST) || !typeIn(b, MERGE_SECOND)) return false
    const length = a.len + b.len + 1
    if (length > TOKEN_VALUE_MAX) return false
    const merged = a.val + ' ' + b.val
    const type = lookupWord(merged)
    if (type === TYPE.NONE) return false
    a.type = type
    a.len = length
    a.val = merged
    return true
  }

  /** The three-token rules on tokens[left .. left + 2]; true when something folded. */
  private foldTriple(): boolean {
    const left = this.left
    const a = this.token(left)
    const b = this.token(left + 1)
    const c = this.token(left + 2)
    if (a.type === TYPE.NUMBER && b.type === TYPE.OPERATOR && c.type === TYPE.NUMBER) {
      return this.dropTwo()
    }
    if (a.type === TYPE.OPERATOR && b.type !== TYPE.LEFTPARENS && c.type === TYPE.OPERATOR) {
      return this.dropTwo()
    }
    if (a.type === TYPE.LOGIC_OPERATOR && c.type === TYPE.LOGIC_OPERATOR) return this.dropTwo()
    if (a.type === TYPE.VARIABLE && b.type === TYPE.OPERATOR && typeIn(c, VARIABLE_OPERAND))
      return this.dropTwo()
    if (typeIn(a, NAME_OR_NUMBER) && b.type === TYPE.OPERATOR && typeIn(c, NAME_OR_NUMBER))
      return this.dropTwo()
    if (typeIn(a, VALUE) && b.type === TYPE.OPERATOR && b.val === '::' && c.type === TYPE.SQLTYPE) {
      return this.dropTwo()
    }
    if (typeIn(a, VALUE) && b.type === TYPE.COMMA && typeIn(c, VALUE)) return this.dropTwo()
    // SELECT + (, LIMIT + (, , + (: the unary operator goes
    if (typeIn(a, AFTER_UNARY_IN_LIST) && isUnaryOperator(b) && c.type === TYPE.LEFTPARENS)
      return this.dropMiddle(b, c)
    // SELECT - 1
    if (typeIn(a, BEFORE_UNARY) && isUnaryOperator(b) && typeIn(c, UNARY_OPERAND))
      return this.dropMiddle(b, c)
    if (a.type === TYPE.COMMA && isUnaryOperator(b) && typeIn(c, VALUE)) {
      // ", -1" becomes ",1", and backs up one more token so that "1,-1" folds to "1"
      b.copyFrom(c)
      this.left = 0
      this.pos -= 3
      return true
    }
    // 1,-sin(1) → 1,sin(1)
    if (a.type === TYPE.COMMA && isUnaryOperator(b) && c.type === TYPE.FUNCTION)
      return this.dropMiddle(b, c)
    // database.table
    if (a.type === TYPE.BAREWORD && b.type === TYPE.DOT && c.type === TYPE.BAREWORD) {
      return this.dropTwo()
    }
    // SELECT . `foo` → SELECT `foo`
    if (a.type === TYPE.EXPRESSION && b.type === TYPE.DOT && c.type === TYPE.BAREWORD) {
      return this.dropMiddle(b, c)
    }
    if (a.type === TYPE.FUNCTION && b.type === TYPE.LEFTPARENS && c.type !== TYPE.RIGHTPARENS) {
      // USER() takes no argument, so USER(foo) is not that function
      if (valueIs(a, 'USER')) a.type = TYPE.BAREWORD
    }
    return false
  }

  /** Drops the last two tokens and starts settling again from the first. */
  private dropTwo(): true {
    this.pos -= 2
    this.left = 0
    return true
  }

  /** The third of three tokens takes the second's place. */
  private dropMiddle(second: SqliToken, third: SqliToken): true {
    second.copyFrom(third)
    this.pos -= 1
    this.left = 0
    return true
  }

  /**
   * The fingerprint: the folded tokens' types. A PHP-style unclosed empty backtick at the end is a
   * comment; any evil token makes the whole fingerprint "X".
   */
  fingerprint(): string {
    const count = this.fold()
    const last = count > 2 ? this.token(count - 1) : undefined
    if (
      last &&
      last.type === TYPE.BAREWORD &&
      last.strOpen === '`' &&
      last.len === 0 &&
      last.strClose === ''
    ) {
      last.type = TYPE.COMMENT
    }
    let fingerprint = ''
    for (let i = 0; i < count; i++) {
      const type = this.token(i).type
      if (type === TYPE.NONE) break
      fingerprint += type
    }
    if (fingerprint.includes(TYPE.EVIL)) {
      const first = this.token(0)
      first.type = TYPE.EVIL
      first.val = TYPE.EVIL
      this.token(1).type = TYPE.NONE
      return TYPE.EVIL
    }
    return fingerprint
  }
}

/** Whether libinjection's table lists the fingerprint (compared with a-z upper-cased). */
function listed(fingerprint: string): boolean {
  return fingerprint.length > 0 && lookupWord('0' + fingerprint) === TYPE.FINGERPRINT
}

/**
 * libinjection_sqli_not_whitelist: heuristics that clear listed fingerprints which ordinary
 * text produces too. True when the input stays SQLi.
 */
function stillSqli(input: string, pass: SqliFolding, fingerprint: string): boolean {
  const tokens = pass.tokens
  const stats = pass.tokenizer
  const length = fingerprint.length
  // SQL Server's audit log leaves out statements that mention sp_password.
  if (length > 1 && fingerprint[length - 1] === TYPE.COMMENT && input.includes('sp_password')) {
    return true
  }
  const first = tokens[0]!
  const second = tokens[1]!
  if (length === 2) {
    if (fingerprint[1] === TYPE.UNION) return stats.statsTokens !== 2
    const commentStart = second.val.charCodeAt(0)
    if (commentStart === 0x23) return false
    if (first.type === TYPE.BAREWORD && second.type === TYPE.COMMENT && commentStart !== 0x2f) {
      return false
    }
    if (first.type === TYPE.NUMBER && second.type === TYPE.COMMENT) {
      if (commentStart === 0x2f) return true
      if (stats.statsTokens > 2) return true
      // "1234 --", "1/*" and "1--" are SQLi. libinjection reads the byte at the number's (kept)
      // length as if the number began the input (so " 1 --" is not), and its char is signed.
      const after = byteAt(input, first.len)
      if (after <= 32 || after > 0x7f) return true
      const next = byteAt(input, first.len + 1)
      if (after === 0x2f && next === 0x2a) return true
      if (after === 0x2d && next === 0x2d) return true
      return false
    }
    // "1--" is a scan; "--" in the middle of text is common
    if (second.len > 2 && commentStart === 0x2d) return false
    return true
  }
  if (length === 3) {
    if (fingerprint === 'sos' || fingerprint === 's&s') {
      // ...foo' + 'bar...: no opening quote, no closing quote, the same quote between
      const third = tokens[2]!
      return first.strOpen === '' && third.strClose === '' && first.strClose === third.strOpen
    }
    if (/^(?:s&n|n&1|1&1|1&v|1&s)$/.test(fingerprint)) {
      // 'sexy and 17' is not SQLi, 'sexy and 17<18' is
      return stats.statsTokens !== 3
    }
    if (second.type === TYPE.KEYWORD) {
      // only INTO OUTFILE and INTO DUMPFILE (MySQL)
      return second.len >= 5 && upperAscii(second.val.substring(0, 4)) === 'INTO'
    }
  }
  return true
}

/** The byte at `index`, or 0 past the end (the C string's terminating NUL). */
function byteAt(input: string, index: number): number {
  return index < input.length ? input.charCodeAt(index) : 0
}

/** The passes' state, reused: detection allocates nothing per pass but the tokens' values. */
const scratch = new SqliFolding('', 0)

/** One pass in the given context: its fingerprint when it is SQLi. */
function sqliPass(input: string, flags: number): string | undefined {
  scratch.start(input, flags)
  const fingerprint = scratch.fingerprint()
  return listed(fingerprint) && stillSqli(input, scratch, fingerprint) ? fingerprint : undefined
}

/** Whether the last pass saw `#` or `--x`, which MySQL reads otherwise. */
function readsAsMysql(): boolean {
  return scratch.tokenizer.statsCommentDdx > 0 || scratch.tokenizer.statsCommentHash > 0
}

/**
 * One word of letters, digits and `_` not beginning with a digit, or digits alone: every pass reads
 * it as one token (a bare word, a keyword, a number), whose one-letter fingerprint libinjection's
 * table does not hold (its only one is `X`, which no such token has). Many values are such (names,
 * ids, numbers); they need no pass.
 */
const ONE_TOKEN = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+)$/

/**
 * libinjection_sqli: the fingerprint (up to five token types) when `input`, a binary string,
 * is SQL injection, else undefined.
 */
export function detectSqli(input: string): string | undefined {
  if (input.length === 0 || ONE_TOKEN.test(input)) return undefined
  return sqliPasses(input)
}

/** libinjection_sqli's passes over the input, as detectSqli runs them on all but one token. */
export function sqliPasses(input: string): string | undefined {
  const plain = sqliPass(input, FLAG.QUOTE_NONE | FLAG.SQL_ANSI)
  if (plain !== undefined) return plain
  if (readsAsMysql()) {
    const mysql = sqliPass(input, FLAG.QUOTE_NONE | FLAG.SQL_MYSQL)
    if (mysql !== undefined) return mysql
  }
  if (input.includes("'")) {
    const single = sqliPass(input, FLAG.QUOTE_SINGLE | FLAG.SQL_ANSI)
    if (single !== undefined) return single
    if (readsAsMysql()) {
      const mysql = sqliPass(input, FLAG.QUOTE_SINGLE | FLAG.SQL_MYSQL)
      if (mysql !== undefined) return mysql
    }
  }
  if (input.includes('"')) return sqliPass(input, FLAG.QUOTE_DOUBLE | FLAG.SQL_MYSQL)
  return undefined
}
