// A replay worker (pool.ts starts one per thread): compiles the zone once from the setup in its
// workerData, answers `ready` with the fields the zone's rules read, then answers each batch
// message with its verdicts, in the order the batches came.
//
//   in:  workerData: ReplayWorkerSetup
//   out: { ready: fields } | { failed: message }        once, at start
//   in:  { id, items, options }  →  out: { id, verdicts } | { id, error }

import { parentPort, workerData } from 'node:worker_threads'
import {
  compileReplayZone,
  evaluateItems,
  openCredentialLookup,
  type ReplayBatchOptions,
  type ReplayItem,
  type ReplayWorkerSetup,
} from './evaluation'

export interface ReplayBatchMessage {
  id: number
  items: ReplayItem[]
  options: ReplayBatchOptions
}

const port = parentPort!
const setup = workerData as ReplayWorkerSetup
try {
  const zone = compileReplayZone(setup)
  const credentials = openCredentialLookup(setup.credentialsFile)
  port.on('message', ({ id, items, options }: ReplayBatchMessage) => {
    try {
      port.postMessage({ id, verdicts: evaluateItems(zone, items, credentials.lookup, options) })
    } catch (error) {
      port.postMessage({ id, error: (error as Error).message })
    }
  })
  port.postMessage({ ready: zone.fields })
} catch (error) {
  port.postMessage({ failed: (error as Error).message })
}
