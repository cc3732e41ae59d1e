// The parser: recursive descent in wirefilter's order of attempts
// (docs/vendor-behaviour.md#grammar). Like the vendor's, it is scheme-aware: the type of a
// comparison's left side decides how its right side is read (so `10:20:30:40:50:60:70:80` is bytes
// after a Bytes field and IPv6 after an Ip field), and the type errors the vendor reports while
// parsing are reported here, at the same place and in the same order. Whole-expression rules (the
// root must be Bool, where functions may be used, known lists) are the checker's.
//
// One piece over 500 lines: one recursive-descent class whose methods (logical expressions,
// comparisons, sets, index expressions and function calls) call each other and share the source,
// the scheme and the nesting depth; parse.ts holds its entry points.

import type {
  ArgNode,
  CallNode,
  ComparisonNode,
  ComparisonOp,
  IndexNode,
  IndexStep,
  LiteralNode,
  LogicalNode,
  LogicalOp,
  SetItem,
  SetNode,
  Span,
} from './ast'
import { bytesToTextStrict } from '../values/bytes'
import type { FunctionParam } from '../scheme/functions'
import { paramErrorCode, paramErrorMessage } from '../scheme/functions'
import {
  codeAt,
  eofError,
  expect,
  fail,
  lexBytes,
  lexInt,
  lexIntRange,
  lexIpAddr,
  lexIpSetItem,
  lexListName,
  lexQuotedOrRaw,
  lexRegexLiteral,
  LexFailure,
  skipSpace,
  startsWith,
  takeWhile,
  type Source,
} from './lexer'
import { compileRegex, DEFAULT_REGEX_SIZE_LIMIT } from '../regex/regex'
import { RegexSyntaxError } from '../regex/tree'
import type { InScheme, Scheme } from '../scheme/scheme'
import {
  arrayOf,
  BOOL_ARRAY,
  isArray,
  typeEquals,
  typeMismatchMessage,
  type Type,
} from '../values/types'
import { literalValue, stepType } from './ast'
import {
  indexAccessMessage,
  rhsHint,
  unknownIdentifierHint,
  unsupportedOpHint,
  unsupportedOpMessage,
} from './messages'
import { COMPARISON_OPS, LOGICAL_OPS, PRECEDENCE, type CmpOp } from './operators'
import { compileWildcard, WildcardError } from '../values/wildcard'
import {
  DOLLAR,
  DOUBLE_QUOTE,
  HASH,
  isAlnum,
  isHexDigit,
  isWordChar,
  LEFT_PAREN,
  LOWER_R,
  RIGHT_PAREN,
  UNDERSCORE,
} from '../values/chars'

export const MAX_EXPRESSION_LENGTH = 4096
export const MAX_NESTING_DEPTH = 128

export interface ParseOptions {
  /** fields and functions; the public entry points default it to the vendor's WAF scheme */
  readonly scheme?: Scheme
  /** default 128 */
  readonly maxNestingDepth?: number
  /** default 4096 characters; 0 disables the check */
  readonly maxLength?: number
  /** default 10 MiB, as the vendor's engine */
  readonly regexSizeLimit?: number
  /** default: unlimited */
  readonly wildcardStarLimit?: number
  /** accept TAB between tokens (the vendor does not) */
  readonly lenient?: boolean
}

interface Typed<N> {
  node: N
  type: Type
  end: number
}

interface IndexTyped extends Typed<IndexNode> {
  mapEach: number
}

export function span(start: number, end: number): Span {
  return { start, end }
}

function pushed<T>(items: readonly T[], item: T): readonly T[] {
  ;(items as T[]).push(item)
  return items
}

export class Parser {
  depth = 0
  readonly scheme: Scheme
  readonly maxDepth: number
  readonly regexSizeLimit: number
  readonly wildcardStarLimit: number

  constructor(
    readonly src: Source,
    options: ParseOptions & InScheme,
  ) {
    this.scheme = options.scheme
    this.maxDepth = options.maxNestingDepth ?? MAX_NESTING_DEPTH
    this.regexSizeLimit = options.regexSizeLimit ?? DEFAULT_REGEX_SIZE_LIMIT
    this.wildcardStarLimit = options.wildcardStarLimit ?? Infinity
  }

