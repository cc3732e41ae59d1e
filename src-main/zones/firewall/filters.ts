// The Filters API's semantics over one zone (`/zones/{zone_id}/filters`). Bodies are arrays and
// each call is all or nothing. A filter in use by a firewall rule cannot be deleted; its content
// is edited only here, never through the firewall rules (firewall-rules.ts).

import { ApiError, couldNotRoute } from '@shared/api/errors'
import type { Filter, FilterBulkUpdate, FilterCreate, FilterUpdate } from '@shared/api/firewall'
import { PHASE_LEGACY_FIREWALL } from '@shared/expression'
import { checkExpression } from '../check-expression'
import { invalidValue, Problems } from '../problems'
import { filterName, recordsNamed } from './history-words'
import type { FirewallStore } from './store'
import { FIREWALL_ERRORS } from '@shared/api/error-codes'

export interface FilterQuery {
  id?: string[]
  paused?: boolean
  expression?: string
  description?: string
  ref?: string
}

/** What the Filters and Firewall Rules APIs work with: the zone's store and how a change is made. */
export interface FirewallPartOptions {
  store: FirewallStore
  basePath: string
  /** The time stamped on what is written, in the vendor's format (the service's clock). */
  timestamp: () => string
  newId: () => string
  describe: (note: string) => void
}

const EXPRESSION_CODES = {
  blank: FIREWALL_ERRORS.expressionInvalid,
  invalid: FIREWALL_ERRORS.expressionInvalid,
}

/** Whether `text` holds `part`, case folded (the APIs' list filters); no part holds anything. */
export const contains = (text: string | undefined, part: string | undefined) =>
  part === undefined || (text ?? '').toLowerCase().includes(part.toLowerCase())

export class Filters {
  constructor(private readonly options: FirewallPartOptions) {}

  private get store() {
    return this.options.store
  }

  listFilters(query: FilterQuery): Filter[] {
    return this.store
      .filters()
      .filter(
        (f) =>
          (query.id === undefined || query.id.includes(f.id)) &&
          (query.paused === undefined || f.paused === query.paused) &&
          contains(f.expression, query.expression) &&
          contains(f.description, query.description) &&
          (query.ref === undefined || f.ref === query.ref),
      )
  }

  getFilter(id: string): Filter {
    const filter = this.store.filter(id)
    if (filter === undefined) throw couldNotRoute(`${this.options.basePath}/filters/${id}`)
    return filter
  }

  createFilters(inputs: FilterCreate[]): Filter[] {
    const problems = new Problems()
    if (inputs.length === 0) problems.add(FIREWALL_ERRORS.nothingToDo, 'no filters to create')
    const filters = this.checkFilters(inputs, problems, () => this.options.newId())
    problems.check()
    this.options.describe(`${recordsNamed('Filter', filters.map(filterName))} created`)
    for (const filter of filters) this.store.putFilter(filter)
    return filters
  }

  /** Replaces the given filters whole: a field an input leaves out is reset. */
  updateFilters(inputs: (FilterCreate & { id: string })[]): Filter[] {
    const problems = new Problems()
    if (inputs.length === 0) problems.add(FIREWALL_ERRORS.nothingToDo, 'no filters to update')
    inputs.forEach((input, index) => this.checkFilterExists(input.id, index, problems))
    const filters = this.checkFilters(inputs, problems, (index) => inputs[index]!.id)
    problems.check()
    this.options.describe(`${recordsNamed('Filter', filters.map(filterName))} updated`)
    for (const filter of filters) this.store.putFilter(filter)
    return filters
  }

  /**
   * The API's PUT of filters: each given filter takes the fields its input sends and keeps the
   * others, as the official SDK's `filters.update` sends only the fields it is given.
   */
  editFilters(inputs: FilterBulkUpdate[]): Filter[] {
    const problems = new Problems()
    const merged = inputs.flatMap((input, index) => {
      const current = this.checkFilterExists(input.id, index, problems)
      return current === undefined ? [] : [{ ...current, ...input }]
    })
    problems.check()
    return this.updateFilters(merged)
  }

  updateFilter(id: string, input: FilterUpdate): Filter {
    this.getFilter(id)
    if (input.id !== undefined && input.id !== id) {
      throw new ApiError(
        400,
        FIREWALL_ERRORS.unknownId,
        invalidValue(input.id, 'id', `the path names filter ${id}`),
      )
    }
    const [filter] = this.editFilters([{ ...input, id }])
    return filter!
  }

  private checkFilterExists(id: string, index: number, problems: Problems): Filter | undefined {
    const filter = this.store.filter(id)
    if (filter === undefined) {
      problems.add(
        FIREWALL_ERRORS.unknownId,
        invalidValue(id, 'id', 'no filter of this zone has it'),
        `/${index}/id`,
      )
    }
    return filter
  }

  /** Deletes the filters that exist among `ids`; none if any of them is still in use. */
  deleteFilters(ids: string[]): { id: string }[] {
    const problems = new Problems()
    const filters = [...new Set(ids)].flatMap((id) => this.store.filter(id) ?? [])
    const found = filters.map((filter) => filter.id)
    for (const id of found) {
      const users = this.store.rulesUsing(id)
      if (users.length > 0) {
        problems.add(
          FIREWALL_ERRORS.filterInUse,
          `filter ${id} is used by firewall rule${users.length === 1 ? '' : 's'} ${users.join(', ')}; delete or re-link ${users.length === 1 ? 'it' : 'them'} first`,
        )
      }
    }
    problems.check()
    if (found.length > 0)
      this.options.describe(`${recordsNamed('Filter', filters.map(filterName))} deleted`)
    for (const id of found) this.store.deleteFilter(id)
    return found.map((id) => ({ id }))
  }

  deleteFilter(id: string): { id: string } {
    this.getFilter(id)
    this.deleteFilters([id])
    return { id }
  }

  /**
   * Checked filters for `inputs`: expressions valid and not already another filter's (the rules'
   * inline filters are checked here too).
   */
  checkFilters(
    inputs: FilterCreate[],
    problems: Problems,
    idOf: (index: number) => string,
    pointerOf: (index: number) => string = (index) => `/${index}`,
  ): Filter[] {
    const claimed = new Map<string, string>()
    return inputs.flatMap((input, index) => {
      const id = idOf(index)
      const pointer = `${pointerOf(index)}/expression`
      const expression = this.checkFilterExpression(input.expression, pointer, problems)
      if (expression === undefined) return []
      const holder = claimed.get(expression) ?? this.store.filterWithExpression(expression)?.id
      if (holder !== undefined && holder !== id) {
        problems.add(
          FIREWALL_ERRORS.duplicate,
          'config duplicates an already existing config',
          pointer,
          { id: holder },
        )
        return []
      }
      claimed.set(expression, id)
      return [
        {
          id,
          paused: input.paused ?? false,
          ...(input.description === undefined ? {} : { description: input.description }),
          ...(input.ref === undefined ? {} : { ref: input.ref }),
          expression,
        },
      ]
    })
  }

  private checkFilterExpression(
    expression: string,
    pointer: string,
    problems: Problems,
  ): string | undefined {
    return checkExpression(expression, pointer, PHASE_LEGACY_FIREWALL, problems, EXPRESSION_CODES)
  }
}
