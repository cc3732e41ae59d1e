// Building the vendor's envelope on the way out, and reading its page-number pagination on the
// way in. A page past the end is an empty list with 200, never an error and never the last page
// again: the official SDK's iterators stop only on an empty page.

import { Type } from 'typebox'
import type { ApiMessage, Envelope, ResultInfo } from '@shared/api/envelope'
import { MAX_PAGE } from '@shared/api/limits'

export function ok<T>(result: T, messages: ApiMessage[] = []): Envelope<T> {
  return { success: true, errors: [], messages, result }
}

export function failed(errors: ApiMessage[]): Envelope<null> {
  return { success: false, errors, messages: [], result: null }
}

/** `page` and `per_page`: integers in range, else 400 (a page past the end is still an empty list). */
export const pageQuery = (perPage: { default: number; minimum: number; maximum: number }) => ({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
  per_page: Type.Optional(Type.Integer(perPage)),
})
export interface PageQuery {
  page?: number
  per_page?: number
}

export interface Page {
  page: number
  perPage: number
}

export function pageOf(query: PageQuery, defaultPerPage: number): Page {
  return { page: query.page ?? 1, perPage: query.per_page ?? defaultPerPage }
}

export function paged<T>(items: T[], total: number, page: Page): Envelope<T[]> {
  const info: ResultInfo = {
    page: page.page,
    per_page: page.perPage,
    count: items.length,
    total_count: total,
    total_pages: Math.ceil(total / page.perPage),
  }
  return { ...ok(items), result_info: info }
}

/** The page `query` asks for of a list held whole in memory. */
export function pageOfList<T>(items: T[], query: PageQuery, defaultPerPage: number): Envelope<T[]> {
  const page = pageOf(query, defaultPerPage)
  const start = (page.page - 1) * page.perPage
  return paged(items.slice(start, start + page.perPage), items.length, page)
}

/** The page sizes of the vendor's Filters and Firewall Rules lists. */
export const FIREWALL_PER_PAGE = { default: 25, minimum: 5, maximum: 100 }
