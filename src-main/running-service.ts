// Which process has a data dir open, and where its API answers: `running-service.json` in the
// data dir, written when a service opens it and removed when it closes. The command line reads
// it to talk to that service instead of opening the data dir a second time (two processes on one
// data dir checkpoint and delete each other's write-ahead logs). A marker whose process has died
// (a kill) is stale and means nothing.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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

/** Marks the data dir as this process's; the answer records the origin and removes the mark. */
export function markRunning(dataDir: string): {
  listening(origin: string): void
  remove(): void
} {
  mkdirSync(dataDir, { recursive: true })
  const write = (origin: string | null) =>
    writeFileSync(runningServiceFile(dataDir), JSON.stringify({ pid: process.pid, origin }))
  write(null)
  return {
    listening: write,
    remove() {
      if (readMarker(dataDir)?.pid === process.pid)
        rmSync(runningServiceFile(dataDir), { force: true })
    },
  }
}
