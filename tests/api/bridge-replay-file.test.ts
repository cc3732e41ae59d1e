// The bridge's replayChosenFile: in a shell with a file dialog the chosen file's path starts the
// job, which the service streams from disk (its source is the path, not an upload); closing the
// dialog starts nothing; a chosen path that is no regular file is refused before the API is
// called, and the API's own refusals come back as the API's error. The headless shell has no
// dialog to open and says so. Electron's dialog itself is the one part not run here: the chooser
// stands in for it with the path a user would pick.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '@shared/api/errors'
import { API_ERRORS } from '@shared/api/error-codes'
import type { ReplayJob } from '@shared/api/simulate'
import { invokeBridge } from '../../src-main/bridge'
import { replayChosenFile } from '../../src-main/bridge/replay-file'
import { GENERAL } from './fixtures-zones'
import { removeDataDir, startService, zoneExecuting, type Running } from './harness'

let running: Running
let files: string
let zoneId: string

beforeAll(async () => {
  running = await startService()
  files = mkdtempSync(join(tmpdir(), 'zw-bridge-replay-'))
  zoneId = await zoneExecuting(running, [GENERAL])
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
  rmSync(files, { recursive: true, force: true })
})

const choosing = (path: string | null) =>
  replayChosenFile(async () => path, running.service.bridge.callApi)

async function finished(job: ReplayJob): Promise<ReplayJob> {
  for (;;) {
    const seen = await running.ok(
      `${running.origin}/workbench/v1/zones/${zoneId}/replays/${job.id}`,
    )
    if (seen.state !== 'running') return seen
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('bridge replayChosenFile', () => {
  it('starts the job from the chosen path, which the service reads from disk', async () => {
    const file = join(files, 'day.ndjson')
    const lines = [
      { method: 'GET', url: 'https://shop.example.com/?file=../../etc/passwd' },
      { method: 'GET', url: 'https://shop.example.com/' },
    ]
    writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''))
    const job = await choosing(file)({ zoneId, kind: 'replay' })
    expect(job?.source).toBe(file)
    const done = await finished(job!)
    expect(done.state).toBe('done')
    expect(done.summary).toMatchObject({ requests: 2, outcomes: { blocked: 1, passed: 1 } })
  })

  it('starts nothing when the dialog is closed without a choice', async () => {
    const before = await running.ok(`${running.origin}/workbench/v1/zones/${zoneId}/replays`)
    expect(await choosing(null)({ zoneId, kind: 'replay' })).toBeNull()
    const after = await running.ok(`${running.origin}/workbench/v1/zones/${zoneId}/replays`)
    expect(after).toHaveLength(before.length)
  })

  it('refuses a chosen folder before asking the service', async () => {
    await expect(choosing(files)({ zoneId, kind: 'replay' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/is not a regular file$/),
    })
  })

  it("answers the API's refusal as its error: an unknown zone", async () => {
    const file = join(files, 'one.ndjson')
    writeFileSync(file, '{"method": "GET", "url": "https://shop.example.com/"}\n')
    const refused = choosing(file)({ zoneId: '0'.repeat(32), kind: 'compare' })
    await expect(refused).rejects.toBeInstanceOf(ApiError)
    await expect(refused).rejects.toMatchObject({ status: 404, code: API_ERRORS.couldNotRoute })
  })

  it('has no file dialog in the headless shell, and checks its input first', async () => {
    await expect(
      invokeBridge(running.service.bridge, 'replayChosenFile', { zoneId, kind: 'replay' }),
    ).rejects.toThrow(/no file dialog/)
    await expect(
      invokeBridge(running.service.bridge, 'replayChosenFile', { zoneId, kind: 'upload' }),
    ).rejects.toThrow(/Invalid input for replayChosenFile at \/kind/)
  })
})
