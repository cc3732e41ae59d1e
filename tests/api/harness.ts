// A real service on a temporary data dir and a free loopback port, for API tests, and the
// shorthands the tests share: request bodies, calls that must succeed or be refused, a new zone.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Cloudflare from 'cloudflare'
import { expect } from 'vitest'
import type { ApiMessage } from '@shared/api/envelope'
import { API_ERRORS } from '@shared/api/error-codes'
import { createService, type Service, type ServiceOptions } from '../../src-main/service'
import type { Credentials } from '../../src-main/api/auth'

export const CREDENTIALS: Credentials = {
  apiToken: 'wbTestToken0123456789abcdefghijklmnopqrs',
  email: 'tester@example.com',
  apiKey: '0123456789abcdef0123456789abcdef01234',
}

export interface Running {
  service: Service
  origin: string
  api: string
  dataDir: string
  /** fetch against the API with the bearer token unless headers say otherwise */
  call(path: string, init?: Init): Promise<{ status: number; body: any }>
  /** A call that must answer 200 and succeed: its result. */
  ok(path: string, init?: Init): Promise<any>
  /** A call that must fail with `status` (and, if given, `code` first): its first error. */
  refused(path: string, init: Init, status: number, code?: number): Promise<ApiMessage>
  stop(): Promise<void>
}

/** A call's options: fetch's, and `json` for a JSON body (none: a GET with the token). */
export type Init = (RequestInit & { json?: unknown }) | undefined
export const post = (json: unknown): Init => ({ method: 'POST', json })
export const put = (json: unknown): Init => ({ method: 'PUT', json })
export const patch = (json: unknown): Init => ({ method: 'PATCH', json })

/** The error with `code` in a failed answer, after checking its status and envelope. */
export function refusal(
  answer: { status: number; body: any },
  status: number,
  code: number,
  pointer?: string,
): any {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status)
  expect(answer.body.success).toBe(false)
  expect(answer.body.result).toBeNull()
  const error = answer.body.errors.find((e: any) => e.code === code)
  expect(error, JSON.stringify(answer.body.errors)).toBeDefined()
  if (pointer !== undefined) expect(error.source?.pointer).toBe(pointer)
  return error
}

/** An answer that names no route or no object: the vendor's 7003 and 7000. */
export function notRouted(answer: { status: number; body: any }): void {
  expect(answer.status).toBe(404)
  expect(answer.body.errors.map((e: any) => e.code)).toEqual([
    API_ERRORS.couldNotRoute,
    API_ERRORS.noRoute,
  ])
}

let zonesMade = 0

/** A zone made through the API (named `zone-<n>.example` unless named): the API's answer. */
export async function newZone(
  on: Running,
  zone: { name?: string; plan?: string; waf_product?: string } = {},
): Promise<any> {
  return on.ok('/zones', post({ name: `zone-${++zonesMade}.example`, ...zone }))
}

/** Headers for `Running.call` that send no credentials at all (it adds the token otherwise). */
export const NO_AUTH = { 'x-no-auth': '1' }

/** What an SDK call threw, for checking its class and fields; fails the test when it succeeded. */
export async function thrown(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail')
}

/**
 * The official `cloudflare` SDK pointed at a running service, with its API token or, for `key`,
 * the global key; no retries, so a refusal reaches the test as it was answered.
 */
export function sdkClient(on: Running, credentials: 'token' | 'key' = 'token'): Cloudflare {
  const auth =
    credentials === 'token'
      ? { apiToken: CREDENTIALS.apiToken }
      : { apiEmail: CREDENTIALS.email, apiKey: CREDENTIALS.apiKey }
  return new Cloudflare({ ...auth, baseURL: on.api, maxRetries: 0 })
}

/** What a test may change in the service it starts (passed on to createService). */
export type StartOptions = Pick<ServiceOptions, 'migrationSwitchMs' | 'clock'>

export async function startService(
  dataDir = mkdtempSync(join(tmpdir(), 'zw-api-')),
  options: StartOptions = {},
): Promise<Running> {
  const service = await createService({
    dataDir,
    api: { credentials: CREDENTIALS, port: 0 },
    shell: 'headless',
    ...options,
  })
  const origin = await service.listen()
  const api = service.apiBaseUrl()
  const running: Running = {
    service,
    origin,
    api,
    dataDir,
    async call(path, init = {}) {
      const headers = new Headers(init.headers)
      if (
        !headers.has('authorization') &&
        !headers.has('x-auth-key') &&
        !headers.has('x-no-auth')
      ) {
        headers.set('authorization', `Bearer ${CREDENTIALS.apiToken}`)
      }
      headers.delete('x-no-auth')
      let body = init.body
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json')
        body = JSON.stringify(init.json)
      }
      const url = path.startsWith('http') ? path : `${api}${path}`
      const response = await fetch(url, { ...init, headers, body })
      const text = await response.text()
      return { status: response.status, body: text ? JSON.parse(text) : null }
    },
    async ok(path, init) {
      const answer = await running.call(path, init)
      expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200)
      expect(answer.body.success).toBe(true)
      return answer.body.result
    },
    async refused(path, init, status, code) {
      const answer = await running.call(path, init)
      expect(answer.status, JSON.stringify(answer.body)).toBe(status)
      expect(answer.body.success).toBe(false)
      expect(answer.body.errors.length).toBeGreaterThan(0)
      if (code !== undefined) expect(answer.body.errors[0].code).toBe(code)
      return answer.body.errors[0]
    },
    async stop() {
      await service.close()
    },
  }
  return running
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

/** A new zone (on `plan`) whose managed-phase entry point executes `rulesets`: its id. */
export async function zoneExecuting(
  on: Running,
  rulesets: string[],
  plan = 'pro',
): Promise<string> {
  const zone = (await newZone(on, { plan })).id
  await on.ok(
    `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    put({
      rules: rulesets.map((id) => ({
        action: 'execute',
        expression: 'true',
        action_parameters: { id },
      })),
    }),
  )
  return zone
}

/** What the zone would do to `request`: the simulate route's result (`query`: `?record=…`). */
export function simulate(on: Running, zone: string, request: unknown, query = ''): Promise<any> {
  return on.ok(`${on.origin}/workbench/v1/zones/${zone}/simulate${query}`, post(request))
}