  nested<T>(spanStart: number, body: () => T): T {
    if (this.depth >= this.maxDepth) {
      fail(
        'nesting',
        `maximum nesting depth exceeded (limit: ${this.maxDepth})`,
        spanStart,
        this.src.end,
      )
    }
    this.depth++
    try {
      return body()
    } finally {
      this.depth--
    }
  }

  // ---- logical expressions ------------------------------------------------------------------

  lexCombiningOp(pos: number): { op: LogicalOp | undefined; rest: number } {
    const p = skipSpace(this.src, pos)
    for (const [spelling, op] of LOGICAL_OPS) {
      if (startsWith(this.src, p, spelling))
        return { op, rest: skipSpace(this.src, p + spelling.length) }
    }
    return { op: undefined, rest: pos }
  }

  parseLogical(pos: number): Typed<LogicalNode> {
    const lhs = this.parseSimple(pos)
    return this.lexMore(lhs, -1, this.lexCombiningOp(lhs.end))
  }

  lexMore(
    first: Typed<LogicalNode>,
    minPrec: number,
    lookaheadIn: { op: LogicalOp | undefined; rest: number },
  ): Typed<LogicalNode> {
    let lhs = first
    let lookahead = lookaheadIn
    const prec = (op: LogicalOp | undefined) => (op === undefined ? -1 : PRECEDENCE[op])
    while (lookahead.op !== undefined) {
      const op = lookahead.op
      let rhs = this.parseSimple(lookahead.rest)
      for (;;) {
        lookahead = this.lexCombiningOp(rhs.end)
        if (prec(lookahead.op) <= prec(op)) break
        rhs = this.lexMore(rhs, prec(lookahead.op), lookahead)
      }
      const bothBool = lhs.type === 'Bool' && rhs.type === 'Bool'
      const bothArrays = isArray(lhs.type) && isArray(rhs.type)
      if (!bothBool && !bothArrays) {
        fail(
          'type-mismatch',
          typeMismatchMessage([lhs.type], rhs.type),
          lookahead.rest,
          this.src.end,
        )
      }
      const l = lhs.node
      if (l.kind === 'combining' && l.op === op) {
        lhs = {
          node: {
            kind: 'combining',
            op,
            // the previous node is discarded: extend its array in place (linear, not quadratic)
            items: pushed(l.items, rhs.node),
            span: span(l.span.start, rhs.node.span.end),
          },
          type: lhs.type,
          end: rhs.end,
        }
      } else {
        lhs = {
          node: {
            kind: 'combining',
            op,
            items: [l, rhs.node],
            span: span(l.span.start, rhs.node.span.end),
          },
          type: lhs.type,
          end: rhs.end,
        }
      }
      if (prec(lookahead.op) < minPrec) {
        // pretend the operator was not seen: it belongs to an outer, looser level
        lookahead = { op: undefined, rest: rhs.end }
      }
    }
    return { node: lhs.node, type: lhs.type, end: lookahead.rest }
  }

  lexUnaryOp(pos: number): number | undefined {
    if (startsWith(this.src, pos, 'not')) return pos + 3
    if (startsWith(this.src, pos, '!')) return pos + 1
    return undefined
  }

  /** `any` / `all` followed (after optional spaces) by `(`. */
  lexQuantifierCall(pos: number): { op: 'any' | 'all'; rest: number } | undefined {
    const op = startsWith(this.src, pos, 'any')
      ? 'any'
      : startsWith(this.src, pos, 'all')
        ? 'all'
        : undefined
    if (!op) return undefined
    const rest = pos + 3
    return codeAt(this.src, skipSpace(this.src, rest)) === LEFT_PAREN ? { op, rest } : undefined
  }

