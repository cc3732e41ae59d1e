// Input the service must refuse in the vendor's envelope, before it reaches anything that could
// fail on it: bodies over the size limit or nested too deep, page numbers out of range, path
// segments over the router's limit, and requests Node's HTTP parser cannot read. A refused
// change writes nothing.

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '@shared/api/errors'
import { MAX_JSON_DEPTH } from '@shared/api/limits'
import { invokeBridge } from '../../../src-main/bridge'
import { startHeadless } from '../../../src-main/headless'
import type { Service } from '../../../src-main/service'
import { removeDataDir } from '../harness'
import { rawRequest } from './raw-http'

const TOKEN = 'boundedInputToken0123456789abcdefghijk'
const dataDir = mkdtempSync(join(tmpdir(), 'zw-bounded-'))
let service: Service
let origin: string
let zoneId: string

async function call(method: string, path: string, body?: string) {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  })
  return { status: response.status, body: await response.json() }
}

const history = async () =>
  (await call('GET', `/workbench/v1/zones/${zoneId}/history?limit=1000`)).body.result

/** JSON text nesting `levels` objects. */
const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1)

/** A value nesting `levels` objects, built without recursion. */
function nestedValue(levels: number): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  let node = root
  for (let level = 1; level < levels; level++) node = node.a = {}
  return root
}

function expectRefusal(
  answer: { status: number; body: any },
  status: number,
  code: number,
  message?: RegExp,
) {
  expect(answer.status).toBe(status)
  expect(answer.body).toMatchObject({ success: false, result: null })
  expect(answer.body.errors[0]).toMatchObject({ code })
  if (message !== undefined) expect(answer.body.errors[0].message).toMatch(message)
}

beforeAll(async () => {
  ;({ service, origin } = await startHeadless({
    dataDir,
    port: 0,
    apiToken: TOKEN,
  }))
  const zone = JSON.stringify({ name: 'bounded.example', plan: 'pro', waf_product: 'previous' })
  zoneId = (await call('POST', '/client/v4/zones', zone)).body.result.id
})
afterAll(async () => {
  await service.close()
  removeDataDir(dataDir)
})

describe('JSON bodies', () => {
  it('answers a body over the limit with 413 in the envelope, creating nothing', async () => {
    const before = (await call('GET', '/client/v4/zones')).body.result_info.total_count
    const name = 'x'.repeat(8 * 1024 * 1024)
    const answer = await call('POST', '/client/v4/zones', JSON.stringify({ name }))
    expectRefusal(answer, 413, 6010, /larger than the limit of 8388608 bytes/)
    expect((await call('GET', '/client/v4/zones')).body.result_info.total_count).toBe(before)
  })

  it(`parses ${MAX_JSON_DEPTH} levels of nesting and refuses one more with 400`, async () => {
    const check = (levels: number) =>
      call(
        'POST',
        '/client/v4/filters/validate-expr',
        `{"expression": "true", "extra": ${nested(levels - 1)}}`,
      )
    expect((await check(MAX_JSON_DEPTH)).body.success).toBe(true)
    expectRefusal(await check(MAX_JSON_DEPTH + 1), 400, 6007, /nested deeper than 64 levels/)
    // brackets in strings are text, not nesting
    const expression = `http.request.uri.path eq "${'[{'.repeat(100)}"`
    const inString = JSON.stringify({ expression })
    expect((await call('POST', '/client/v4/filters/validate-expr', inString)).body.success).toBe(
      true,
    )
  })

  it('refuses 10,000 levels in a ruleset rule, writing nothing', async () => {
    const before = await history()
    const rule = `{"action": "block", "expression": "true", "action_parameters": ${nested(10_000)}}`
    const answer = await call(
      'PUT',
      `/client/v4/zones/${zoneId}/rulesets/phases/http_request_firewall_custom/entrypoint`,
      `{"rules": [${rule}]}`,
    )
    expectRefusal(answer, 400, 6007)
    expect(await history()).toEqual(before)
  })
})

describe('history', () => {
  it('refuses a malformed bookmark in `before` with 400, over HTTP and in process', async () => {
    const answer = await call('GET', `/workbench/v1/zones/${zoneId}/history?before=abc`)
    expectRefusal(answer, 400, 1001, /before/)
    const path = `/workbench/v1/zones/${zoneId}/history?before=abc`
    const inProcess = await invokeBridge(service.bridge, 'callApi', { method: 'GET', path })
    expectRefusal(inProcess as { status: number; body: any }, 400, 1001, /before/)
  })
})

describe('replay bodies', () => {
  it('refuses a HAR entry whose header is not text with 400', async () => {
    const request = {
      method: 'GET',
      url: 'http://bounded.example/',
      headers: [{ name: 'x', value: 1 }],
    }
    const har = JSON.stringify({ log: { entries: [{ request }] } })
    for (const type of ['application/json', 'text/plain']) {
      const answer = await fetch(`${origin}/workbench/v1/zones/${zoneId}/replay`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type },
        body: har,
      })
      expectRefusal(
        { status: answer.status, body: await answer.json() },
        400,
        1001,
        /HAR entry 0 is not a request: \/request\/headers\/0\/value/,
      )
    }
  })
})

