// Splits a script into statements. better-sqlite3's prepare() takes exactly one statement, while
// the runtime's exec() runs several; the split must not cut inside literals, comments or a
// trigger's BEGIN … END body (whose statements end in semicolons of their own).
import { keyword, tokenize, type Token } from './tokenize'

export interface Statement {
  /** The statement's source, without its terminating semicolon. */
  text: string
  tokens: Token[]
}

export function splitStatements(script: string): Statement[] {
  const statements: Statement[] = []
  let current: Token[] = []
  let inTriggerBody = false
  let caseDepth = 0
  const finish = (): void => {
    const first = current[0]
    const last = current[current.length - 1]
    if (first !== undefined && last !== undefined) {
      const base = first.offset
      statements.push({
        text: script.slice(base, last.offset + last.text.length),
        tokens: current.map((t) => ({ ...t, offset: t.offset - base })),
      })
    }
    current = []
    inTriggerBody = false
    caseDepth = 0
  }
  for (const token of tokenize(script)) {
    if (token.kind === 'semicolon' && !inTriggerBody) {
      finish()
      continue
    }
    current.push(token)
    const word = keyword(token)
    if (word === 'BEGIN' && !inTriggerBody && isCreateTrigger(current)) inTriggerBody = true
    else if (inTriggerBody && word === 'CASE') caseDepth++
    else if (inTriggerBody && word === 'END') {
      if (caseDepth > 0) caseDepth--
      else inTriggerBody = false
    }
  }
  finish()
  return statements
}

function isCreateTrigger(tokens: Token[]): boolean {
  if (keyword(tokens[0]) !== 'CREATE') return false
  const second = keyword(tokens[1])
  const kind = second === 'TEMP' || second === 'TEMPORARY' ? keyword(tokens[2]) : second
  return kind === 'TRIGGER'
}
