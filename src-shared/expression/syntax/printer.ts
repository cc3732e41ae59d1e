// The printer: the canonical text of a tree, which parses back to the same tree (spans aside).
// Operators use their English spelling, strings are quoted with escapes for bytes that are not
// printable, regexes are raw strings (so the pattern needs no escaping).

import type {
  ArgNode,
  ComparisonNode,
  Expression,
  IndexNode,
  LiteralNode,
  LogicalNode,
  SetItem,
} from './ast'
import { isLiteralNode, isLogicalNode } from './ast'
import { quoteBytes, utf8Bytes } from '../values/bytes'
import { formatIp } from '../values/ip'

const PRECEDENCE = { or: 0, xor: 1, and: 2 } as const

function rawString(pattern: string): string {
  let hashes = 0
  while (pattern.includes('"' + '#'.repeat(hashes))) hashes++
  const h = '#'.repeat(hashes)
  return `r${h}"${pattern}"${h}`
}

function literal(n: LiteralNode): string {
  if (n.kind === 'bytes') return quoteBytes(n.value)
  if (n.kind === 'int') return n.value.toString()
  return formatIp(n.value)
}

function setItem(item: SetItem): string {
  switch (item.kind) {
    case 'bytes':
      return quoteBytes(item.value)
    case 'intRange':
      return item.start === item.end ? item.start.toString() : `${item.start}..${item.end}`
    case 'ipItem': {
      const i = item.item
      if (i.kind === 'range') return `${formatIp(i.start)}..${formatIp(i.end)}`
      const full = i.addr.family === 4 ? 32 : 128
      return i.prefix === full ? formatIp(i.addr) : `${formatIp(i.addr)}/${i.prefix}`
    }
  }
}

function index(n: IndexNode): string {
  let out =
    n.target.kind === 'field'
      ? n.target.name
      : `${n.target.name}(${n.target.args.map(arg).join(', ')})`
  for (const step of n.indexes) {
    if (step.kind === 'mapEach') out += '[*]'
    else if (step.kind === 'arrayIndex') out += `[${step.index}]`
    else out += `[${quoteBytes(utf8Bytes(step.key))}]`
  }
  return out
}

function comparison(n: ComparisonNode): string {
  const lhs = index(n.lhs)
  const op = n.op
  switch (op.kind) {
    case 'isTrue':
      return lhs
    case 'ordering':
      return `${lhs} ${op.op} ${literal(op.rhs)}`
    case 'bitwiseAnd':
      return `${lhs} & ${op.rhs.value}`
    case 'contains':
      return `${lhs} contains ${quoteBytes(op.rhs.value)}`
    case 'matches':
      return `${lhs} matches ${rawString(op.rhs.pattern)}`
    case 'wildcard':
      return `${lhs} ${op.strict ? 'strict wildcard' : 'wildcard'} ${quoteBytes(op.rhs.value)}`
    case 'oneOf':
      return `${lhs} in {${op.rhs.items.map(setItem).join(' ')}}`
    case 'inList':
      return `${lhs} in $${op.list}`
  }
}

function logical(n: LogicalNode, parentPrecedence = -1): string {
  switch (n.kind) {
    case 'comparison':
      return comparison(n)
    case 'paren':
      return `(${logical(n.expr)})`
    case 'not': {
      const inner = logical(n.arg, 3)
      return `not ${inner}`
    }
    case 'quantifier':
      return `${n.op}(${arg(n.arg)})`
    case 'combining': {
      const p = PRECEDENCE[n.op]
      const text = n.items.map((item) => logical(item, p)).join(` ${n.op} `)
      return p <= parentPrecedence ? `(${text})` : text
    }
  }
}

function arg(n: ArgNode): string {
  if (isLiteralNode(n)) return literal(n)
  if (isLogicalNode(n)) {
    const text = logical(n)
    if (n.kind === 'combining' && !/^(\(|not\b|!|any\s*\(|all\s*\()/.test(text)) return `(${text})`
    return text
  }
  return index(n)
}

/** Canonical text of an expression or of any node of its tree. */
export function print(node: Expression | ArgNode): string {
  const n = 'root' in node ? node.root : node
  return isLogicalNode(n) ? logical(n) : arg(n)
}
