// The language's entry points as the public surface offers them: in the vendor's WAF scheme and
// the custom-rules phase unless told otherwise. The generic layers below (syntax/, compile/) take
// both from their caller, as wirefilter's engine takes its scheme from the embedding
// (https://github.com/cloudflare/wirefilter).

import * as compilation from '../compile/compile'
import type { InScheme, Scheme, SchemeAndPhase } from '../scheme/scheme'
import type { Expression } from '../syntax/ast'
import * as checking from '../syntax/checker'
import type { ExpressionError } from '../syntax/errors'
import * as parsing from '../syntax/parse'
import type { ParseOptions } from '../syntax/parser'
import { PHASE_CUSTOM, PHASE_MANAGED } from './phases'
import { WAF_SCHEME } from './scheme'

type CheckOptions = checking.CheckOptions
type CompileOptions = compilation.CompileOptions

function inScheme<O extends { readonly scheme?: Scheme }>(options: O): O & InScheme {
  return { ...options, scheme: options.scheme ?? WAF_SCHEME }
}

function inSchemeAndPhase<O extends { readonly scheme?: Scheme; readonly phase?: string }>(
  options: O,
): O & SchemeAndPhase {
  return { ...options, scheme: options.scheme ?? WAF_SCHEME, phase: options.phase ?? PHASE_CUSTOM }
}

/** Parses a filter expression (a condition). Throws ExpressionError. */
export function parse(text: string, options: ParseOptions = {}): Expression {
  return parsing.parse(text, inScheme(options))
}

/**
 * Parses a value expression: a literal, a field or function call with indexes, or a condition
 * (e.g. `url_decode(http.request.body.form["log"][0])`). Throws ExpressionError.
 */
export function parseValue(text: string, options: ParseOptions = {}): Expression {
  return parsing.parseValue(text, inScheme(options))
}

/** Parses and reports how much work the parser did (one step per character examined). */
export function parseWithStats(
  text: string,
  options: ParseOptions = {},
): { expression?: Expression; error?: ExpressionError; steps: number } {
  return parsing.parseWithStats(text, inScheme(options))
}

/**
 * Type-checks a parsed expression. Throws ExpressionError; returns the type, the fields and
 * lists it uses, and warnings (deprecated fields).
 */
export function check(expression: Expression, options: CheckOptions = {}): checking.CheckResult {
  return checking.check(expression, inSchemeAndPhase(options))
}

/** Compiles a checked filter expression tree (no cache). */
export function compileExpression(
  expression: Expression,
  checked: checking.CheckResult,
  options: CompileOptions = {},
): compilation.CompiledExpression {
  return compilation.compileExpression(expression, checked, inScheme(options))
}

/**
 * Parses, checks and compiles a filter expression (cached by text and options). Throws
 * ExpressionError for any invalid expression.
 */
export function compile(
  text: string,
  options: CompileOptions = {},
): compilation.CompiledExpression {
  return compilation.compile(text, inSchemeAndPhase(options))
}

/**
 * Parses, checks and compiles a value expression, e.g. `url_decode(http.request.body.form["log"][0])`
 * or `lookup_json_string(http.request.body.raw, "email")`. `evaluate` gives the value (a binary
 * string for Bytes), or undefined when it is missing.
 */
export function compileValue(
  text: string,
  options: CompileOptions = {},
): compilation.CompiledValueExpression {
  return compilation.compileValue(text, inSchemeAndPhase(options))
}

/** Forgets every cached compilation in the vendor's scheme (for tests and benchmarks). */
export function clearCompileCache(): void {
  compilation.clearCompileCache(WAF_SCHEME)
}

/**
 * Compiles an exposed_credential_check `username_expression` / `password_expression`: a value
 * expression of type Bytes using only upper(), lower(), url_decode() and lookup_json_string(),
 * unnested, at most 1024 characters.
 */
export function compileCredentialExpression(
  text: string,
  options: CompileOptions = {},
): compilation.CompiledValueExpression {
  return compileValue(text, {
    phase: PHASE_MANAGED,
    ...options,
    expect: 'Bytes',
    credentialExpression: true,
    valueExpression: true,
  })
}
