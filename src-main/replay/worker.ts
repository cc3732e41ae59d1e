// A replay worker (pool.ts starts one per thread): compiles the zone once from the setup in its
// workerData, answers `ready` with the fields the zone's rules read, then answers each message in
// the order the messages came: a batch's lines read in the run's format and evaluated (batch.ts).
// A worker outlives a run (a warm pool, warm-pools.ts): each batch names the run's copy of the
// credential database, opened at its first batch and closed when the run releases it.
//
//   in:  workerData: ReplayWorkerSetup
//   out: { ready: fields } | { failed: message }        once, at start
//   in:  { id, batch, options }  →  out: { id, result: ReplayBatchAnswer } | { id, error }
//   in:  { id, release: file }   →  out: { id, result: null }

import { parentPort, workerData } from 'node:worker_threads'
import { ApiError } from '@shared/api/errors'
import { answerOf, itemsOf, recordsOfBatch, type ReplayBatch } from './batch'
import {
  compileReplayZone,
  evaluateItems,
  openCredentialLookup,
  type ReplayBatchOptions,
  type ReplayWorkerSetup,
} from './evaluation'

export type ReplayWorkerMessage =
  { id: number; batch: ReplayBatch; options: ReplayBatchOptions } | { id: number; release: string }

/** An error as a worker answers it: an ApiError's status, code and details travel with it. */
export interface WorkerError {
  message: string
  api?: Pick<ApiError, 'status' | 'code' | 'details' | 'alongside'>
}

const toWorkerError = (error: unknown): WorkerError =>
  error instanceof ApiError
    ? {
        message: error.message,
        api: {
          status: error.status,
          code: error.code,
          details: error.details,
          alongside: error.alongside,
        },
      }
    : { message: (error as Error).message }

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
      const { options } = message
      const { lookup } = credentialsOf(options.credentialsFile)
      const read = itemsOf(recordsOfBatch(message.batch, options))
      const verdicts = evaluateItems(zone, read.items, lookup, options)
      port.postMessage({ id, result: answerOf(read, verdicts, options) })
    } catch (error) {
      port.postMessage({ id, error: toWorkerError(error) })
    }
  })
  port.postMessage({ ready: zone.fields })
} catch (error) {
  port.postMessage({ failed: (error as Error).message })
}
