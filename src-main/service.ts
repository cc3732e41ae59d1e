// The composition root: builds the whole service for a data dir, free of any Electron import so
// that both shells (Electron and headless) and the tests run the very same thing.

import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { nestedTooDeep } from '@shared/api/errors'
import { MAX_JSON_DEPTH, valueNestsDeeperThan } from '@shared/api/limits'
import type { ApiAnswer, Bridge } from '@shared/bridge'
import { API_PREFIX, WORKBENCH_PREFIX, createApiServer, type ApiServer } from './api/server'
import type { Credentials } from './api/auth'
import { accountRoutes } from './api/routes/accounts'
import { bundleRoutes } from './api/routes/bundles'
import { credentialRoutes } from './api/routes/credentials'
import { filterRoutes } from './api/routes/filters'
import { firewallRuleRoutes, firewallSettingsRoutes } from './api/routes/firewall-rules'
import { historyRoutes } from './api/routes/history'
import { pageRuleRoutes } from './api/routes/page-rules'
import { previousWafRoutes } from './api/routes/previous-waf'
import { remoteRoutes } from './api/routes/remote'
import { sampleRoutes } from './api/routes/samples'
import { wafMigrationWorkbenchRoutes, wafMigrationRoutes } from './api/routes/waf-migration'
import { rulesetRoutes } from './api/routes/rulesets'
import { settingsRoutes } from './api/routes/settings'
import { simulationRoutes } from './api/routes/simulate'
import { replayJobRoutes } from './api/routes/replay-jobs'
import { ReplayRunner } from './api/replay'
import { ReplayJobs } from './replay/jobs'
import { userRoutes } from './api/routes/user'
import { zoneRenameRoutes, zoneRoutes } from './api/routes/zones'
import { UiSessions } from './api/ui-session'
import { createBridge } from './bridge'
import { Bundles, Remote } from './bundles'
import { ManagedCatalog, readCatalogFiles } from './zones/rulesets/catalog'
import { ZoneConfiguration } from './zones/configuration'
import { readLegacyCatalog } from './zones/previous-waf/catalog'
import { importSampleCredentials, type CredentialNamespace } from './zones/credentials'
import { Simulator } from './zones/simulator'
import { ObjectInspector } from './zones/inspector'
import { ACCOUNT, openZoneObjects, ZoneRegistry } from './zones/registry'
import { ZoneEvents } from './zones/zone-events'
import { generateApiKey, generateApiToken } from './preferences'
import { markRunning } from './running-service'
import { systemClock, type Clock } from './objects'

export const VERSION = '0.1.0'

export interface ServiceOptions {
  dataDir: string
  api: {
    credentials: Credentials
    /** keeps rotated credentials for the next start (the shell's preferences); none in tests */
    keepCredentials?: (credentials: Credentials) => void
    /** 127.0.0.1 unless told otherwise; must be a loopback address */
    host?: string
    /** 0 picks a free port */
    port?: number
  }
  shell: 'electron' | 'headless'
  /** the folder holding managed-rulesets/ (found next to the code when not given) */
  resourcesDir?: string
  /** Time as the whole service reads it (records, history, alarms); tests drive their own. */
  clock?: Clock
  /** how long a migration's switch-over takes (else ZONE_WORKBENCH_MIGRATION_SWITCH_MS, else 2 min) */
  migrationSwitchMs?: number
}

/** `ZONE_WORKBENCH_MIGRATION_SWITCH_MS`, when it holds a number of milliseconds. */
function migrationSwitchFromEnvironment(): number | undefined {
  const raw = process.env.ZONE_WORKBENCH_MIGRATION_SWITCH_MS
  if (raw === undefined || raw.trim() === '') return undefined
  const ms = Number(raw)
  if (!Number.isFinite(ms) || ms < 0) {
    throw new Error(
      `ZONE_WORKBENCH_MIGRATION_SWITCH_MS must be a number of milliseconds, not ${raw}`,
    )
  }
  return ms
}

