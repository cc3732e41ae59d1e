// Replays and compares that belong to the service (POST …/replays, …/waf_migration/compares): a
// job started from a file on disk answers at once, is seen from a second client with its progress
// and then its summary, and its verdicts download as ?results=true streams them; a path that is
// not a readable regular file is refused; DELETE cancels a running job within a second and
// removes a finished one; an upload whose client disconnects stops its run.

import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_ERRORS } from '@shared/api/error-codes'
import { GENERAL } from './fixtures-zones'
import {
  CREDENTIALS,
  newZone,
  post,
  removeDataDir,
  startService,
  zoneExecuting,
  type Running,
} from './harness'

let running: Running
let files: string

beforeAll(async () => {
  running = await startService()
  files = mkdtempSync(join(tmpdir(), 'zw-replay-jobs-'))
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
  rmSync(files, { recursive: true, force: true })
})

const workbench = (zoneId: string, path: string) =>
  `${running.origin}/workbench/v1/zones/${zoneId}/${path}`

/** `count` request descriptions, every third an attack on the general ruleset. */
function traffic(count: number): string {
  let text = ''
  for (let i = 0; i < count; i++) {
    const query = i % 3 === 0 ? `?file=../../etc/passwd&n=${i}` : `?n=${i}`
    text += `${JSON.stringify({ method: 'GET', url: `https://shop.example.com/p${i % 40}${query}` })}\n`
  }
  return text
}

function fileOf(name: string, text: string): string {
  const file = join(files, name)
  writeFileSync(file, text)
  return file
}