describe('page rules', () => {
  let ruleId: string
  const rulePath = () => `/client/v4/zones/${zoneId}/pagerules/${ruleId}`
  beforeAll(async () => {
    const rule = {
      targets: [
        { target: 'url', constraint: { operator: 'matches', value: 'bounded.example/a*' } },
      ],
      actions: [{ id: 'waf', value: 'off' }],
    }
    ruleId = (await call('POST', `/client/v4/zones/${zoneId}/pagerules`, JSON.stringify(rule))).body
      .result.id
  })

  it('refuses a PATCH with a 10,000-level unknown property, changing nothing', async () => {
    const before = await history()
    const answer = await call('PATCH', rulePath(), `{"priority": 5, "extra": ${nested(10_000)}}`)
    expectRefusal(answer, 400, 6007)
    expect((await call('GET', rulePath())).body.result.priority).toBe(1)
    expect(await history()).toEqual(before)
  })

  it('ignores a property it does not know: neither stored nor answered back', async () => {
    const answer = await call('PATCH', rulePath(), `{"priority": 2, "extra": ${nested(50)}}`)
    expect(answer.status).toBe(200)
    expect(answer.body.result.priority).toBe(2)
    expect(answer.body.result).not.toHaveProperty('extra')
    expect((await call('GET', rulePath())).body.result).not.toHaveProperty('extra')
  })
})

describe('page numbers', () => {
  it.each(['1e300', '2147483648'])('refuses page=%s with 400', async (page) => {
    expectRefusal(await call('GET', `/client/v4/zones?page=${page}`), 400, 1001)
    const filters = `/client/v4/zones/${zoneId}/filters?page=${page}`
    expectRefusal(await call('GET', filters), 400, 1001)
    // the highest page number is past every list's end: an empty page
    const highest = await call('GET', '/client/v4/zones?page=2147483647')
    expect(highest.status).toBe(200)
    expect(highest.body.result).toEqual([])
  })

  it("refuses page 1e300 through the bridge's callApi with 400, over HTTP and in process", async () => {
    const request = { method: 'GET', path: '/client/v4/zones?page=1e300' } as const
    const overHttp = await call('POST', '/workbench/v1/bridge/callApi', JSON.stringify(request))
    expectRefusal(overHttp.body.result, 400, 1001, /page/)
    const inProcess = await invokeBridge(service.bridge, 'callApi', request)
    expectRefusal(inProcess as { status: number; body: any }, 400, 1001, /page/)
  })
})

describe("the bridge's callApi", () => {
  const before = async () => (await call('GET', '/client/v4/zones')).body.result_info.total_count

  it('refuses a body nested too deep, over HTTP and in process, creating nothing', async () => {
    const count = await before()
    const overHttp = await call(
      'POST',
      '/workbench/v1/bridge/callApi',
      `{"method": "POST", "path": "/client/v4/zones", "body": ${nested(10_000)}}`,
    )
    expectRefusal(overHttp, 400, 6007)
    const inProcess = invokeBridge(service.bridge, 'callApi', {
      method: 'POST',
      path: '/client/v4/zones',
      body: nestedValue(10_000),
    })
    await expect(inProcess).rejects.toBeInstanceOf(ApiError)
    await expect(inProcess).rejects.toMatchObject({ status: 400, code: 6007 })
    expect(await before()).toBe(count)
    const withinLimits = await service.bridge.callApi({
      method: 'POST',
      path: '/client/v4/filters/validate-expr',
      body: { expression: 'true', extra: nestedValue(MAX_JSON_DEPTH - 1) },
    })
    expect(withinLimits.status).toBe(200)
  })

  it('refuses a cyclic body in process', async () => {
    const cyclic: Record<string, unknown> = { name: 'cyclic.example' }
    cyclic.self = cyclic
    const answer = invokeBridge(service.bridge, 'callApi', {
      method: 'POST',
      path: '/client/v4/zones',
      body: cyclic,
    })
    await expect(answer).rejects.toMatchObject({ status: 400, code: 6007 })
  })
})

describe('requests the router or the HTTP parser refuses', () => {
  const port = () => Number(new URL(origin).port)
  const headers = () => ({ host: '127.0.0.1', authorization: `Bearer ${TOKEN}` })
  const envelope = (body: string) => JSON.parse(body)

  it('answers a 300-character path segment with 414 in the envelope', async () => {
    const answer = await call('GET', `/client/v4/zones/${'a'.repeat(300)}`)
    expectRefusal(answer, 414, 1001, /longer than 200 characters/)
  })

  it('answers a malformed percent-encoding with 400 in the envelope', async () => {
    const answer = await rawRequest(port(), 'GET', '/client/v4/zones/%zz', headers())
    expect(answer.status).toBe(400)
    expect(envelope(answer.body)).toMatchObject({ success: false, errors: [{ code: 1001 }] })
  })

  it('answers a malformed request line with 400 in the envelope', async () => {
    const answer = await rawRequest(port(), 'G(T', '/client/v4/zones', headers())
    expect(answer.status).toBe(400)
    expect(answer.headers['content-type']).toBe('application/json')
    expect(envelope(answer.body)).toMatchObject({
      success: false,
      errors: [{ code: 1001, message: expect.stringMatching(/HPE_INVALID_METHOD/) }],
      result: null,
    })
  })

  it('answers headers over 16 KB with 431 in the envelope', async () => {
    const answer = await rawRequest(port(), 'GET', '/client/v4/zones', {
      ...headers(),
      'x-large': 'a'.repeat(20_000),
    })
    expect(answer.status).toBe(431)
    expect(envelope(answer.body)).toMatchObject({ success: false, errors: [{ code: 6003 }] })
  })
})
