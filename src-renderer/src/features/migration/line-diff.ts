// A line diff for the Migration screen's review: the configuration the migration will deploy
// against the entry point deployed today, line by line, by jsdiff's Myers diff over the lines
// (https://github.com/kpdecker/jsdiff#readme), which lists a change's removals ahead of its
// additions.

import { diffArrays } from 'diff'

export type DiffKind = 'same' | 'added' | 'removed'

export interface DiffLine {
  kind: DiffKind
  text: string
  /** the line's number in the text before (null for an added line) */
  before: number | null
  /** the line's number in the text after (null for a removed line) */
  after: number | null
}

/** The lines of `after` compared with those of `before`, removals ahead of additions. */
export function diffLines(before: readonly string[], after: readonly string[]): DiffLine[] {
  const lines: DiffLine[] = []
  let beforeLine = 1
  let afterLine = 1
  for (const change of diffArrays([...before], [...after])) {
    for (const text of change.value) {
      if (change.removed) lines.push({ kind: 'removed', text, before: beforeLine++, after: null })
      else if (change.added) lines.push({ kind: 'added', text, before: null, after: afterLine++ })
      else lines.push({ kind: 'same', text, before: beforeLine++, after: afterLine++ })
    }
  }
  return lines
}

/** How many lines a diff adds and removes. */
export function diffStats(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0
  let removed = 0
  for (const line of lines) {
    if (line.kind === 'added') added++
    else if (line.kind === 'removed') removed++
  }
  return { added, removed }
}

/** An entry point as the review compares it: its name and rules, pretty-printed JSON lines. */
export function entrypointLines(entrypoint: { name: string; rules: unknown[] } | null): string[] {
  if (entrypoint === null) return []
  return JSON.stringify({ name: entrypoint.name, rules: entrypoint.rules }, null, 2).split('\n')
}