/** POSTs `body` as NDJSON, sent as Node's fetch sends a body it may still be reading. */
const upload = (url: string, body: BodyInit, signal?: AbortSignal): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${CREDENTIALS.apiToken}`,
      'content-type': 'application/x-ndjson',
    },
    body,
    duplex: 'half',
    ...(signal ? { signal } : {}),
  } as RequestInit)

/** A body that never ends on its own: `block` again and again, `onSent` after each. */
const endless = (block: Uint8Array, onSent = () => {}): ReadableStream<Uint8Array> =>
  new ReadableStream<Uint8Array>({
    async pull(stream) {
      stream.enqueue(block)
      onSent()
      await new Promise((resolve) => setTimeout(resolve, 5))
    },
  })

/** The uploads spooled in the service's replays folder (each removed with its run). */
const spooledUploads = (): string[] =>
  readdirSync(join(running.dataDir, 'replays')).filter((f) => f.endsWith('.upload'))

/** Polls the job from its own connections until it is no longer running. */
async function finished(url: string): Promise<{ job: any; seen: any[] }> {
  const seen: any[] = []
  for (;;) {
    const answer = await running.call(url)
    expect(answer.status).toBe(200)
    seen.push(answer.body.result)
    if (answer.body.result.state !== 'running') return { job: answer.body.result, seen }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const ndjsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))

describe('replay jobs', () => {
  it('starts a job from a file, shows its progress and summary to another client, and serves its verdicts as ?results=true streams them', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const text = traffic(3000)
    const file = fileOf('day.ndjson', text)
    // in the worker pool (two threads asked); the upload below runs on the main thread (small)
    const started = await running.call(`${workbench(zone, 'replays')}?threads=2`, post({ file }))
    expect(started.status).toBe(202)
    expect(started.body.result).toMatchObject({ zone_id: zone, kind: 'replay', source: file })
    const id = started.body.result.id
    expect(['running', 'done']).toContain(started.body.result.state)

    const { job, seen } = await finished(workbench(zone, `replays/${id}`))
    expect(job.state).toBe('done')
    // its files hold the requests, cookies and all: the folder is the user's alone
    expect(statSync(join(running.dataDir, 'replays')).mode & 0o777).toBe(0o700)
    expect(job.progress).toMatchObject({ done: 3000, total_bytes: text.length })
    expect(seen.map((j) => j.progress.done)).toEqual(
      [...seen.map((j) => j.progress.done)].sort((a, b) => a - b),
    )
    expect(job.summary).toMatchObject({
      requests: 3000,
      format: 'requests',
      format_detected: true,
      gzip: false,
      bytes: text.length,
      skipped: 0,
      lacked_fields: [],
      threads: 2,
    })
    expect(job.summary.outcomes.blocked).toBe(1000)

    const listed = await running.call(workbench(zone, 'replays'))
    expect(listed.body.result.map((j: any) => j.id)).toContain(id)

    const download = await fetch(workbench(zone, `replays/${id}/verdicts`), {
      headers: { authorization: `Bearer ${CREDENTIALS.apiToken}` },
    })
    expect(download.headers.get('content-type')).toContain('application/x-ndjson')
    const verdicts = ndjsonLines(await download.text())
    expect(verdicts).toHaveLength(3000)

    const streamed = await fetch(`${workbench(zone, 'replay')}?results=true`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${CREDENTIALS.apiToken}`,
        'content-type': 'application/x-ndjson',
        accept: 'application/x-ndjson',
      },
      body: text,
    })
    const lines = ndjsonLines(await streamed.text())
    const envelope = lines.pop()
    expect(envelope).toMatchObject({ success: true, result: { requests: 3000 } })
    expect(envelope.result.results).toBeUndefined()
    expect(lines).toEqual(verdicts)
    expect(envelope.result.outcomes).toEqual(job.summary.outcomes)
    expect(envelope.result.rules).toEqual(job.summary.rules)
  }, 120_000)

  it('refuses a path that is not a readable regular file with 400, keeping no job', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    for (const file of ['relative/day.ndjson', files, join(files, 'missing.ndjson')]) {
      const error = await running.refused(
        workbench(zone, 'replays'),
        post({ file }),
        400,
        API_ERRORS.invalidRequest,
      )
      expect(error.message).toContain(file)
      expect(error.source).toEqual({ pointer: '/file' })
    }
    expect(await running.ok(workbench(zone, 'replays'))).toEqual([])
  })

  it('cancels a running job within a second, and removes a finished one', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const file = fileOf('long.ndjson', traffic(400_000))
    const job = (await running.call(workbench(zone, 'replays'), post({ file }))).body.result
    const url = workbench(zone, `replays/${job.id}`)
    for (;;) {
      const now = (await running.call(url)).body.result
      if (now.progress.done > 0) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const asked = performance.now()
    const cancelled = await running.call(url, { method: 'DELETE' })
    const took = performance.now() - asked
    expect(cancelled.body.result.state).toBe('cancelled')
    expect(took).toBeLessThan(1000)
    const after = (await running.call(url)).body.result
    expect(after.progress.done).toBeLessThan(400_000)
    expect(after.summary).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect((await running.call(url)).body.result.progress).toEqual(after.progress)

    const removed = await running.call(url, { method: 'DELETE' })
    expect(removed.status).toBe(200)
    expect((await running.call(url)).status).toBe(404)
    expect((await running.call(`${url}/verdicts`)).status).toBe(404)
  })

  it('completes an upload sent by a Node fetch, answering once its body is in, streamed or not', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    // More than the connection's buffers hold: the client is still sending when the job opens.
    const count = 150_000
    const bytes = new TextEncoder().encode(traffic(count))
    const bodies: Record<string, () => BodyInit> = {
      buffer: () => bytes,
      stream: () => {
        let at = 0
        return new ReadableStream<Uint8Array>({
          pull(stream) {
            if (at >= bytes.length) stream.close()
            else stream.enqueue(bytes.subarray(at, (at += 1 << 16)))
          },
        })
      },
    }
    for (const [kind, body] of Object.entries(bodies)) {
      const started = await upload(`${workbench(zone, 'replays')}?threads=1`, body())
      expect(started.status, kind).toBe(202)
      const { result } = await started.json()
      const { job } = await finished(workbench(zone, `replays/${result.id}`))
      expect(job.state, kind).toBe('done')
      expect(job.summary).toMatchObject({ requests: count, bytes: bytes.length })
    }
    // the spooled uploads are removed with their runs
    expect(spooledUploads()).toEqual([])
  }, 120_000)

  it('stops taking the upload of a job cancelled while it is sent, and answers it', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const block = new TextEncoder().encode(traffic(2000))
    let sent = 0
    // Only the cancel ends the upload.
    const body = endless(block, () => sent++)
    const answer = upload(`${workbench(zone, 'replays')}?threads=1`, body).then(
      async (response) => (await response.json()).result,
      () => undefined,
    )
    let job: any
    while (job?.progress.done === undefined || job.progress.done === 0) {
      job = (await running.call(workbench(zone, 'replays'))).body.result[0]
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const cancelled = await running.call(workbench(zone, `replays/${job.id}`), { method: 'DELETE' })
    expect(cancelled.body.result.state).toBe('cancelled')
    // answered with the job as it opened, or its connection ended: either way, no longer sending
    const answered = await answer
    if (answered !== undefined) expect(answered.id).toBe(job.id)
    const pause = () => new Promise((resolve) => setTimeout(resolve, 200))
    await pause()
    const stoppedAt = sent
    await pause()
    expect(sent).toBe(stoppedAt)
    expect(spooledUploads()).toEqual([])
  }, 60_000)

  it('stops the run of an upload whose client disconnects', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const copies = join(running.dataDir, 'replays', 'credentials')
    const controller = new AbortController()
    const block = new TextEncoder().encode(traffic(2000))
    const response = await upload(
      `${workbench(zone, 'replay')}?stream=true`,
      endless(block),
      controller.signal,
    )
    // Until the first progress line: the run is under way, past its workers' start.
    const reader = response.body!.getReader()
    let read = ''
    while (!read.includes('"progress"'))
      read += new TextDecoder().decode((await reader.read()).value)
    expect(readdirSync(copies)).toHaveLength(1)
    controller.abort()
    const aborted = performance.now()
    while (readdirSync(copies).length > 0) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(performance.now() - aborted).toBeLessThan(1000)
  })
})

