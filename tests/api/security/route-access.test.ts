// Every route the server holds, read from its own route table (so a route added later is covered
// without touching this file), is called without credentials, with wrong ones and with a forged
// session cookie, under every spelling of its path an attacker might try: percent-encoded
// letters, `%2f`, dot segments, doubled slashes, absolute-form targets, mixed case. None may reach
// a handler: Fastify's diagnostics channel for handlers (published as a handler starts,
// https://fastify.dev/docs/latest/Reference/Hooks/#diagnostics-channel-hooks) records every
// request that got that far.

import { subscribe } from 'node:diagnostics_channel'
import type { FastifyRequest } from 'fastify'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHeadless } from '../../../src-main/headless'
import type { RouteEntry } from '../../../src-main/api/server'
import type { Service } from '../../../src-main/service'
import { ACCOUNT } from '../../../src-main/zones/registry'
import { rawRequest, type RawAnswer } from './raw-http'

const TOKEN = 'securityTestToken0123456789abcdefghijkl'
/** A UI to serve: the shell serves whatever page it is given the same way. */
function rendererDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'zw-security-ui-')), 'renderer')
  mkdirSync(join(dir, 'assets'), { recursive: true })
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html><head></head><body></body></html>')
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log("ui")')
  return dir
}

let service: Service
let port: number
let uiAddress: string
const reachedHandler: string[] = []

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zw-security-'))
  let origin: string
  ;({ service, origin, uiAddress } = await startHeadless({
    dataDir,
    port: 0,
    apiToken: TOKEN,
    rendererDir: rendererDir(),
  }))
  port = Number(new URL(origin).port)
  subscribe('tracing:fastify.request.handler:start', (message) => {
    const { request } = message as { request: FastifyRequest }
    if (request.routeOptions.config.access !== 'public') {
      reachedHandler.push(`${request.method} ${request.raw.url}`)
    }
  })
})
afterAll(() => service.close())

const ZONE_ID = '0123456789abcdef0123456789abcdef'

/** A concrete path for a route pattern: ids where the route takes ids. */
function concretePath(pattern: string): string {
  return pattern
    .replace(':account_id', ACCOUNT.id)
    .replace(/:[a-z_]+/g, ZONE_ID)
    .replace('*', 'x')
}

/** Spellings of `path` that a lax router would take for it. */
function spellings(path: string): string[] {
  const [, first = '', second = '', ...rest] = path.split('/')
  const tail = rest.length > 0 ? `/${rest.join('/')}` : ''
  const encodeFirst = (s: string) => `%${s.charCodeAt(0).toString(16)}${s.slice(1)}`
  const encodeAll = (s: string) =>
    [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')
  return [
    path,
    `/${encodeFirst(first)}/${second}${tail}`,
    `/${first}/${encodeFirst(second)}${tail}`,
    `/${encodeAll(first)}/${encodeAll(second)}${tail}`,
    `/${first}%2f${second}${tail}`,
    `/${first}%2F${second}${tail}`,
    `/${first}/./${second}${tail}`,
    `/x/../${first}/${second}${tail}`,
    `/%2e/${first}/${second}${tail}`,
    `/${first}/${second}/%2E%2E/${second}${tail}`,
    `//${first}/${second}${tail}`,
    `/${first}//${second}${tail}/`,
    `/${first}/${second}${tail.replaceAll('/', '//')}`,
    `/${first}%5c${second}${tail}`,
    `http://127.0.0.1:${port}${path}`,
    `HTTP://LOCALHOST:${port}/${encodeFirst(first)}/${second}${tail}`,
    `http://attacker.example${path}`,
    `/${first.toUpperCase()}/${second.toUpperCase()}${tail}`,
    `/${first[0]?.toUpperCase()}${first.slice(1)}/${second}${tail}`,
    `${path}?page=1`,
  ]
}

const withoutAccess = (): Record<string, Record<string, string>> => ({
  'no credentials': {},
  'a wrong token': { authorization: 'Bearer WrongToken0123456789abcdefghijklmnopq' },
  'a wrong global key': {
    'x-auth-email': 'user@zone-workbench.local',
    'x-auth-key': 'f'.repeat(37),
  },
  'a forged session cookie': { cookie: `zone_workbench_session_${port}=forged` },
})

/** The answers a refusal may be: the guards' and the router's, never a handler's. */
const REFUSAL_CODES = new Set([9106, 9109, 10000, 6003, 7003, 1000])

function expectRefused(answer: RawAnswer, what: string) {
  expect([400, 401, 403, 404], `${what}: ${answer.status} ${answer.body}`).toContain(answer.status)
  const body = JSON.parse(answer.body)
  expect(body.success, what).toBe(false)
  expect(REFUSAL_CODES.has(body.errors[0].code), `${what}: ${answer.body}`).toBe(true)
  expect(answer.body).not.toContain(TOKEN)
}

/** Runs `work` over `items`, a few at a time. */
async function inBatches<T>(items: T[], work: (item: T) => Promise<void>, size = 16) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work))
}