  parseSimple(pos: number): Typed<LogicalNode> {
    const src = this.src
    if (codeAt(src, pos) === LEFT_PAREN) {
      return this.nested(pos, () => {
        const inner = this.parseLogical(skipSpace(src, pos + 1))
        const close = skipSpace(src, inner.end)
        if (close >= src.end)
          fail('expected-literal', 'expected literal ")"', close, src.end, undefined, {
            kind: 'logical',
          })
        const end = expect(src, close, ')')
        return {
          node: { kind: 'paren', expr: inner.node, span: span(pos, end) },
          type: inner.type,
          end,
        }
      })
    }
    const afterUnary = this.lexUnaryOp(pos)
    if (afterUnary !== undefined) {
      return this.nested(pos, () => {
        const arg = this.parseSimple(skipSpace(src, afterUnary))
        return {
          node: { kind: 'not', arg: arg.node, span: span(pos, arg.node.span.end) },
          type: arg.type,
          end: arg.end,
        }
      })
    }
    const quantifier = this.lexQuantifierCall(pos)
    if (quantifier) {
      const open = skipSpace(src, quantifier.rest)
      return this.nested(open, () => {
        const argStart = skipSpace(src, expect(src, open, '('))
        const arg = this.parseFunctionArg(argStart)
        if (arg.literal) {
          fail('type-mismatch', typeMismatchMessage([BOOL_ARRAY], arg.type), argStart, arg.end)
        }
        if (!typeEquals(arg.type, BOOL_ARRAY)) {
          fail(
            'type-mismatch',
            typeMismatchMessage([BOOL_ARRAY], arg.type),
            argStart,
            arg.end,
            'any() and all() take a comparison with [*], or an Array<Bool> field',
          )
        }
        const end = expect(src, skipSpace(src, arg.end), ')')
        const node: LogicalNode = {
          kind: 'quantifier',
          op: quantifier.op,
          arg: arg.node as IndexNode | LogicalNode,
          span: span(pos, end),
        }
        return { node, type: 'Bool', end }
      })
    }
    return this.parseComparison(pos)
  }

  // ---- comparisons --------------------------------------------------------------------------

  lexComparisonOp(pos: number): [CmpOp, number] | undefined {
    for (const [spelling, op] of COMPARISON_OPS) {
      if (startsWith(this.src, pos, spelling)) return [op, pos + spelling.length]
    }
    return undefined
  }

  parseComparison(pos: number): Typed<LogicalNode> {
    const lhs = this.parseIndexExpr(pos)
    return this.comparisonWithLhs(lhs)
  }

