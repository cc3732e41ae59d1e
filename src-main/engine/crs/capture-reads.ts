// Which rules' captures anything reads. `capture` writes the operator's match and groups to
// TX:0-9 (ModSecurity's Reference Manual, "capture"); CRS sets it on most of its detection rules
// for their logdata, which the interpreter does not compute, and reads TX:0-9 only in the chain
// that captured them (REQUEST-920's 920450 `tx.header_name_%{tx.0}`, 920190 `TX:2`…). A rule whose
// captures nothing reads can only test its values, and the trace finds its match again when asked
// (transaction.ts).

import { templateOf } from './macros'
import { compileOperatorTest } from './operators'
import { isMarker, type CrsItem, type CrsRule, type CrsVariable } from './program'

const DIGITS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']

/** Whether a macro text reads a TX capture (`%{tx.0}` … `%{tx.9}`). */
function macroReadsCapture(text: string): boolean {
  if (!text.includes('%{')) return false
  return templateOf(text).some(
    (part) => typeof part !== 'string' && part.collection === 'TX' && DIGITS.includes(part.key),
  )
}

/** Whether a target may read a TX capture: `TX:1`, `TX`, or a `TX:/regex/` that selects a digit. */
function targetReadsCapture(variable: CrsVariable): boolean {
  if (variable.collection !== 'TX') return false
  if (variable.key !== undefined) return DIGITS.includes(variable.key)
  if (variable.keyPattern === undefined) return true
  // As keySelector (compiled-rule.ts) selects keys.
  const selects = compileOperatorTest('rx', `(?i)${variable.keyPattern}`, {
    ruleId: 0,
    dataFile: () => [],
  })
  return DIGITS.some(selects)
}

/** What a link reads of the captures: before its operator runs (targets, parameter), and after. */
function captureReads(link: CrsRule): { before: boolean; after: boolean } {
  return {
    before: link.variables.some(targetReadsCapture) || macroReadsCapture(link.operator.parameter),
    after: (link.setvars ?? []).some(
      (setvar) => macroReadsCapture(setvar.name) || macroReadsCapture(setvar.value),
    ),
  }
}

/**
 * The rules (chain links) with `capture` whose captures some rule may read: every one when a rule
 * reads TX:0-9 that its own chain did not capture first (so another rule's), else those followed
 * in their chain (themselves included, by their setvars) by a read.
 */
export function capturesRead(items: readonly CrsItem[]): Set<CrsRule> {
  const read = new Set<CrsRule>()
  const capturing: CrsRule[] = []
  let foreignRead = false
  for (const item of items) {
    if (isMarker(item)) continue
    const chain: CrsRule[] = []
    for (let link: CrsRule | undefined = item; link !== undefined; link = link.chain)
      chain.push(link)
    chain.forEach((link, index) => {
      if (link.capture) capturing.push(link)
      const { before, after } = captureReads(link)
      const capturedBefore = chain.slice(0, index).some((earlier) => earlier.capture)
      if ((before && !capturedBefore) || (after && !capturedBefore && !link.capture))
        foreignRead = true
      if (before || after) {
        for (const earlier of chain.slice(0, index + (after ? 1 : 0)))
          if (earlier.capture) read.add(earlier)
      }
    })
  }
  return foreignRead ? new Set(capturing) : read
}
