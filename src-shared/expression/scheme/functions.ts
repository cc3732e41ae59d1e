// Functions as a scheme declares them: their signatures (argument kinds and types, checked at
// parse time in the vendor's order and wording), return types, where each may be used, and their
// implementations on binary-string values. The language checks and compiles calls through these
// definitions only; the vendor's own functions are in waf/functions.ts.

import {
  expectedMatches,
  typeMismatchMessage,
  type ExpectedType,
  type Type,
  type Value,
} from '../values/types'

export type ArgKind = 'Field' | 'Literal'

/** What the checker knows about an argument: its kind, type, and value if it is a literal. */
export interface FunctionParam {
  readonly kind: ArgKind
  readonly type: Type
  readonly value?: Value
}

export type ParamError =
  | { readonly kind: 'kind'; readonly expected: ArgKind; readonly actual: ArgKind }
  | { readonly kind: 'type'; readonly expected: readonly ExpectedType[]; readonly actual: Type }
  | { readonly kind: 'value'; readonly message: string }

/** The error code of an argument a function refuses, by what is wrong with it. */
export function paramErrorCode(
  e: ParamError,
): 'argument-kind' | 'argument-type' | 'argument-value' {
  return e.kind === 'kind'
    ? 'argument-kind'
    : e.kind === 'type'
      ? 'argument-type'
      : 'argument-value'
}

export function paramErrorMessage(index: number, e: ParamError): string {
  switch (e.kind) {
    case 'kind':
      return `invalid kind of argument #${index}: expected argument of kind ${e.expected}, but got ${e.actual}`
    case 'type':
      return `invalid type of argument #${index}: ${typeMismatchMessage(e.expected, e.actual)}`
    case 'value':
      return `invalid value of argument #${index}: invalid argument: ${JSON.stringify(e.message)}`
  }
}

export type FunctionImpl = (args: readonly (Value | undefined)[]) => Value | undefined

/** Where an expression is used: the ruleset phase, and whether it is a filter or a value. */
export interface UseSite {
  readonly phase: string
  readonly valueExpression: boolean
}

export interface FunctionDefinition {
  readonly name: string
  /** e.g. `lower(String): String` */
  readonly signature: string
  readonly summary: string
  readonly minArgs: number
  /** undefined: no maximum */
  readonly maxArgs: number | undefined
  checkParam(
    index: number,
    param: FunctionParam,
    previous: readonly FunctionParam[],
  ): ParamError | undefined
  returnType(params: readonly FunctionParam[]): Type
  implement(params: readonly FunctionParam[]): FunctionImpl
  /** a faster one-argument form, used when the call has exactly one argument */
  readonly unary?: (value: Value) => Value | undefined
  /** false: the implementation sees missing arguments (concat skips them); default true */
  readonly propagatesMissing?: boolean
  /** false: never folded at compile time (random output); default true */
  readonly pure?: boolean
  /** where the vendor allows it; undefined: everywhere */
  available?(site: UseSite): boolean
  /** the vendor's own words on where it may be used */
  readonly availability?: string
}

export interface ParamSpec {
  /** required kind (Field: not a literal) */
  readonly kind?: ArgKind
  readonly types: readonly ExpectedType[]
  /** checks a literal's value (given the arguments before it); returns the problem */
  readonly validate?: (value: Value, previous: readonly FunctionParam[]) => string | undefined
}

/**
 * What defineFunction takes: an implementation, or only the one-argument form for a function of
 * one parameter, which then serves as its implementation too.
 */
export type SimpleFunctionInit = SimpleFunctionCommon &
  (
    | {
        implement: (params: readonly FunctionParam[]) => FunctionImpl
        unary?: (value: Value) => Value | undefined
      }
    | { implement?: undefined; unary: (value: Value) => Value | undefined }
  )

interface SimpleFunctionCommon {
  name: string
  signature: string
  summary: string
  params: readonly ParamSpec[]
  optional?: readonly ParamSpec[]
  variadic?: ParamSpec
  returns: Type | ((params: readonly FunctionParam[]) => Type)
  propagatesMissing?: boolean
  pure?: boolean
  available?: (site: UseSite) => boolean
  availability?: string
}

/** Builds a FunctionDefinition from per-parameter kinds and types. */
export function defineFunction(init: SimpleFunctionInit): FunctionDefinition {
  const specFor = (index: number): ParamSpec | undefined =>
    init.params[index] ?? init.optional?.[index - init.params.length] ?? init.variadic
  const def: FunctionDefinition = {
    name: init.name,
    signature: init.signature,
    summary: init.summary,
    minArgs: init.params.length,
    maxArgs: init.variadic ? undefined : init.params.length + (init.optional?.length ?? 0),
    checkParam(index, param, previous) {
      const spec = specFor(index)
      if (!spec) return undefined
      if (spec.kind && spec.kind !== param.kind)
        return { kind: 'kind', expected: spec.kind, actual: param.kind }
      if (!spec.types.some((t) => expectedMatches(t, param.type))) {
        return { kind: 'type', expected: spec.types, actual: param.type }
      }
      if (spec.validate && param.kind === 'Literal' && param.value !== undefined) {
        const problem = spec.validate(param.value, previous)
        if (problem) return { kind: 'value', message: problem }
      }
      return undefined
    },
    returnType: typeof init.returns === 'function' ? init.returns : () => init.returns as Type,
    implement: init.implement ?? unaryImplementation(init.unary),
    ...(init.unary ? { unary: init.unary } : {}),
    propagatesMissing: init.propagatesMissing ?? true,
    pure: init.pure ?? true,
    ...(init.available ? { available: init.available } : {}),
    ...(init.availability ? { availability: init.availability } : {}),
  }
  return def
}

function unaryImplementation(
  unary: (value: Value) => Value | undefined,
): (params: readonly FunctionParam[]) => FunctionImpl {
  return () => (args) => unary(args[0] as Value)
}
