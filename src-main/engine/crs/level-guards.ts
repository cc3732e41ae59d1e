// The paranoia-level skips (`SecRule TX:EXECUTING_PARANOIA_LEVEL "@lt 2" "skipAfter:…"`, two per
// CRS file and phase) answered once per level instead of per request: the interpreter sets
// tx.paranoia_level and tx.executing_paranoia_level before the first rule (interpreter.ts), and
// where no rule of the program can change them afterwards, such a rule's outcome depends on the
// level alone (CRS's REQUEST-901 sets them only when they are absent: crs-setup.conf.example of
// https://github.com/coreruleset/coreruleset/tree/v3.3.4).

import type { CompiledRule } from './compiled-rule'
import { isMarker, type CrsItem, type CrsRule } from './program'

/** The TX variables the interpreter sets from the level before any rule runs. */
const LEVEL_KEYS = ['paranoia_level', 'executing_paranoia_level']

/**
 * The level variables no rule of the program can change once set: every setvar that may name one
 * (its name, or the text before its first macro, leads to it) belongs to a rule that matches only
 * when the variable is absent (`&TX:name "@eq 0"`).
 */
export function constantLevelKeys(items: readonly CrsItem[]): Set<string> {
  const constant = new Set(LEVEL_KEYS)
  for (const item of items) {
    if (isMarker(item)) continue
    for (let rule: CrsRule | undefined = item; rule !== undefined; rule = rule.chain) {
      for (const setvar of rule.setvars ?? []) {
        if (setvar.collection !== 'TX') continue
        const name = setvar.name.toLowerCase()
        const macro = name.indexOf('%{')
        for (const key of LEVEL_KEYS) {
          const names = macro < 0 ? name === key : key.startsWith(name.slice(0, macro))
          if (names && !setsOnlyWhenAbsent(rule, key)) constant.delete(key)
        }
      }
    }
  }
  return constant
}

/** `SecRule &TX:key "@eq 0"`: matches only while TX has no such variable. */
function setsOnlyWhenAbsent(rule: CrsRule, key: string): boolean {
  const [only, ...rest] = rule.variables
  return (
    rest.length === 0 &&
    only !== undefined &&
    only.collection === 'TX' &&
    only.count === true &&
    only.key?.toLowerCase() === key &&
    rule.operator.name === 'eq' &&
    rule.operator.parameter.trim() === '0' &&
    !rule.operator.negated
  )
}

/** A rule whose outcome is a function of the level: whether it matches at each level seen. */
export class LevelGuard {
  private readonly answers: (boolean | undefined)[] = []

  constructor(private readonly compiled: CompiledRule) {}

  /**
   * The guard of a rule reading only a constant level variable, with nothing to do on a match but
   * skip (no chain, setvar, ctl or capture), else undefined.
   */
  static of(compiled: CompiledRule, constant: ReadonlySet<string>): LevelGuard | undefined {
    const { rule } = compiled
    const guarded =
      compiled.txKey !== undefined &&
      constant.has(compiled.txKey) &&
      rule.chain === undefined &&
      (rule.setvars ?? []).length === 0 &&
      (rule.controls ?? []).length === 0 &&
      !rule.capture &&
      !rule.multiMatch &&
      rule.transformations.length === 0 &&
      compiled.fixedOperator !== undefined
    return guarded ? new LevelGuard(compiled) : undefined
  }

  /** Whether the rule matches when the level variables hold `level`, as runRule decides it. */
  matchesAt(level: number): boolean {
    let answer = this.answers[level]
    if (answer === undefined) {
      const value = String(level)
      const { fixedTest, fixedOperator, rule } = this.compiled
      answer = fixedTest
        ? !fixedTest(value)
        : (fixedOperator!(value) === undefined) === rule.operator.negated
      this.answers[level] = answer
    }
    return answer
  }
}
