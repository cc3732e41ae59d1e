// The operators of the Rules language and their spellings (docs/vendor-behaviour.md#grammar):
// logical operators with their precedence, comparison operators, and the word operators tooling
// highlights.

import type { LogicalOp, OrderingOp } from './ast'

export const LOGICAL_OPS: [string, LogicalOp, number][] = [
  ['or', 'or', 0],
  ['||', 'or', 0],
  ['xor', 'xor', 1],
  ['^^', 'xor', 1],
  ['and', 'and', 2],
  ['&&', 'and', 2],
]

export const PRECEDENCE: Record<LogicalOp, number> = { or: 0, xor: 1, and: 2 }

export type CmpOp =
  | { kind: 'in' }
  | { kind: 'ordering'; op: OrderingOp }
  | { kind: 'bitwiseAnd' }
  | { kind: 'contains' }
  | { kind: 'matches' }
  | { kind: 'wildcard'; strict: boolean }

export const COMPARISON_OPS: [string, CmpOp][] = [
  ['in', { kind: 'in' }],
  ['eq', { kind: 'ordering', op: 'eq' }],
  ['==', { kind: 'ordering', op: 'eq' }],
  ['ne', { kind: 'ordering', op: 'ne' }],
  ['!=', { kind: 'ordering', op: 'ne' }],
  ['ge', { kind: 'ordering', op: 'ge' }],
  ['>=', { kind: 'ordering', op: 'ge' }],
  ['le', { kind: 'ordering', op: 'le' }],
  ['<=', { kind: 'ordering', op: 'le' }],
  ['gt', { kind: 'ordering', op: 'gt' }],
  ['>', { kind: 'ordering', op: 'gt' }],
  ['lt', { kind: 'ordering', op: 'lt' }],
  ['<', { kind: 'ordering', op: 'lt' }],
  ['&', { kind: 'bitwiseAnd' }],
  ['bitwise_and', { kind: 'bitwiseAnd' }],
  ['contains', { kind: 'contains' }],
  ['~', { kind: 'matches' }],
  ['matches', { kind: 'matches' }],
  ['wildcard', { kind: 'wildcard', strict: false }],
  ['strict wildcard', { kind: 'wildcard', strict: true }],
]

/** The spellings of every comparison operator, for tooling. */
export const COMPARISON_OPERATOR_SPELLINGS: readonly string[] = COMPARISON_OPS.map(([s]) => s)
export const LOGICAL_OPERATOR_SPELLINGS: readonly string[] = LOGICAL_OPS.map(([s]) => s)
const isWord = (spelling: string) => /^[a-z_]+$/.test(spelling)
/** The operators spelled as words (`and`, `eq`, `contains`, …), `not` included. */
export const WORD_OPERATORS: ReadonlySet<string> = new Set(
  [...LOGICAL_OPERATOR_SPELLINGS, ...COMPARISON_OPERATOR_SPELLINGS, 'not'].filter(isWord),
)
