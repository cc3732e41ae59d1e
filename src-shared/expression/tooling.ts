// Tooling for editors: tokens with kinds (syntax highlighting), what may be typed at a cursor
// (completion), and diagnostics with spans (lint). Pure functions of the text, tolerant of
// invalid input, shared by the renderer's CodeMirror editor and anything else that edits
// expressions.

import type { CompileOptions } from './compile/compile'
import { describeExpressionError } from './syntax/describe'
import { isExpressionError, type ExpressionError } from './syntax/errors'
import { PHASE_CUSTOM } from './waf/phases'
import { LOGICAL_OPERATOR_SPELLINGS, WORD_OPERATORS } from './syntax/operators'
import { compile, parse } from './waf/language'
import type { Scheme } from './scheme/scheme'
import { WAF_SCHEME } from './waf/scheme'
import { isArray, isMap, typeDisplay, type Type } from './values/types'

export type TokenKind =
  | 'field'
  | 'function'
  | 'keyword'
  | 'operator'
  | 'string'
  | 'regex'
  | 'number'
  | 'boolean'
  | 'list'
  | 'punctuation'
  | 'unknown'

export interface Token {
  readonly from: number
  readonly to: number
  readonly kind: TokenKind
  readonly text: string
}

const LOGICAL_WORDS = new Set(
  [...LOGICAL_OPERATOR_SPELLINGS, 'not'].filter((w) => WORD_OPERATORS.has(w)),
)
const OPERATOR_WORDS = new Set([...WORD_OPERATORS].filter((w) => !LOGICAL_WORDS.has(w)))
const SYMBOLS: [string, TokenKind][] = [
  ['&&', 'keyword'],
  ['||', 'keyword'],
  ['^^', 'keyword'],
  ['==', 'operator'],
  ['!=', 'operator'],
  ['>=', 'operator'],
  ['<=', 'operator'],
  ['>', 'operator'],
  ['<', 'operator'],
  ['~', 'operator'],
  ['&', 'operator'],
  ['!', 'keyword'],
]

export interface ToolingOptions {
  readonly scheme?: Scheme
  /** ruleset phase, for which functions are offered and allowed */
  readonly phase?: string
}

