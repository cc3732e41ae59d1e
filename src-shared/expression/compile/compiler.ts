// The compiler: a checked tree becomes nested closures (no eval, no Function constructor), the
// way wirefilter compiles its AST. Constant sub-expressions are folded (functions of literals,
// the `true` / `false` constants, logical operators with constant operands). Compiled
// expressions are cached by text and options.
//
// Missing values (an unset field, an absent map key, an index past the end, a function without
// a result) make every comparison false, `!=` included, as the vendor's documentation says; `not`
// then inverts. `nilNotEqual: true` gives the open-source engine's default instead (`!=` true).
//
// One piece over 500 lines: one class whose methods (values and calls, comparisons, element
// streams for any()/all(), logical operators) recurse into each other over the tree and share the
// scheme, the treatment of missing values and the shared values of one compilation.

import { compileRegex } from '../regex/regex'
import { containsGate } from '../regex/prefilter'
import type { FunctionImpl, FunctionParam } from '../scheme/functions'
import type { Scheme } from '../scheme/scheme'
import {
  isLiteralNode,
  isLogicalNode,
  literalType,
  literalValue,
  type ComparisonNode,
  type IndexNode,
  type IndexStep,
  type LiteralNode,
  type LogicalNode,
} from '../syntax/ast'
import type { EvaluationContext } from '../values/evaluation'
import { compareIp } from '../values/ip'
import { arrayOf, type IpAddress, type Type, type Value } from '../values/types'
import { compileWildcard } from '../values/wildcard'
import {
  constOne,
  constValue,
  elementsOf,
  flatten,
  mapEachCount,
  setPredicate,
  shortCircuit,
  stepFn,
  walkSteps,
  type BoolFn,
  type CompiledLogical,
  type CompiledValue,
  type ElementWalker,
  type StepFn,
  type ValFn,
  type VecFn,
} from './closures'
import { needsOfAll, needsOfAny, type Needs } from './requirement'
import { sharedValuesOf, valueKey, type SharedValues } from './shared-value'

const EMPTY_CTX: EvaluationContext = { fields: {} }

/** Functions true only when their first argument contains their second. */
const AFFIX_FUNCTIONS = new Set(['starts_with', 'ends_with'])

export class Compiler {
  readonly shared: SharedValues

  constructor(
    readonly scheme: Scheme,
    readonly nilNotEqual: boolean,
  ) {
    this.shared = sharedValuesOf(scheme, nilNotEqual)
  }

  // ---- values -------------------------------------------------------------------------------

  target(n: IndexNode['target']): CompiledValue {
    if (n.kind === 'field') {
      const def = this.scheme.fields.get(n.name)
      if (def && def.constant !== undefined) return constValue(def.constant)
      const name = n.name
      return { fn: (ctx) => ctx.fields[name] }
    }
    return this.call(n)
  }

  /** The value at `steps` (no `[*]`) from `base`. */
  chain(base: CompiledValue, steps: readonly IndexStep[]): CompiledValue {
    if (steps.length === 0) return base
    const fns = steps.map(stepFn)
    const b = base.fn
    let fn: ValFn
    // One or two steps (a key, then an index) get closures without the loop, as call() does for
    // one or two arguments: the rules' usual indexes, evaluated once per rule and request.
    if (fns.length === 1) {
      const s0 = fns[0] as StepFn
      fn = (ctx) => {
        const v = b(ctx)
        return v === undefined ? undefined : s0(v)
      }
    } else if (fns.length === 2) {
      const s0 = fns[0] as StepFn
      const s1 = fns[1] as StepFn
      fn = (ctx) => {
        const v = b(ctx)
        if (v === undefined) return undefined
        const w = s0(v)
        return w === undefined ? undefined : s1(w)
      }
    } else {
      fn = (ctx) => {
        let v = b(ctx)
        for (const s of fns) {
          if (v === undefined) return undefined
          v = s(v)
        }
        return v
      }
    }
    if (base.constant) return constValue(fn(EMPTY_CTX))
    return { fn }
  }

