// A scheme: the fields (with their types) and functions an expression may use, as the embedding
// declares them (wirefilter's `Scheme`, https://github.com/cloudflare/wirefilter). The vendor's
// scheme for WAF rules is waf/scheme.ts; tests build smaller schemes with createScheme() to run
// wirefilter's own conformance vectors.

import type { FunctionDefinition } from './functions'
import type { Type, Value } from '../values/types'

export interface FieldDefinition {
  readonly name: string
  readonly type: Type
  /** a short description, shown by completion */
  readonly doc?: string
  /** a constant value (the `true` / `false` pseudo-fields) */
  readonly constant?: Value
  /** the field that replaces a deprecated one */
  readonly deprecatedBy?: string
}

export interface Scheme {
  readonly fields: ReadonlyMap<string, FieldDefinition>
  readonly functions: ReadonlyMap<string, FunctionDefinition>
}

/**
 * The scheme an expression is read in. The language's own entry points are told it; the public
 * ones (../waf/language.ts) default it to the vendor's.
 */
export interface InScheme {
  readonly scheme: Scheme
}

/** The scheme and the ruleset phase an expression is checked for (see UseSite). */
export interface SchemeAndPhase extends InScheme {
  readonly phase: string
}

export interface SchemeInit {
  fields: Record<string, Type | Omit<FieldDefinition, 'name'>>
  functions?: Iterable<FunctionDefinition>
}

export function createScheme(init: SchemeInit): Scheme {
  const fields = new Map<string, FieldDefinition>()
  for (const [name, def] of Object.entries(init.fields)) {
    if (typeof def === 'string' || 'kind' in def) fields.set(name, { name, type: def as Type })
    else fields.set(name, { name, ...def })
  }
  const functions = new Map<string, FunctionDefinition>()
  for (const f of init.functions ?? []) functions.set(f.name, f)
  return { fields, functions }
}
