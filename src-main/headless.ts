// The headless shell: the same service as the Electron shell, with the built renderer served over
// HTTP and the bridge's operations under /workbench/v1/bridge/, so the same UI runs in any browser
// (and in Chromium for the end-to-end tests). `npm run serve -- [--host H] [--port N|0]
// [--data-dir DIR] [--api-token T]`. The page holds no secret: the UI address printed at start
// opens a session (api/ui-session.ts), and the bridge takes that session's cookie or the API's
// credentials.

import fastifyStatic from '@fastify/static'
import { existsSync, readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { Type } from 'typebox'
import { credentialUploadRoute } from './api/routes/credentials'
import { ok } from './api/envelope'
import { WORKBENCH_PREFIX } from './api/server'
import { invokeBridge } from './bridge'
import { LAUNCH_SECRET_PARAMETER, type UiSessions } from './api/ui-session'
import {
  DEFAULT_API_PORT,
  ensureCredentials,
  openPreferences,
  storeCredentials,
} from './preferences'
import { createService, type Service } from './service'

export interface HeadlessOptions {
  host?: string
  port?: number
  dataDir: string
  apiToken?: string
  /** the built renderer (out/renderer); the UI is not served when absent */
  rendererDir?: string
}

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ZONE_WORKBENCH_DATA_DIR) return resolve(env.ZONE_WORKBENCH_DATA_DIR)
  const base = env.XDG_DATA_HOME || join(homedir(), '.local', 'share')
  return join(base, 'zone-workbench')
}

/**
 * The page's own policy is in its <meta> (src-renderer/index.html); frame-ancestors works only as
 * a header (https://www.w3.org/TR/CSP3/#meta-element): no other page may frame the UI.
 */
const FRAME_POLICY = "frame-ancestors 'none'"

/**
 * The UI's files, public (they hold no secret), and the page itself, which turns the launch
 * secret of the address it was opened with into a session cookie and takes the secret out of the
 * address bar (a 303 to the same page; the browser keeps the `#/…` fragment across it).
 */
async function serveUi(app: FastifyInstance, rendererDir: string, sessions: UiSessions) {
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, access: 'public' }
  })
  // A file path the file server refuses (`..`, a backslash) names no file: 404, like any other.
  app.setErrorHandler((_error, _request, reply) => reply.callNotFound())
  await app.register(fastifyStatic, { root: rendererDir, index: false, wildcard: true })
  const index = readFileSync(join(rendererDir, 'index.html'), 'utf8')
  for (const path of ['/', '/index.html']) {
    app.get(path, (request, reply) => {
      const given = (request.query as Record<string, unknown>)[LAUNCH_SECRET_PARAMETER]
      if (typeof given === 'string') {
        const cookie = sessions.exchange(given)
        if (cookie !== undefined) return reply.header('set-cookie', cookie).redirect('/', 303)
      }
      return reply
        .type('text/html')
        .header('cache-control', 'no-store')
        .header('content-security-policy', FRAME_POLICY)
        .send(index)
    })
  }
}

/**
 * The bridge's importCredentialList for a page without a file dialog of ours: the page picks a
 * file and uploads its content here (the route the API has, behind the UI's session).
 */
async function registerCredentialUpload(service: Service): Promise<void> {
  await service.server.register(credentialUploadRoute, {
    prefix: `${WORKBENCH_PREFIX}/bridge`,
    path: '/importCredentialList',
    credentials: service.credentials,
    access: 'session',
  })
}

export async function startHeadless(
  options: HeadlessOptions,
): Promise<{ service: Service; origin: string; uiAddress: string }> {
  const preferences = openPreferences(options.dataDir)
  const credentials = ensureCredentials(preferences, options.apiToken)
  const port = options.port ?? preferences.get('apiPort') ?? DEFAULT_API_PORT
  const service = await createService({
    dataDir: options.dataDir,
    api: {
      credentials,
      host: options.host,
      port,
      keepCredentials: (rotated) => storeCredentials(preferences, rotated),
    },
    shell: 'headless',
  })

  service.server.post(
    `${WORKBENCH_PREFIX}/bridge/:operation`,
    {
      config: { access: 'session' },
      schema: { params: Type.Object({ operation: Type.String() }) },
    },
    async (request) =>
      ok(await invokeBridge(service.bridge, request.params.operation, request.body)),
  )
  await registerCredentialUpload(service)

  const rendererDir = options.rendererDir
  if (rendererDir !== undefined && existsSync(join(rendererDir, 'index.html'))) {
    await service.server.register((app) => serveUi(app, rendererDir, service.uiSessions))
  }

  const origin = await service.listen()
  const uiAddress = `${origin}/?${LAUNCH_SECRET_PARAMETER}=${service.uiSessions.launchSecret}`
  return { service, origin, uiAddress }
}

/** How long SIGINT or SIGTERM waits for the service to close before the process exits. */
const SHUTDOWN_GRACE_MS = 10_000

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'api-token': { type: 'string' },
    },
  })
  const port = values.port === undefined ? undefined : Number(values.port)
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) {
    throw new Error(`--port must be a port number or 0, not ${values.port}`)
  }
  const dataDir = values['data-dir'] ? resolve(values['data-dir']) : defaultDataDir()
  const rendererDir = join(dirname(import.meta.dirname), 'renderer')
  const { service, uiAddress } = await startHeadless({
    host: values.host,
    port,
    dataDir,
    apiToken: values['api-token'],
    rendererDir,
  })
  const info = await service.bridge.serviceInfo({})
  console.log(`API ${service.apiBaseUrl()}`)
  console.log(`UI ${uiAddress}`)
  console.log(`Token ${info.apiToken}`)
  console.log(`Data ${dataDir}`)
  for (const repair of service.repairs) console.log(`Repaired ${repair}`)
  const stop = () => {
    // Everything acknowledged is already durable, so a shutdown that hangs ends as a kill would:
    // after a grace period, with a line saying so.
    setTimeout(() => {
      console.error(`Stopping took over ${SHUTDOWN_GRACE_MS / 1000} s: exiting anyway`)
      process.exit(1)
    }, SHUTDOWN_GRACE_MS).unref()
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Stopping failed:', error)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

// Run when executed directly (node out/main/headless.js), not when imported by tests.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error)
    const inUse = (error as { code?: string }).code === 'EADDRINUSE'
    console.error(inUse ? `${message}: pass --port 0 for a free port, or --port N` : message)
    process.exit(1)
  })
}
