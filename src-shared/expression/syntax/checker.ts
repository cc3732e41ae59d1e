// The type checker: walks a parsed (or hand-built) tree, computes the type of every node and
// enforces the whole-expression rules the parser leaves open: a filter must be Bool (an
// Array<Bool> result means a missing any()/all()), functions must be available where the
// expression is used, `$lists` must exist when the caller says which exist, and the narrower
// rules of exposed-credential value expressions. Parser-produced trees pass the per-node checks
// by construction; they are repeated so that check() is safe on any tree.

import type {
  ArgNode,
  ComparisonNode,
  Expression,
  IndexNode,
  LiteralNode,
  LogicalNode,
  Span,
} from './ast'
import { isLiteralNode, isLogicalNode } from './ast'
import { ExpressionError, type ExpressionErrorCode } from './errors'
import {
  paramErrorCode,
  paramErrorMessage,
  type FunctionParam,
  type UseSite,
} from '../scheme/functions'
import { literalType, literalValue, stepType } from './ast'
import { indexAccessMessage, unsupportedOpMessage } from './messages'
import type { Scheme, SchemeAndPhase } from '../scheme/scheme'
import {
  arrayOf,
  BOOL_ARRAY,
  isArray,
  typeDisplay,
  typeEquals,
  typeMismatchMessage,
  type Type,
} from '../values/types'
import type { ListKind } from '../values/evaluation'

export interface CheckOptions {
  readonly scheme?: Scheme
  /** the ruleset phase the expression belongs to; the public entry points default it to http_request_firewall_custom */
  readonly phase?: string
  /** the type the whole expression must have; default Bool for filters */
  readonly expect?: Type
  /** known lists and their kinds; when given, other `$names` are errors */
  readonly lists?: Readonly<Record<string, ListKind>>
  /** the stricter rules of exposed_credential_check username/password expressions */
  readonly credentialExpression?: boolean
  /** a value expression (rewrite value, credential expression) rather than a filter */
  readonly valueExpression?: boolean
}

export interface CheckWarning {
  readonly message: string
  readonly start: number
  readonly end: number
}

export interface CheckResult {
  readonly type: Type
  /** every field the expression reads */
  readonly fields: ReadonlySet<string>
  /** every `$list` the expression uses */
  readonly lists: ReadonlySet<string>
  readonly warnings: readonly CheckWarning[]
}

const CREDENTIAL_FUNCTIONS = new Set(['upper', 'lower', 'url_decode', 'lookup_json_string'])
const LIST_TYPES: Record<ListKind, Type> = { ip: 'Ip', bytes: 'Bytes', int: 'Int' }

class Checker {
  readonly scheme: Scheme
  readonly site: UseSite
  readonly fields = new Set<string>()
  readonly lists = new Set<string>()
  readonly warnings: CheckWarning[] = []

  constructor(
    readonly text: string,
    readonly options: CheckOptions & SchemeAndPhase,
    valueExpression: boolean,
  ) {
    this.scheme = options.scheme
    this.site = { phase: options.phase, valueExpression }
  }

  fail(code: ExpressionErrorCode, message: string, at: Span, hint?: string): never {
    throw new ExpressionError({
      code,
      message,
      start: at.start,
      end: at.end,
      text: this.text,
      ...(hint ? { hint } : {}),
    })
  }

  logical(n: LogicalNode): Type {
    switch (n.kind) {
      case 'paren':
        return this.logical(n.expr)
      case 'not':
        return this.logical(n.arg)
      case 'quantifier': {
        const t = this.arg(n.arg).type
        if (!typeEquals(t, BOOL_ARRAY))
          this.fail('type-mismatch', typeMismatchMessage([BOOL_ARRAY], t), n.arg.span)
        return 'Bool'
      }
      case 'combining': {
        const first = n.items[0]
        if (!first) this.fail('unrecognised-input', 'unrecognised input', n.span)
        const t = this.logical(first)
        for (const item of n.items.slice(1)) {
          const u = this.logical(item)
          if (!((t === 'Bool' && u === 'Bool') || (isArray(t) && isArray(u)))) {
            this.fail('type-mismatch', typeMismatchMessage([t], u), item.span)
          }
        }
        return t
      }
      case 'comparison':
        return this.comparison(n)
    }
  }

  comparison(n: ComparisonNode): Type {
    const { type: t, mapEach } = this.index(n.lhs)
    const result: Type = mapEach > 0 ? BOOL_ARRAY : 'Bool'
    const op = n.op
    if (op.kind === 'isTrue') {
      if (t === 'Bool') return result
      if (isArray(t) && t.of === 'Bool' && mapEach === 0) return BOOL_ARRAY
      this.fail('unsupported-op', unsupportedOpMessage(t), n.span)
    }
    const ok =
      (op.kind === 'ordering' &&
        (t === 'Int' || t === 'Bytes' || t === 'Ip') &&
        typeEquals(literalType(op.rhs), t)) ||
      (op.kind === 'bitwiseAnd' && t === 'Int') ||
      ((op.kind === 'contains' || op.kind === 'matches' || op.kind === 'wildcard') &&
        t === 'Bytes') ||
      (op.kind === 'oneOf' && op.rhs.of === t) ||
      (op.kind === 'inList' && (t === 'Int' || t === 'Bytes' || t === 'Ip'))
    if (!ok) this.fail('unsupported-op', unsupportedOpMessage(t), op.opSpan)
    if (op.kind === 'inList') {
      this.lists.add(op.list)
      const known = this.options.lists
      if (known) {
        const kind = known[op.list]
        if (kind === undefined) {
          this.fail(
            'unknown-list',
            `unknown list $${op.list}`,
            op.listSpan,
            `known lists: ${
              Object.keys(known)
                .map((k) => `$${k}`)
                .join(', ') || 'none'
            }`,
          )
        }
        if (LIST_TYPES[kind] !== t) {
          this.fail(
            'unsupported-op',
            unsupportedOpMessage(t),
            op.opSpan,
            `$${op.list} is a list of ${kind} items`,
          )
        }
      }
    }
    return result
  }

