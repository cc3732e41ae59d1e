// The loopback HTTP server. The vendor's API lives under /client/v4 and nowhere else; our own
// operations live under /workbench/v1. Both answer in the vendor's envelope and require the
// vendor's credentials. Before any route runs, three guards apply to every request:
//   1. Host must be a loopback name or address: a DNS-rebinding page cannot reach us by name.
//   2. An Origin other than our own is refused, and no CORS header is ever sent.
//   3. Credentials, for the two API prefixes (the renderer's static files need none).
// Bad input never answers a 500: every parser, router and schema failure is a 4xx in the
// envelope (error-replies.ts), and JSON bodies are bounded in size and depth before parsing.

import Fastify from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Ajv } from 'ajv'
import { ApiError } from '@shared/api/errors'
import { authenticate, type Credentials } from './auth'
import {
  MAX_PARAM_LENGTH,
  answerClientError,
  answerError,
  answerFrameworkError,
  answerNotFound,
  sendError as send,
  useBoundedJsonParser,
} from './error-replies'

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
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
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

  useBoundedJsonParser(app)
  app.setErrorHandler(answerError)
  app.setNotFoundHandler(answerNotFound(API_PREFIX))

  return app
}
