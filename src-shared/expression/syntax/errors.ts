// Errors of the Rules language, with spans, and the vendor's two renderings:
//  - inside ruleset / firewall API errors (wirefilter's ParseError Display):
//      Filter parsing error (1:73):
//      <the offending line>
//      <spaces>^^^ <reason>
//  - from /filters/validate-expr (the older three-line caret form):
//      Filter parsing error:
//      `<expression>`
//      <spaces>^^ <reason>

import type { Type } from '../values/types'
import { LINE_FEED } from '../values/chars'

/** What went wrong, as a stable machine-readable code (the message is the vendor's text). */
export type ExpressionErrorCode =
  | 'expected-name'
  | 'expected-literal'
  | 'parse-int'
  | 'parse-network'
  | 'parse-regex'
  | 'regex-too-big'
  | 'parse-wildcard'
  | 'invalid-escape'
  | 'raw-string-hashes'
  | 'missing-quote'
  | 'count-mismatch'
  | 'unknown-identifier'
  | 'unsupported-op'
  | 'range-bounds'
  | 'unrecognised-input'
  | 'argument-count'
  | 'argument-kind'
  | 'argument-type'
  | 'argument-value'
  | 'index-access'
  | 'type-mismatch'
  | 'missing-quantifier'
  | 'non-boolean'
  | 'map-each'
  | 'list-name'
  | 'unknown-list'
  | 'nesting'
  | 'too-long'
  | 'unavailable-function'

/** What the parser was looking for when the input ended (used by completion). */
export type Expectation =
  | { readonly kind: 'identifier' }
  | { readonly kind: 'operator'; readonly type: Type }
  | { readonly kind: 'logical' }

export interface ExpressionErrorInit {
  code: ExpressionErrorCode
  message: string
  /** 0-based offset of the span's start in the whole text */
  start: number
  /** 0-based offset just past the span (may equal start) */
  end: number
  /** the whole expression text the offsets refer to */
  text: string
  /** an extra, actionable sentence that is not part of the vendor's message */
  hint?: string
  expectation?: Expectation
}

/**
 * An invalid expression. `line` and `column` are 1-based; `length` is the span clipped to its
 * line (as the vendor reports it; 0 for a point at the end of the input). `start`/`end` are
 * 0-based offsets into the text, for editors.
 */
export class ExpressionError extends Error {
  readonly code: ExpressionErrorCode
  readonly line: number
  readonly column: number
  readonly length: number
  readonly start: number
  readonly end: number
  readonly hint: string | undefined
  readonly expectation: Expectation | undefined

  constructor(init: ExpressionErrorInit) {
    super(init.message)
    this.name = 'ExpressionError'
    this.code = init.code
    this.start = init.start
    this.end = Math.max(init.start, init.end)
    this.hint = init.hint
    this.expectation = init.expectation
    const { line, column, lineEnd } = position(init.text, init.start)
    this.line = line
    this.column = column
    this.length = Math.max(0, Math.min(this.end, lineEnd) - init.start)
  }
}

export function isExpressionError(e: unknown): e is ExpressionError {
  return e instanceof ExpressionError
}

function position(text: string, offset: number): { line: number; column: number; lineEnd: number } {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === LINE_FEED) {
      line++
      lineStart = i + 1
    }
  }
  let lineEnd = text.indexOf('\n', lineStart)
  if (lineEnd < 0) lineEnd = text.length
  return { line, column: offset - lineStart + 1, lineEnd }
}

function lineOf(text: string, lineNumber: number): string {
  return text.split('\n')[lineNumber - 1] ?? ''
}

/**
 * wirefilter's ParseError Display, as the vendor embeds it in ruleset and firewall-rule API
 * errors: `Filter parsing error (L:C):\n<line>\n<carets> <reason>\n`.
 */
export function formatRulesetError(err: ExpressionError, text: string): string {
  const carets = '^'.repeat(Math.max(1, err.length))
  return (
    `Filter parsing error (${err.line}:${err.column}):\n` +
    `${lineOf(text, err.line)}\n` +
    `${' '.repeat(err.column - 1)}${carets} ${err.message}\n`
  )
}

/**
 * The whole message of an invalid `expression` in a ruleset rule, as the rulesets API words it.
 */
export function rulesetExpressionErrorMessage(err: ExpressionError, text: string): string {
  return `'${text}' is not a valid value for expression because could not parse filter expression: ${formatRulesetError(err, text)}`
}

/**
 * The message `/filters/validate-expr` answers for an invalid expression: the literal line
 * `Filter parsing error:`, the expression in backticks, then carets under the span followed by
 * the reason. The vendor's carets sit two columns right of the span's column in the text (one
 * for the opening backtick, one more in every recorded response), e.g. for `ip.src==34`:
 * "Filter parsing error:\n`ip.src==34`\n          ^^ couldn't parse address …\n".
 */
export function formatValidateExprError(err: ExpressionError, text: string): string {
  const carets = '^'.repeat(Math.max(1, err.length))
  return (
    'Filter parsing error:\n' +
    `\`${text}\`\n` +
    `${' '.repeat(err.column - 1 + 2)}${carets} ${err.message}\n`
  )
}
