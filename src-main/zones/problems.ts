// Collects what is wrong with a request body before anything is written, so that one answer
// names every fault (the vendor's Rulesets API lists several errors at once, each with a JSON
// pointer into the body), and a refused request changes nothing.

import { ApiError } from '@shared/api/errors'
import type { ApiMessage } from '@shared/api/envelope'

export class Problems {
  private readonly found: ApiMessage[] = []

  add(code: number, message: string, pointer?: string, meta?: Record<string, unknown>): void {
    this.found.push({
      code,
      message,
      ...(pointer === undefined ? {} : { source: { pointer } }),
      ...(meta === undefined ? {} : { meta }),
    })
  }

  get count(): number {
    return this.found.length
  }

  /** Throws the 400 that lists every problem found, if there is one. */
  check(): void {
    const [first, ...rest] = this.found
    if (first === undefined) return
    const { code, message, ...details } = first
    throw new ApiError(400, code, message, details, rest)
  }
}

/** The vendor's wording for a refused field value. */
export function invalidValue(value: unknown, field: string, reason: string): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return `'${text}' is not a valid value for ${field} because ${reason}`
}

/**
 * A refusal that comes after writes meant to stay: the change's transaction commits what was
 * written, then the request is answered with `error`. (Creating firewall rules with inline
 * filters past the zone's rule quota creates the filters and refuses the rules, as the vendor
 * does.)
 */
export class RefusedAfterWrite extends Error {
  constructor(readonly error: ApiError) {
    super(error.message)
    this.name = 'RefusedAfterWrite'
  }
}
