// A replay worker (pool.ts starts one per thread): compiles the zone once from the setup in its
// workerData, answers `ready` with the fields the zone's rules read, then answers each message in
// the order the messages came. A worker outlives a run (a warm pool, warm-pools.ts): each batch
// names the run's copy of the credential database, opened at its first batch and closed when the
// run releases it.
//
//   in:  workerData: ReplayWorkerSetup
//   out: { ready: fields } | { failed: message }        once, at start
//   in:  { id, items, options }  →  out: { id, result: verdicts } | { id, error }
//   in:  { id, release: file }   →  out: { id, result: null }

import { parentPort, workerData } from 'node:worker_threads'
import {
  compileReplayZone,
  evaluateItems,
  openCredentialLookup,
  type ReplayBatchOptions,
  type ReplayItem,
  type ReplayWorkerSetup,
} from './evaluation'

export type ReplayWorkerMessage =
  { id: number; items: ReplayItem[]; options: ReplayBatchOptions } | { id: number; release: string }

const port = parentPort!
const setup = workerData as ReplayWorkerSetup
try {
  const zone = compileReplayZone(setup)
  const opened = new Map<string, ReturnType<typeof openCredentialLookup>>()
  const credentialsOf = (file: string | undefined) => {
    if (file === undefined) return openCredentialLookup(undefined)
    let credentials = opened.get(file)
    if (credentials === undefined) {
      credentials = openCredentialLookup(file)
      opened.set(file, credentials)
    }
    return credentials
  }
  port.on('message', (message: ReplayWorkerMessage) => {
    const { id } = message
    try {
      if ('release' in message) {
        opened.get(message.release)?.close()
        opened.delete(message.release)
        port.postMessage({ id, result: null })
        return
      }
      const { lookup } = credentialsOf(message.options.credentialsFile)
      port.postMessage({ id, result: evaluateItems(zone, message.items, lookup, message.options) })
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message })
    }
  })
  port.postMessage({ ready: zone.fields })
} catch (error) {
  port.postMessage({ failed: (error as Error).message })
}
