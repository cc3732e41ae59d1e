// What the CRS program reads of TX, so that run-plan.ts can leave out a rule nothing observes: one
// whose only effect is writing TX variables no rule reads (dead stores,
// https://en.wikipedia.org/wiki/Dead-code_elimination), such as REQUEST-901's tx.ua_hash, a SHA-1
// of the User-Agent kept for collections the interpreter does not keep, or a rule with no action
// at all in DetectionOnly mode.

import { SCORE_VARIABLE } from './compiled-rule'
import { templateOf } from './macros'
import { compileOperatorTest } from './operators'
import { isMarker, type CrsItem, type CrsRule } from './program'

/** The TX variables some rule of a program reads, and whether a rule reads an earlier match. */
export class TxReads {
  /** names read by name (lower case) */
  private readonly keys = new Set<string>(['anomaly_score'])
  /** `TX:/regex/` selectors, as keySelector (compiled-rule.ts) selects */
  private readonly selectors: ((key: string) => boolean)[] = []
  /** a target reads the whole of TX */
  private all = false
  /**
   * a chain's first link reads MATCHED_VAR (or its name, or MATCHED_VARS) before matching
   * anything itself, so sees the last rule's match
   */
  readonly earlierMatchRead: boolean

  constructor(items: readonly CrsItem[]) {
    let earlierMatchRead = false
    for (const item of items) {
      if (isMarker(item)) continue
      for (let link: CrsRule | undefined = item; link !== undefined; link = link.chain) {
        for (const variable of link.variables) {
          if (link === item && variable.collection.startsWith('MATCHED_VAR'))
            earlierMatchRead = true
          if (variable.collection !== 'TX') continue
          if (variable.key !== undefined) this.keys.add(variable.key.toLowerCase())
          else if (variable.keyPattern !== undefined) {
            const selects = compileOperatorTest('rx', `(?i)${variable.keyPattern}`, {
              ruleId: item.id ?? 0,
              dataFile: () => [],
            })
            this.selectors.push(selects)
          } else this.all = true
        }
        const texts = [link.operator.parameter]
        for (const setvar of link.setvars ?? []) texts.push(setvar.name, setvar.value)
        for (const text of texts) {
          if (!text.includes('%{')) continue
          for (const part of templateOf(text)) {
            if (typeof part === 'string') continue
            if (part.collection === 'TX') {
              if (part.key === '') this.all = true
              else this.keys.add(part.key)
            }
            if (link === item && text === link.operator.parameter) {
              if (part.collection.startsWith('MATCHED_VAR')) earlierMatchRead = true
            }
          }
        }
      }
    }
    this.earlierMatchRead = earlierMatchRead
  }

  /** Whether some rule may read the TX variable `key` (lower case). */
  reads(key: string): boolean {
    return this.all || this.keys.has(key) || this.selectors.some((selects) => selects(key))
  }

  /**
   * Whether running a rule can change nothing any rule or the result sees: no ctl, skip or score,
   * no capture read (capture-reads.ts), no match a later rule reads, and every TX variable it
   * writes named without macros and read by no rule.
   */
  unobserved(rule: CrsRule, capturesRead: ReadonlySet<CrsRule>): boolean {
    if (this.earlierMatchRead || rule.skipAfter !== undefined) return false
    for (let link: CrsRule | undefined = rule; link !== undefined; link = link.chain) {
      if ((link.controls ?? []).length > 0 || capturesRead.has(link)) return false
      for (const setvar of link.setvars ?? []) {
        if (setvar.collection !== 'TX') continue
        if (setvar.name.includes('%{') || SCORE_VARIABLE.test(setvar.name)) return false
        if (this.reads(setvar.name)) return false
      }
    }
    return true
  }
}
