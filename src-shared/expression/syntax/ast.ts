// The syntax tree of the Rules language. Every node carries its span (0-based offsets into the
// expression text, end exclusive). The shape follows wirefilter's AST (the serde output of its
// `ast/mod.rs`, docs/vendor-behaviour.md#grammar): parenthesised groups are kept, runs of one
// logical operator are flattened into one n-ary node, and the right-hand side of a comparison is
// already typed by its left side.

import type { IpSetItem } from './lexer'
import { isArray, isMap, type IpAddress, type Type, type Value } from '../values/types'

export interface Span {
  readonly start: number
  readonly end: number
}

export type LogicalOp = 'and' | 'or' | 'xor'
export type OrderingOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge'

export type LogicalNode = CombiningNode | NotNode | ParenNode | QuantifierNode | ComparisonNode

export interface CombiningNode {
  readonly kind: 'combining'
  readonly op: LogicalOp
  readonly items: readonly LogicalNode[]
  readonly span: Span
}

export interface NotNode {
  readonly kind: 'not'
  readonly arg: LogicalNode
  readonly span: Span
}

export interface ParenNode {
  readonly kind: 'paren'
  readonly expr: LogicalNode
  readonly span: Span
}

export interface QuantifierNode {
  readonly kind: 'quantifier'
  readonly op: 'any' | 'all'
  /** an Array<Bool> value: an index expression or a logical expression */
  readonly arg: IndexNode | LogicalNode
  readonly span: Span
}

export interface ComparisonNode {
  readonly kind: 'comparison'
  readonly lhs: IndexNode
  readonly op: ComparisonOp
  readonly span: Span
}

export type ComparisonOp =
  | { readonly kind: 'isTrue' }
  | {
      readonly kind: 'ordering'
      readonly op: OrderingOp
      readonly rhs: LiteralNode
      readonly opSpan: Span
    }
  | { readonly kind: 'bitwiseAnd'; readonly rhs: IntLiteral; readonly opSpan: Span }
  | { readonly kind: 'contains'; readonly rhs: BytesLiteral; readonly opSpan: Span }
  | { readonly kind: 'matches'; readonly rhs: RegexLiteral; readonly opSpan: Span }
  | {
      readonly kind: 'wildcard'
      readonly strict: boolean
      readonly rhs: BytesLiteral
      readonly opSpan: Span
    }
  | { readonly kind: 'oneOf'; readonly rhs: SetNode; readonly opSpan: Span }
  | {
      readonly kind: 'inList'
      readonly list: string
      readonly listSpan: Span
      readonly opSpan: Span
    }

/** A field or a function call, followed by zero or more `[…]` accesses. */
export interface IndexNode {
  readonly kind: 'index'
  readonly target: FieldNode | CallNode
  readonly indexes: readonly IndexStep[]
  readonly span: Span
}

export interface FieldNode {
  readonly kind: 'field'
  readonly name: string
  readonly span: Span
}

export interface CallNode {
  readonly kind: 'call'
  readonly name: string
  readonly args: readonly ArgNode[]
  readonly nameSpan: Span
  readonly span: Span
}

export type ArgNode = IndexNode | LiteralNode | LogicalNode

export type IndexStep =
  | { readonly kind: 'arrayIndex'; readonly index: number; readonly span: Span }
  | { readonly kind: 'mapKey'; readonly key: string; readonly span: Span }
  | { readonly kind: 'mapEach'; readonly span: Span }

export type LiteralNode = BytesLiteral | IntLiteral | IpLiteral

export interface BytesLiteral {
  readonly kind: 'bytes'
  /** the bytes, as a binary string */
  readonly value: string
  readonly span: Span
}

export interface IntLiteral {
  readonly kind: 'int'
  readonly value: bigint
  readonly span: Span
}

export interface IpLiteral {
  readonly kind: 'ip'
  readonly value: IpAddress
  readonly span: Span
}

export interface RegexLiteral {
  readonly kind: 'regex'
  /** the pattern text handed to the regex engine */
  readonly pattern: string
  readonly span: Span
}

export type SetItem =
  | BytesLiteral
  | { readonly kind: 'intRange'; readonly start: bigint; readonly end: bigint; readonly span: Span }
  | { readonly kind: 'ipItem'; readonly item: IpSetItem; readonly span: Span }

export interface SetNode {
  readonly kind: 'set'
  readonly of: 'Bytes' | 'Int' | 'Ip'
  readonly items: readonly SetItem[]
  readonly span: Span
}

/** The root of a parsed expression. */
export interface Expression {
  readonly text: string
  /** a filter (a logical expression) or a value expression (see parseValue) */
  readonly root: LogicalNode | IndexNode | LiteralNode
  /** the span of the parsed text after trimming */
  readonly span: Span
}

export function isLogicalNode(n: ArgNode | LogicalNode): n is LogicalNode {
  return (
    n.kind === 'combining' ||
    n.kind === 'not' ||
    n.kind === 'paren' ||
    n.kind === 'quantifier' ||
    n.kind === 'comparison'
  )
}

export function isLiteralNode(n: ArgNode): n is LiteralNode {
  return n.kind === 'bytes' || n.kind === 'int' || n.kind === 'ip'
}

/** The value a literal node denotes at run time. */
export function literalValue(n: LiteralNode): Value {
  if (n.kind === 'int') return Number(n.value)
  return n.value
}

export function literalType(n: LiteralNode): Type {
  return n.kind === 'int' ? 'Int' : n.kind === 'ip' ? 'Ip' : 'Bytes'
}

/** Type of an index expression's target after its indexes (element type under `[*]`). */
export function stepType(current: Type, step: IndexStep): Type | undefined {
  if (step.kind === 'arrayIndex') return isArray(current) ? current.of : undefined
  if (step.kind === 'mapKey') return isMap(current) ? current.of : undefined
  return isArray(current) || isMap(current) ? current.of : undefined
}
