// A reader of ModSecurity's configuration language (SecLang) as the OWASP Core Rule Set writes it:
// SecRule, SecAction and SecMarker, with Apache's line continuations and quoting, targets with
// `|`, `!` and `&` and `:name` or `:/regex/` selectors, operators, and the actions CRS uses
// (https://github.com/owasp-modsecurity/ModSecurity/wiki/Reference-Manual-(v2.x)). Other
// directives (engine settings, SecDefaultAction beyond its phase) do not change what the rules
// compute and are left out.

import type { CrsControl, CrsItem, CrsOperator, CrsRule, CrsSetvar, CrsVariable } from './program'

export class SecLangError extends Error {}

/** The directives of a file: each a name and its arguments, continuations joined. */
export function readDirectives(text: string, file: string): { name: string; args: string[] }[] {
  const directives: { name: string; args: string[] }[] = []
  // Apache joins a line ending in a backslash with the next one (the backslash and newline go).
  const lines = text.replace(/\\\r?\n/g, '').split(/\r?\n/)
  for (const [index, line] of lines.entries()) {
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('#')) continue
    const words = splitWords(trimmed, `${file}:${index + 1}`)
    directives.push({ name: words[0]!, args: words.slice(1) })
  }
  return directives
}

/**
 * Apache's ap_getword_conf: words split at spaces; in a quoted word, a backslash before the quote
 * or another backslash stands for that character (`\\x00` reaches PCRE as `\x00`).
 */
function splitWords(line: string, where: string): string[] {
  const words: string[] = []
  let i = 0
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i]!)) i++
    if (i >= line.length) break
    const quote = line[i]
    if (quote === '"' || quote === "'") {
      let word = ''
      i++
      while (i < line.length && line[i] !== quote) {
        if (line[i] === '\\' && (line[i + 1] === quote || line[i + 1] === '\\')) i++
        word += line[i]
        i++
      }
      if (i >= line.length) throw new SecLangError(`${where}: unterminated quote`)
      i++
      words.push(word)
    } else {
      const start = i
      while (i < line.length && !/\s/.test(line[i]!)) i++
      words.push(line.slice(start, i))
    }
  }
  return words
}

/** `ARGS|!REQUEST_COOKIES:/__utm/|&TX:x|XML:/*`: targets split at `|` outside selectors. */
export function parseVariables(text: string): CrsVariable[] {
  const variables: CrsVariable[] = []
  let i = 0
  while (i < text.length) {
    const variable: CrsVariable = { collection: '' }
    if (text[i] === '!') {
      variable.exclude = true
      i++
    } else if (text[i] === '&') {
      variable.count = true
      i++
    }
    const name = /^[A-Za-z_0-9]+/.exec(text.slice(i))?.[0]
    if (name === undefined) throw new SecLangError(`bad target list: ${text}`)
    variable.collection = name.toUpperCase()
    i += name.length
    if (text[i] === ':') {
      i++
      if (variable.collection === 'XML') {
        // An XPath expression (`XML:/*`, `XML://@*`), not a regular expression.
        const end = text.indexOf('|', i)
        variable.key = text.slice(i, end < 0 ? text.length : end)
        i = end < 0 ? text.length : end
      } else if (text[i] === '/') {
        let end = i + 1
        while (end < text.length && text[end] !== '/') end += text[end] === '\\' ? 2 : 1
        variable.keyPattern = text.slice(i + 1, end)
        i = end + 1
      } else if (text[i] === "'") {
        const end = text.indexOf("'", i + 1)
        variable.key = text.slice(i + 1, end)
        i = end + 1
      } else {
        const end = text.indexOf('|', i)
        variable.key = text.slice(i, end < 0 ? text.length : end)
        i = end < 0 ? text.length : end
      }
    }
    variables.push(variable)
    if (text[i] === '|') i++
    else if (i < text.length) throw new SecLangError(`bad target list at ${i}: ${text}`)
  }
  return variables
}

/** `@rx …`, `!@eq 0`, or a bare pattern (an implicit @rx). */
export function parseOperator(text: string): CrsOperator {
  let rest = text
  let negated = false
  if (rest.startsWith('!')) {
    negated = true
    rest = rest.slice(1)
  }
  if (!rest.startsWith('@')) return { name: 'rx', parameter: rest, negated }
  const space = rest.search(/\s/)
  const name = (space < 0 ? rest.slice(1) : rest.slice(1, space)).toLowerCase()
  const parameter = space < 0 ? '' : rest.slice(space).replace(/^\s+/, '')
  return { name, parameter, negated }
}

/**
 * An action list: `name:value` or `name:'quoted, value'` items split at commas; in a quoted
 * value `\'` and `\\` stand for the character after the backslash (msre_parse_generic).
 */