  comparisonWithLhs(lhs: IndexTyped): Typed<ComparisonNode> {
    const src = this.src
    const t = lhs.type
    const isTrue = (type: Type): Typed<ComparisonNode> => ({
      node: { kind: 'comparison', lhs: lhs.node, op: { kind: 'isTrue' }, span: lhs.node.span },
      type,
      end: lhs.end,
    })
    if (t === 'Bool') return isTrue(lhs.mapEach > 0 ? BOOL_ARRAY : 'Bool')
    if (isArray(t) && t.of === 'Bool') {
      if (lhs.mapEach > 0) {
        fail('unsupported-op', unsupportedOpMessage(arrayOf(BOOL_ARRAY)), lhs.end, lhs.end)
      }
      return isTrue(BOOL_ARRAY)
    }
    const initial = skipSpace(src, lhs.end)
    const lexed = this.lexComparisonOp(initial)
    if (!lexed) {
      fail(
        'expected-name',
        'expected ComparisonOp',
        initial,
        src.end,
        'expected an operator such as eq, contains, matches or in',
        {
          kind: 'operator',
          type: t,
        },
      )
    }
    const [cmp, afterOp] = lexed
    const opSpan = span(initial, afterOp)
    const opText = src.text.slice(initial, afterOp)
    const rhsPos = skipSpace(src, afterOp)
    const resultType: Type = lhs.mapEach > 0 ? BOOL_ARRAY : 'Bool'
    const done = (op: ComparisonOp, end: number): Typed<ComparisonNode> => ({
      node: { kind: 'comparison', lhs: lhs.node, op, span: span(lhs.node.span.start, end) },
      type: resultType,
      end,
    })
    const withHint = <T>(body: () => T): T => {
      try {
        return body()
      } catch (e) {
        if (
          e instanceof LexFailure &&
          e.hint === undefined &&
          e.code !== 'parse-regex' &&
          e.code !== 'parse-wildcard' &&
          e.code !== 'regex-too-big'
        ) {
          throw new LexFailure(e.code, e.message, e.start, e.end, rhsHint(t, opText), e.expectation)
        }
        throw e
      }
    }
    const scalar = t === 'Ip' || t === 'Bytes' || t === 'Int'
    if (scalar && cmp.kind === 'in') {
      if (codeAt(src, rhsPos) === DOLLAR) {
        const [name, end] = lexListName(src, rhsPos)
        return done({ kind: 'inList', list: name, listSpan: span(rhsPos, end), opSpan }, end)
      }
      const set = withHint(() => this.parseSet(rhsPos, t))
      return done({ kind: 'oneOf', rhs: set, opSpan }, set.span.end)
    }
    if (scalar && cmp.kind === 'ordering') {
      return withHint(() => {
        if (t === 'Int') {
          const [value, end] = lexInt(src, rhsPos)
          return done(
            {
              kind: 'ordering',
              op: cmp.op,
              rhs: { kind: 'int', value, span: span(rhsPos, end) },
              opSpan,
            },
            end,
          )
        }
        if (t === 'Ip') {
          const [value, end] = lexIpAddr(src, rhsPos)
          return done(
            {
              kind: 'ordering',
              op: cmp.op,
              rhs: { kind: 'ip', value, span: span(rhsPos, end) },
              opSpan,
            },
            end,
          )
        }
        const [value, end] = lexBytes(src, rhsPos)
        return done(
          {
            kind: 'ordering',
            op: cmp.op,
            rhs: { kind: 'bytes', value, span: span(rhsPos, end) },
            opSpan,
          },
          end,
        )
      })
    }
    if (t === 'Int' && cmp.kind === 'bitwiseAnd') {
      return withHint(() => {
        const [value, end] = lexInt(src, rhsPos)
        return done(
          { kind: 'bitwiseAnd', rhs: { kind: 'int', value, span: span(rhsPos, end) }, opSpan },
          end,
        )
      })
    }
    if (t === 'Bytes' && cmp.kind === 'contains') {
      return withHint(() => {
        const [value, end] = lexBytes(src, rhsPos)
        return done(
          { kind: 'contains', rhs: { kind: 'bytes', value, span: span(rhsPos, end) }, opSpan },
          end,
        )
      })
    }
    if (t === 'Bytes' && cmp.kind === 'matches') {
      const lit = lexRegexLiteral(src, rhsPos)
      try {
        compileRegex(lit.pattern, this.regexSizeLimit)
      } catch (e) {
        if (e instanceof RegexSyntaxError) {
          fail(e.tooBig ? 'regex-too-big' : 'parse-regex', e.message, lit.bodyStart, lit.bodyEnd)
        }
        throw e
      }
      return done(
        {
          kind: 'matches',
          rhs: { kind: 'regex', pattern: lit.pattern, span: span(rhsPos, lit.next) },
          opSpan,
        },
        lit.next,
      )
    }
    if (t === 'Bytes' && cmp.kind === 'wildcard') {
      const [value, end] = lexQuotedOrRaw(src, rhsPos)
      try {
        compileWildcard(value, cmp.strict, this.wildcardStarLimit)
      } catch (e) {
        if (e instanceof WildcardError) fail('parse-wildcard', e.message, rhsPos, src.end)
        throw e
      }
      return done(
        {
          kind: 'wildcard',
          strict: cmp.strict,
          rhs: { kind: 'bytes', value, span: span(rhsPos, end) },
          opSpan,
        },
        end,
      )
    }
    fail('unsupported-op', unsupportedOpMessage(t), initial, afterOp, unsupportedOpHint(t))
  }

  parseSet(pos: number, t: 'Ip' | 'Bytes' | 'Int'): SetNode {
    const src = this.src
    let p = expect(src, pos, '{')
    const items: SetItem[] = []
    for (;;) {
      p = skipSpace(src, p)
      if (startsWith(src, p, '}')) {
        return { kind: 'set', of: t, items, span: span(pos, p + 1) }
      }
      if (t === 'Bytes') {
        const [value, end] = lexBytes(src, p)
        items.push({ kind: 'bytes', value, span: span(p, end) })
        p = end
      } else if (t === 'Int') {
        const [range, end] = lexIntRange(src, p)
        items.push({ kind: 'intRange', start: range.start, end: range.end, span: span(p, end) })
        p = end
      } else {
        const [item, end] = lexIpSetItem(src, p)
        items.push({ kind: 'ipItem', item, span: span(p, end) })
        p = end
      }
    }
  }

  // ---- index expressions, fields and function calls -----------------------------------------

