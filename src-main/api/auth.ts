// Authentication as the vendor does it: an API token (`Authorization: Bearer …`) or the global
// key (`X-Auth-Email` + `X-Auth-Key`). A request that fails here reads and changes nothing.
// Secrets are compared in constant time so that a local process cannot learn them by timing.

import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { ApiError, badRequest } from '@shared/api/errors'
import { API_ERRORS } from '@shared/api/error-codes'

export interface Credentials {
  apiToken: string
  email: string
  apiKey: string
}

// What a token can look like; anything else in an Authorization header is malformed.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+$/

const missing = () =>
  badRequest(
    API_ERRORS.missingCredentials,
    'Missing X-Auth-Key, X-Auth-Email or Authorization headers',
  )

const malformed = () =>
  badRequest(API_ERRORS.invalidHeaders, 'Invalid request headers', {
    error_chain: [
      {
        code: API_ERRORS.invalidAuthorizationHeader,
        message: 'Invalid format for Authorization header',
      },
    ],
  })

function sameSecret(given: string, expected: string): boolean {
  // Hash both so that the comparison takes the same time whatever the lengths.
  const digest = (s: string) => createHash('sha256').update(s).digest()
  return timingSafeEqual(digest(given), digest(expected))
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** The token of an `Authorization: Bearer …` value; undefined when it is not one. */
function bearerOf(authorization: string): string | undefined {
  const token = /^Bearer (\S+)$/.exec(authorization.trim())?.[1]
  return token !== undefined && TOKEN_SHAPE.test(token) ? token : undefined
}

/**
 * The API token a request presents, as `authenticate` reads it: undefined for a request that
 * sends no Authorization header (the global key) or one that is not a bearer token.
 */
export function presentedToken(headers: IncomingHttpHeaders): string | undefined {
  const authorization = header(headers, 'authorization')
  return authorization === undefined ? undefined : bearerOf(authorization)
}

/**
 * The id the API gives an API token (`GET /user/tokens/verify`): the first 32 hex digits of the
 * SHA-256 of the token behind a label of its own. The vendor's id names a record it keeps of the
 * token; the workbench keeps none, so it derives one. It is the same for the same token, across
 * restarts and on every machine, and changes when the credentials are rotated (a new token). It
 * does not give the token back: the hash is one-way, and a generated token is 40 random
 * characters, too many to find by trying (one chosen with `--api-token` is as hard to guess as
 * its owner made it); the label keeps it from being a SHA-256 of the token found elsewhere.
 */
export function tokenId(token: string): string {
  return createHash('sha256')
    .update('zone-workbench API token id\n')
    .update(token)
    .digest('hex')
    .slice(0, 32)
}

/** Throws the vendor's error for a request whose credentials are missing, malformed or wrong. */
export function authenticate(headers: IncomingHttpHeaders, credentials: Credentials): void {
  const authorization = header(headers, 'authorization')
  if (authorization !== undefined) {
    const token = bearerOf(authorization)
    if (token === undefined) throw malformed()
    if (!sameSecret(token, credentials.apiToken)) {
      throw new ApiError(403, API_ERRORS.unauthorized, 'Invalid access token')
    }
    return
  }
  const email = header(headers, 'x-auth-email')
  const key = header(headers, 'x-auth-key')
  if (email === undefined || key === undefined) throw missing()
  const emailMatches = sameSecret(email.toLowerCase(), credentials.email.toLowerCase())
  if (!(sameSecret(key, credentials.apiKey) && emailMatches)) {
    throw new ApiError(403, API_ERRORS.authenticationError, 'Authentication error')
  }
}