  /** An index expression used as a value; with `[*]` it is the array of (flattened) elements. */
  indexValue(n: IndexNode): CompiledValue {
    const base = this.target(n.target)
    if (mapEachCount(n) === 0) return this.chain(base, n.indexes)
    const b = base.fn
    const steps = n.indexes
    const fn: ValFn = (ctx) => {
      const root = b(ctx)
      return root === undefined ? undefined : flatten(root, steps)
    }
    return base.constant ? constValue(fn(EMPTY_CTX)) : { fn }
  }

  arg(n: IndexNode | LiteralNode | LogicalNode): CompiledValue {
    if (isLiteralNode(n)) return constValue(literalValue(n))
    if (isLogicalNode(n)) {
      const c = this.logical(n)
      if (c.kind === 'one') return c.constant !== undefined ? constValue(c.constant) : { fn: c.fn }
      return { fn: c.fn }
    }
    return this.indexValue(n)
  }

  call(n: Extract<IndexNode['target'], { kind: 'call' }>): CompiledValue {
    const def = this.scheme.functions.get(n.name)
    if (!def) throw new Error(`unknown function ${n.name}`)
    const args = n.args.map((a) => this.arg(a))
    const params: FunctionParam[] = n.args.map((a, i) => {
      const type = this.argType(a)
      const c = args[i]
      return isLiteralNode(a)
        ? { kind: 'Literal', type, value: c?.constant?.value as Value }
        : { kind: 'Field', type }
    })
    const impl: FunctionImpl = def.implement(params)
    const propagate = def.propagatesMissing !== false
    const mapped =
      n.args[0] !== undefined && n.args[0].kind === 'index' && mapEachCount(n.args[0]) > 0
    const fns = args.map((a) => a.fn)
    const count = fns.length
    const buf: (Value | undefined)[] = new Array<Value | undefined>(count)
    let fn: ValFn
    if (mapped) {
      const first = fns[0] as ValFn
      fn = (ctx) => {
        const elements = first(ctx) as readonly Value[] | undefined
        if (elements === undefined) return undefined
        for (let i = 1; i < count; i++) buf[i] = (fns[i] as ValFn)(ctx)
        const out: Value[] = []
        for (const el of elements) {
          buf[0] = el
          if (propagate && buf.includes(undefined)) continue
          const r = impl(buf)
          if (r !== undefined) out.push(r)
        }
        return out
      }
    } else if (count === 1 && propagate && def.unary) {
      const u = def.unary
      const a0 = n.args[0]
      if (
        a0 &&
        a0.kind === 'index' &&
        a0.target.kind === 'field' &&
        a0.indexes.length === 0 &&
        !args[0]?.constant
      ) {
        const name = a0.target.name
        fn = (ctx) => {
          const a = ctx.fields[name]
          return a === undefined ? undefined : u(a)
        }
      } else {
        const f0 = fns[0] as ValFn
        fn = (ctx) => {
          const a = f0(ctx)
          return a === undefined ? undefined : u(a)
        }
      }
    } else if (count === 1 && propagate) {
      const f0 = fns[0] as ValFn
      fn = (ctx) => {
        const a = f0(ctx)
        if (a === undefined) return undefined
        buf[0] = a
        return impl(buf)
      }
    } else if (count === 2 && propagate) {
      const f0 = fns[0] as ValFn
      const f1 = fns[1] as ValFn
      fn = (ctx) => {
        const a = f0(ctx)
        if (a === undefined) return undefined
        const b = f1(ctx)
        if (b === undefined) return undefined
        buf[0] = a
        buf[1] = b
        return impl(buf)
      }
    } else {
      fn = (ctx) => {
        for (let i = 0; i < count; i++) {
          const v = (fns[i] as ValFn)(ctx)
          if (v === undefined && propagate) return undefined
          buf[i] = v
        }
        return impl(buf)
      }
    }
    if (def.pure !== false && args.every((a) => a.constant)) return constValue(fn(EMPTY_CTX))
    // Bytes and arrays (decoded, lowered, looked-up values) are worth computing once per request;
    // a number or a boolean (len(), starts_with()) costs less to compute again than to remember.
    const result = this.callType(n)
    if (def.pure === false || (result !== 'Bytes' && typeof result === 'string')) return { fn }
    const shared = this.shared.of(valueKey(n), fn)
    return { fn: (ctx) => shared.get(ctx) }
  }

