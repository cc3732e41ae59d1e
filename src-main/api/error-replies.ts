// How failures leave the server: in the vendor's envelope with an HTTP status that says whose
// fault it was, whether they come from a handler, Fastify's parsers and router, storage, or
// Node's HTTP parser (which refuses a request before Fastify sees it). And the JSON body parser,
// which bounds a body's nesting before parsing it, so that no deep structure reaches a recursive
// validator, structuredClone or JSON.stringify.

import { STATUS_CODES, maxHeaderSize } from 'node:http'
import type { Socket } from 'node:net'
import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import {
  ApiError,
  badRequest,
  couldNotRoute,
  nestedTooDeep,
  payloadTooLarge,
} from '@shared/api/errors'
import { MAX_JSON_DEPTH, jsonTextNestsDeeperThan } from '@shared/api/limits'
import { failed } from './envelope'
import type { ApiServer } from './server'
import { API_ERRORS } from '@shared/api/error-codes'

/** The longest path parameter the router accepts (a vendor id is 32 characters). */
export const MAX_PARAM_LENGTH = 200

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.status).type('application/json').send(failed(error.toMessages()))
}

/** The result code of a storage failure: "…: SQLITE_TOOBIG" in the runtime's style, or a `code`. */
function sqliteCode(error: Error): string | undefined {
  const { code } = error as { code?: unknown }
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return code
  return /: (SQLITE_[A-Z_]+)$/.exec(error.message)?.[1]
}

/** Storage failures that a request's content can cause; the rest are ours (500). */
function storageFault(error: Error): ApiError | undefined {
  const code = sqliteCode(error)
  if (code === 'SQLITE_TOOBIG') {
    return new ApiError(
      413,
      API_ERRORS.bodyTooLarge,
      `Request holds a value larger than storage accepts (${code})`,
    )
  }
  if (code?.startsWith('SQLITE_CONSTRAINT')) {
    return badRequest(
      API_ERRORS.invalidRequest,
      `Invalid request: it conflicts with what is stored (${code})`,
    )
  }
  if (code === 'SQLITE_MISMATCH') {
    return badRequest(
      API_ERRORS.invalidRequest,
      `Invalid request: a value is out of range (${code})`,
    )
  }
  return undefined
}

/** Maps what Fastify's parsers, router and validators and storage throw to the vendor's 4xx. */
export function toApiError(error: FastifyError, bodyLimit: number): ApiError {
  if (error instanceof ApiError) return error
  if (error.validation) {
    const detail = error.validation
      .map(
        (v) => `${error.validationContext ?? 'body'}${v.instancePath} ${v.message ?? 'is invalid'}`,
      )
      .join('; ')
    const [first] = error.validation
    // Body faults point into the body, as the vendor's Rulesets API reports them.
    const pointer =
      error.validationContext === 'body' && first !== undefined
        ? { source: { pointer: first.instancePath || '/' } }
        : undefined
    return badRequest(API_ERRORS.invalidRequest, `Invalid request: ${detail}`, pointer)
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return badRequest(API_ERRORS.invalidHeaders, 'Invalid request headers', {
        error_chain: [
          {
            code: API_ERRORS.invalidContentHeader,
            message: 'Invalid Content-Type header, valid values are application/json',
          },
        ],
      })
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge(bodyLimit)
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest(
        API_ERRORS.malformedBody,
        'Malformed JSON in request body: the body is empty',
      )
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest(
        API_ERRORS.malformedBody,
        `Malformed JSON in request body: ${error.message}`,
      )
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(
        414,
        API_ERRORS.invalidRequest,
        `Invalid request: a path segment is longer than ${MAX_PARAM_LENGTH} characters`,
      )
  }
  const fault = storageFault(error)
  if (fault !== undefined) return fault
  const status = error.statusCode
  if (status !== undefined && status >= 400 && status < 500) {
    return new ApiError(status, API_ERRORS.invalidRequest, `Invalid request: ${error.message}`)
  }
  return new ApiError(
    500,
    API_ERRORS.internalError,
    'Internal error: the workbench failed to answer; see its log',
  )
}

/** Fastify's error handler: every failure in the envelope; only our own faults are logged. */
export function answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const apiError = toApiError(error, request.routeOptions.bodyLimit)
  if (apiError.status >= 500) console.error(`${request.method} ${request.url}:`, error)
  return sendError(reply, apiError)
}

/** Unknown routes: the vendor's 7003, naming the path without its /client/v4 base and query. */
export function answerNotFound(apiPrefix: string) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const path = (request.url.split('?')[0] ?? '/').replace(apiPrefix, '') || '/'
    return sendError(reply, couldNotRoute(path))
  }
}

/**
 * The router's own refusals (a path segment over MAX_PARAM_LENGTH, a malformed percent-encoding),
 * which Fastify would otherwise answer in its own format.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  void answerError(error, request, reply)
}

/** What Node's HTTP parser refused, as the envelope's error. */
function clientFault(code: string): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(
      431,
      API_ERRORS.invalidHeaders,
      `Invalid request headers: the request line and headers exceed ${maxHeaderSize} bytes`,
    )
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(
      408,
      API_ERRORS.invalidRequest,
      'Invalid request: the request was not received in time',
    )
  }
  return badRequest(
    API_ERRORS.invalidRequest,
    `Invalid request: not a well-formed HTTP request (${code})`,
  )
}

/**
 * Node's 'clientError': the request never reached Fastify, so the answer is written on the
 * socket, then the connection closed, as Node's documentation shows
 * (https://nodejs.org/api/http.html#event-clienterror).
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const fault = clientFault(error.code)
  const body = JSON.stringify(failed(fault.toMessages()))
  socket.end(
    `HTTP/1.1 ${fault.status} ${STATUS_CODES[fault.status]}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  )
}

/**
 * Replaces Fastify's JSON parser with one that refuses a body nested deeper than MAX_JSON_DEPTH,
 * by a scan of the text, and then parses with Fastify's own (which refuses `__proto__` and
 * `constructor.prototype` keys). Size is bounded before this runs, by each route's bodyLimit.
 * A lone surrogate (`"\ud800"`) becomes U+FFFD, as Go's encoding/json decodes it
 * (https://pkg.go.dev/encoding/json#Unmarshal): stored as UTF-8, it could not be kept as sent, and
 * an answer built from the request would differ from what a later read gives.
 */
export function useBoundedJsonParser(app: ApiServer): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  // The API's bodies are JSON: text is a wrong Content-Type (6003), as form data is, not a body
  // that fails the schema. The routes that take text (a Terraform import) add their own parser.
  app.removeContentTypeParser('text/plain')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string
    if (jsonTextNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(nestedTooDeep(MAX_JSON_DEPTH), undefined)
      return
    }
    if (!SURROGATE_ESCAPE.test(text)) return parseJson(request, text, done)
    parseJson(request, text, (error, value) =>
      error ? done(error, undefined) : done(null, wellFormed(value)),
    )
  })
}

/** A `\uD800`–`\uDFFF` escape: only a body holding one can hold a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/

/** A parsed JSON value with every string, keys included, well formed (lone surrogates U+FFFD). */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed()
  if (Array.isArray(value)) return value.map(wellFormed)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key.toWellFormed(), wellFormed(item)]),
  )
}