export interface Service {
  /** The HTTP server, for a shell to add its own routes before `listen()`. */
  server: ApiServer
  /** The UI's sessions (the headless shell prints their launch address and makes them). */
  uiSessions: UiSessions
  /** What the start-up check repaired after an interrupted run, one sentence each. */
  repairs: readonly string[]
  bridge: Bridge
  zones: ZoneRegistry
  /** The leaked-credential database, for the shells' imports (file dialog, upload). */
  credentials: CredentialNamespace
  /** What a zone would do to requests; a replay takes a zone's configuration from it. */
  simulator: Simulator
  /** The folder the managed catalog was read from (a replay's workers read it again). */
  resourcesDir: string
  /** Starts the HTTP server; resolves to its origin, e.g. http://127.0.0.1:8787 */
  listen(): Promise<string>
  /** e.g. http://127.0.0.1:8787/client/v4 (after listen) */
  apiBaseUrl(): string
  close(): Promise<void>
}

/**
 * The `resources/` folder that ships with the code: the nearest one above this module, which is
 * the repository's whether this runs from src-main/ (tests) or from the build in out/main/.
 */
function findResourcesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const candidate = join(dir, 'resources')
    if (existsSync(join(candidate, 'managed-rulesets', 'index.json'))) return candidate
    const parent = dirname(dir)
    if (parent === dir) throw new Error('The resources/ folder (managed rulesets) was not found')
    dir = parent
  }
}

const LOOPBACK_ADDRESSES = new Set(['127.0.0.1', '::1', 'localhost'])

