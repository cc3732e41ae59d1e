// The CRS program: ModSecurity's SecLang rules as the converter reads them (scripts/crs-catalog.ts)
// and the interpreter runs them, in plain JSON (docs/decisions/0007-crs-program-as-parsed-json.md).
// Values are the rules' own text; operator parameters and setvar values keep their `%{…}` macros,
// which are expanded per request.

/** One target of a rule: `ARGS`, `ARGS:q`, `!REQUEST_COOKIES:/__utm/`, `&TX:x`. */
export interface CrsVariable {
  /** the collection's name, upper case (`ARGS`, `REQUEST_HEADERS`, `TX`) */
  collection: string
  /** `:name` (lower-cased where ModSecurity compares without case) */
  key?: string
  /** `:/regex/`: the keys this regular expression finds (case-insensitively) */
  keyPattern?: string
  /** `!`: removes these targets from the ones before it */
  exclude?: boolean
  /** `&`: the number of targets instead of their values */
  count?: boolean
}

/** `setvar:tx.name=value`, `=+value`, `=-value`, `!tx.name`. */
export interface CrsSetvar {
  collection: string
  /** may hold macros (`%{rule.id}`) */
  name: string
  operation: 'set' | 'add' | 'subtract' | 'delete'
  value: string
}

/** `ctl:name=value`, as CRS and its exclusion packages use it. */
export interface CrsControl {
  name: string
  value: string
}

export interface CrsOperator {
  /** without `@`, lower case (`rx`, `pmfromfile`, `detectsqli`); SecAction's is `unconditionalmatch` */
  name: string
  parameter: string
  negated: boolean
}

/** One SecRule (or SecAction), with the rules chained to it. */
export interface CrsRule {
  /** the chain starter's id (chained rules have none) */
  id?: number
  phase: number
  variables: CrsVariable[]
  operator: CrsOperator
  /** transformation names lower-cased, after `t:none` resets */
  transformations: string[]
  capture?: boolean
  multiMatch?: boolean
  setvars?: CrsSetvar[]
  controls?: CrsControl[]
  skipAfter?: string
  msg?: string
  logdata?: string
  severity?: string
  tags?: string[]
  /** the next rule of the chain, run only when this one matched */
  chain?: CrsRule
}

export interface CrsMarker {
  marker: string
}

export type CrsItem = CrsRule | CrsMarker

export interface CrsProgram {
  /** where the rules come from, e.g. "OWASP CRS 3.3.4 (Debian modsecurity-crs 3.3.4-1)" */
  source: string
  /** the rules and markers, in configuration order */
  items: CrsItem[]
  /** the phrase files @pmFromFile names (kept beside the program, read with it) */
  dataFiles: string[]
}

/** A program with its phrase files read: what a managed ruleset runs. */
export interface CrsBundle {
  program: CrsProgram
  /** each phrase file's lines, comments and blank lines left out */
  data: Record<string, readonly string[]>
}

export function isMarker(item: CrsItem): item is CrsMarker {
  return 'marker' in item
}
