// Which process has a data dir open, and where its API answers: `running-service.json` in the
// data dir, created exclusively when a service opens it and removed when it closes. Two
// processes on one data dir checkpoint and delete each other's write-ahead logs, so a second
// service refuses to start while the first lives, and the command line talks to the first
// instead. A marker whose process has died (a kill) is stale: the next service takes it over.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { SECRET_FILE_MODE } from './preferences'
import { join } from 'node:path'

export interface RunningService {
  pid: number
  /** the API's origin, e.g. http://127.0.0.1:8787; null until it listens (or when it never does) */
  origin: string | null
}

export const runningServiceFile = (dataDir: string) => join(dataDir, 'running-service.json')

function isAlive(pid: number): boolean {
  try {
    // Signal 0 checks that the process exists without signalling it.
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, as another user's.
    return (error as { code?: string }).code === 'EPERM'
  }
}

function readMarker(dataDir: string): RunningService | undefined {
  try {
    return JSON.parse(readFileSync(runningServiceFile(dataDir), 'utf8')) as RunningService
  } catch {
    return undefined
  }
}

/** The live process holding the data dir, if another one does. */
export function runningService(dataDir: string): RunningService | undefined {
  const marker = readMarker(dataDir)
  if (marker === undefined || !Number.isInteger(marker.pid) || marker.pid === process.pid) {
    return undefined
  }
  return isAlive(marker.pid) ? marker : undefined
}

/**
 * Claims the data dir for this process, or throws when another live process holds it. The
 * marker is created with O_EXCL, so of two services starting at once only one wins. The answer
 * records the origin once the API listens, and removes the mark at close.
 */
export function markRunning(dataDir: string): {
  listening(origin: string): void
  remove(): void
} {
  mkdirSync(dataDir, { recursive: true })
  const file = runningServiceFile(dataDir)
  const write = (origin: string | null, flag: 'w' | 'wx') =>
    writeFileSync(file, JSON.stringify({ pid: process.pid, origin }), {
      flag,
      mode: SECRET_FILE_MODE,
    })
  for (;;) {
    try {
      write(null, 'wx')
      break
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error
      const holder = runningService(dataDir)
      if (holder !== undefined) {
        const where = holder.origin === null ? '' : ` (${holder.origin})`
        throw new Error(
          `The data dir ${dataDir} is in use by process ${holder.pid}${where}: stop that workbench first, or, if none runs, delete ${file}`,
          { cause: error },
        )
      }
      // Stale (its process died) or this process's own: take it over.
      rmSync(file, { force: true })
    }
  }
  return {
    listening: (origin) => write(origin, 'w'),
    remove() {
      if (readMarker(dataDir)?.pid === process.pid) rmSync(file, { force: true })
    },
  }
}
