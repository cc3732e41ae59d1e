// The Rules language (the vendor's wirefilter expression language): lexer, parser, type checker
// and compiler, shared by the main process (evaluation) and the renderer (validation, editing).
// Pure TypeScript: no Node or Electron API. This is its public surface; README.md gives the layers
// behind it.

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
} from './syntax/ast'
/** The syntax tree (alias of Expression). */
export type { Expression as AST } from './syntax/ast'
export type {
  ArrayType,
  ExpectedType,
  IpAddress,
  MapType,
  ScalarType,
  Type,
  Value,
} from './values/types'
export { arrayOf, mapOf, typeDisplay, typeEquals } from './values/types'

export {
  ExpressionError,
  formatRulesetError,
  formatValidateExprError,
  isExpressionError,
  rulesetExpressionErrorMessage,
  type Expectation,
  type ExpressionErrorCode,
} from './syntax/errors'

export {
  check,
  clearCompileCache,
  compile,
  compileCredentialExpression,
  compileExpression,
  compileValue,
  parse,
  parseValue,
  parseWithStats,
} from './waf/language'
export { MAX_EXPRESSION_LENGTH, MAX_NESTING_DEPTH, type ParseOptions } from './syntax/parser'
export type { CheckOptions, CheckResult, CheckWarning } from './syntax/checker'
export type { CompileOptions, CompiledExpression, CompiledValueExpression } from './compile/compile'
export type { EvaluationContext, ListKind, ListMatcher } from './values/evaluation'
export { print } from './syntax/printer'
export {
  DEFAULT_BODY_LIMIT,
  RAW_REQUEST_BODY,
  RAW_REQUEST_LINE,
  requestContext,
  type RequestContextOptions,
  type RequestDescription,
} from './waf/context'
export { createContext, createList, type CreateContextOptions } from './waf/plain-context'
export { isUnreserved, normalizePath, type NormalizationMode } from './waf/normalize'
export { createScheme, type FieldDefinition, type Scheme, type SchemeInit } from './scheme/scheme'
export {
  defineFunction,
  type ArgKind,
  type FunctionDefinition,
  type FunctionImpl,
  type FunctionParam,
  type ParamError,
  type ParamSpec,
  type UseSite,
} from './scheme/functions'
export { WAF_SCHEME } from './waf/scheme'
export { BUILTIN_FUNCTIONS } from './waf/functions'
export { PHASE_CUSTOM, PHASE_LEGACY_FIREWALL, PHASE_MANAGED, PHASE_RATELIMIT } from './waf/phases'
export { asciiLower, bytesToText, utf8Bytes, fromUint8Array, toUint8Array } from './values/bytes'
export { isAlnum, isDigit, isHexDigit, isLetter, isWordChar } from './values/chars'
export { formatIp, parseIp } from './values/ip'
export { compileRegex, type CompiledRegex } from './regex/regex'
export { RegexSyntaxError } from './regex/tree'
export { RequirementTable, type Need, type Needs } from './compile/requirement'
export { compileWildcard, type CompiledWildcard } from './values/wildcard'