describe('no route answers without credentials, however its path is spelled', () => {
  it('lists the routes the server holds, none public under the API prefixes', () => {
    const routes = service.server.routeTable
    expect(routes.length).toBeGreaterThan(60)
    const guarded = routes.filter((r) => /^\/(client\/v4|workbench\/v1)(\/|$)/.test(r.url))
    expect(guarded.every((r) => r.access !== 'public')).toBe(true)
  })

  it('refuses every route, every spelling, every missing or wrong credential', async () => {
    const routes = service.server.routeTable.filter(
      (r: RouteEntry) => r.access !== 'public' && r.method !== 'HEAD' && r.method !== 'OPTIONS',
    )
    const requests = routes.flatMap((route) =>
      spellings(concretePath(route.url)).flatMap((target) =>
        Object.entries(withoutAccess()).map(([label, headers]) => ({
          route,
          target,
          label,
          headers,
        })),
      ),
    )
    let sent = 0
    await inBatches(requests, async ({ route, target, label, headers }) => {
      const hasBody = !['GET', 'DELETE'].includes(route.method)
      const answer = await rawRequest(
        port,
        route.method,
        target,
        {
          host: `127.0.0.1:${port}`,
          ...headers,
          ...(hasBody ? { 'content-type': 'application/json' } : {}),
        },
        hasBody ? '{}' : '',
      )
      expectRefused(answer, `${route.method} ${target} with ${label}`)
      sent++
    })
    expect(sent).toBe(requests.length)
    expect(reachedHandler).toEqual([])
  })

  it('still answers the same spellings with the token, so the refusals above are real', async () => {
    const answer = await rawRequest(port, 'GET', '/%63lient/v4/zones', {
      host: `127.0.0.1:${port}`,
      authorization: `Bearer ${TOKEN}`,
    })
    expect(answer.status).toBe(200)
    const absolute = await rawRequest(port, 'GET', `http://127.0.0.1:${port}/client/v4/zones`, {
      host: `127.0.0.1:${port}`,
      authorization: `Bearer ${TOKEN}`,
    })
    expect(absolute.status).toBe(200)
    expect(reachedHandler).toHaveLength(2)
    reachedHandler.length = 0
  })

  it('resolves no dot segment: with the token, a path holding one names nothing', async () => {
    const auth = { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` }
    const created = await rawRequest(
      port,
      'POST',
      '/client/v4/zones',
      { ...auth, 'content-type': 'application/json' },
      JSON.stringify({ name: 'dot-segments.example' }),
    )
    const zone = JSON.parse(created.body).result.id as string
    reachedHandler.length = 0
    // Resolved, the filter id `..` named the zone, and the DELETE deleted it.
    for (const [method, target] of [
      ['DELETE', `/client/v4/zones/${zone}/filters/%2e%2e`],
      ['DELETE', `/client/v4/zones/${zone}/filters/..`],
      ['GET', `/client/v4/zones/${zone}/filters/%2E`],
      ['GET', '/x/../client/v4/zones'],
      ['GET', '/client/v4/./zones'],
    ] as const) {
      const answer = await rawRequest(port, method, target, auth)
      expect(answer.status, target).toBe(404)
      expect(JSON.parse(answer.body).errors[0].code, target).toBe(7003)
    }
    expect(reachedHandler).toEqual([])
    const still = await rawRequest(port, 'GET', `/client/v4/zones/${zone}`, auth)
    expect(still.status).toBe(200)
    reachedHandler.length = 0
  })

  it('answers an unknown prefix 404 in the envelope, reaching no handler', async () => {
    for (const target of ['/client/v5/zones', '/%77orkbench/v2/bridge/serviceInfo', '/api/x']) {
      const answer = await rawRequest(
        port,
        'POST',
        target,
        {
          host: `127.0.0.1:${port}`,
          'content-type': 'application/json',
        },
        '{}',
      )
      expect(answer.status, target).toBe(404)
      expect(JSON.parse(answer.body).errors[0].code).toBe(7003)
    }
    expect(reachedHandler).toEqual([])
  })
})

describe('the UI session', () => {
  it('puts no secret in the page, and serves its files without credentials', async () => {
    const page = await rawRequest(port, 'GET', '/', { host: `127.0.0.1:${port}` })
    expect(page.status).toBe(200)
    expect(page.body).toContain('<body>')
    const file = await rawRequest(port, 'GET', '/assets/app.js', { host: `127.0.0.1:${port}` })
    expect(file.status).toBe(200)
    expect(page.body).not.toContain(TOKEN)
    expect(page.headers['set-cookie']).toBeUndefined()
  })

  it('exchanges the launch secret for an HttpOnly, SameSite=Strict cookie the bridge accepts', async () => {
    const { pathname, search } = new URL(uiAddress)
    const opened = await rawRequest(port, 'GET', `${pathname}${search}`, {
      host: `127.0.0.1:${port}`,
    })
    expect(opened.status).toBe(303)
    expect(opened.headers.location).toBe('/')
    const cookie = opened.headers['set-cookie'] ?? ''
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    expect(cookie).not.toMatch(/Domain=/i)
    const session = cookie.split(';')[0]!
    const info = await rawRequest(
      port,
      'POST',
      '/workbench/v1/bridge/serviceInfo',
      { host: `127.0.0.1:${port}`, cookie: session, 'content-type': 'application/json' },
      '{}',
    )
    expect(info.status).toBe(200)
    expect(JSON.parse(info.body).result.apiToken).toBe(TOKEN)
    // The cookie opens the bridge and nothing else.
    const api = await rawRequest(port, 'GET', '/client/v4/zones', {
      host: `127.0.0.1:${port}`,
      cookie: session,
    })
    expect(api.status).toBe(400)
    expect(JSON.parse(api.body).errors[0].code).toBe(9106)
    reachedHandler.length = 0
  })

  it('refuses a wrong launch secret', async () => {
    const answer = await rawRequest(port, 'GET', '/?session=guessed', {
      host: `127.0.0.1:${port}`,
    })
    expect(answer.status).toBe(200)
    expect(answer.headers['set-cookie']).toBeUndefined()
  })
})