/** Tokens of the text for highlighting; never throws, covers every non-space character. */
export function tokens(text: string, options: ToolingOptions = {}): Token[] {
  const scheme = options.scheme ?? WAF_SCHEME
  const out: Token[] = []
  let pos = 0
  let regexNext = false
  const push = (from: number, to: number, kind: TokenKind) => {
    out.push({ from, to, kind, text: text.slice(from, to) })
    if (kind !== 'punctuation') regexNext = false
  }
  while (pos < text.length) {
    const c = text[pos] as string
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      pos++
      continue
    }
    // strings
    if (c === '"') {
      let p = pos + 1
      let inClass = false
      while (p < text.length) {
        const d = text[p]
        if (d === '\\') p += 2
        else if (d === '"' && !(regexNext && inClass)) break
        else {
          if (regexNext && d === '[') inClass = true
          else if (regexNext && d === ']') inClass = false
          p++
        }
      }
      const end = Math.min(text.length, p + 1)
      push(pos, end, regexNext ? 'regex' : 'string')
      pos = end
      continue
    }
    const raw = /^r(#*)"/.exec(text.slice(pos, pos + 300))
    if (raw) {
      const hashes = raw[1] ?? ''
      const close = text.indexOf('"' + hashes, pos + raw[0].length)
      const end = close < 0 ? text.length : close + 1 + hashes.length
      push(pos, end, regexNext ? 'regex' : 'string')
      pos = end
      continue
    }
    if (c === '$') {
      const m = /^\$[a-z0-9_.]*/.exec(text.slice(pos)) as RegExpExecArray
      push(pos, pos + m[0].length, 'list')
      pos += m[0].length
      continue
    }
    if ('(){}[],*'.includes(c)) {
      push(pos, pos + 1, 'punctuation')
      pos++
      continue
    }
    const symbol = SYMBOLS.find(([s]) => text.startsWith(s, pos))
    if (symbol) {
      push(pos, pos + symbol[0].length, symbol[1])
      regexNext = symbol[0] === '~'
      pos += symbol[0].length
      continue
    }
    const word = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*/.exec(text.slice(pos))
    if (word) {
      const w = word[0]
      const end = pos + w.length
      if (w === 'strict' && /^\s+wildcard\b/.test(text.slice(end))) {
        const m = /^\s+wildcard/.exec(text.slice(end)) as RegExpExecArray
        push(pos, end + m[0].length, 'operator')
        pos = end + m[0].length
        continue
      }
      if (LOGICAL_WORDS.has(w)) {
        push(pos, end, 'keyword')
      } else if (OPERATOR_WORDS.has(w)) {
        push(pos, end, 'operator')
        regexNext = w === 'matches'
      } else if ((w === 'any' || w === 'all') && /^\s*\(/.test(text.slice(end))) {
        push(pos, end, 'keyword')
      } else if (w === 'true' || w === 'false') {
        push(pos, end, 'boolean')
      } else if (scheme.fields.has(w)) {
        push(pos, end, 'field')
      } else if (scheme.functions.has(w)) {
        push(pos, end, 'function')
      } else {
        const num = /^-?(?:0x[0-9a-fA-F]+|[0-9a-fA-F:./]+)(?:\.\.-?[0-9a-fA-F:./]+)?/.exec(
          text.slice(pos),
        )
        if (num && /[0-9:]/.test(num[0]) && num[0].length >= w.length) {
          push(pos, pos + num[0].length, 'number')
          pos += num[0].length
          continue
        }
        push(pos, end, 'unknown')
      }
      pos = end
      continue
    }
    const num = /^-?[0-9a-fA-F:.]+(?:\/[0-9]+)?/.exec(text.slice(pos))
    if (num && num[0] !== '-') {
      push(pos, pos + num[0].length, 'number')
      pos += num[0].length
      continue
    }
    push(pos, pos + 1, 'unknown')
    pos++
  }
  return out
}

// ---------------------------------------------------------------------------------------------

export type CompletionKind = 'field' | 'function' | 'operator' | 'keyword'

export interface CompletionItem {
  readonly label: string
  readonly kind: CompletionKind
  /** type or signature */
  readonly detail?: string
  /** a description */
  readonly info?: string
  /** text inserted, when it differs from the label */
  readonly apply?: string
  /** ranking among equally good matches (higher first) */
  readonly boost?: number
}

export interface CompletionResult {
  /** the range the chosen item replaces (the word being typed) */
  readonly from: number
  readonly to: number
  readonly items: readonly CompletionItem[]
}

const OPERATORS_BY_TYPE: Record<'Bytes' | 'Int' | 'Ip', [string, string][]> = {
  Bytes: [
    ['eq', 'equal'],
    ['ne', 'not equal'],
    ['contains', 'contains the bytes'],
    ['matches', 'matches a regular expression'],
    ['wildcard', 'matches a wildcard pattern, case-insensitive'],
    ['strict wildcard', 'matches a wildcard pattern, case-sensitive'],
    ['in', 'one of {"a" "b"} or a $list'],
    ['lt', 'less than'],
    ['le', 'less than or equal'],
    ['gt', 'greater than'],
    ['ge', 'greater than or equal'],
  ],
  Int: [
    ['eq', 'equal'],
    ['ne', 'not equal'],
    ['lt', 'less than'],
    ['le', 'less than or equal'],
    ['gt', 'greater than'],
    ['ge', 'greater than or equal'],
    ['in', 'one of {80 443 8000..8099} or a $list'],
    ['bitwise_and', 'any bit in common'],
  ],
  Ip: [
    ['eq', 'equal'],
    ['ne', 'not equal'],
    ['in', 'in {192.0.2.0/24 2001:db8::/32} or a $list'],
    ['lt', 'less than'],
    ['le', 'less than or equal'],
    ['gt', 'greater than'],
    ['ge', 'greater than or equal'],
  ],
}

/** The fields most rules use, offered first. */
const COMMON_FIELDS = [
  'http.request.uri.path',
  'http.host',
  'http.request.method',
  'ip.src',
  'http.request.uri.query',
  'http.request.full_uri',
  'http.user_agent',
  'http.request.headers',
  'ip.src.country',
  'cf.waf.score',
]

function valueStartItems(scheme: Scheme, phase: string): CompletionItem[] {
  const items: CompletionItem[] = []
  for (const f of scheme.fields.values()) {
    if (f.deprecatedBy) continue
    const common = COMMON_FIELDS.indexOf(f.name)
    items.push({
      ...(common >= 0 ? { boost: COMMON_FIELDS.length - common } : {}),
      label: f.name,
      kind: f.constant !== undefined ? 'keyword' : 'field',
      detail: typeDisplay(f.type),
      ...(f.doc ? { info: f.doc } : {}),
    })
  }
  for (const fn of scheme.functions.values()) {
    if (fn.available && !fn.available({ phase, valueExpression: false })) continue
    items.push({
      label: fn.name,
      kind: 'function',
      detail: fn.signature,
      info: fn.summary,
      apply: `${fn.name}(`,
    })
  }
  items.push({
    label: 'not',
    kind: 'keyword',
    info: 'negates the condition that follows',
    apply: 'not ',
  })
  items.push({
    label: 'any',
    kind: 'keyword',
    detail: 'any(Array<Bool>): Bool',
    info: 'true when the [*] comparison holds for some element',
    apply: 'any(',
  })
  items.push({
    label: 'all',
    kind: 'keyword',
    detail: 'all(Array<Bool>): Bool',
    info: 'true when the [*] comparison holds for every element',
    apply: 'all(',
  })
  return items
}

const LOGICAL_ITEMS: CompletionItem[] = [
  { label: 'and', kind: 'keyword', info: 'both conditions', apply: 'and ', boost: 3 },
  { label: 'or', kind: 'keyword', info: 'either condition', apply: 'or ', boost: 2 },
  { label: 'xor', kind: 'keyword', info: 'exactly one of the conditions', apply: 'xor ', boost: 1 },
]

function operatorItems(type: Type): CompletionItem[] {
  if (isArray(type) || isMap(type) || type === 'Bool') return []
  const list = OPERATORS_BY_TYPE[type]
  return list.map(([label, info], i) => ({
    boost: list.length - i,
    label,
    kind: 'operator',
    detail: typeDisplay(type),
    info,
    apply: `${label} `,
  }))
}

/**
 * What may be typed at `offset`: fields, functions and keywords where a value starts, the
 * operators defined for the type on the left, or the logical operators after a condition.
 */
export function completions(
  text: string,
  offset: number,
  options: ToolingOptions = {},
): CompletionResult {
  const scheme = options.scheme ?? WAF_SCHEME
  const phase = options.phase ?? PHASE_CUSTOM
  const at = Math.max(0, Math.min(offset, text.length))
  for (const t of tokens(text.slice(0, at), options)) {
    if (
      (t.kind === 'string' || t.kind === 'regex') &&
      t.to >= at &&
      !/("|"#*)$/.test(t.text.slice(1))
    ) {
      return { from: at, to: at, items: [] }
    }
  }
  let from = at
  while (from > 0 && /[A-Za-z0-9_.]/.test(text[from - 1] as string)) from--
  const prefix = text.slice(0, from)
  const word = text.slice(from, at)
  const filter = (items: CompletionItem[]) =>
    items.filter((i) => i.label.startsWith(word) && i.label !== word)
  let items: CompletionItem[] = []
  try {
    parse(prefix, { scheme, maxLength: 0 })
    // a complete condition: what follows is a logical operator
    items = /\s$/.test(prefix) || prefix.length === 0 ? LOGICAL_ITEMS : []
  } catch (e) {
    if (!isExpressionError(e)) throw e
    const atEnd = e.start >= prefix.trimEnd().length
    const expectation = atEnd ? e.expectation : undefined
    if (expectation?.kind === 'identifier') items = valueStartItems(scheme, phase)
    else if (expectation?.kind === 'operator') items = operatorItems(expectation.type)
    else if (expectation?.kind === 'logical') items = LOGICAL_ITEMS
    else if (prefix.trim() === '') items = valueStartItems(scheme, phase)
  }
  return { from, to: at, items: filter(items) }
}

// ---------------------------------------------------------------------------------------------

export interface Diagnostic {
  readonly from: number
  readonly to: number
  readonly severity: 'error' | 'warning'
  /** the vendor's message */
  readonly message: string
  /** an extra, actionable sentence */
  readonly hint?: string
  readonly code?: string
  /** 1-based position of `from` */
  readonly line: number
  readonly column: number
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 }
}

/** Errors and warnings of the expression, with spans. An empty text has none. */
export function diagnostics(text: string, options: CompileOptions = {}): Diagnostic[] {
  return checked(text, options).diagnostics
}

/** A diagnostic with what it says for people: an error described in words, a warning as it is. */
export interface DescribedDiagnostic extends Diagnostic {
  readonly description: string
}

/**
 * The diagnostics a screen shows: each error described by describeExpressionError (the parser's
 * internals named in words, a missing closer named with where it was opened), each warning as is.
 */
export function describedDiagnostics(
  text: string,
  options: CompileOptions = {},
): DescribedDiagnostic[] {
  const { diagnostics: found, error } = checked(text, options)
  return found.map((d) => ({
    ...d,
    description: d.severity === 'error' && error ? describeExpressionError(error, text) : d.message,
  }))
}

function checked(
  text: string,
  options: CompileOptions,
): { diagnostics: Diagnostic[]; error?: ExpressionError } {
  if (text.trim() === '') return { diagnostics: [] }
  try {
    const compiled = compile(text, options)
    return {
      diagnostics: compiled.warnings.map((w) => ({
        from: w.start,
        to: w.end,
        severity: 'warning' as const,
        message: w.message,
        ...lineColumn(text, w.start),
      })),
    }
  } catch (e) {
    if (!isExpressionError(e)) throw e
    return {
      error: e,
      diagnostics: [
        {
          from: e.start,
          to: e.start + e.length,
          severity: 'error',
          message: e.message,
          code: e.code,
          line: e.line,
          column: e.column,
          ...(e.hint ? { hint: e.hint } : {}),
        },
      ],
    }
  }
}
