// The workbench a command talks to: the service running on the data dir (running-service.ts
// says which process holds it and where it listens), reached over loopback HTTP, or, when none
// runs, the data dir opened in this process (its routes called with `inject`, no port opened).
// Never both: a second process on a data dir checkpoints and deletes the first's write-ahead logs.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Credentials } from '../api/auth'
import { API_PREFIX } from '../api/server'
import { generateApiKey, generateApiToken, type Preferences } from '../preferences'
import { runningService, runningServiceFile } from '../running-service'
import { createService } from '../service'

export interface WorkbenchRequest {
  method: 'GET' | 'POST'
  /** from the server's root, e.g. /workbench/v1/zones/import?dry_run=true */
  path: string
  body?: string
  contentType?: string
  /** hears each line of the answer as it arrives (an NDJSON answer's progress) */
  onLine?: (line: string) => void
}

export interface WorkbenchAnswer {
  status: number
  text: string
}

export interface Workbench {
  /** where the commands are answered: the running service's origin, or the data dir */
  readonly description: string
  request(request: WorkbenchRequest): Promise<WorkbenchAnswer>
  close(): Promise<void>
}

/** How long the running service has to answer before the command gives up on it. */
const PROBE_TIMEOUT_MS = 3000

function readPreferences(dataDir: string): Partial<Preferences> {
  const file = join(dataDir, 'preferences.json')
  if (!existsSync(file)) return {}
  return JSON.parse(readFileSync(file, 'utf8')) as Partial<Preferences>
}

function credentialsFrom(preferences: Partial<Preferences>): Credentials {
  return {
    apiToken: preferences.apiToken ?? generateApiToken(),
    email: preferences.apiEmail ?? 'user@zone-workbench.local',
    apiKey: preferences.apiKey ?? generateApiKey(),
  }
}

/**
 * Whether the service at `origin` answers the API with the data dir's token (a token is 40
 * random characters, so a service accepting it is this data dir's).
 */
async function answers(origin: string, credentials: Credentials): Promise<boolean> {
  try {
    const response = await fetch(`${origin}${API_PREFIX}/zones?per_page=5`, {
      headers: { authorization: `Bearer ${credentials.apiToken}` },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    })
    const body = (await response.json()) as { success?: unknown }
    return response.ok && body.success === true
  } catch {
    return false
  }
}

/** Reads a streamed answer, handing each complete line to `onLine` as it comes. */
async function readLines(response: Response, onLine: (line: string) => void): Promise<string> {
  if (response.body === null) return ''
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let text = ''
  let pending = ''
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    text += chunk.value
    pending += chunk.value
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      onLine(pending.slice(0, end))
      pending = pending.slice(end + 1)
    }
  }
  if (pending !== '') onLine(pending)
  return text
}

function overHttp(origin: string, credentials: Credentials): Workbench {
  return {
    description: origin,
    async request({ method, path, body, contentType, onLine }) {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${credentials.apiToken}`,
          ...(contentType === undefined ? {} : { 'content-type': contentType }),
        },
        body,
      })
      return {
        status: response.status,
        text: onLine === undefined ? await response.text() : await readLines(response, onLine),
      }
    },
    close: async () => undefined,
  }
}

async function inProcess(dataDir: string, credentials: Credentials): Promise<Workbench> {
  const service = await createService({ dataDir, api: { credentials, port: 0 }, shell: 'headless' })
  return {
    description: dataDir,
    async request({ method, path, body, contentType, onLine }) {
      const response = await service.server.inject({
        method,
        url: path,
        headers: {
          host: '127.0.0.1',
          authorization: `Bearer ${credentials.apiToken}`,
          ...(contentType === undefined ? {} : { 'content-type': contentType }),
        },
        ...(body === undefined ? {} : { payload: body }),
      })
      // inject answers when the route has finished: its lines all arrive at once.
      if (onLine !== undefined) for (const line of response.body.split('\n')) onLine(line)
      return { status: response.statusCode, text: response.body }
    },
    close: () => service.close(),
  }
}

export async function openWorkbench(dataDir: string): Promise<Workbench> {
  const credentials = credentialsFrom(readPreferences(dataDir))
  const running = runningService(dataDir)
  if (running === undefined) return inProcess(dataDir, credentials)
  if (running.origin !== null && (await answers(running.origin, credentials))) {
    return overHttp(running.origin, credentials)
  }
  const where = running.origin === null ? 'serves no API' : `does not answer at ${running.origin}`
  throw new Error(
    `The data dir ${dataDir} is open in process ${running.pid}, which ${where} with the token of its preferences: stop it or wait for it to finish (if no workbench runs, delete ${runningServiceFile(dataDir)})`,
  )
}

/**
 * The workbench of `dataDir`, opened at its first request: a command that may need none (replay
 * of a bundle) neither opens the data dir nor waits on its service.
 */
export function lazyWorkbench(dataDir: string): Workbench {
  let opened: Promise<Workbench> | undefined
  let workbench: Workbench | undefined
  return {
    get description() {
      return workbench?.description ?? dataDir
    },
    async request(request) {
      workbench ??= await (opened ??= openWorkbench(dataDir))
      return workbench.request(request)
    },
    async close() {
      if (opened !== undefined) await (await opened).close()
    },
  }
}
