// How a change of filters and firewall rules reads in the zone's history: the records by name
// (their description, else their expression cut short), never by id, since a person reads it
// (issue 19: no id where a name exists).

import type { Filter } from '@shared/api/firewall'
import { nounFor } from '@shared/plural'

/** Names listed in one point; the rest are counted. */
const NAMES_LISTED = 3
/** Characters of an expression shown where a filter has no description. */
const EXPRESSION_SHOWN = 40

/** A filter's name: its description, else its expression, cut short. */
export function filterName(filter: Pick<Filter, 'description' | 'expression'>): string {
  if (filter.description) return filter.description
  const expression = filter.expression.replace(/\s+/g, ' ').trim()
  return expression.length <= EXPRESSION_SHOWN
    ? expression
    : `${expression.slice(0, EXPRESSION_SHOWN - 1)}…`
}

/**
 * The records named in a sentence, with the noun in its number: `Firewall rule “A”`,
 * `Firewall rules “A” and “B”`, `Filters “A”, “B”, “C” and 2 more`.
 */
export function recordsNamed(noun: string, names: readonly string[]): string {
  const quoted = names.slice(0, NAMES_LISTED).map((name) => `“${name}”`)
  const more = names.length - quoted.length
  if (more > 0) quoted.push(`${more} more`)
  const listed =
    quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`
  return `${nounFor(names.length, noun)} ${listed}`
}