describe('compare jobs', () => {
  it('runs the migration’s side-by-side replay as a job and serves its compared requests', async () => {
    const zone = (await newZone(running, { plan: 'pro', waf_product: 'previous' })).id
    const text = traffic(600)
    const file = fileOf('compare.ndjson', text)
    // two pools, one thread each; the direct compare below runs on the main thread (small)
    const started = await running.call(
      `${workbench(zone, 'waf_migration/compares')}?threads=2`,
      post({ file }),
    )
    expect(started.status).toBe(202)
    const { job } = await finished(
      workbench(zone, `waf_migration/compares/${started.body.result.id}`),
    )
    expect(job).toMatchObject({ kind: 'compare', state: 'done' })
    expect(job.summary).toMatchObject({
      requests: 600,
      format: 'requests',
      skipped: 0,
      threads: 2,
    })
    // counted, not held: the compared requests are the job's verdicts
    expect(job.summary.results).toEqual([])
    const direct = await running.call(workbench(zone, 'waf_migration/compare'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: text,
    })
    expect(direct.body.result.outcomes).toEqual(job.summary.outcomes)
    expect(direct.body.result.matrix).toEqual(job.summary.matrix)
    const verdicts = await fetch(workbench(zone, `waf_migration/compares/${job.id}/verdicts`), {
      headers: { authorization: `Bearer ${CREDENTIALS.apiToken}` },
    })
    const compared = ndjsonLines(await verdicts.text())
    expect(compared.map((r) => r.index)).toEqual(Array.from({ length: 600 }, (_, i) => i))
    expect(compared.filter((r) => r.differs)).toHaveLength(job.summary.differences)
    // one family's job is not the other's
    expect((await running.call(workbench(zone, `replays/${job.id}`))).status).toBe(404)
  }, 120_000)
})

describe('a replay job’s results (the drill-down)', () => {
  it('lists the verdicts of an outcome, a rule or a path, each with the request it judged', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const lines = [
      { method: 'GET', url: 'https://shop.example.com/a?file=../../etc/passwd' },
      {
        method: 'POST',
        url: 'https://shop.example.com/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'user=ann',
      },
      { method: 'GET', url: 'https://shop.example.com/a?q=1' },
    ]
    const file = fileOf('drill.ndjson', lines.map((line) => `${JSON.stringify(line)}\n`).join(''))
    const started = await running.call(workbench(zone, 'replays'), post({ file }))
    const { job } = await finished(workbench(zone, `replays/${started.body.result.id}`))
    const results = (query: string) =>
      running.ok(workbench(zone, `replays/${job.id}/results${query}`))

    const blocked = await results('?outcome=blocked')
    expect(blocked).toHaveLength(1)
    expect(blocked[0]).toMatchObject({ line: 1, outcome: 'blocked', request: lines[0] })
    const [rule] = blocked[0].rules
    expect((await results(`?rule_id=${rule}`)).map((v: any) => v.line)).toEqual([1])

    const passed = await results('?outcome=passed')
    expect(passed.map((v: any) => v.line)).toEqual([2, 3])
    expect(passed[0].request).toEqual(lines[1])
    expect((await results('?path=/a')).map((v: any) => v.line)).toEqual([1, 3])
    expect((await results('?limit=1')).map((v: any) => v.line)).toEqual([1])

    await running.refused(
      workbench(zone, `replays/${job.id}/results?outcome=eaten`),
      undefined,
      400,
    )
    expect((await running.call(workbench(zone, `replays/${'0'.repeat(32)}/results`))).status).toBe(
      404,
    )
    // the verdict file is unchanged: the lines ?results=true streams, without the requests
    const download = await fetch(workbench(zone, `replays/${job.id}/verdicts`), {
      headers: { authorization: `Bearer ${CREDENTIALS.apiToken}` },
    })
    expect(ndjsonLines(await download.text())[1].request).toBeUndefined()
  })
})
