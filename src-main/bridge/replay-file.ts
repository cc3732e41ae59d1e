// The bridge's replayChosenFile for a shell with a file dialog (Electron): the shell asks the user
// for a file, and the job is started from its path, `{"file": …}`, so the service streams the
// file from disk instead of the page reading or uploading it (issue 20, item 5). Only the path the
// dialog answered is posted, checked here first; the renderer names none.

import { statSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { ApiError, badRequest } from '@shared/api/errors'
import { API_ERRORS } from '@shared/api/error-codes'
import type { ReplayJob } from '@shared/api/simulate'
import type { Bridge, BridgeInput } from '@shared/bridge'

/** Where each kind of job is started (src-main/api/routes/replay-jobs.ts). */
const JOB_PATHS = { replay: 'replays', compare: 'waf_migration/compares' } as const

/** A path the dialog answered that is a regular file, or the refusal naming it. */
function checkedPath(path: string): string {
  const refuse = (why: string) => badRequest(API_ERRORS.invalidRequest, `${path} ${why}`)
  if (!isAbsolute(path)) throw refuse('is not an absolute path')
  let isFile: boolean
  try {
    isFile = statSync(path).isFile()
  } catch {
    throw refuse('cannot be read')
  }
  if (!isFile) throw refuse('is not a regular file')
  return path
}

/**
 * replayChosenFile over `choose` (the shell's file dialog, answering the chosen path or null) and
 * the bridge's callApi; the API's refusal of the job is thrown as its own error.
 */
export function replayChosenFile(
  choose: () => Promise<string | null>,
  callApi: (request: BridgeInput<'callApi'>) => ReturnType<Bridge['callApi']>,
): Bridge['replayChosenFile'] {
  return async ({ zoneId, kind }) => {
    const chosen = await choose()
    if (chosen === null) return null
    const answer = await callApi({
      method: 'POST',
      path: `/workbench/v1/zones/${encodeURIComponent(zoneId)}/${JOB_PATHS[kind]}`,
      body: { file: checkedPath(chosen) },
    })
    const envelope = answer.body
    if (envelope?.success === true) return envelope.result as ReplayJob
    const [first, ...rest] = envelope?.errors ?? []
    if (first === undefined) {
      throw new ApiError(answer.status, API_ERRORS.internalError, 'The job was not started')
    }
    const { code, message, ...details } = first
    throw new ApiError(answer.status, code, message, details, rest)
  }
}
