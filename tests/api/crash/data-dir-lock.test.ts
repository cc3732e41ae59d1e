// One data dir, one service: a second process that opened it would checkpoint and delete the
// first one's write-ahead log. A second service refuses to start while the first lives, and
// takes over the marker of one that was killed.

import { describe, expect, it } from 'vitest'
import { startService } from '../harness'
import { crashSuite, kill, launch, newDataDir, startChild, stop } from './harness'

const bundle = crashSuite()

describe('a data dir is held by one service at a time', () => {
  it('refuses a second service while the first runs, and starts once it has stopped', async () => {
    const dataDir = newDataDir()
    const first = await startService(dataDir)
    await expect(launch(bundle(), dataDir).ready).rejects.toThrow(
      new RegExp(`in use by process ${process.pid} \\(http://127\\.0\\.0\\.1:\\d+\\)`),
    )
    expect((await first.call('/zones')).status).toBe(200)
    await first.stop()
    await stop(await startChild(bundle(), dataDir))
  })

  it('takes over the marker of a service that was killed', async () => {
    const dataDir = newDataDir()
    await kill(await startChild(bundle(), dataDir))
    await stop(await startChild(bundle(), dataDir))
  })
})
