// One error type for every failure a user can cause: the API answers it in the vendor's envelope
// with its HTTP status, the bridge carries it to the renderer, and the zones layer throws it.
// Its codes are named in ./error-codes.ts, the catalogue of every code the API answers.

import type { ApiMessage } from './envelope'
import { API_ERRORS } from './error-codes'

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly details: Omit<ApiMessage, 'code' | 'message'> = {},
    /** further entries of the envelope's `errors`, after this one */
    readonly alongside: ApiMessage[] = [],
  ) {
    super(message)
    this.name = 'ApiError'
  }

  toMessages(): ApiMessage[] {
    return [{ code: this.code, message: this.message, ...this.details }, ...this.alongside]
  }
}

export const badRequest = (code: number, message: string, details?: ApiError['details']) =>
  new ApiError(400, code, message, details)

/** A request body over `limit` bytes (the vendor's 6007 is a body it cannot parse). */
export const payloadTooLarge = (limit: number) =>
  new ApiError(
    413,
    API_ERRORS.bodyTooLarge,
    `Request body is larger than the limit of ${limit} bytes`,
  )

/** A JSON body nested deeper than `limit` levels of arrays and objects. */
export const nestedTooDeep = (limit: number) =>
  badRequest(
    API_ERRORS.malformedBody,
    `Malformed JSON in request body: nested deeper than ${limit} levels`,
  )

/** Unknown route, or unknown zone or object id in the path: the vendor's 7003 + 7000 pair. */
export const couldNotRoute = (path: string) =>
  new ApiError(
    404,
    API_ERRORS.couldNotRoute,
    `Could not route to ${path}, perhaps your object identifier is invalid?`,
    {},
    [{ code: API_ERRORS.noRoute, message: 'No route for that URI' }],
  )

/** Ids are 32 lowercase hexadecimal characters everywhere in the vendor's API. */
export function isVendorId(value: string): boolean {
  return /^[0-9a-f]{32}$/.test(value)
}