  parseIndexExpr(pos: number): IndexTyped {
    const src = this.src
    const target = this.parseIdentifierExpr(pos)
    let type = target.type
    let p = target.end
    const indexes: IndexStep[] = []
    let mapEach = 0
    while (startsWith(src, p, '[')) {
      const open = p
      let q = skipSpace(src, p + 1)
      let step: IndexStep
      if (startsWith(src, q, '*')) {
        q++
        step = { kind: 'mapEach', span: span(open, open) }
      } else if (codeAt(src, q) === DOUBLE_QUOTE) {
        const [bytes, end] = lexBytes(src, q)
        const key = bytesToTextStrict(bytes)
        if (key === undefined)
          fail('expected-literal', 'expected literal "expected utf8 string"', q, src.end)
        q = end
        step = { kind: 'mapKey', key, span: span(open, open) }
      } else {
        let value: bigint
        try {
          ;[value, q] = lexInt(src, q)
        } catch (e) {
          if (e instanceof LexFailure) {
            fail(
              'expected-literal',
              'expected literal "expected quoted utf8 string or positive integer"',
              q,
              src.end,
            )
          }
          throw e
        }
        if (value < 0n || value > 0xffffffffn) {
          fail(
            'expected-literal',
            'expected literal "expected positive integer as index"',
            skipSpace(src, open + 1),
            src.end,
          )
        }
        step = { kind: 'arrayIndex', index: Number(value), span: span(open, open) }
      }
      q = skipSpace(src, q)
      q = expect(src, q, ']')
      step = { ...step, span: span(open, q) }
      const next = stepType(type, step)
      if (next === undefined) {
        fail(
          'index-access',
          indexAccessMessage(step, type),
          open,
          q,
          unsupportedOpHint(type) ? undefined : 'only arrays and maps can be indexed',
        )
      }
      type = next
      if (step.kind === 'mapEach') mapEach++
      indexes.push(step)
      p = q
    }
    return {
      node: { kind: 'index', target: target.node, indexes, span: span(pos, p) },
      type,
      end: p,
      mapEach,
    }
  }

  parseIdentifierExpr(pos: number): Typed<IndexNode['target']> {
    const src = this.src
    if (pos >= src.end)
      fail('expected-name', 'expected identifier character', pos, src.end, undefined, {
        kind: 'identifier',
      })
    let p = takeWhile(src, pos, 'identifier character', isWordChar)
    while (startsWith(src, p, '.')) p = takeWhile(src, p + 1, 'identifier character', isWordChar)
    const name = src.text.slice(pos, p)
    const field = this.scheme.fields.get(name)
    if (field)
      return { node: { kind: 'field', name, span: span(pos, p) }, type: field.type, end: p }
    const fn = this.scheme.functions.get(name)
    if (!fn)
      fail(
        'unknown-identifier',
        'unknown identifier',
        pos,
        p,
        unknownIdentifierHint(this.scheme, name),
      )
    return this.nested(skipSpace(src, p), () => this.parseCall(pos, p, name))
  }

  parseCall(start: number, nameEnd: number, name: string): Typed<CallNode> {
    const src = this.src
    const def = this.scheme.functions.get(name)
    if (!def) fail('unknown-identifier', 'unknown identifier', start, nameEnd)
    let p = skipSpace(src, nameEnd)
    p = expect(src, p, '(')
    p = skipSpace(src, p)
    const args: ArgNode[] = []
    const params: FunctionParam[] = []
    let firstMapEach = 0
    let index = 0
    while (p < src.end) {
      if (codeAt(src, p) === RIGHT_PAREN) break
      if (index !== 0) p = expect(src, p, ',')
      p = skipSpace(src, p)
      const arg = this.parseFunctionArg(p)
      if (arg.mapEach > 0 && index !== 0) {
        fail(
          'map-each',
          'invalid use of map each access operator',
          p,
          arg.end,
          '[*] may only be used in the first argument of a function',
        )
      }
      if (def.maxArgs !== undefined && index >= def.maxArgs) {
        fail(
          'argument-count',
          'invalid number of arguments',
          p,
          src.end,
          `${name}() takes ${arityText(def.minArgs, def.maxArgs)}`,
        )
      }
      const param: FunctionParam = arg.literal
        ? { kind: 'Literal', type: arg.type, value: literalValue(arg.node as LiteralNode) }
        : { kind: 'Field', type: arg.type }
      const problem = def.checkParam(index, param, params)
      if (problem) {
        fail(paramErrorCode(problem), paramErrorMessage(index, problem), p, arg.end)
      }
      if (index === 0) firstMapEach = arg.mapEach
      args.push(arg.node)
      params.push(param)
      p = skipSpace(src, arg.end)
      index++
    }
    if (args.length < def.minArgs) {
      fail(
        'argument-count',
        'invalid number of arguments',
        p,
        src.end,
        `${name}() takes ${arityText(def.minArgs, def.maxArgs)}`,
        p >= src.end ? { kind: 'identifier' } : undefined,
      )
    }
    const end = expect(src, p, ')')
    const ret = def.returnType(params)
    return {
      node: { kind: 'call', name, args, nameSpan: span(start, nameEnd), span: span(start, end) },
      type: firstMapEach > 0 ? arrayOf(ret) : ret,
      end,
    }
  }

