// The log formats a replay reads (src-main/replay): the same seven requests written as our
// request descriptions, Logpush http_requests lines, nginx and Apache combined logs and a HAR
// give the same verdicts through the engine, read in chunks of any size, gzip or not, with the
// format detected from the content.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { requestContext } from '@shared/expression'
import { compileZone } from '../../../src-main/engine'
import { readCatalogFiles, ManagedCatalog } from '../../../src-main/zones/rulesets/catalog'
import { lackedFields } from '../../../src-main/replay/absent'
import { recordsOfBatch } from '../../../src-main/replay/batch'
import { evaluateItems } from '../../../src-main/replay/evaluation'
import { HarScanner } from '../../../src-main/replay/formats/har'
import { isSkipped, type ReplayRecord } from '../../../src-main/replay/formats/types'
import { detectFormat, openReplayInput } from '../../../src-main/replay/input'
import { lineBatches } from '../../../src-main/replay/lines'
import { entrypoint, GENERAL } from '../../../scripts/detection-rates'

const ROOT = resolve(__dirname, '../../..')
const fixture = (name: string) => readFileSync(resolve(ROOT, 'tests/fixtures/replay', name))

async function* chunksOf(bytes: Buffer, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size)
}

async function read(
  bytes: Buffer,
  options: { format?: string; host?: string } = {},
  size = 1 << 16,
) {
  const input = await openReplayInput(chunksOf(bytes, size), options)
  const records: ReplayRecord[] = []
  for await (const batch of input.batches(3)) {
    records.push(...recordsOfBatch(batch, { format: input.format, host: options.host }))
  }
  return { input, records }
}

const catalog = new ManagedCatalog(readCatalogFiles(resolve(ROOT, 'resources')))
const zone = compileZone({
  zoneEntrypoint: entrypoint([{ ruleset: GENERAL }]),
  firewallRules: [],
  resolveRuleset: (id, version) => catalog.resolve(id, version),
})
const verdicts = (records: ReplayRecord[]) =>
  records.flatMap((record) => {
    if (isSkipped(record)) return []
    const decision = zone.evaluate(requestContext(record.request), {
      credentials: () => undefined,
      trace: false,
    })
    return [`${decision.outcome} ${decision.events.map((e) => e.rule_id).join(',')}`]
  })