  argType(n: IndexNode | LiteralNode | LogicalNode): Type {
    if (isLiteralNode(n)) return literalType(n)
    if (isLogicalNode(n)) return 'Bool'
    // the parameter type of an index expression is its element type (see the parser)
    let t: Type =
      n.target.kind === 'field'
        ? (this.scheme.fields.get(n.target.name)?.type ?? 'Bytes')
        : this.callType(n.target)
    for (const s of n.indexes) {
      if (typeof t !== 'string') t = t.of
      void s
    }
    return t
  }

  callType(n: Extract<IndexNode['target'], { kind: 'call' }>): Type {
    const def = this.scheme.functions.get(n.name)
    if (!def) return 'Bytes'
    const params: FunctionParam[] = n.args.map((a) =>
      isLiteralNode(a)
        ? { kind: 'Literal', type: literalType(a), value: literalValue(a) }
        : { kind: 'Field', type: this.argType(a) },
    )
    const ret = def.returnType(params)
    const first = n.args[0]
    return first && first.kind === 'index' && mapEachCount(first) > 0 ? arrayOf(ret) : ret
  }

  // ---- comparisons --------------------------------------------------------------------------

  predicate(n: ComparisonNode): ((v: Value, ctx: EvaluationContext) => boolean) | undefined {
    const op = n.op
    switch (op.kind) {
      case 'isTrue':
        return (v) => v === true
      case 'ordering': {
        const rhs = literalValue(op.rhs)
        if (op.rhs.kind === 'ip') {
          const r = rhs as IpAddress
          const want = op.op
          return (v) => {
            const c = compareIp(v as IpAddress, r)
            if (c === undefined) return want === 'ne'
            return want === 'eq'
              ? c === 0
              : want === 'ne'
                ? c !== 0
                : want === 'lt'
                  ? c < 0
                  : want === 'le'
                    ? c <= 0
                    : want === 'gt'
                      ? c > 0
                      : c >= 0
          }
        }
        const r = rhs as string | number
        switch (op.op) {
          case 'eq':
            return (v) => v === r
          case 'ne':
            return (v) => v !== r
          case 'lt':
            return (v) => (v as string | number) < r
          case 'le':
            return (v) => (v as string | number) <= r
          case 'gt':
            return (v) => (v as string | number) > r
          case 'ge':
            return (v) => (v as string | number) >= r
        }
        return undefined
      }
      case 'bitwiseAnd': {
        const big = BigInt.asIntN(64, op.rhs.value)
        const small = big >= -(2n ** 31n) && big < 2n ** 31n ? Number(big) : undefined
        return (v) => {
          const x = v as number
          if (small !== undefined && x >= -2147483648 && x <= 2147483647) return (x & small) !== 0
          return (BigInt.asIntN(64, BigInt(Math.trunc(x))) & big) !== 0n
        }
      }
      case 'contains': {
        const needle = op.rhs.value
        return (v) => (v as string).includes(needle)
      }
      case 'matches': {
        const re = compileRegex(op.rhs.pattern)
        return (v) => re.test(v as string)
      }
      case 'wildcard': {
        const wc = compileWildcard(op.rhs.value, op.strict)
        return (v) => wc.test(v as string)
      }
      case 'oneOf':
        return setPredicate(op.rhs)
      case 'inList': {
        const name = op.list
        return (v, ctx) => {
          const list = ctx.lists?.[name]
          if (!list) {
            ctx.warn?.(`unknown list $${name}: treated as empty`)
            return false
          }
          return list.has(v)
        }
      }
    }
  }