  /**
   * A function argument (also the argument of any()/all(), and a value expression): a string
   * literal, a logical expression, an index expression (which becomes a comparison when an
   * operator follows), or else an IP, integer or hex-bytes literal. The heuristics are the
   * vendor's, including their order.
   */
  parseFunctionArg(pos: number): {
    node: ArgNode
    type: Type
    end: number
    literal: boolean
    mapEach: number
  } {
    const src = this.src
    const c = codeAt(src, pos)
    const c2 = codeAt(src, pos + 1)
    const c3 = codeAt(src, pos + 2)
    const isField = (ch: number) => (isAlnum(ch) && !isHexDigit(ch)) || ch === UNDERSCORE
    const isFieldOrInt = (ch: number) => isAlnum(ch) || ch === UNDERSCORE
    if (c === DOUBLE_QUOTE || (c === LOWER_R && (c2 === HASH || c2 === DOUBLE_QUOTE))) {
      const [value, end] = lexBytes(src, pos)
      return {
        node: { kind: 'bytes', value, span: span(pos, end) },
        type: 'Bytes',
        end,
        literal: true,
        mapEach: 0,
      }
    }
    if (c === LEFT_PAREN || this.lexUnaryOp(pos) !== undefined || this.lexQuantifierCall(pos)) {
      const logical = this.parseLogical(pos)
      return {
        node: logical.node,
        type: logical.type,
        end: logical.end,
        literal: false,
        mapEach: 0,
      }
    }
    const indexArg = (lhs: IndexTyped) => {
      const lookahead = skipSpace(src, lhs.end)
      if (this.lexComparisonOp(lookahead)) {
        const cmp = this.comparisonWithLhs(lhs)
        return {
          node: cmp.node as ArgNode,
          type: cmp.type,
          end: cmp.end,
          literal: false,
          mapEach: 0,
        }
      }
      return {
        node: lhs.node as ArgNode,
        type: lhs.type,
        end: lhs.end,
        literal: false,
        mapEach: lhs.mapEach,
      }
    }
    if (
      isField(c) ||
      (isFieldOrInt(c) && c2 >= 0 && isField(c2)) ||
      (isFieldOrInt(c) && c2 >= 0 && isFieldOrInt(c2) && c3 >= 0 && isField(c3))
    ) {
      return indexArg(this.parseIndexExpr(pos))
    }
    // blind attempts, in the vendor's order
    let lhs: IndexTyped | undefined
    try {
      lhs = this.parseIndexExpr(pos)
    } catch (e) {
      if (!(e instanceof LexFailure)) throw e
    }
    if (lhs) return indexArg(lhs)
    const attempt = <T>(f: () => T): T | undefined => {
      try {
        return f()
      } catch (e) {
        if (e instanceof LexFailure) return undefined
        throw e
      }
    }
    const ip = attempt(() => lexIpAddr(src, pos))
    if (ip)
      return {
        node: { kind: 'ip', value: ip[0], span: span(pos, ip[1]) },
        type: 'Ip',
        end: ip[1],
        literal: true,
        mapEach: 0,
      }
    const int = attempt(() => lexInt(src, pos))
    if (int)
      return {
        node: { kind: 'int', value: int[0], span: span(pos, int[1]) },
        type: 'Int',
        end: int[1],
        literal: true,
        mapEach: 0,
      }
    const bytes = attempt(() => lexBytes(src, pos))
    if (bytes)
      return {
        node: { kind: 'bytes', value: bytes[0], span: span(pos, bytes[1]) },
        type: 'Bytes',
        end: bytes[1],
        literal: true,
        mapEach: 0,
      }
    if (pos >= src.end)
      fail('unrecognised-input', 'unrecognised input', pos, src.end, undefined, {
        kind: 'identifier',
      })
    eofError(src, pos)
  }
}

function arityText(min: number, max: number | undefined): string {
  if (max === undefined) return `at least ${min} argument${min === 1 ? '' : 's'}`
  if (min === max) return `${min} argument${min === 1 ? '' : 's'}`
  return `${min} to ${max} arguments`
}
