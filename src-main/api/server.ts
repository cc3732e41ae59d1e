// The loopback HTTP server. The vendor's API lives under /client/v4 and nowhere else; our own
// operations live under /workbench/v1. Both answer in the vendor's envelope and require the
// vendor's credentials. Before any route runs, three guards apply to every request:
//   1. Host must be a loopback name or address: a DNS-rebinding page cannot reach us by name.
//   2. An Origin other than our own is refused, and no CORS header is ever sent.
//   3. Credentials, for the two API prefixes (the renderer's static files need none).
// Bad input never reaches a handler as a 500: parser and schema failures become 400s here.

import Fastify, { type FastifyError, type FastifyReply } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Ajv } from 'ajv'
import { ApiError, badRequest, couldNotRoute } from '@shared/api/errors'
import { authenticate, type Credentials } from './auth'
import { failed } from './envelope'

// Query strings and path parameters are text, so their validator coerces ('array': a repeated
// ?id=a&id=b and a single ?id=a both arrive as arrays where the schema asks for one, as the
// vendor's list filters expect). JSON bodies are typed already: coercing them would turn a
// mistaken `"name": 42` into "42" instead of refusing it.
const coercing = new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: false })
const strict = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false })

const newFastify = (bodyLimit: number) =>
  Fastify({
    bodyLimit,
    logger: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  })
    .setValidatorCompiler(({ schema, httpPart }) =>
      (httpPart === 'body' ? strict : coercing).compile(schema),
    )
    .withTypeProvider<TypeBoxTypeProvider>()

export type ApiServer = ReturnType<typeof newFastify>

export interface ApiServerOptions {
  credentials: Credentials
  /** Largest request body accepted, in bytes. */
  bodyLimit?: number
}

export const API_PREFIX = '/client/v4'
export const WORKBENCH_PREFIX = '/workbench/v1'

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])

/** `host[:port]` → host, keeping IPv6 brackets. */
function hostName(hostHeader: string): string {
  const ipv6 = /^\[[^\]]+\]/.exec(hostHeader)
  if (ipv6) return ipv6[0]
  return hostHeader.split(':')[0] ?? ''
}

export function isLoopbackHost(hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false
  const name = hostName(hostHeader.toLowerCase())
  return LOOPBACK_HOSTS.has(name) || /^127(\.\d{1,3}){3}$/.test(name)
}

function needsCredentials(url: string): boolean {
  return url.startsWith(`${API_PREFIX}/`) || url.startsWith(`${WORKBENCH_PREFIX}/`)
}

function send(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.status).type('application/json').send(failed(error.toMessages()))
}

/** Maps what Fastify's parsers and validators throw to the vendor's 400s. */
function toApiError(error: FastifyError): ApiError {
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
    return badRequest(1001, `Invalid request: ${detail}`, pointer)
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return badRequest(6003, 'Invalid request headers', {
        error_chain: [
          { code: 6105, message: 'Invalid Content-Type header, valid values are application/json' },
        ],
      })
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return badRequest(
        6010,
        `Request body is larger than the limit of ${error.message.match(/\d+/)?.[0] ?? 'the server'} bytes`,
      )
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest(6007, 'Malformed JSON in request body: the body is empty')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest(6007, `Malformed JSON in request body: ${error.message}`)
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return badRequest(6007, error.message)
  }
  return new ApiError(500, 10001, 'Internal error: the workbench failed to answer; see its log')
}

export function createApiServer(options: ApiServerOptions): ApiServer {
  const app = newFastify(options.bodyLimit ?? 8 * 1024 * 1024)

  app.addHook('onRequest', async (request, reply) => {
    if (!isLoopbackHost(request.headers.host)) {
      return send(
        reply,
        new ApiError(403, 1000, 'Host not allowed: the workbench answers only to loopback names'),
      )
    }
    const origin = request.headers.origin
    if (origin !== undefined && origin !== `http://${request.headers.host}`) {
      return send(reply, new ApiError(403, 1000, `Cross-origin requests are refused (${origin})`))
    }
    if (needsCredentials(request.url)) authenticate(request.headers, options.credentials)
  })

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error)
    // Only our own faults are logged; a user's mistake is answered, not logged.
    if (apiError.status >= 500) console.error(`${request.method} ${request.url}:`, error)
    return send(reply, apiError)
  })

  app.setNotFoundHandler((request, reply) => {
    // The vendor names the path without its /client/v4 base and without the query.
    const path = (request.url.split('?')[0] ?? '/').replace(API_PREFIX, '') || '/'
    return send(reply, couldNotRoute(path))
  })

  return app
}
