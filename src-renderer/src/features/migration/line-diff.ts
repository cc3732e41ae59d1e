// A line diff for the Migration screen's review: the configuration the migration will deploy
// against the entry point deployed today, line by line. Longest common subsequence over the lines
// that differ (the common head and tail are matched first, so the table stays small for the
// near-identical documents it is given).

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
  let head = 0
  while (head < before.length && head < after.length && before[head] === after[head]) head++
  let tail = 0
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  ) {
    tail++
  }
  const oldMiddle = before.slice(head, before.length - tail)
  const newMiddle = after.slice(head, after.length - tail)

  // common[i][j]: length of the longest common subsequence of oldMiddle[i..] and newMiddle[j..]
  const width = newMiddle.length + 1
  const common = new Uint32Array((oldMiddle.length + 1) * width)
  for (let i = oldMiddle.length - 1; i >= 0; i--) {
    for (let j = newMiddle.length - 1; j >= 0; j--) {
      common[i * width + j] =
        oldMiddle[i] === newMiddle[j]
          ? common[(i + 1) * width + j + 1]! + 1
          : Math.max(common[(i + 1) * width + j]!, common[i * width + j + 1]!)
    }
  }

  const lines: DiffLine[] = []
  const same = (index: number, offset: number) =>
    lines.push({ kind: 'same', text: before[index]!, before: index + 1, after: index + 1 + offset })
  for (let k = 0; k < head; k++) same(k, 0)

  let i = 0
  let j = 0
  while (i < oldMiddle.length || j < newMiddle.length) {
    if (i < oldMiddle.length && j < newMiddle.length && oldMiddle[i] === newMiddle[j]) {
      lines.push({ kind: 'same', text: oldMiddle[i]!, before: head + i + 1, after: head + j + 1 })
      i++
      j++
    } else if (
      j >= newMiddle.length ||
      (i < oldMiddle.length && common[(i + 1) * width + j]! >= common[i * width + j + 1]!)
    ) {
      lines.push({ kind: 'removed', text: oldMiddle[i]!, before: head + i + 1, after: null })
      i++
    } else {
      lines.push({ kind: 'added', text: newMiddle[j]!, before: null, after: head + j + 1 })
      j++
    }
  }

  const offset = after.length - before.length
  for (let k = before.length - tail; k < before.length; k++) same(k, offset)
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