export async function createService(options: ServiceOptions): Promise<Service> {
  const host = options.api.host ?? '127.0.0.1'
  if (!LOOPBACK_ADDRESSES.has(host)) {
    throw new Error(`Refusing to listen on ${host}: the workbench binds loopback addresses only`)
  }
  const running = markRunning(options.dataDir)
  const clock = options.clock ?? systemClock
  const objects = openZoneObjects(options.dataDir, clock)
  const zones = new ZoneRegistry(objects, clock)
  // Changes a kill interrupted are finished or undone before anything else reads the zones.
  const repairs = await zones.recover()
  // Alarms that fell due while the application was closed run now.
  await Promise.all([
    objects.accounts.startAll(),
    objects.zones.startAll(),
    objects.events.startAll(),
  ])
  const resourcesDir = options.resourcesDir ?? findResourcesDir()
  const catalog = new ManagedCatalog(await zones.installCatalog(readCatalogFiles(resourcesDir)))
  await importSampleCredentials(objects.credentials, resourcesDir)
  const legacy = readLegacyCatalog(resourcesDir)
  const configuration = new ZoneConfiguration(zones, catalog, legacy, {
    clock,
    migrationSwitchMs: options.migrationSwitchMs ?? migrationSwitchFromEnvironment(),
  })
  const events = new ZoneEvents(zones, objects.events)
  const simulator = new Simulator(zones, catalog, legacy, objects.credentials, events, clock)
  let credentials = options.api.credentials
  let port = 0
  const uiSessions = new UiSessions(() => port)
  const server = createApiServer({ credentials: () => credentials, sessions: uiSessions })
  void server.register(userRoutes, { prefix: API_PREFIX })
  void server.register(accountRoutes, { prefix: API_PREFIX, account: ACCOUNT })
  void server.register(zoneRoutes, { prefix: API_PREFIX, zones })
  void server.register(filterRoutes, { prefix: API_PREFIX, configuration })
  void server.register(firewallRuleRoutes, { prefix: API_PREFIX, configuration })
  void server.register(rulesetRoutes, {
    prefix: `${API_PREFIX}/zones/:zone_id`,
    configuration,
    owner: 'zone',
  })
  void server.register(rulesetRoutes, {
    prefix: `${API_PREFIX}/accounts/:account_id`,
    configuration,
    owner: 'account',
  })
  void server.register(previousWafRoutes, { prefix: API_PREFIX, configuration })
  void server.register(pageRuleRoutes, { prefix: API_PREFIX, configuration })
  void server.register(wafMigrationRoutes, { prefix: API_PREFIX, configuration })
  // Jobs are in memory: a restart forgets them and clears the folder of their files.
  const replayJobs = new ReplayJobs(join(options.dataDir, 'replays'), clock)
  const replays = new ReplayRunner(
    simulator,
    resourcesDir,
    objects.credentials,
    join(options.dataDir, 'replays', 'credentials'),
  )
  void server.register(wafMigrationWorkbenchRoutes, {
    prefix: WORKBENCH_PREFIX,
    configuration,
    replays,
  })
  void server.register(zoneRenameRoutes, { prefix: WORKBENCH_PREFIX, zones })
  void server.register(firewallSettingsRoutes, { prefix: WORKBENCH_PREFIX, configuration })
  void server.register(simulationRoutes, { prefix: WORKBENCH_PREFIX, simulator, events, replays })
  void server.register(replayJobRoutes, {
    prefix: WORKBENCH_PREFIX,
    jobs: replayJobs,
    replays,
    zones,
  })
  void server.register(sampleRoutes, { prefix: WORKBENCH_PREFIX, zones, clock })
  const bundles = new Bundles({ zones, configuration, events, clock })
  void server.register(bundleRoutes, { prefix: WORKBENCH_PREFIX, bundles, clock })
  void server.register(historyRoutes, { prefix: WORKBENCH_PREFIX, zones, bundles })
  const remote = new Remote({ bundles, zones, catalog: legacy, clock })
  void server.register(remoteRoutes, { prefix: WORKBENCH_PREFIX, remote })
  void server.register(settingsRoutes, {
    prefix: WORKBENCH_PREFIX,
    rotateCredentials: () => {
      credentials = { ...credentials, apiToken: generateApiToken(), apiKey: generateApiKey() }
      options.api.keepCredentials?.(credentials)
      return credentials
    },
  })
  void server.register(credentialRoutes, {
    prefix: WORKBENCH_PREFIX,
    credentials: objects.credentials,
  })

  let origin = ''
  const apiBaseUrl = () => `${origin}${API_PREFIX}`
  const bridge = createBridge({
    callApi: async ({ method, path, body }) => {
      // The API's JSON parser bounds depth too, but JSON.stringify, which recurses, runs first.
      if (valueNestsDeeperThan(body, MAX_JSON_DEPTH)) throw nestedTooDeep(MAX_JSON_DEPTH)
      const response = await server.inject({
        method,
        url: path,
        headers: {
          host: '127.0.0.1',
          authorization: `Bearer ${credentials.apiToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      })
      const type = String(response.headers['content-type'] ?? '')
      const isFile =
        String(response.headers['content-disposition'] ?? '').startsWith('attachment') ||
        (response.body !== '' && !type.startsWith('application/json'))
      if (isFile) return { status: response.statusCode, body: null, text: response.body }
      return {
        status: response.statusCode,
        body: response.body === '' ? null : (response.json() as ApiAnswer['body']),
      }
    },
    inspector: new ObjectInspector(objects),
    serviceInfo: () => ({
      apiBaseUrl: apiBaseUrl(),
      apiToken: credentials.apiToken,
      apiEmail: credentials.email,
      apiKey: credentials.apiKey,
      dataDir: options.dataDir,
      shell: options.shell,
      version: VERSION,
    }),
  })

  return {
    server,
    uiSessions,
    repairs,
    bridge,
    zones,
    credentials: objects.credentials,
    simulator,
    resourcesDir,
    async listen() {
      await server.listen({ host, port: options.api.port ?? 0 })
      const address = server.server.address() as AddressInfo
      port = address.port
      const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address
      origin = `http://${hostPart}:${address.port}`
      running.listening(origin)
      return origin
    },
    apiBaseUrl,
    async close() {
      await server.close()
      await replayJobs.close()
      await replays.close()
      await zones.close()
      await objects.events.close()
      running.remove()
    },
  }
}
