// The compiler's entry points: an expression's text parsed, checked and compiled, cached by text
// and options per scheme.

import type { InScheme, Scheme, SchemeAndPhase } from '../scheme/scheme'
import { isLiteralNode, isLogicalNode, literalValue, type Expression } from '../syntax/ast'
import { check, type CheckOptions, type CheckResult, type CheckWarning } from '../syntax/checker'
import { ExpressionError } from '../syntax/errors'
import { parse, parseValue } from '../syntax/parse'
import type { ParseOptions } from '../syntax/parser'
import type { EvaluationContext } from '../values/evaluation'
import type { Type, Value } from '../values/types'
import { constValue } from './closures'
import { Compiler } from './compiler'
import type { Needs } from './requirement'

export interface CompileOptions extends ParseOptions, CheckOptions {
  /** `!=` on a missing value is true (open-source wirefilter default); default false (vendor docs) */
  readonly nilNotEqual?: boolean
}

export interface CompiledExpression {
  readonly text: string
  readonly expression: Expression
  readonly fields: ReadonlySet<string>
  readonly lists: ReadonlySet<string>
  readonly warnings: readonly CheckWarning[]
  /** the folded result when the expression does not depend on the request */
  readonly constant: boolean | undefined
  /** patterns the expression cannot be true without (see RequirementTable) */
  readonly needs?: Needs
  evaluate(ctx: EvaluationContext): boolean
}

export interface CompiledValueExpression {
  readonly text: string
  readonly expression: Expression
  readonly type: Type
  readonly fields: ReadonlySet<string>
  readonly warnings: readonly CheckWarning[]
  evaluate(ctx: EvaluationContext): Value | undefined
}

type CacheEntry = { ok: CompiledExpression | CompiledValueExpression } | { error: ExpressionError }
const caches = new WeakMap<Scheme, Map<string, CacheEntry>>()
const CACHE_LIMIT = 5000

function cacheKey(mode: string, text: string, o: CompileOptions): string {
  return [
    mode,
    o.phase ?? '',
    o.nilNotEqual ? 1 : 0,
    o.expect === undefined ? '' : JSON.stringify(o.expect),
    o.lists ? JSON.stringify(o.lists) : '',
    o.credentialExpression ? 1 : 0,
    o.valueExpression === undefined ? '' : o.valueExpression ? 1 : 0,
    o.maxNestingDepth ?? '',
    o.maxLength ?? '',
    o.regexSizeLimit ?? '',
    o.wildcardStarLimit ?? '',
    o.lenient ? 1 : 0,
    text,
  ].join('\u0000')
}

function cached<T extends CompiledExpression | CompiledValueExpression>(
  mode: string,
  text: string,
  options: CompileOptions & SchemeAndPhase,
  build: () => T,
): T {
  const scheme = options.scheme
  let cache = caches.get(scheme)
  if (!cache) {
    cache = new Map()
    caches.set(scheme, cache)
  }
  const key = cacheKey(mode, text, options)
  const hit = cache.get(key)
  if (hit) {
    cache.delete(key)
    cache.set(key, hit)
    if ('error' in hit) throw hit.error
    return hit.ok as T
  }
  let entry: CacheEntry
  try {
    entry = { ok: build() }
  } catch (e) {
    if (!(e instanceof ExpressionError)) throw e
    entry = { error: e }
  }
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next()
    if (!oldest.done) cache.delete(oldest.value)
  }
  cache.set(key, entry)
  if ('error' in entry) throw entry.error
  return entry.ok as T
}

/** Compiles a checked filter expression tree (no cache). */
export function compileExpression(
  expression: Expression,
  checked: CheckResult,
  options: CompileOptions & InScheme,
): CompiledExpression {
  const compiler = new Compiler(options.scheme, options.nilNotEqual ?? false)
  const root = expression.root
  if (!isLogicalNode(root)) throw new Error('a filter expression must be a condition')
  const c = compiler.logical(root)
  if (c.kind !== 'one') throw new Error('a filter expression must be Bool')
  return {
    text: expression.text,
    expression,
    fields: checked.fields,
    lists: checked.lists,
    warnings: checked.warnings,
    constant: c.constant,
    ...(c.needs === undefined ? {} : { needs: c.needs }),
    evaluate: c.fn,
  }
}

/**
 * Parses, checks and compiles a filter expression (cached by text and options). Throws
 * ExpressionError for any invalid expression.
 */
export function compile(
  text: string,
  options: CompileOptions & SchemeAndPhase,
): CompiledExpression {
  return cached('filter', text, options, () => {
    const expression = parse(text, options)
    const checked = check(expression, options)
    return compileExpression(expression, checked, options)
  })
}

/**
 * Parses, checks and compiles a value expression, e.g. `url_decode(http.request.body.form["log"][0])`
 * or `lookup_json_string(http.request.body.raw, "email")`. `evaluate` gives the value (a binary
 * string for Bytes), or undefined when it is missing.
 */
export function compileValue(
  text: string,
  options: CompileOptions & SchemeAndPhase,
): CompiledValueExpression {
  return cached('value', text, options, () => {
    const expression = parseValue(text, options)
    const checked = check(expression, { valueExpression: true, ...options })
    const compiler = new Compiler(options.scheme, options.nilNotEqual ?? false)
    const root = expression.root
    const value = isLiteralNode(root) ? constValue(literalValue(root)) : compiler.arg(root)
    return {
      text,
      expression,
      type: checked.type,
      fields: checked.fields,
      warnings: checked.warnings,
      evaluate: value.fn,
    }
  })
}

/** Forgets every cached compilation in a scheme (for tests and benchmarks). */
export function clearCompileCache(scheme: Scheme): void {
  caches.delete(scheme)
}