  comparison(n: ComparisonNode): CompiledLogical {
    const compiled = this.comparisonOfValue(n)
    if (compiled.kind !== 'one' || compiled.needs !== undefined || compiled.constant !== undefined)
      return compiled
    const needs = this.literalNeeds(n)
    return needs === undefined ? compiled : { ...compiled, needs }
  }

  /**
   * Needs of a comparison true only when a Bytes value contains one of a few literals: `contains`,
   * `eq` and `in` with text, and starts_with() / ends_with(). A zone's rules open with such tests
   * (a path, a method) far more often than with a pattern.
   */
  private literalNeeds(n: ComparisonNode): Needs | undefined {
    const { op, lhs } = n
    let operand: IndexNode | LiteralNode | LogicalNode = lhs
    let texts: string[]
    if (op.kind === 'contains') texts = [op.rhs.value]
    else if (op.kind === 'ordering' && op.op === 'eq' && op.rhs.kind === 'bytes')
      texts = [op.rhs.value]
    else if (op.kind === 'oneOf' && op.rhs.of === 'Bytes')
      // An item that is not text (none is, in a Bytes set) becomes "", which gives no gate.
      texts = op.rhs.items.map((item) => (item.kind === 'bytes' ? item.value : ''))
    else if (
      op.kind === 'isTrue' &&
      lhs.indexes.length === 0 &&
      lhs.target.kind === 'call' &&
      AFFIX_FUNCTIONS.has(lhs.target.name) &&
      lhs.target.args.length === 2 &&
      lhs.target.args[1]?.kind === 'bytes'
    ) {
      operand = lhs.target.args[0]!
      texts = [lhs.target.args[1].value]
    } else return undefined
    if (operand.kind !== 'index' || mapEachCount(operand) > 0 || this.argType(operand) !== 'Bytes')
      return undefined
    const gate = containsGate(texts)
    if (gate === undefined) return undefined
    const source = this.shared.of(valueKey(operand), this.indexValue(operand).fn)
    return [{ source, elements: false, gate }]
  }

  private comparisonOfValue(n: ComparisonNode): CompiledLogical {
    const pred = this.predicate(n)
    if (!pred) throw new Error('unsupported comparison')
    const missing = n.op.kind === 'ordering' && n.op.op === 'ne' && this.nilNotEqual
    const lhs = n.lhs
    const eachCount = mapEachCount(lhs)
    const base = this.target(lhs.target)

    if (eachCount > 0) {
      const b = base.fn
      const steps = lhs.indexes
      const fn: VecFn = (ctx) => {
        const root = b(ctx)
        if (root === undefined) return []
        const items = flatten(root, steps)
        const out = new Array<boolean>(items.length)
        for (let i = 0; i < items.length; i++) out[i] = pred(items[i] as Value, ctx)
        return out
      }
      return { kind: 'vec', fn }
    }

    const value = this.chain(base, lhs.indexes)
    if (n.op.kind === 'isTrue' && this.argType(lhs) !== 'Bool') {
      // an Array<Bool> value used as a condition: one result per element
      const get = value.fn
      return { kind: 'vec', fn: (ctx) => ((get(ctx) as boolean[] | undefined) ?? []).slice() }
    }
    if (value.constant) {
      const v = value.constant.value
      if (n.op.kind !== 'inList') return constOne(v === undefined ? missing : pred(v, EMPTY_CTX))
    }
    if (n.op.kind === 'matches') {
      // Every pattern tried on the same value of a request shares its prefilter scan.
      const re = compileRegex(n.op.rhs.pattern)
      const source = this.shared.of(valueKey(lhs), value.fn)
      return {
        kind: 'one',
        fn: (ctx) => {
          const input = source.scanned(ctx)
          return input !== undefined && re.testScanned(input)
        },
        ...(re.gate === undefined ? {} : { needs: [{ source, elements: false, gate: re.gate }] }),
      }
    }
    const fast =
      lhs.target.kind === 'field' && lhs.indexes.length === 0 && !value.constant
        ? this.fastField(lhs.target.name, n, missing)
        : undefined
    if (fast) return { kind: 'one', fn: fast }
    const get = value.fn
    if (n.op.kind === 'ordering' && n.op.op === 'eq' && n.op.rhs.kind !== 'ip') {
      const r = literalValue(n.op.rhs)
      return { kind: 'one', fn: (ctx) => get(ctx) === r }
    }
    if (missing) {
      return {
        kind: 'one',
        fn: (ctx) => {
          const v = get(ctx)
          return v === undefined ? true : pred(v, ctx)
        },
      }
    }
    return {
      kind: 'one',
      fn: (ctx) => {
        const v = get(ctx)
        return v !== undefined && pred(v, ctx)
      },
    }
  }

