// A small SQLite tokenizer: enough to split a script into statements and to see which names,
// functions and pragmas a statement uses (better-sqlite3 offers no authorizer to ask SQLite).

export type TokenKind =
  | 'word' // keyword or bare identifier
  | 'quoted' // "identifier", `identifier` or [identifier]
  | 'string' // 'literal' or x'blob'
  | 'number'
  | 'parameter' // ?, ?NNN, :name, @name, $name
  | 'semicolon'
  | 'symbol'

export interface Token {
  kind: TokenKind
  /** The source text of the token. */
  text: string
  /** For words and quoted names: the name, unquoted; for strings: the literal's content. */
  value: string
  /** Offset in the source, in UTF-16 code units. */
  offset: number
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/
const CLOSING_QUOTE: Record<string, string> = { '"': '"', '`': '`', '[': ']' }

/** Tokenizes `sql`, skipping whitespace and comments. Unterminated quotes run to the end. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < sql.length) {
    const char = sql[i] ?? ''
    const start = i
    if (/\s/.test(char)) {
      i++
    } else if (char === '-' && sql[i + 1] === '-') {
      const newline = sql.indexOf('\n', i)
      i = newline === -1 ? sql.length : newline + 1
    } else if (char === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2)
      i = close === -1 ? sql.length : close + 2
    } else if (char === "'" || ((char === 'x' || char === 'X') && sql[i + 1] === "'")) {
      const quoteAt = char === "'" ? i : i + 1
      i = endOfQuoted(sql, quoteAt, "'")
      tokens.push(token('string', sql, start, i, unquote(sql.slice(quoteAt, i), "'")))
    } else if (char in CLOSING_QUOTE) {
      const closing = CLOSING_QUOTE[char] ?? char
      i = endOfQuoted(sql, i, closing)
      tokens.push(token('quoted', sql, start, i, unquote(sql.slice(start, i), closing)))
    } else if (WORD_START.test(char)) {
      while (i < sql.length && WORD_PART.test(sql[i] ?? '')) i++
      tokens.push(token('word', sql, start, i))
    } else if (/[0-9]/.test(char) || (char === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      while (i < sql.length && /[0-9A-Za-z_.]/.test(sql[i] ?? '')) i++
      tokens.push(token('number', sql, start, i))
    } else if (char === '?' || char === ':' || char === '@' || char === '$') {
      i++
      while (i < sql.length && WORD_PART.test(sql[i] ?? '')) i++
      tokens.push(token('parameter', sql, start, i))
    } else if (char === ';') {
      i++
      tokens.push(token('semicolon', sql, start, i))
    } else {
      i++
      tokens.push(token('symbol', sql, start, i))
    }
  }
  return tokens
}

function token(kind: TokenKind, sql: string, start: number, end: number, value?: string): Token {
  const text = sql.slice(start, end)
  return { kind, text, value: value ?? text, offset: start }
}

// Index just past the closing quote; a doubled quote inside stands for one quote character.
function endOfQuoted(sql: string, openAt: number, closing: string): number {
  let i = openAt + 1
  while (i < sql.length) {
    if (sql[i] === closing) {
      if (closing !== ']' && sql[i + 1] === closing) i += 2
      else return i + 1
    } else {
      i++
    }
  }
  return sql.length
}

function unquote(quoted: string, closing: string): string {
  const inner = quoted.slice(1, quoted.endsWith(closing) ? -1 : undefined)
  return closing === ']' ? inner : inner.split(closing + closing).join(closing)
}

/** Upper-case text of a word token, or '' for any other token (keywords are case-insensitive). */
export function keyword(token: Token | undefined): string {
  return token?.kind === 'word' ? token.text.toUpperCase() : ''
}
