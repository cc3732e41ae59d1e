// The side-by-side replay of a migration, added up one request at a time: the compare route feeds
// it each request as both products judged it, and the Migration screen the compared requests a
// compare job wrote, to list them differences first.

import { OUTCOMES, type Outcome } from '@shared/api/simulate'
import type { ComparedRequest, MigrationComparison } from '@shared/api/waf'

function noOutcomes(): Record<Outcome, number> {
  return { blocked: 0, challenged: 0, passed: 0 }
}

export class ComparisonTally {
  private readonly previous = noOutcomes()
  private readonly next = noOutcomes()
  private readonly matrix = Object.fromEntries(
    OUTCOMES.map((outcome) => [outcome, noOutcomes()]),
  ) as MigrationComparison['matrix']
  /** requests whose products disagree, and the rest, each in request order */
  private readonly differing: ComparedRequest[] = []
  private readonly same: ComparedRequest[] = []

  /** Before validation mode the new product is the configuration the migration would deploy. */
  constructor(private newConfiguration: MigrationComparison['new_configuration'] = 'generated') {}

  /** Counts one request, numbered in the file; requests are added in the file's order. */
  add(result: ComparedRequest): void {
    this.previous[result.previous.outcome]++
    this.next[result.new.outcome]++
    this.matrix[result.previous.outcome][result.new.outcome]++
    ;(result.differs ? this.differing : this.same).push(result)
  }

  /** Where the new product's configuration came from, as the last requests were judged. */
  judgedBy(newConfiguration: MigrationComparison['new_configuration']): void {
    this.newConfiguration = newConfiguration
  }

  /**
   * Counts the requests of a comparison answered for part of the traffic. It numbers its
   * requests from its own start; `first` (the 1-based number in the file of its first request)
   * puts them back in the file's numbering.
   */
  addComparison(part: MigrationComparison, first: number): void {
    this.judgedBy(part.new_configuration)
    // Each of its groups is in request order, so each stays in order here.
    for (const result of part.results) this.add({ ...result, index: result.index + first - 1 })
  }

  /** The comparison so far: differences first, then the rest, each group in request order. */
  comparison(): MigrationComparison {
    const copy = (counts: Record<Outcome, number>) => ({ ...counts })
    return {
      requests: this.differing.length + this.same.length,
      differences: this.differing.length,
      new_configuration: this.newConfiguration,
      outcomes: { previous: copy(this.previous), new: copy(this.next) },
      matrix: {
        blocked: copy(this.matrix.blocked),
        challenged: copy(this.matrix.challenged),
        passed: copy(this.matrix.passed),
      },
      results: [...this.differing, ...this.same],
    }
  }
}