  /** Direct closures for the commonest shape: a plain field against a literal. */
  fastField(name: string, n: ComparisonNode, missing: boolean): BoolFn | undefined {
    const op = n.op
    if (missing) return undefined
    if (op.kind === 'isTrue') return (ctx) => ctx.fields[name] === true
    if (op.kind === 'ordering' && op.rhs.kind !== 'ip') {
      const r = literalValue(op.rhs) as string | number
      switch (op.op) {
        case 'eq':
          return (ctx) => ctx.fields[name] === r
        case 'ne':
          return (ctx) => {
            const v = ctx.fields[name]
            return v !== undefined && v !== r
          }
        case 'lt':
          return (ctx) => {
            const v = ctx.fields[name] as string | number | undefined
            return v !== undefined && v < r
          }
        case 'le':
          return (ctx) => {
            const v = ctx.fields[name] as string | number | undefined
            return v !== undefined && v <= r
          }
        case 'gt':
          return (ctx) => {
            const v = ctx.fields[name] as string | number | undefined
            return v !== undefined && v > r
          }
        case 'ge':
          return (ctx) => {
            const v = ctx.fields[name] as string | number | undefined
            return v !== undefined && v >= r
          }
      }
    }
    if (op.kind === 'contains') {
      const needle = op.rhs.value
      return (ctx) => {
        const v = ctx.fields[name] as string | undefined
        return v !== undefined && v.includes(needle)
      }
    }
    if (op.kind === 'oneOf' && op.rhs.of === 'Bytes') {
      const values = new Set(op.rhs.items.map((i) => (i.kind === 'bytes' ? i.value : '')))
      return (ctx) => {
        const v = ctx.fields[name] as string | undefined
        return v !== undefined && values.has(v)
      }
    }
    const pred = this.predicate(n)
    if (!pred || op.kind === 'inList') return undefined
    return (ctx) => {
      const v = ctx.fields[name]
      return v !== undefined && pred(v, ctx)
    }
  }

  // ---- element streams (any()/all() without intermediate arrays) ---------------------------

