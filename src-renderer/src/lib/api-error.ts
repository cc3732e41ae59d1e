// The renderer's one error: a refusal by the API or by the bridge, with the HTTP status and the
// API's messages as it sent them (codes, `source.pointer`s), whichever corridor it came through.

import type { ApiMessage } from '@shared/api/envelope'

export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ApiMessage[],
  ) {
    super(errors.map((e) => e.message).join('\n') || `The API answered ${status}`)
    this.name = 'ApiCallError'
  }
}

/** The API's messages for a refusal, or one message for any other failure. */
export function errorMessages(error: unknown): ApiMessage[] {
  if (error instanceof ApiCallError && error.errors.length > 0) return error.errors
  return [{ code: 0, message: error instanceof Error ? error.message : String(error) }]
}
