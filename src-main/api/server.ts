// The loopback HTTP server. The vendor's API lives under /client/v4 and nowhere else; our own
// operations live under /workbench/v1. Both answer in the vendor's envelope and require the
// vendor's credentials. Before any route runs, every request is normalised once
// (request-target.ts), so the router and the guards read the same path, and then:
//   1. Host (and an absolute-form target's authority) must be a loopback name or address: a
//      DNS-rebinding page cannot reach us by name.
//   2. An Origin other than our own is refused, and no CORS header is ever sent.
//   3. Credentials, by the matched route's `access` (default: the API's credentials). A route is
//      public only by saying so, and no route under the API prefixes may.
// Bad input never answers a 500: every parser, router and schema failure is a 4xx in the
// envelope (error-replies.ts), and JSON bodies are bounded in size and depth before parsing.

import Fastify, { type FastifyRequest } from 'fastify'
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
import { normaliseTarget, type RequestTarget } from './request-target'
import type { UiSessions } from './ui-session'
import { API_ERRORS } from '@shared/api/error-codes'

/**
 * Who may call a route: `credentials`, the API's token or global key (the default); `session`,
 * those or the UI's session cookie (the headless shell's bridge); `public`, anyone on loopback
 * (the UI's static files, which hold no secret).
 */
export type RouteAccess = 'credentials' | 'session' | 'public'

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess
  }
  interface FastifyInstance {
    /** Every route the server holds, with the access it needs, as registered. */
    readonly routeTable: readonly RouteEntry[]
  }
}

export interface RouteEntry {
  method: string
  /** the route's pattern, e.g. /client/v4/zones/:zone_id */
  url: string
  access: RouteAccess
}

/**
 * Each request's target as rewriteUrl normalised it: its authority for the loopback guard, and
 * whether its path holds a dot segment (answered 404).
 */
const targets = new WeakMap<object, RequestTarget>()

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
    // Closing is a shutdown: a request still open (a browser's, mid-answer) is cut, not awaited.
    forceCloseConnections: true,
    rewriteUrl: (request) => {
      const target = normaliseTarget(request.url ?? '/')
      targets.set(request, target)
      return target.url
    },
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
  /** the credentials in force (read per request: they can be rotated while the server runs) */
  credentials: () => Credentials
  /** the UI's sessions, for the routes whose access is `session` */
  sessions?: UiSessions
  /** Largest request body accepted, in bytes. */
  bodyLimit?: number
}

export const API_PREFIX = '/client/v4'
export const WORKBENCH_PREFIX = '/workbench/v1'

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])

/**
 * `host[:port]` → host, keeping IPv6 brackets; undefined when what follows the host is not a
 * port (`localhost:evil.com`, `localhost:80@evil.com`: RFC 9110 §7.2's Host is uri-host[:port]).
 */
function hostName(hostHeader: string): string | undefined {
  return /^(\[[^\]]+\]|[^:[\]]*)(?::\d*)?$/.exec(hostHeader)?.[1]
}

export function isLoopbackHost(hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false
  const name = hostName(hostHeader.toLowerCase())
  if (name === undefined) return false
  return LOOPBACK_HOSTS.has(name) || /^127(\.\d{1,3}){3}$/.test(name)
}

function underApiPrefix(url: string): boolean {
  return [API_PREFIX, WORKBENCH_PREFIX].some(
    (prefix) => url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`),
  )
}

/**
 * The access a request needs. Under the API prefixes, nothing is public: an unknown path there is
 * authenticated before it is answered 404 (so what exists cannot be probed without the token),
 * and so is a path that only the UI's wildcard file route matched. Elsewhere, only a matched
 * route that says so is public; unmatched paths meet the 404 and nothing else.
 */
function accessOf(request: FastifyRequest): RouteAccess {
  const declared =
    request.routeOptions.url === undefined ? undefined : request.routeOptions.config.access
  if (underApiPrefix(request.url)) return declared === 'session' ? 'session' : 'credentials'
  return declared ?? (request.routeOptions.url === undefined ? 'public' : 'credentials')
}

export function createApiServer(options: ApiServerOptions): ApiServer {
  const app = newFastify(options.bodyLimit ?? 8 * 1024 * 1024)
  const notFound = answerNotFound(API_PREFIX)

  const routeTable: RouteEntry[] = []
  app.decorate('routeTable', routeTable)
  app.addHook('onRoute', (route) => {
    // Read when asked: a plugin's own onRoute hook (the UI's files) may set the access later.
    const accessOf = () => route.config?.access ?? 'credentials'
    for (const method of [route.method].flat()) {
      routeTable.push({
        method,
        url: route.url,
        get access() {
          return accessOf()
        },
      })
    }
  })
  app.addHook('onReady', async () => {
    const exposed = routeTable.find((r) => r.access === 'public' && underApiPrefix(r.url))
    if (exposed !== undefined) {
      throw new Error(`${exposed.method} ${exposed.url}: no route under the API prefixes is public`)
    }
  })

  app.addHook('onRequest', async (request, reply) => {
    const target = targets.get(request.raw)
    const authority = target?.authority
    const loopback =
      isLoopbackHost(request.headers.host) && (authority === undefined || isLoopbackHost(authority))
    if (!loopback) {
      return send(
        reply,
        new ApiError(
          403,
          API_ERRORS.forbidden,
          'Host not allowed: the workbench answers only to loopback names',
        ),
      )
    }
    const origin = request.headers.origin
    if (origin !== undefined && origin !== `http://${request.headers.host}`) {
      return send(
        reply,
        new ApiError(403, API_ERRORS.forbidden, `Cross-origin requests are refused (${origin})`),
      )
    }
    const access = accessOf(request)
    const inSession = access === 'session' && options.sessions?.holds(request.headers) === true
    if (access !== 'public' && !inSession) authenticate(request.headers, options.credentials())
    if (target?.dotSegment === true) return notFound(request, reply)
  })

  useBoundedJsonParser(app)
  app.setErrorHandler(answerError)
  app.setNotFoundHandler(notFound)

  return app
}
