// The side-by-side replay in chunks, as the Replay screen does it (the bridge answers a call only
// once it is complete): the traffic file goes to the compare route a few hundred requests at a
// time, and the comparisons the chunks answer are added up here.

import { OUTCOMES, type Outcome } from '@shared/api/simulate'
import type { MigrationComparison } from '@shared/api/waf'

function noOutcomes(): Record<Outcome, number> {
  return { blocked: 0, challenged: 0, passed: 0 }
}

export function emptyComparison(): MigrationComparison {
  return {
    requests: 0,
    differences: 0,
    new_configuration: 'generated',
    outcomes: { previous: noOutcomes(), new: noOutcomes() },
    matrix: { blocked: noOutcomes(), challenged: noOutcomes(), passed: noOutcomes() },
    results: [],
  }
}

function addCounts(
  total: Record<Outcome, number>,
  part: Record<Outcome, number>,
): Record<Outcome, number> {
  const sum = noOutcomes()
  for (const outcome of OUTCOMES) sum[outcome] = total[outcome] + part[outcome]
  return sum
}

/**
 * The comparison so far with one chunk's answer added. A chunk numbers its requests from its own
 * start; `first` (the 1-based number in the file of the chunk's first request) puts them back in
 * the file's numbering.
 */
export function addComparison(
  total: MigrationComparison,
  part: MigrationComparison,
  first: number,
): MigrationComparison {
  const matrix = emptyComparison().matrix
  for (const outcome of OUTCOMES) {
    matrix[outcome] = addCounts(total.matrix[outcome], part.matrix[outcome])
  }
  const shifted = part.results.map((result) => ({ ...result, index: result.index + first - 1 }))
  // Chunks arrive in file order, so appending each group keeps it in request order.
  const firstSame = total.results.findIndex((result) => !result.differs)
  const cut = firstSame === -1 ? total.results.length : firstSame
  return {
    requests: total.requests + part.requests,
    differences: total.differences + part.differences,
    new_configuration: part.new_configuration,
    outcomes: {
      previous: addCounts(total.outcomes.previous, part.outcomes.previous),
      new: addCounts(total.outcomes.new, part.outcomes.new),
    },
    matrix,
    // differences first, then the rest, as the route orders one answer
    results: [
      ...total.results.slice(0, cut),
      ...shifted.filter((result) => result.differs),
      ...total.results.slice(cut),
      ...shifted.filter((result) => !result.differs),
    ],
  }
}