  /**
   * Visits each element an index expression with `[*]` yields, in order, stopping as soon as
   * `visit` returns true (the walker then returns true). A mapped function call is fused with
   * the iteration: its results are produced one at a time.
   */
  walker(n: IndexNode): ElementWalker | undefined {
    const steps = n.indexes
    const target = n.target
    const first = target.kind === 'call' ? target.args[0] : undefined
    const mappedCall =
      target.kind === 'call' &&
      first !== undefined &&
      first.kind === 'index' &&
      mapEachCount(first) > 0
    if (mappedCall && steps[0]?.kind === 'mapEach') {
      const def = this.scheme.functions.get(target.name)
      const inner = this.walker(first)
      if (!def || !inner) return undefined
      const params = this.callParams(target)
      const impl = def.implement(params)
      const propagate = def.propagatesMissing !== false
      const rest = this.argFns(target).slice(1)
      const count = rest.length + 1
      const buf: (Value | undefined)[] = new Array<Value | undefined>(count)
      const after = walkSteps(steps.slice(1))
      const u = def.unary
      if (count === 1 && propagate && u) {
        if (steps.length === 1) {
          return (ctx, visit) =>
            inner(ctx, (el) => {
              const r = u(el)
              return r !== undefined && visit(r)
            })
        }
        return (ctx, visit) =>
          inner(ctx, (el) => {
            const r = u(el)
            return r !== undefined && after(r, visit)
          })
      }
      return (ctx, visit) => {
        for (let i = 1; i < count; i++) buf[i] = (rest[i - 1] as ValFn)(ctx)
        if (propagate) for (let i = 1; i < count; i++) if (buf[i] === undefined) return false
        return inner(ctx, (el) => {
          buf[0] = el
          const r = impl(buf)
          return r !== undefined && after(r, visit)
        })
      }
    }
    if (mappedCall) return undefined
    const base = this.target(target).fn
    const eachAt = steps.findIndex((s) => s.kind === 'mapEach')
    const prefix = this.chain({ fn: base }, steps.slice(0, eachAt)).fn
    const after = walkSteps(steps.slice(eachAt + 1))
    if (eachAt === steps.length - 1) {
      return (ctx, visit) => {
        const container = prefix(ctx)
        if (container === undefined) return false
        if (Array.isArray(container)) {
          const items = container as readonly Value[]
          for (let i = 0; i < items.length; i++) if (visit(items[i] as Value)) return true
          return false
        }
        for (const v of (container as ReadonlyMap<string, Value>).values())
          if (visit(v)) return true
        return false
      }
    }
    return (ctx, visit) => {
      const container = prefix(ctx)
      if (container === undefined) return false
      for (const el of elementsOf(container)) if (after(el, visit)) return true
      return false
    }
  }

  /** any()/all() over a `[*]` comparison (possibly negated or parenthesised), short-circuiting. */
  fusedQuantifier(arg: LogicalNode, all: boolean): CompiledLogical | undefined {
    let node = arg
    let negate = false
    for (;;) {
      if (node.kind === 'paren') node = node.expr
      else if (node.kind === 'not') {
        negate = !negate
        node = node.arg
      } else break
    }
    if (node.kind !== 'comparison' || mapEachCount(node.lhs) === 0) return undefined
    // any(p) stops at the first element where p holds; all(p) at the first where it does not
    const stopOn = all === negate
    const steps = node.lhs.indexes
    if (
      node.op.kind === 'matches' &&
      mapEachCount(node.lhs) === 1 &&
      steps.at(-1)!.kind === 'mapEach'
    ) {
      // `container[*] matches`: the container is computed, and its elements scanned, once per
      // request for every pattern tried on them.
      const re = compileRegex(node.op.rhs.pattern)
      const container: IndexNode = { ...node.lhs, indexes: steps.slice(0, -1) }
      const source = this.shared.of(valueKey(container), this.indexValue(container).fn)
      // Only `any(x[*] matches …)` needs a match: `all()` of no elements is true.
      const needs =
        stopOn && !all && re.gate !== undefined
          ? { needs: [{ source, elements: true, gate: re.gate }] }
          : {}
      return {
        kind: 'one',
        fn: (ctx) => {
          for (const input of source.scannedElements(ctx))
            if (re.testScanned(input) === stopOn) return !all
          return all
        },
        ...needs,
      }
    }
    const pred = this.predicate(node)
    const walk = this.walker(node.lhs)
    if (!pred || !walk) return undefined
    if (node.op.kind !== 'inList') {
      // the predicate does not read the context: one visitor for every evaluation
      const visit = stopOn ? (pred as (v: Value) => boolean) : (v: Value) => !pred(v, EMPTY_CTX)
      return all
        ? { kind: 'one', fn: (ctx) => !walk(ctx, visit) }
        : { kind: 'one', fn: (ctx) => walk(ctx, visit) }
    }
    return {
      kind: 'one',
      fn: (ctx) => {
        const stopped = walk(ctx, (v) => pred(v, ctx) === stopOn)
        return all ? !stopped : stopped
      },
    }
  }

