// The simulator's local API against a real service: POST simulate (outcome, action, headers
// toward the origin, trace, events), replay of NDJSON and HAR with streamed progress, and the
// security events it leaves, queryable by time, rule, action, host and path.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CREDENTIALS,
  removeDataDir,
  type Running,
  simulate,
  startService,
  zoneExecuting,
} from './harness'

const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
const ECC = 'c2e184081120413c86c3ab7e14069605'
const TRAFFIC = resolve(import.meta.dirname, '../fixtures/traffic')
const corpus = (file: string) => readFileSync(resolve(TRAFFIC, file), 'utf8')
const lines = (file: string) =>
  corpus(file)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line))

let running: Running

const workbench = (zoneId: string, path: string) =>
  `${running.origin}/workbench/v1/zones/${zoneId}/${path}`

const wordpressLogin = (log: string, pwd: string) => ({
  method: 'POST',
  url: 'https://blog.example.org/wp-login.php',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: `log=${encodeURIComponent(log)}&pwd=${encodeURIComponent(pwd)}&wp-submit=Log+In`,
  ip: '198.51.100.7',
})

beforeAll(async () => {
  running = await startService()
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

describe('POST simulate', () => {
  it('adds Exposed-Credential-Check toward the origin for leaked credentials, and lets them pass', async () => {
    const zone = await zoneExecuting(running, [ECC])
    const result = await simulate(
      running,
      zone,
      wordpressLogin('CF_EXPOSED_USERNAME', 'CF_EXPOSED_PASSWORD'),
    )
    expect(result.outcome).toBe('passed')
    expect(result.action).toBeNull()
    expect(result.origin_headers).toEqual({ 'Exposed-Credential-Check': '1' })
    expect(result.events).toEqual([
      expect.objectContaining({
        ruleset_id: ECC,
        action: 'rewrite',
        description: expect.stringContaining('WordPress'),
      }),
    ])
    const deployment = result.trace.find((node: any) => node.kind === 'entrypoint_rule')
    const wordpress = deployment.children.find((node: any) =>
      node.description.includes('WordPress'),
    )
    expect(wordpress).toMatchObject({
      matched: true,
      action: 'rewrite',
      credentials: { exposed: true },
    })
  })

  it('finds the pairs of the shipped sample database, and not clean ones', async () => {
    const zone = await zoneExecuting(running, [ECC])
    const json = (email: string, password: string) => ({
      method: 'POST',
      url: 'https://app.example.com/api/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    })
    expect(
      (await simulate(running, zone, json('admin@example.com', 'password123'))).origin_headers,
    ).toEqual({
      'Exposed-Credential-Check': '1',
    })
    expect(
      (await simulate(running, zone, json('ADMIN@example.com', 'password123'))).origin_headers,
    ).toEqual({
      'Exposed-Credential-Check': '1',
    })
    const clean = await simulate(
      running,
      zone,
      json('admin@example.com', 'a-long-unleaked-passphrase'),
    )
    expect(clean.origin_headers).toEqual({})
    expect(clean.events).toEqual([])
  })

  it('blocks a request that already carries the Exposed-Credential-Check header', async () => {
    const zone = await zoneExecuting(running, [ECC])
    const result = await simulate(running, zone, {
      method: 'GET',
      url: 'https://blog.example.org/',
      headers: { 'exposed-credential-check': '0' },
    })
    expect(result).toMatchObject({ outcome: 'blocked', action: 'block' })
  })

  it('blocks an attack with the general managed ruleset and says which rule stopped it', async () => {
    const zone = await zoneExecuting(running, [GENERAL, OWASP, ECC])
    const result = await simulate(running, zone, {
      method: 'GET',
      url: "https://shop.example.com/products?id=1' UNION SELECT username,password FROM users--",
    })
    expect(result.outcome).toBe('blocked')
    expect(result.events.at(-1)).toMatchObject({ ruleset_id: GENERAL, action: 'block' })
    expect(result.stopped).toContain(result.events.at(-1).description)
    // Once the request is blocked, the later deployments are not evaluated.
    const later = result.trace.filter((node: any) => node.kind === 'entrypoint_rule').slice(1)
    expect(later.every((node: any) => node.not_evaluated === 'stopped')).toBe(true)
  })

  it('challenges instead when the ruleset action is overridden, and the trace names the override', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const entrypoint = await running.call(
      `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    )
    const [rule] = entrypoint.body.result.rules
    await running.call(`/zones/${zone}/rulesets/${entrypoint.body.result.id}/rules/${rule.id}`, {
      method: 'PATCH',
      json: {
        action: 'execute',
        expression: 'true',
        action_parameters: { id: GENERAL, overrides: { action: 'managed_challenge' } },
      },
    })
    const result = await simulate(running, zone, {
      method: 'GET',
      url: 'https://shop.example.com/?q=<script>alert(document.cookie)</script>',
    })
    expect(result).toMatchObject({
      outcome: 'challenged',
      action: 'managed_challenge',
      challenge: 'managed_challenge',
    })
    const fired = result.trace[0].children.find((node: any) => node.matched)
    expect(fired.from.action).toBe('ruleset')
  })

  it('lets a firewall rule that bypasses the WAF skip the managed rules', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const created = await running.call(`/zones/${zone}/firewall/rules`, {
      method: 'POST',
      json: [
        { action: 'bypass', products: ['waf'], filter: { expression: 'ip.src eq 192.0.2.1' } },
      ],
    })
    expect(created.status).toBe(200)
    const attack = { method: 'GET', url: 'https://shop.example.com/?file=../../../../etc/passwd' }
    expect((await simulate(running, zone, { ...attack, ip: '192.0.2.1' })).outcome).toBe('passed')
    expect((await simulate(running, zone, { ...attack, ip: '192.0.2.2' })).outcome).toBe('blocked')
  })

  it('refuses a malformed request description with a 400, and an unknown zone with a 404', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const bad = await running.call(workbench(zone, 'simulate'), {
      method: 'POST',
      json: { url: 'https://example.com/' },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0].code).toBe(1001)
    const unknown = await running.call(workbench('0'.repeat(32), 'simulate'), {
      method: 'POST',
      json: { method: 'GET', url: 'https://example.com/' },
    })
    expect(unknown.status).toBe(404)
    expect(unknown.body.errors[0].code).toBe(7003)
  })

  it('refuses a URL without scheme or path, and a client IP that is no address, recording nothing', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const simulateBody = (json: Record<string, unknown>) =>
      running.call(workbench(zone, 'simulate'), {
        method: 'POST',
        json: { method: 'GET', ...json },
      })
    for (const [json, message] of [
      [{ url: 'shop.example.com/admin' }, 'body/url must be an absolute URL'],
      [{ url: '?q=1', headers: { host: 'shop.example.com' } }, 'or a path starting with /'],
      [{ url: 'https://shop.example.com/', ip: 'banana' }, 'body/ip must be an IPv4 or IPv6'],
      [{ url: 'https://shop.example.com/', ip: '1.2.3' }, 'not "1.2.3"'],
    ] as const) {
      const refused = await simulateBody(json)
      expect(refused.status, JSON.stringify(json)).toBe(400)
      expect(refused.body.errors[0]).toMatchObject({ code: 1001 })
      expect(refused.body.errors[0].message).toContain(message)
    }
    const events = await running.call(workbench(zone, 'events'))
    expect(events.body.result).toEqual([])
    // A path with its Host header, and an IPv6 client, are requests as meant.
    const path = await simulateBody({ url: '/admin', headers: { host: 'shop.example.com' } })
    expect(path.status).toBe(200)
    const ipv6 = await simulateBody({ url: 'https://shop.example.com/', ip: '2001:db8::7' })
    expect(ipv6.status).toBe(200)
  })
})

describe('replay and events', () => {
  it('replays NDJSON traffic into a summary by outcome, rule and path', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const answer = await running.call(`${workbench(zone, 'replay')}?results=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: corpus('attacks.ndjson'),
    })
    expect(answer.status).toBe(200)
    const summary = answer.body.result
    const attacks = lines('attacks.ndjson').length
    expect(summary.requests).toBe(attacks)
    expect(summary.outcomes.blocked + summary.outcomes.challenged + summary.outcomes.passed).toBe(
      attacks,
    )
    expect(summary.outcomes.blocked).toBeGreaterThan(attacks / 2)
    expect(summary.rules[0]).toMatchObject({ ruleset_id: GENERAL, action: 'block' })
    expect(summary.rules[0].requests).toBeGreaterThanOrEqual(summary.rules[1].requests)
    expect(summary.paths.reduce((n: number, p: any) => n + p.requests, 0)).toBeLessThanOrEqual(
      attacks,
    )
    expect(summary.results).toHaveLength(attacks)
  })

  it('streams progress lines and then the envelope', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const response = await fetch(`${workbench(zone, 'replay')}?stream=true&record=false`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${CREDENTIALS.apiToken}`,
        'content-type': 'application/x-ndjson',
      },
      body: corpus('benign.ndjson'),
    })
    expect(response.headers.get('content-type')).toContain('application/x-ndjson')
    const parts = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    const progress = parts.filter((part) => 'progress' in part)
    expect(progress.length).toBeGreaterThan(0)
    expect(progress.at(-1).progress).toEqual({ done: 221, total: 221 })
    expect(parts.at(-1)).toMatchObject({ success: true, result: { requests: 221 } })
  })

  it('replays a HAR file', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const har = {
      log: {
        entries: [
          {
            request: {
              method: 'GET',
              url: 'https://shop.example.com/',
              headers: [{ name: ':authority', value: 'shop.example.com' }],
            },
          },
          {
            request: {
              method: 'GET',
              url: 'https://shop.example.com/?page=../../etc/passwd',
              headers: [],
            },
          },
        ],
      },
    }
    const answer = await running.call(workbench(zone, 'replay'), { method: 'POST', json: har })
    expect(answer.status).toBe(200)
    expect(answer.body.result.outcomes).toMatchObject({ passed: 1, blocked: 1 })
  })

  it('refuses a replay with a bad line, naming it, and simulates none of it', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const body = `${JSON.stringify({ method: 'GET', url: 'https://a.example/?x=../../etc/passwd' })}\n{"method": 42}\n`
    const answer = await running.call(workbench(zone, 'replay'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body,
    })
    expect(answer.status).toBe(400)
    expect(answer.body.errors[0].message).toContain('Line 2')
    const events = await running.call(workbench(zone, 'events'))
    expect(events.body.result).toEqual([])
  })

  it('keeps events queryable by action, rule, host, path and time, out of the zone history', async () => {
    const zone = await zoneExecuting(running, [GENERAL, ECC])
    const started = new Date().toISOString()
    await simulate(running, zone, {
      method: 'GET',
      url: 'https://shop.example.com/?q=<script>alert(1)</script>',
    })
    await simulate(running, zone, wordpressLogin('CF_EXPOSED_USERNAME', 'CF_EXPOSED_PASSWORD'))
    await simulate(running, zone, { method: 'GET', url: 'https://shop.example.com/about' })
    const all = (await running.call(workbench(zone, 'events'))).body.result
    expect(all.map((e: any) => e.action).sort()).toEqual(['block', 'rewrite'])
    const query = async (q: string) =>
      (await running.call(`${workbench(zone, 'events')}?${q}`)).body.result
    expect(await query('action=rewrite')).toHaveLength(1)
    expect(await query('host=blog.example.org')).toHaveLength(1)
    expect(await query('path=wp-login')).toHaveLength(1)
    const blocked = all.find((e: any) => e.action === 'block')
    expect(await query(`rule_id=${blocked.rule_id}`)).toHaveLength(1)
    expect(await query(`since=${encodeURIComponent(started)}`)).toHaveLength(2)
    expect(await query('until=2000-01-01T00:00:00Z')).toHaveLength(0)
    const badTime = await running.call(`${workbench(zone, 'events')}?since=yesterday`)
    expect(badTime.status).toBe(400)
    const history = await running.call(`${running.origin}/workbench/v1/zones/${zone}/history`)
    expect(history.body.result.some((p: any) => p.note === 'Security events recorded')).toBe(false)
  })
})

describe('replay input', () => {
  it('reads NDJSON whose requests carry a header named log as NDJSON, not as a HAR file', async () => {
    const zone = await zoneExecuting(running, [GENERAL])
    const line = JSON.stringify({ method: 'GET', url: 'https://a.example/', headers: { log: 'x' } })
    for (const body of [line, `${line}\n${line}`]) {
      const answer = await running.call(workbench(zone, 'replay'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body,
      })
      expect(answer.status).toBe(200)
      expect(answer.body.result.requests).toBe(body.split('\n').length)
    }
  })
})