export function parseActions(text: string): [string, string][] {
  const actions: [string, string][] = []
  let i = 0
  while (i < text.length) {
    while (i < text.length && /[\s,]/.test(text[i]!)) i++
    if (i >= text.length) break
    const nameStart = i
    while (i < text.length && text[i] !== ':' && text[i] !== ',') i++
    const name = text.slice(nameStart, i).trim()
    let value = ''
    if (text[i] === ':') {
      i++
      while (i < text.length && text[i] === ' ') i++
      if (text[i] === "'") {
        i++
        while (i < text.length && text[i] !== "'") {
          if (text[i] === '\\' && (text[i + 1] === "'" || text[i + 1] === '\\')) i++
          value += text[i]
          i++
        }
        i++
      } else {
        const start = i
        while (i < text.length && text[i] !== ',') i++
        value = text.slice(start, i).trim()
      }
    }
    actions.push([name, value])
  }
  return actions
}

/** `tx.name=+value`, `!tx.name`, `tx.name` (set to 1). */
function parseSetvar(text: string): CrsSetvar {
  const remove = text.startsWith('!')
  const spec = remove ? text.slice(1) : text
  const eq = spec.indexOf('=')
  const target = eq < 0 ? spec : spec.slice(0, eq)
  const dot = target.indexOf('.')
  const collection = target.slice(0, dot).toUpperCase()
  const name = target.slice(dot + 1).toLowerCase()
  if (remove) return { collection, name, operation: 'delete', value: '' }
  if (eq < 0) return { collection, name, operation: 'set', value: '1' }
  const raw = spec.slice(eq + 1)
  if (raw.startsWith('+')) return { collection, name, operation: 'add', value: raw.slice(1) }
  if (raw.startsWith('-')) return { collection, name, operation: 'subtract', value: raw.slice(1) }
  return { collection, name, operation: 'set', value: raw }
}

interface Pending {
  rule: CrsRule
  /** whether the next SecRule continues this chain */
  chained: boolean
}

/** Reads the rules and markers of SecLang files, in order; `defaultPhase` as SecDefaultAction. */
export class SecLangReader {
  readonly items: CrsItem[] = []
  private defaultPhase = 2
  private pending: Pending | undefined
  private last: CrsRule | undefined

  read(text: string, file: string): void {
    for (const { name, args } of readDirectives(text, file)) {
      const directive = name.toLowerCase()
      if (directive === 'secrule') this.rule(args[0]!, parseOperator(args[1] ?? ''), args[2])
      else if (directive === 'secaction')
        this.rule(undefined, { name: 'unconditionalmatch', parameter: '', negated: false }, args[0])
      else if (directive === 'secmarker') this.items.push({ marker: args[0]! })
      else if (directive === 'secdefaultaction') {
        const phase = parseActions(args[0] ?? '').find(([n]) => n === 'phase')
        if (phase !== undefined) this.defaultPhase = phaseNumber(phase[1])
      }
    }
  }

  private rule(targets: string | undefined, operator: CrsOperator, actionText?: string): void {
    const rule: CrsRule = {
      phase: this.pending?.chained ? this.pending.rule.phase : this.defaultPhase,
      variables: targets === undefined ? [] : parseVariables(targets),
      operator,
      transformations: [],
    }
    let chained = false
    for (const [name, value] of parseActions(actionText ?? '')) {
      switch (name.toLowerCase()) {
        case 'id':
          rule.id = Number(value)
          break
        case 'phase':
          rule.phase = phaseNumber(value)
          break
        case 't':
          if (value.toLowerCase() === 'none') rule.transformations = []
          else rule.transformations.push(value.toLowerCase())
          break
        case 'capture':
          rule.capture = true
          break
        case 'multimatch':
          rule.multiMatch = true
          break
        case 'chain':
          chained = true
          break
        case 'setvar':
          ;(rule.setvars ??= []).push(parseSetvar(value))
          break
        case 'ctl': {
          const eq = value.indexOf('=')
          const control: CrsControl = {
            name: value.slice(0, eq).trim(),
            value: value.slice(eq + 1).trim(),
          }
          ;(rule.controls ??= []).push(control)
          break
        }
        case 'skipafter':
          rule.skipAfter = value
          break
        case 'msg':
          rule.msg = value
          break
        case 'logdata':
          rule.logdata = value
          break
        case 'severity':
          rule.severity = severityName(value)
          break
        case 'tag':
          ;(rule.tags ??= []).push(value)
          break
      }
    }
    if (this.pending?.chained) {
      // A chained rule runs in its starter's phase; only the starter carries an id.
      rule.phase = this.pending.rule.phase
      this.last!.chain = rule
    } else {
      this.items.push(rule)
      this.pending = { rule, chained }
    }
    this.pending!.chained = chained
    this.last = rule
  }
}

function phaseNumber(value: string): number {
  const named: Record<string, number> = { request: 2, response: 4, logging: 5 }
  return named[value.toLowerCase()] ?? Number(value)
}

const SEVERITIES = ['EMERGENCY', 'ALERT', 'CRITICAL', 'ERROR', 'WARNING', 'NOTICE', 'INFO', 'DEBUG']

/** `severity:'CRITICAL'` or its number (2). */
function severityName(value: string): string {
  return /^\d$/.test(value) ? (SEVERITIES[Number(value)] ?? value) : value.toUpperCase()
}