  callParams(n: Extract<IndexNode['target'], { kind: 'call' }>): FunctionParam[] {
    return n.args.map((a) =>
      isLiteralNode(a)
        ? { kind: 'Literal', type: literalType(a), value: literalValue(a) }
        : { kind: 'Field', type: this.argType(a) },
    )
  }

  argFns(n: Extract<IndexNode['target'], { kind: 'call' }>): ValFn[] {
    return n.args.map((a) => this.arg(a).fn)
  }

  // ---- logical ------------------------------------------------------------------------------

  logical(n: LogicalNode): CompiledLogical {
    switch (n.kind) {
      case 'comparison':
        return this.comparison(n)
      case 'paren':
        return this.logical(n.expr)
      case 'not': {
        const a = this.logical(n.arg)
        if (a.kind === 'vec') {
          const f = a.fn
          return { kind: 'vec', fn: (ctx) => f(ctx).map((x) => !x) }
        }
        if (a.constant !== undefined) return constOne(!a.constant)
        const f = a.fn
        return { kind: 'one', fn: (ctx) => !f(ctx) }
      }
      case 'quantifier': {
        const all = n.op === 'all'
        const arg = n.arg
        if (arg.kind === 'index') {
          const v = this.indexValue(arg)
          const reduce = (a: Value | undefined) => {
            if (a === undefined) return false
            const items = a as readonly boolean[]
            return all ? items.every((x) => x) : items.some((x) => x)
          }
          if (v.constant) return constOne(reduce(v.constant.value))
          const f = v.fn
          return { kind: 'one', fn: (ctx) => reduce(f(ctx)) }
        }
        const fused = this.fusedQuantifier(arg, all)
        if (fused) return fused
        const c = this.logical(arg)
        if (c.kind === 'one') throw new Error('quantifier over a single boolean')
        const f = c.fn
        return all
          ? { kind: 'one', fn: (ctx) => f(ctx).every((x) => x) }
          : { kind: 'one', fn: (ctx) => f(ctx).some((x) => x) }
      }
      case 'combining':
        return this.combining(n)
    }
  }

  combining(n: Extract<LogicalNode, { kind: 'combining' }>): CompiledLogical {
    const items = n.items.map((i) => this.logical(i))
    if (items.some((i) => i.kind === 'vec')) {
      const fns = items.map((i) => i.fn as VecFn)
      const op = n.op
      return {
        kind: 'vec',
        fn: (ctx) => {
          let out = (fns[0] as VecFn)(ctx).slice()
          for (let k = 1; k < fns.length; k++) {
            const vals = (fns[k] as VecFn)(ctx)
            if (vals.length < out.length) out = out.slice(0, vals.length)
            for (let i = 0; i < out.length; i++) {
              const a = out[i] as boolean
              const b = vals[i] as boolean
              out[i] = op === 'and' ? a && b : op === 'or' ? a || b : a !== b
            }
          }
          return out
        },
      }
    }
    const ones = items as Extract<CompiledLogical, { kind: 'one' }>[]
    if (n.op === 'xor') {
      let parity = false
      const rest: BoolFn[] = []
      for (const i of ones) {
        if (i.constant !== undefined) parity = parity !== i.constant
        else rest.push(i.fn)
      }
      if (rest.length === 0) return constOne(parity)
      return {
        kind: 'one',
        fn: (ctx) => {
          let acc = parity
          for (const f of rest) acc = acc !== f(ctx)
          return acc
        },
      }
    }
    const isAnd = n.op === 'and'
    const live: Extract<CompiledLogical, { kind: 'one' }>[] = []
    for (const i of ones) {
      if (i.constant === undefined) live.push(i)
      else if (i.constant !== isAnd) return constOne(!isAnd)
    }
    if (live.length === 0) return constOne(isAnd)
    if (live.length === 1) return live[0]!
    const needs = (isAnd ? needsOfAll : needsOfAny)(live.map((i) => i.needs))
    return {
      kind: 'one',
      fn: shortCircuit(
        live.map((i) => i.fn),
        isAnd,
      ),
      ...(needs === undefined ? {} : { needs }),
    }
  }
}
