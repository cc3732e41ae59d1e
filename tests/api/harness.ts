// A real service on a temporary data dir and a free loopback port, for API tests.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
  call(
    path: string,
    init?: RequestInit & { json?: unknown },
  ): Promise<{ status: number; body: any }>
  stop(): Promise<void>
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
  return {
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
    async stop() {
      await service.close()
    },
  }
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}