describe('replay input formats', () => {
  it('the fixture requests are told apart by the general ruleset', async () => {
    const { records } = await read(fixture('requests.ndjson'))
    const outcomes = verdicts(records)
    expect(outcomes).toHaveLength(7)
    expect(outcomes.filter((v) => v.startsWith('blocked')).length).toBeGreaterThanOrEqual(3)
    expect(outcomes.filter((v) => v.startsWith('passed')).length).toBeGreaterThanOrEqual(2)
  })

  it.each([
    ['logpush.ndjson', 'logpush', {}],
    ['nginx.log', 'combined', { host: 'example.com' }],
    ['apache.log', 'combined', { host: 'example.com' }],
    ['requests.har', 'har', {}],
  ] as const)(
    '%s is detected as %s and gives the descriptions’ verdicts',
    async (name, format, options) => {
      const expected = verdicts((await read(fixture('requests.ndjson'))).records)
      const { input, records } = await read(fixture(name), options)
      expect(input.format).toBe(format)
      expect(input.detected).toBe(true)
      expect(verdicts(records)).toEqual(expected)
    },
  )

  it('reads the same requests as the descriptions, field by field', async () => {
    const descriptions = (await read(fixture('requests.ndjson'))).records
    for (const name of ['nginx.log', 'apache.log', 'logpush.ndjson', 'requests.har']) {
      const records = (await read(fixture(name), { host: 'example.com' })).records.filter(
        (r) => !isSkipped(r),
      )
      records.forEach((record, i) => {
        const want = descriptions[i]! as Extract<ReplayRecord, { request: unknown }>
        if (isSkipped(record)) throw new Error('skipped')
        expect(record.request.method, name).toBe(want.request.method)
        expect(record.request.url, name).toBe(want.request.url)
        const headers = record.request.headers as Record<string, string | string[]>
        const ua = headers['user-agent']
        expect([ua].flat()[0], name).toBe(
          (want.request.headers as Record<string, string>)['user-agent'],
        )
        expect(record.request.httpVersion, name).toBe(want.request.httpVersion)
        expect(record.time, name).toBe(Date.UTC(2026, 10, 24, 10, 0, i))
      })
    }
  })

  it('takes Logpush’s RayID as the verdict’s ray id; a log without one numbers by its line', async () => {
    const items = async (name: string) =>
      (await read(fixture(name), { host: 'example.com' })).records.flatMap((record) =>
        isSkipped(record) ? [] : [record],
      )
    const rayIds = async (name: string) =>
      evaluateItems(zone, await items(name), () => undefined, { trace: false, at: 0 }).map(
        (verdict) => verdict.ray_id,
      )
    expect(await rayIds('logpush.ndjson')).toEqual(
      Array.from({ length: 7 }, (_, i) => `8c0000000000000${i}`),
    )
    expect(await rayIds('requests.ndjson')).toEqual(
      Array.from({ length: 7 }, (_, i) => (i + 1).toString(16).padStart(16, '0')),
    )
    // not the vendor's shape: the line's
    const odd = Buffer.from(
      '{"ClientRequestMethod":"GET","ClientRequestURI":"/","RayID":"not-a-ray"}\n',
    )
    const [record] = (await read(odd)).records
    if (record === undefined || isSkipped(record)) throw new Error('no request')
    expect(record.rayId).toBe('not-a-ray')
    expect(evaluateItems(zone, [record], () => undefined, { trace: false, at: 0 })[0]!.ray_id).toBe(
      '0000000000000001',
    )
  })

  it('skips a log line that records no request, and says why', async () => {
    const { records } = await read(fixture('nginx.log'), { host: 'example.com' })
    const skipped = records.filter(isSkipped)
    expect(skipped).toEqual([{ line: 5, skipped: expect.stringContaining('no request line') }])
  })

  it('reads gzip as it streams, in chunks of any size', async () => {
    const expected = verdicts((await read(fixture('logpush.ndjson'))).records)
    const gzip = gzipSync(fixture('logpush.ndjson'))
    for (const size of [1, 7, 4096]) {
      const { input, records } = await read(gzip, {}, size)
      expect(input.gzip).toBe(true)
      expect(input.format).toBe('logpush')
      expect(input.bytesRead()).toBe(gzip.length)
      expect(verdicts(records)).toEqual(expected)
    }
  })

  it('a HAR split anywhere yields the same entries (strings holding brackets included)', () => {
    const har = fixture('requests.har').toString('utf8')
    const whole = new HarScanner().feed(har)
    expect(whole).toHaveLength(7)
    fc.assert(
      fc.property(fc.array(fc.nat(har.length), { maxLength: 20 }), (cuts) => {
        const points = [...new Set([0, ...cuts, har.length])].sort((a, b) => a - b)
        const scanner = new HarScanner()
        const entries = points.slice(1).flatMap((end, i) => scanner.feed(har.slice(points[i], end)))
        expect(entries).toEqual(whole)
      }),
    )
  })

  it('detects each format from its first line and refuses what it cannot tell', async () => {
    expect(detectFormat('{"method":"GET","url":"/"}')).toBe('requests')
    expect(detectFormat('{"ClientRequestHost":"a","ClientRequestURI":"/"}')).toBe('logpush')
    expect(detectFormat('{')).toBe('har')
    expect(detectFormat('{"log": {"version": "1.2"')).toBe('har')
    expect(detectFormat('1.2.3.4 - - [24/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1')).toBe(
      'combined',
    )
    expect(detectFormat('hello')).toBeUndefined()
    await expect(read(Buffer.from('hello\n'))).rejects.toMatchObject({ status: 400, code: 10520 })
    // An input may be a file the service read for the caller: its content is never quoted back.
    const secret = read(Buffer.from('CLOUDFLARE_API_TOKEN=s3cr3t\n'))
    await expect(secret).rejects.toMatchObject({ code: 10520 })
    await expect(secret).rejects.not.toMatchObject({ message: expect.stringContaining('s3cr3t') })
    await expect(read(Buffer.from('{}\n'), { format: 'csv' })).rejects.toMatchObject({
      code: 10521,
    })
  })

  it('names the line of a request description that is not one', async () => {
    const bad = Buffer.from('{"method":"GET","url":"/"}\n{"method":"GET"}\nnot json\n')
    await expect(read(bad)).rejects.toMatchObject({
      code: 1001,
      message: expect.stringContaining('Line 2'),
    })
  })

  it('numbers lines across batches and chunks, blank and CRLF ones included', async () => {
    const line = (n: number) => `{"method":"GET","url":"https://a.example/${n}"}`
    const text = `${line(1)}\r\n\n${line(3)}\n  \n${line(5)}\r\n${line(6)}`
    for (const size of [1, 5, 64]) {
      const { records } = await read(Buffer.from(text), {}, size)
      expect(records.map((r) => (isSkipped(r) ? -1 : r.line))).toEqual([1, 3, 5, 6])
      expect(records.map((r) => (isSkipped(r) ? '' : r.request.url))).toEqual(
        [1, 3, 5, 6].map((n) => `https://a.example/${n}`),
      )
    }
  })

  it('refuses a line longer than the limit, naming it', async () => {
    const text = Buffer.from(`short\n${'x'.repeat(40)}\nshort\n`)
    for (const size of [3, 64]) {
      const batches = lineBatches(chunksOf(text, size), 2, 32)
      await expect(
        (async () => {
          for await (const _ of batches);
        })(),
      ).rejects.toMatchObject({ code: 10522, message: expect.stringContaining('Line 2') })
    }
  })

  it('says which fields a rule read that the log lacked', async () => {
    const { records } = await read(fixture('logpush.ndjson'))
    const first = records[0]!
    if (isSkipped(first)) throw new Error('skipped')
    expect(
      lackedFields(first.absent, [
        'http.request.body.raw',
        'http.user_agent',
        'http.cookie',
        'ip.src',
        'cf.waf.score.sqli',
      ]),
    ).toEqual(['cf.waf.score.sqli', 'http.cookie', 'http.request.body.raw'])
  })
})
