// Pull, plan and apply against a real remote: a second service on its own data dir, reached
// through its vendor API at its loopback base_url. A pull reproduces the remote zone locally (the
// two export the same bundle); a local edit plans as exactly that edit; an apply makes the two
// equal and the plan after it empty; an apply whose third call the remote refuses reports what
// ran, what failed and what did not run; a refused base_url, a wrong token and an unreachable
// remote are clear errors that write nothing.

import { readFileSync, readdirSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CREDENTIALS, patch, post, put, removeDataDir, type Running, startService } from './harness'

const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const OWASP_PACKAGE = 'c504870194831cd12c3fc0284f294abb'
const OWASP_GENERIC_ATTACKS = '5461c3844f6b5597986ae41d052a7cbd'
const TRADITIONAL_PACKAGE = '1e334934fd7ae32ad705667f8c1057aa'

let local: Running
let remote: Running

beforeAll(async () => {
  ;[local, remote] = await Promise.all([startService(), startService()])
})
afterAll(async () => {
  for (const running of [local, remote]) {
    await running.stop()
    removeDataDir(running.dataDir)
  }
})

const workbench = (on: Running, path: string) => `${on.origin}/workbench/v1${path}`

/** The remote as a request names it. */
const target = (extra: Record<string, unknown> = {}) => ({
  base_url: remote.api,
  api_token: CREDENTIALS.apiToken,
  ...extra,
})

async function exportBundle(on: Running, zone: string): Promise<any> {
  return JSON.parse(
    await (
      await fetch(workbench(on, `/zones/${zone}/export?format=bundle`), {
        headers: { authorization: `Bearer ${CREDENTIALS.apiToken}` },
      })
    ).text(),
  )
}

/** A bundle without what only says when or by whom something was written. */
function content(bundle: any): unknown {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip)
    if (value === null || typeof value !== 'object') return value
    return Object.fromEntries(
      Object.entries(value)
        .filter(
          ([key]) =>
            !['exported_at', 'version', 'last_updated', 'created_on', 'modified_on'].includes(key),
        )
        .map(([key, inner]) => [key, strip(inner)]),
    )
  }
  return strip(bundle)
}

const plan = (zone: string) =>
  local.ok(workbench(local, `/zones/${zone}/remote/plan`), post(target()))

