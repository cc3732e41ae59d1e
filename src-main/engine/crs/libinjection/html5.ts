// Written here from the algorithm of libinjection's HTML5 tokenizer (libinjection_html5.c, v3.9.2
// as bundled in ModSecurity 2.9.7), Copyright (c) 2012-2016 Nick Galbreath, BSD-3-Clause: see
// LICENSE in this folder and https://github.com/client9/libinjection.
//
// It is not a conforming HTML5 tokenizer but libinjection's simplification of one
// (https://html.spec.whatwg.org/multipage/parsing.html#tokenization), with the old-browser quirks
// it adds (NUL ignored in tag names, back-quoted values, `<% … %>` comments) and its own edges:
// @detectXSS's answer depends on those edges, so they are kept exactly, each noted where it is.
// Input is a binary string (one UTF-16 code unit per byte, src-shared/expression/values/bytes.ts).

import {
  BACK_QUOTE,
  BANG,
  CR,
  DASH,
  DOUBLE_QUOTE,
  EQUALS,
  GT,
  NUL,
  PERCENT,
  QUESTION,
  RIGHT_BRACKET,
  SINGLE_QUOTE,
  SLASH,
  SPACE,
  TAB,
} from './bytes'
import { isLetter } from '@shared/expression'

/** The kinds of token, named as libinjection's test vectors print them. */
export const Html5TokenType = {
  DATA_TEXT: 0,
  TAG_NAME_OPEN: 1,
  TAG_NAME_CLOSE: 2,
  TAG_NAME_SELFCLOSE: 3,
  TAG_CLOSE: 5,
  ATTR_NAME: 6,
  ATTR_VALUE: 7,
  TAG_COMMENT: 8,
  DOCTYPE: 9,
} as const
export type Html5TokenType = (typeof Html5TokenType)[keyof typeof Html5TokenType]

/** Where the input is taken to start: in text, or inside an attribute's value of each quoting. */
export const Html5Context = {
  DATA: 0,
  VALUE_NO_QUOTE: 1,
  VALUE_SINGLE_QUOTE: 2,
  VALUE_DOUBLE_QUOTE: 3,
  VALUE_BACK_QUOTE: 4,
} as const
export type Html5Context = (typeof Html5Context)[keyof typeof Html5Context]

const enum State {
  End,
  Data,
  TagOpen,
  EndTagOpen,
  TagName,
  TagNameClose,
  BeforeAttributeName,
  AttributeName,
  AfterAttributeName,
  BeforeAttributeValue,
  ValueQuoted,
  ValueNoQuote,
  AfterValueQuoted,
  SelfClosingStartTag,
  BogusComment,
  PercentComment,
  MarkupDeclarationOpen,
  Comment,
  CData,
  Doctype,
}

const SIGNED_EOF = 0xff

/**
 * Whitespace between attributes. NUL counts too: libinjection tests membership with C's strchr,
 * which also finds a string's terminating NUL. (A NUL inside a tag name is skipped before this.)
 */
function isSpace(c: number): boolean {
  return c === SPACE || (c >= TAB && c <= CR) || c === NUL
}

const CDATA_OPEN = '[CDATA['

/**
 * A pull tokenizer: each next() that answers true leaves one token in type/start/length
 * (offsets into the input, so nothing is copied); false means the input is exhausted.
 */
export class Html5Tokenizer {
  type: Html5TokenType = Html5TokenType.DATA_TEXT
  start = 0
  length = 0
  private input = ''
  private pos = 0
  private state: State = State.Data
  /** Set by `</`; it outlives the tag that set it until a `>` path that clears it, as in the C. */
  private closing = false
  /** The quote that closes the value being read. */
  private quote = '"'

  reset(input: string, context: Html5Context): this {
    this.input = input
    this.pos = 0
    this.closing = false
    this.type = Html5TokenType.DATA_TEXT
    this.start = 0
    this.length = 0
    switch (context) {
      case Html5Context.DATA:
        this.state = State.Data
        break
      case Html5Context.VALUE_NO_QUOTE:
        this.state = State.BeforeAttributeName
        break
      default:
        this.state = State.ValueQuoted
        this.quote =
          context === Html5Context.VALUE_SINGLE_QUOTE
            ? "'"
            : context === Html5Context.VALUE_DOUBLE_QUOTE
              ? '"'
              : '`'
    }
    return this
  }