  /** type of an index expression (element type under `[*]`) and its number of `[*]` */
  index(n: IndexNode): { type: Type; mapEach: number } {
    let type: Type
    if (n.target.kind === 'field') {
      const def = this.scheme.fields.get(n.target.name)
      if (!def) this.fail('unknown-identifier', 'unknown identifier', n.target.span)
      this.fields.add(def.name)
      if (def.deprecatedBy) {
        this.warnings.push({
          message: `${def.name} is deprecated: use ${def.deprecatedBy}`,
          ...n.target.span,
        })
      }
      type = def.type
    } else {
      type = this.call(n.target)
    }
    let mapEach = 0
    for (const step of n.indexes) {
      const next = stepType(type, step)
      if (next === undefined) this.fail('index-access', indexAccessMessage(step, type), step.span)
      if (step.kind === 'mapEach') mapEach++
      type = next
    }
    return { type, mapEach }
  }

  call(n: Extract<IndexNode['target'], { kind: 'call' }>): Type {
    const def = this.scheme.functions.get(n.name)
    if (!def) this.fail('unknown-identifier', 'unknown identifier', n.nameSpan)
    if (def.available && !def.available(this.site)) {
      this.fail(
        'unavailable-function',
        def.availability ?? `the ${n.name}() function is not available here`,
        n.nameSpan,
      )
    }
    if (this.options.credentialExpression && !CREDENTIAL_FUNCTIONS.has(n.name)) {
      this.fail(
        'unavailable-function',
        `the ${n.name}() function cannot be used in an exposed-credential expression: only upper(), lower(), url_decode() and lookup_json_string() are allowed`,
        n.nameSpan,
      )
    }
    if (n.args.length < def.minArgs || (def.maxArgs !== undefined && n.args.length > def.maxArgs)) {
      this.fail('argument-count', 'invalid number of arguments', n.span)
    }
    const params: FunctionParam[] = []
    let firstMapEach = 0
    n.args.forEach((arg, i) => {
      if (this.options.credentialExpression && arg.kind === 'index' && arg.target.kind === 'call') {
        this.fail(
          'unavailable-function',
          'functions cannot be nested in an exposed-credential expression',
          arg.span,
        )
      }
      const { type, mapEach, literal } = this.arg(arg)
      if (mapEach > 0 && i > 0)
        this.fail('map-each', 'invalid use of map each access operator', arg.span)
      if (i === 0) firstMapEach = mapEach
      const param: FunctionParam = literal
        ? { kind: 'Literal', type, value: literalValue(arg as LiteralNode) }
        : { kind: 'Field', type }
      const problem = def.checkParam(i, param, params)
      if (problem) {
        this.fail(paramErrorCode(problem), paramErrorMessage(i, problem), arg.span)
      }
      params.push(param)
    })
    const ret = def.returnType(params)
    return firstMapEach > 0 ? arrayOf(ret) : ret
  }

  arg(n: ArgNode): { type: Type; mapEach: number; literal: boolean } {
    if (isLiteralNode(n)) return { type: literalType(n), mapEach: 0, literal: true }
    if (isLogicalNode(n)) return { type: this.logical(n), mapEach: 0, literal: false }
    const { type, mapEach } = this.index(n)
    return { type, mapEach, literal: false }
  }
}

/**
 * Type-checks a parsed expression. Throws ExpressionError; returns the type, the fields and
 * lists it uses, and warnings (deprecated fields).
 */
export function check(expression: Expression, options: CheckOptions & SchemeAndPhase): CheckResult {
  const root = expression.root
  const isFilter = isLogicalNode(root)
  const checker = new Checker(expression.text, options, options.valueExpression ?? !isFilter)
  let type: Type
  if (isLiteralNode(root)) type = literalType(root)
  else if (isLogicalNode(root)) type = checker.logical(root)
  else {
    const r = checker.arg(root)
    type = r.mapEach > 0 ? arrayOf(r.type) : r.type
  }
  const expected = options.expect ?? (isFilter && !options.valueExpression ? 'Bool' : undefined)
  if (expected !== undefined && !typeEquals(expected, type)) {
    const at = { start: expression.span.end, end: expression.span.end }
    if (expected === 'Bool' && typeEquals(type, BOOL_ARRAY)) {
      checker.fail(
        'missing-quantifier',
        typeMismatchMessage(['Bool'], type),
        at,
        'a comparison with [*] gives one result per element: wrap it in any(…) or all(…)',
      )
    }
    checker.fail(
      expected === 'Bool' ? 'non-boolean' : 'type-mismatch',
      typeMismatchMessage([expected], type),
      at,
      expected === 'Bool'
        ? 'the expression must be a condition'
        : `the expression must give a ${typeDisplay(expected)} value`,
    )
  }
  if (options.credentialExpression && expression.text.length > 1024) {
    checker.fail(
      'too-long',
      `the expression is ${expression.text.length} characters long, but the limit is 1024`,
      { start: 1024, end: expression.text.length },
    )
  }
  return { type, fields: checker.fields, lists: checker.lists, warnings: checker.warnings }
}