/** A zone on the remote: managed and custom rulesets, filters (some unused) and firewall rules. */
async function remoteZone() {
  const zone = (await remote.ok('/zones', post({ name: 'prod.example', plan: 'business' }))).id
  const custom = await remote.ok(
    `/zones/${zone}/rulesets`,
    post({
      name: 'API hardening',
      kind: 'custom',
      phase: 'http_request_firewall_custom',
      rules: [{ action: 'block', expression: 'http.request.uri.path contains "/admin"' }],
    }),
  )
  await remote.ok(
    `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`,
    put({
      rules: [{ action: 'execute', expression: 'true', action_parameters: { id: custom.id } }],
    }),
  )
  await remote.ok(
    `/zones/${zone}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    put({
      rules: [
        {
          action: 'execute',
          expression: 'true',
          action_parameters: {
            id: GENERAL,
            overrides: { categories: [{ category: 'wordpress', action: 'log' }] },
          },
        },
      ],
    }),
  )
  const filters = await remote.ok(
    `/zones/${zone}/filters`,
    post(
      ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4', '198.51.100.5'].map(
        (ip) => ({ expression: `ip.src eq ${ip}`, description: ip }),
      ),
    ),
  )
  const rules = await remote.ok(
    `/zones/${zone}/firewall/rules`,
    post([
      { action: 'block', filter: { id: filters[0].id }, description: 'first' },
      { action: 'challenge', filter: { id: filters[1].id }, description: 'second' },
    ]),
  )
  return { zone, rules, filters, custom: custom.id as string }
}

describe('remote', () => {
  let zone: string
  let rules: any[]
  let filters: any[]
  let custom: string

  beforeAll(async () => {
    ;({ zone, rules, filters, custom } = await remoteZone())
  })

  it('pull reproduces the remote zone locally, ids and all', async () => {
    const pulled = await local.ok(
      workbench(local, '/remote/pull'),
      post(target({ zone_name: 'prod.example' })),
    )
    expect(pulled.zone).toEqual({ id: zone, name: 'prod.example' })
    expect(pulled.changes[0]).toMatchObject({ kind: 'zone', action: 'create' })
    const [mine, theirs] = await Promise.all([
      exportBundle(local, zone),
      exportBundle(remote, zone),
    ])
    expect({ ...mine, exported_at: '' }).toEqual({ ...theirs, exported_at: '' })
    expect((await plan(zone)).empty).toBe(true)
  })

  it('a local edit plans as that edit alone, and apply makes the two equal', async () => {
    const edited = rules[1]
    await local.ok(
      `/zones/${zone}/firewall/rules/${edited.id}`,
      put({ action: 'block', description: edited.description, filter: { id: edited.filter.id } }),
    )
    const planned = await plan(zone)
    expect(planned.empty).toBe(false)
    expect(planned.changes).toEqual([
      expect.objectContaining({ kind: 'firewall_rule', id: edited.id, action: 'update' }),
    ])
    expect(planned.calls).toEqual([
      expect.objectContaining({
        method: 'PUT',
        path: `/zones/${zone}/firewall/rules/${edited.id}`,
        body: expect.objectContaining({ id: edited.id, action: 'block' }),
      }),
    ])

    const applied = await local.ok(workbench(local, `/zones/${zone}/remote/apply`), post(target()))
    expect(applied.applied).toBe(1)
    expect((await remote.ok(`/zones/${zone}/firewall/rules/${edited.id}`)).action).toBe('block')
    expect((await plan(zone)).empty).toBe(true)
    expect(content(await exportBundle(local, zone))).toEqual(
      content(await exportBundle(remote, zone)),
    )
  })

  it('what the remote creates under its own ids pairs with the local resources after', async () => {
    // A new filter and firewall rule, a new custom ruleset executed by the entry point, a rule
    // added to a ruleset the remote holds, and a firewall rule deleted.
    const [filter] = await local.ok(
      `/zones/${zone}/filters`,
      post([{ expression: 'http.user_agent contains "bot"', description: 'bots' }]),
    )
    await local.ok(
      `/zones/${zone}/firewall/rules`,
      post([{ action: 'managed_challenge', filter: { id: filter.id }, description: 'bots' }]),
    )
    await local.ok(`/zones/${zone}/firewall/rules/${rules[0].id}?delete_filter_if_unused=true`, {
      method: 'DELETE',
    })
    const extra = await local.ok(
      `/zones/${zone}/rulesets`,
      post({
        name: 'Logins',
        kind: 'custom',
        phase: 'http_request_firewall_custom',
        rules: [{ action: 'challenge', expression: 'http.request.uri.path eq "/login"' }],
      }),
    )
    const entry = `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`
    const current = await local.ok(entry)
    await local.ok(
      entry,
      put({
        rules: [
          ...current.rules.map((rule: any) => ({ id: rule.id, ...pickRule(rule) })),
          { action: 'execute', expression: 'true', action_parameters: { id: extra.id } },
        ],
      }),
    )
    const planned = await plan(zone)
    expect(planned.calls.map((call: any) => `${call.method} ${call.path}`)).toEqual([
      `POST /zones/${zone}/filters`,
      `DELETE /zones/${zone}/firewall/rules/${rules[0].id}`,
      `POST /zones/${zone}/firewall/rules`,
      `DELETE /zones/${zone}/filters/${rules[0].filter.id}`,
      `POST /zones/${zone}/rulesets`,
      `PUT /zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`,
    ])
    const applied = await local.ok(workbench(local, `/zones/${zone}/remote/apply`), post(target()))
    expect(applied.applied).toBe(6)
    const after = await plan(zone)
    expect(after.changes).toEqual([])
    expect(after.calls).toEqual([])
    expect(after.empty).toBe(true)
    const executed = (await remote.ok(entry)).rules.at(-1).action_parameters.id
    expect(executed).not.toBe(extra.id)
    expect((await remote.ok(`/zones/${zone}/rulesets/${executed}`)).name).toBe('Logins')
  })

  it('an apply stops at the call the remote refuses and says what ran, failed and did not run', async () => {
    const held = (await remote.ok(`/zones/${zone}/firewall/rules`)).length
    await remote.ok(
      workbench(remote, `/zones/${zone}/firewall/settings`),
      patch({ rule_quota: held + 2 }),
    )
    const unused = filters.slice(2)
    for (const [index, filter] of unused.entries()) {
      await local.ok(
        `/zones/${zone}/firewall/rules`,
        post([{ action: 'block', filter: { id: filter.id }, description: `new ${index}` }]),
      )
    }
    // A fourth call, after the firewall rules: a custom ruleset's description.
    const ruleset = await local.ok(`/zones/${zone}/rulesets/${custom}`)
    await local.ok(
      `/zones/${zone}/rulesets/${custom}`,
      put({
        description: 'admin paths',
        rules: ruleset.rules.map((rule: any) => ({ id: rule.id, ...pickRule(rule) })),
      }),
    )
    const localBefore = await exportBundle(local, zone)
    const response = await fetch(workbench(local, `/zones/${zone}/remote/apply?stream=true`), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${CREDENTIALS.apiToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(target()),
    })
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    const envelope = lines.at(-1)
    expect(lines.slice(0, -1).map((line) => line.progress.outcome)).toEqual([
      'done',
      'done',
      'failed',
    ])
    expect(envelope.success).toBe(false)
    expect(envelope.errors[0].code).toBe(10515)
    expect(envelope.errors[0].message).toContain('10017')
    expect(envelope.result.applied).toBe(2)
    expect(envelope.result.calls.map((call: any) => call.outcome)).toEqual([
      'done',
      'done',
      'failed',
      'not_run',
    ])
    expect(envelope.result.calls[3].path).toBe(`/zones/${zone}/rulesets/${custom}`)
    expect(envelope.result.calls[2].errors[0].code).toBe(10017)
    expect(content(await exportBundle(local, zone))).toEqual(content(localBefore))
    // What ran is on the remote: the plan after it holds what did not.
    const rest = await plan(zone)
    expect(rest.calls.map((call: any) => call.method)).toEqual(['POST', 'PUT'])
  })
})

function pickRule(rule: any) {
  const { id: _id, version: _v, last_updated: _t, ...body } = rule
  return body
}

describe('a zone on the previous product', () => {
  it('pulls with its settings, and an edit of them plans, applies and plans empty after', async () => {
    const zone = (
      await remote.ok(
        '/zones',
        post({ name: 'legacy.example', plan: 'business', waf_product: 'previous' }),
      )
    ).id
    const waf = `/zones/${zone}/firewall/waf`
    await remote.ok(`${waf}/packages/${OWASP_PACKAGE}`, patch({ sensitivity: 'low' }))
    await remote.ok(
      `${waf}/packages/${OWASP_PACKAGE}/groups/${OWASP_GENERIC_ATTACKS}`,
      patch({ mode: 'off' }),
    )
    const [rule] = await remote.ok(`${waf}/packages/${TRADITIONAL_PACKAGE}/rules?per_page=5`)
    const mode = rule.allowed_modes.find((m: string) => m !== rule.mode && m !== 'default')
    await remote.ok(`${waf}/packages/${TRADITIONAL_PACKAGE}/rules/${rule.id}`, patch({ mode }))
    await remote.ok(
      `${waf}/overrides`,
      post({ urls: ['legacy.example/api/*'], rules: { [rule.id]: 'simulate' } }),
    )
    await remote.ok(
      `/zones/${zone}/pagerules`,
      post({
        targets: [
          { target: 'url', constraint: { operator: 'matches', value: 'legacy.example/static/*' } },
        ],
        actions: [{ id: 'disable_security' }],
      }),
    )
    await remote.ok(`/zones/${zone}/settings/waf`, patch({ value: 'off' }))

    await local.ok(workbench(local, '/remote/pull'), post(target({ zone_id: zone })))
    const [mine, theirs] = await Promise.all([
      exportBundle(local, zone),
      exportBundle(remote, zone),
    ])
    expect({ ...mine, exported_at: '' }).toEqual({ ...theirs, exported_at: '' })

    await local.ok(`/zones/${zone}/settings/waf`, patch({ value: 'on' }))
    await local.ok(
      `${waf}/packages/${OWASP_PACKAGE}/groups/${OWASP_GENERIC_ATTACKS}`,
      patch({ mode: 'on' }),
    )
    await local.ok(
      `${waf}/overrides`,
      post({ urls: ['legacy.example/admin/*'], groups: { [OWASP_GENERIC_ATTACKS]: 'disable' } }),
    )
    const planned = await plan(zone)
    expect(planned.calls.map((call: any) => `${call.method} ${call.path}`)).toEqual([
      `PATCH /zones/${zone}/settings/waf`,
      `PATCH ${waf}/packages/${OWASP_PACKAGE}/groups/${OWASP_GENERIC_ATTACKS}`,
      `POST ${waf}/overrides`,
    ])
    expect(
      (await local.ok(workbench(local, `/zones/${zone}/remote/apply`), post(target()))).applied,
    ).toBe(3)
    expect((await plan(zone)).empty).toBe(true)
    // Equal but for the id the remote gave the override it created.
    const withoutOverrideIds = (bundle: any) =>
      content({
        ...bundle,
        previous_waf: {
          ...bundle.previous_waf,
          overrides: bundle.previous_waf.overrides.map(({ id: _id, ...o }: any) => o),
        },
      })
    expect(withoutOverrideIds(await exportBundle(local, zone))).toEqual(
      withoutOverrideIds(await exportBundle(remote, zone)),
    )
  })
})

describe('a remote zone larger than a page', () => {
  it('is read page by page, whole', async () => {
    const zone = (await remote.ok('/zones', post({ name: 'many.example', plan: 'enterprise' }))).id
    // 130 rules, each with its own filter: two pages of the vendor's 100 at most.
    await remote.ok(
      `/zones/${zone}/firewall/rules`,
      post(
        Array.from({ length: 130 }, (_, index) => ({
          action: 'block',
          description: `rule ${index}`,
          filter: { expression: `http.request.uri.path eq "/p${index}"` },
        })),
      ),
    )
    await local.ok(workbench(local, '/remote/pull'), post(target({ zone_name: 'many.example' })))
    const mine = await exportBundle(local, zone)
    expect(mine.firewall_rules).toHaveLength(130)
    expect(mine.filters).toHaveLength(130)
    expect({ ...mine, exported_at: '' }).toEqual({
      ...(await exportBundle(remote, zone)),
      exported_at: '',
    })
  })
})

describe("a remote's credentials", () => {
  it('are kept nowhere in the data dir, whether a token or the global key', async () => {
    // A remote of its own whose credentials, once rotated, are not the local service's.
    const other = await startService()
    try {
      const rotated = await other.ok(workbench(other, '/settings/rotate-credentials'), post({}))
      const bearer = { authorization: `Bearer ${rotated.api_token}` }
      const created = await other.call('/zones', {
        ...post({ name: 'secret.example', plan: 'pro' }),
        headers: bearer,
      })
      expect(created.status).toBe(200)
      const zone = created.body.result.id
      const remoteOf = (credentials: Record<string, string>) => ({
        base_url: other.api,
        zone_name: 'secret.example',
        ...credentials,
      })
      await local.ok(
        workbench(local, '/remote/pull'),
        post(remoteOf({ api_token: rotated.api_token })),
      )
      await local.ok(
        workbench(local, `/zones/${zone}/remote/plan`),
        post(remoteOf({ api_email: rotated.email, api_key: rotated.api_key })),
      )
      const files = readdirSync(local.dataDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name))
      expect(files.length).toBeGreaterThan(0)
      for (const file of files) {
        const bytes = readFileSync(file)
        for (const secret of [rotated.api_token, rotated.api_key]) {
          expect(bytes.includes(secret), `${file} holds a remote's credential`).toBe(false)
        }
      }
      expect(JSON.stringify(await exportBundle(local, zone))).not.toContain(rotated.api_token)
    } finally {
      await other.stop()
      removeDataDir(other.dataDir)
    }
  })
})