  private emit(type: Html5TokenType, start: number, end: number, then: State): true {
    this.type = type
    this.start = start
    this.length = end - start
    this.state = then
    return true
  }

  /** The `>` at the position, which closes the tag: its token, and the position past it. */
  private emitTagClose(then: State): true {
    const at = this.pos
    this.pos++
    return this.emit(Html5TokenType.TAG_NAME_CLOSE, at, at + 1, then)
  }

  /**
   * Moves past whitespace; false when that reaches the end of the input, or a 0xFF byte: the C
   * returns the byte as a signed char, and -1 is its end-of-input value.
   */
  private skipSpace(): boolean {
    const s = this.input
    while (this.pos < s.length && isSpace(s.charCodeAt(this.pos))) this.pos++
    return this.pos < s.length && s.charCodeAt(this.pos) !== SIGNED_EOF
  }

  next(): boolean {
    const s = this.input
    const end = s.length
    for (;;) {
      switch (this.state) {
        case State.End:
          return false

        case State.Data: {
          const lt = s.indexOf('<', this.pos)
          if (lt < 0) {
            if (this.pos >= end) return false
            return this.emit(Html5TokenType.DATA_TEXT, this.pos, end, State.End)
          }
          const from = this.pos
          this.pos = lt + 1
          this.state = State.TagOpen
          if (lt > from) return this.emit(Html5TokenType.DATA_TEXT, from, lt, State.TagOpen)
          continue
        }

        case State.TagOpen: {
          if (this.pos >= end) return false
          const c = s.charCodeAt(this.pos)
          if (c === BANG) {
            this.pos++
            this.state = State.MarkupDeclarationOpen
          } else if (c === SLASH) {
            this.pos++
            this.closing = true
            this.state = State.EndTagOpen
          } else if (c === QUESTION) {
            this.pos++
            this.state = State.BogusComment
          } else if (c === PERCENT) {
            // `<% … %>`: not HTML5, but a comment to IE up to 9 and to old Safari.
            this.pos++
            this.state = State.PercentComment
          } else if (isLetter(c) || c === NUL) {
            this.state = State.TagName
          } else {
            // A `<` that opens nothing is text by itself; the text goes on after it.
            return this.emit(Html5TokenType.DATA_TEXT, this.pos - 1, this.pos, State.Data)
          }
          continue
        }

        case State.EndTagOpen: {
          if (this.pos >= end) return false
          const c = s.charCodeAt(this.pos)
          if (c === GT) {
            // `</>` is dropped, and the `>` itself read again as text.
            this.state = State.Data
          } else if (isLetter(c)) {
            this.state = State.TagName
          } else {
            this.closing = false
            this.state = State.BogusComment
          }
          continue
        }

        case State.TagName: {
          const from = this.pos
          for (let i = from; i < end; i++) {
            const c = s.charCodeAt(i)
            // NUL is skipped inside a tag name: old browsers ignored it.
            if (c === NUL) continue
            if (isSpace(c)) {
              this.pos = i + 1
              return this.emit(Html5TokenType.TAG_NAME_OPEN, from, i, State.BeforeAttributeName)
            }
            if (c === SLASH) {
              this.pos = i + 1
              return this.emit(Html5TokenType.TAG_NAME_OPEN, from, i, State.SelfClosingStartTag)
            }
            if (c === GT) {
              if (this.closing) {
                this.closing = false
                this.pos = i + 1
                return this.emit(Html5TokenType.TAG_CLOSE, from, i, State.Data)
              }
              this.pos = i
              return this.emit(Html5TokenType.TAG_NAME_OPEN, from, i, State.TagNameClose)
            }
          }
          return this.emit(Html5TokenType.TAG_NAME_OPEN, from, end, State.End)
        }

        case State.TagNameClose: {
          this.closing = false
          return this.emitTagClose(this.pos + 1 < end ? State.Data : State.End)
        }

        case State.BeforeAttributeName: {
          if (!this.skipSpace()) return false
          const c = s.charCodeAt(this.pos)
          if (c === SLASH) {
            this.pos++
            this.state = State.SelfClosingStartTag
          } else if (c === GT) {
            // Unlike the other ways out of a tag, this one leaves `closing` as it was.
            return this.emitTagClose(State.Data)
          } else {
            this.state = State.AttributeName
          }
          continue
        }

        case State.AttributeName: {
          // The first byte belongs to the name whatever it is (even `=`).
          const from = this.pos
          for (let i = from + 1; i < end; i++) {
            const c = s.charCodeAt(i)
            if (isSpace(c)) {
              this.pos = i + 1
              return this.emit(Html5TokenType.ATTR_NAME, from, i, State.AfterAttributeName)
            }
            if (c === SLASH) {
              this.pos = i + 1
              return this.emit(Html5TokenType.ATTR_NAME, from, i, State.SelfClosingStartTag)
            }
            if (c === EQUALS) {
              this.pos = i + 1
              return this.emit(Html5TokenType.ATTR_NAME, from, i, State.BeforeAttributeValue)
            }
            if (c === GT) {
              this.pos = i
              return this.emit(Html5TokenType.ATTR_NAME, from, i, State.TagNameClose)
            }
          }
          this.pos = end
          return this.emit(Html5TokenType.ATTR_NAME, from, end, State.End)
        }

        case State.AfterAttributeName: {
          if (!this.skipSpace()) return false
          const c = s.charCodeAt(this.pos)
          if (c === SLASH) {
            this.pos++
            this.state = State.SelfClosingStartTag
          } else if (c === EQUALS) {
            this.pos++
            this.state = State.BeforeAttributeValue
          } else if (c === GT) {
            this.state = State.TagNameClose
          } else {
            this.state = State.AttributeName
          }
          continue
        }

        case State.BeforeAttributeValue: {
          if (!this.skipSpace()) {
            this.state = State.End
            return false
          }
          const c = s.charCodeAt(this.pos)
          if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE || c === BACK_QUOTE) {
            // Back quotes delimit values in old IE.
            this.quote = s.charAt(this.pos)
            this.state = State.ValueQuoted
          } else {
            this.state = State.ValueNoQuote
          }
          continue
        }

        case State.ValueQuoted: {
          // At offset 0 the input starts inside the value (a quoted context): no quote to skip.
          if (this.pos > 0) this.pos++
          const from = this.pos
          const close = s.indexOf(this.quote, from)
          if (close < 0) return this.emit(Html5TokenType.ATTR_VALUE, from, end, State.End)
          this.pos = close + 1
          return this.emit(Html5TokenType.ATTR_VALUE, from, close, State.AfterValueQuoted)
        }

        case State.ValueNoQuote: {
          const from = this.pos
          for (let i = from; i < end; i++) {
            const c = s.charCodeAt(i)
            if (isSpace(c)) {
              this.pos = i + 1
              return this.emit(Html5TokenType.ATTR_VALUE, from, i, State.BeforeAttributeName)
            }
            if (c === GT) {
              this.pos = i
              return this.emit(Html5TokenType.ATTR_VALUE, from, i, State.TagNameClose)
            }
          }
          return this.emit(Html5TokenType.ATTR_VALUE, from, end, State.End)
        }

        case State.AfterValueQuoted: {
          if (this.pos >= end) return false
          const c = s.charCodeAt(this.pos)
          if (isSpace(c)) {
            this.pos++
            this.state = State.BeforeAttributeName
          } else if (c === SLASH) {
            this.pos++
            this.state = State.SelfClosingStartTag
          } else if (c === GT) {
            return this.emitTagClose(State.Data)
          } else {
            this.state = State.BeforeAttributeName
          }
          continue
        }

        case State.SelfClosingStartTag: {
          if (this.pos >= end) return false
          if (s.charCodeAt(this.pos) === GT) {
            const at = this.pos
            this.pos++
            return this.emit(Html5TokenType.TAG_NAME_SELFCLOSE, at - 1, at + 1, State.Data)
          }
          this.state = State.BeforeAttributeName
          continue
        }

        case State.BogusComment: {
          const from = this.pos
          const gt = s.indexOf('>', from)
          if (gt < 0) {
            this.pos = end
            return this.emit(Html5TokenType.TAG_COMMENT, from, end, State.End)
          }
          this.pos = gt + 1
          return this.emit(Html5TokenType.TAG_COMMENT, from, gt, State.Data)
        }

        case State.PercentComment: {
          const from = this.pos
          let percent = s.indexOf('%', from)
          while (percent >= 0 && percent + 1 < end && s.charCodeAt(percent + 1) !== GT) {
            percent = s.indexOf('%', percent + 1)
          }
          if (percent < 0 || percent + 1 >= end) {
            this.pos = end
            return this.emit(Html5TokenType.TAG_COMMENT, from, end, State.End)
          }
          this.pos = percent + 2
          return this.emit(Html5TokenType.TAG_COMMENT, from, percent, State.Data)
        }

        case State.MarkupDeclarationOpen: {
          const at = this.pos
          if (end - at >= 7 && startsWithDoctype(s, at)) {
            this.state = State.Doctype
          } else if (s.startsWith(CDATA_OPEN, at)) {
            this.pos += CDATA_OPEN.length
            this.state = State.CData
          } else if (end - at >= 2 && s.charCodeAt(at) === DASH && s.charCodeAt(at + 1) === DASH) {
            this.pos += 2
            this.state = State.Comment
          } else {
            this.state = State.BogusComment
          }
          continue
        }

        case State.Comment:
          return this.comment()

        case State.CData: {
          const from = this.pos
          let bracket = s.indexOf(']', from)
          // Like the C, a `]` among the last two bytes ends the search: the rest is text.
          while (bracket >= 0 && bracket <= end - 3) {
            if (s.charCodeAt(bracket + 1) === RIGHT_BRACKET && s.charCodeAt(bracket + 2) === GT) {
              this.pos = bracket + 3
              return this.emit(Html5TokenType.DATA_TEXT, from, bracket, State.Data)
            }
            bracket = s.indexOf(']', bracket + 1)
          }
          return this.emit(Html5TokenType.DATA_TEXT, from, end, State.End)
        }

        case State.Doctype: {
          // The token starts at the word DOCTYPE itself.
          const from = this.pos
          const gt = s.indexOf('>', from)
          if (gt < 0) return this.emit(Html5TokenType.DOCTYPE, from, end, State.End)
          this.pos = gt + 1
          return this.emit(Html5TokenType.DOCTYPE, from, gt, State.Data)
        }
      }
    }
  }

  /**
   * After `<!--`: the comment ends at `-->` or `-!>`, NULs allowed between the two marks (not
   * before the `>`), or at the end of the input. A `-` among the last two bytes ends the search.
   */
  private comment(): true {
    const s = this.input
    const end = s.length
    const from = this.pos
    let dash = s.indexOf('-', from)
    while (dash >= 0 && dash <= end - 3) {
      let i = dash + 1
      while (i < end && s.charCodeAt(i) === NUL) i++
      if (i === end) break
      const mark = s.charCodeAt(i)
      if (mark === DASH || mark === BANG) {
        if (i + 1 === end) break
        if (s.charCodeAt(i + 1) === GT) {
          this.pos = i + 2
          return this.emit(Html5TokenType.TAG_COMMENT, from, dash, State.Data)
        }
      }
      dash = s.indexOf('-', dash + 1)
    }
    return this.emit(Html5TokenType.TAG_COMMENT, from, end, State.End)
  }
}

/** `DOCTYPE` in any case at `at`. */
function startsWithDoctype(s: string, at: number): boolean {
  const word = 'DOCTYPE'
  for (let k = 0; k < word.length; k++) {
    if ((s.charCodeAt(at + k) & 0xdf) !== word.charCodeAt(k)) return false
  }
  return true
}
