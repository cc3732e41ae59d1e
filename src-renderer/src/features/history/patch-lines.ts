// The lines of a unified diff (the History screen's comparison of a point with now), each marked
// as added, removed, unchanged or a hunk's header; the file headers are left out. The format:
// https://www.gnu.org/software/diffutils/manual/html_node/Detailed-Unified.html

export type PatchLineKind = 'added' | 'removed' | 'same' | 'hunk'

export interface PatchLine {
  kind: PatchLineKind
  text: string
}

const FILE_HEADER = /^(Index: |={3,}$|--- |\+\+\+ |\\ No newline)/

export function patchLines(patch: string): PatchLine[] {
  const lines: PatchLine[] = []
  for (const line of patch.split('\n')) {
    if (line === '' || FILE_HEADER.test(line)) continue
    const kind: PatchLineKind = line.startsWith('@@')
      ? 'hunk'
      : line.startsWith('+')
        ? 'added'
        : line.startsWith('-')
          ? 'removed'
          : 'same'
    lines.push({ kind, text: kind === 'hunk' ? line : line.slice(1) })
  }
  return lines
}