describe('a remote that cannot be used', () => {
  const refused = async (path: string, body: unknown) => {
    const answer = await local.call(workbench(local, path), post(body))
    expect(answer.status, JSON.stringify(answer.body)).toBe(400)
    expect(answer.body.success).toBe(false)
    return answer.body.errors[0]
  }
  const localZones = async () => (await local.ok('/zones?per_page=50')).map((z: any) => z.id)

  it('a base_url other than https: or loopback http: is refused before any connection', async () => {
    const before = await localZones()
    for (const base_url of ['http://example.com/client/v4', 'ftp://127.0.0.1/', 'not a url']) {
      const error = await refused('/remote/pull', {
        ...target({ zone_name: 'prod.example' }),
        base_url,
      })
      expect(error.code).toBe(10510)
      expect(error.source.pointer).toBe('/base_url')
    }
    expect(await localZones()).toEqual(before)
  })

  it('an empty base_url or credential is named in a sentence, on pull, plan and apply', async () => {
    const zone = (await local.ok('/zones', post({ name: 'empty-fields.example', plan: 'pro' }))).id
    const before = await localZones()
    const keyOnly = { api_token: undefined, api_email: 'ops@example.com', api_key: 'k'.repeat(37) }
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { api_token: '' },
        '/api_token',
        "api_token is empty: give the remote's API token, or api_email with api_key",
      ],
      [
        { ...keyOnly, api_email: '' },
        '/api_email',
        "api_email is empty: give the email of the remote's account, with its api_key",
      ],
      [
        { ...keyOnly, api_key: '' },
        '/api_key',
        "api_key is empty: give the remote's global API key, with api_email",
      ],
      [
        { base_url: '' },
        '/base_url',
        "base_url is empty: give the remote API's root, e.g. https://api.cloudflare.com/client/v4",
      ],
    ]
    for (const path of [
      '/remote/pull',
      `/zones/${zone}/remote/plan`,
      `/zones/${zone}/remote/apply`,
    ]) {
      for (const [fields, pointer, message] of cases) {
        const answer = await local.call(
          workbench(local, path),
          post(target({ zone_name: 'prod.example', ...fields })),
        )
        expect(answer.status, `${path} ${pointer}`).toBe(400)
        expect(answer.body).toMatchObject({ success: false, result: null })
        expect(answer.body.errors).toEqual([{ code: 10510, message, source: { pointer } }])
      }
    }
    expect(await localZones()).toEqual(before)
  })

  it('a wrong token names the remote refusal and writes nothing', async () => {
    const before = await localZones()
    const error = await refused('/remote/pull', {
      ...target({ zone_name: 'prod.example' }),
      api_token: 'wrongToken0123456789abcdefghijklmnopqrs',
    })
    expect(error.code).toBe(10513)
    expect(error.message).toMatch(/HTTP 40[13]/)
    expect(error.meta.remote_errors[0].code).toBeGreaterThan(0)
    expect(await localZones()).toEqual(before)
  })

  it('an unreachable remote, an answer that is not the envelope and an unknown zone are clear', async () => {
    const closed = await refused('/remote/pull', {
      ...target({ zone_name: 'prod.example' }),
      base_url: 'http://127.0.0.1:1/client/v4',
    })
    expect(closed.code).toBe(10511)
    const page = createServer((_request, response) => response.end('<html>a web page</html>'))
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
    try {
      const notApi = await refused('/remote/pull', {
        ...target({ zone_name: 'prod.example' }),
        base_url: `http://127.0.0.1:${(page.address() as AddressInfo).port}/client/v4`,
      })
      expect(notApi.code).toBe(10512)
    } finally {
      page.close()
    }
    const missing = await refused('/remote/pull', target({ zone_name: 'nowhere.example' }))
    expect(missing.code).toBe(10514)
    expect(missing.source.pointer).toBe('/zone_name')
  })
})
