// The parser's entry points: a filter or a value expression from its text, with the length and
// nesting limits applied and every failure an ExpressionError.

import type { Expression } from './ast'
import { ExpressionError } from './errors'
import { eofError, fail, LexFailure, type Source } from './lexer'
import { MAX_EXPRESSION_LENGTH, Parser, span, type ParseOptions } from './parser'
import type { InScheme } from '../scheme/scheme'

// Entry points

function makeSource(text: string, options: ParseOptions): Source {
  const start = text.length - text.trimStart().length
  const end = Math.max(start, text.trimEnd().length)
  return { text, start, end, lenient: options.lenient ?? false, steps: 0 }
}

function toError(e: unknown, text: string): never {
  if (e instanceof LexFailure) {
    throw new ExpressionError({
      code: e.code,
      message: e.message,
      start: e.start,
      end: e.end,
      text,
      ...(e.hint !== undefined ? { hint: e.hint } : {}),
      ...(e.expectation !== undefined ? { expectation: e.expectation } : {}),
    })
  }
  throw e
}

function checkLength(text: string, options: ParseOptions): void {
  const max = options.maxLength ?? MAX_EXPRESSION_LENGTH
  if (max > 0 && text.length > max) {
    throw new ExpressionError({
      code: 'too-long',
      message: `the expression is ${text.length} characters long, but the limit is ${max}`,
      start: max,
      end: text.length,
      text,
      hint: 'split the rule, or move long value lists into a list ($name)',
    })
  }
}

function run(
  text: string,
  options: ParseOptions & InScheme,
  mode: 'filter' | 'value',
  src: Source,
): Expression {
  checkLength(text, options)
  const parser = new Parser(src, options)
  try {
    let result: { node: unknown; end: number }
    if (mode === 'filter') result = parser.parseLogical(src.start)
    else {
      result = parser.parseFunctionArg(src.start)
      // a value may also be a whole condition (`at and af`)
      if (result.end < src.end && parser.lexCombiningOp(result.end).op !== undefined) {
        result = parser.parseLogical(src.start)
      }
    }
    if (result.end < src.end) eofError(src, result.end)
    return { text, root: result.node as Expression['root'], span: span(src.start, src.end) }
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      fail(
        'nesting',
        `maximum nesting depth exceeded (limit: ${parser.maxDepth})`,
        src.start,
        src.end,
      )
    }
    throw e
  }
}

/** Parses a filter expression (a condition). Throws ExpressionError. */
export function parse(text: string, options: ParseOptions & InScheme): Expression {
  const src = makeSource(text, options)
  try {
    return run(text, options, 'filter', src)
  } catch (e) {
    return toError(e, text)
  }
}

/**
 * Parses a value expression: a literal, a field or function call with indexes, or a condition
 * (e.g. `url_decode(http.request.body.form["log"][0])`). Throws ExpressionError.
 */
export function parseValue(text: string, options: ParseOptions & InScheme): Expression {
  const src = makeSource(text, options)
  try {
    return run(text, options, 'value', src)
  } catch (e) {
    return toError(e, text)
  }
}

/** Parses and reports how much work the parser did (one step per character examined). */
export function parseWithStats(
  text: string,
  options: ParseOptions & InScheme,
): { expression?: Expression; error?: ExpressionError; steps: number } {
  const src = makeSource(text, options)
  try {
    const expression = run(text, options, 'filter', src)
    return { expression, steps: src.steps }
  } catch (e) {
    try {
      toError(e, text)
    } catch (err) {
      if (err instanceof ExpressionError) return { error: err, steps: src.steps }
      throw err
    }
    throw e
  }
}
