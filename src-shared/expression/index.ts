// The Rules language (the vendor's wirefilter expression language): lexer, parser, type checker
// and compiler, shared by the main process (evaluation) and the renderer (validation, editing).
// Pure TypeScript: no Node or Electron API.

export type {
  ArgNode,
  BytesLiteral,
  CallNode,
  CombiningNode,
  ComparisonNode,
  ComparisonOp,
  Expression,
  FieldNode,
  IndexNode,
  IndexStep,
  IntLiteral,
  IpLiteral,
  LiteralNode,
  LogicalNode,
  LogicalOp,
  NotNode,
  OrderingOp,
  ParenNode,
  QuantifierNode,
  RegexLiteral,
  SetItem,
  SetNode,
  Span,
} from './ast'
/** The syntax tree (alias of Expression). */
export type { Expression as AST } from './ast'
export type { ArrayType, ExpectedType, IpAddress, MapType, ScalarType, Type, Value } from './types'
export { arrayOf, mapOf, typeDisplay, typeEquals } from './types'

export {
  ExpressionError,
  formatRulesetError,
  formatValidateExprError,
  isExpressionError,
  rulesetExpressionErrorMessage,
  type Expectation,
  type ExpressionErrorCode,
} from './errors'

export {
  parse,
  parseValue,
  parseWithStats,
  MAX_EXPRESSION_LENGTH,
  MAX_NESTING_DEPTH,
  type ParseOptions,
} from './parser'
export {
  check,
  type CheckOptions,
  type CheckResult,
  type CheckWarning,
  type ListKind,
} from './checker'
export {
  clearCompileCache,
  compile,
  compileExpression,
  compileValue,
  type CompileOptions,
  type CompiledExpression,
  type CompiledValueExpression,
  type EvaluationContext,
  type ListMatcher,
} from './compiler'
export { print } from './printer'
export {
  createContext,
  createList,
  DEFAULT_BODY_LIMIT,
  requestContext,
  type CreateContextOptions,
  type RequestContextOptions,
  type RequestDescription,
} from './context'
export { normalizePath, type NormalizationMode } from './normalize'
export {
  createScheme,
  WAF_SCHEME,
  type FieldDefinition,
  type Scheme,
  type SchemeInit,
} from './scheme'
export {
  BUILTIN_FUNCTIONS,
  defineFunction,
  PHASE_CUSTOM,
  PHASE_LEGACY_FIREWALL,
  PHASE_MANAGED,
  PHASE_RATELIMIT,
  type ArgKind,
  type FunctionDefinition,
  type FunctionImpl,
  type FunctionParam,
  type ParamError,
  type ParamSpec,
  type UseSite,
} from './functions'
export { bytesToText, utf8Bytes, fromUint8Array, toUint8Array } from './bytes'
export { formatIp, parseIp } from './ip'
export { compileRegex, RegexSyntaxError, type CompiledRegex } from './regex'
export { RequirementTable, type Need, type Needs } from './requirement'
export { compileWildcard, type CompiledWildcard } from './wildcard'

import { compileValue, type CompileOptions, type CompiledValueExpression } from './compiler'
import { PHASE_MANAGED } from './functions'

/**
 * Compiles an exposed_credential_check `username_expression` / `password_expression`: a value
 * expression of type Bytes using only upper(), lower(), url_decode() and lookup_json_string(),
 * unnested, at most 1024 characters.
 */
export function compileCredentialExpression(
  text: string,
  options: CompileOptions = {},
): CompiledValueExpression {
  return compileValue(text, {
    phase: PHASE_MANAGED,
    ...options,
    expect: 'Bytes',
    credentialExpression: true,
    valueExpression: true,
  })
}
