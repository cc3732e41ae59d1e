// The Rulesets API as a script or Terraform sees it: the zone's managed-phase entry point (create
// by PUT, replace, add/patch/move/delete rules, versions), custom rulesets, the managed catalog,
// cursor pagination, dry runs, the account twins and by_tag; every error of the contract with its
// code and pointer, and that refused input changes nothing and everything survives a restart.

import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newZone, notRouted, refusal, removeDataDir, type Running, startService } from './harness'

const ACCOUNT = '01a7362d577a6c3019a474fd6f485823'
const PHASE = 'http_request_firewall_managed'
const CUSTOM_PHASE = 'http_request_firewall_custom'
const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'
const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f'
const EXPOSED = 'c2e184081120413c86c3ab7e14069605'
const OWASP_ANOMALY = '6179ae15870a4bb7b2d480d4843b323c'
const PUBLIC_KEY = 'Ycig/Zr/pZmklmFUN99nr+taURlYItL91g+NcHGYpB8='
const UNKNOWN_ID = '0123456789abcdef0123456789abcdef'
const BLOCK_RULE = { action: 'block', expression: 'ip.src eq 203.0.113.9', description: 'a block' }

const catalog = (id: string): any =>
  JSON.parse(
    readFileSync(new URL(`../../resources/managed-rulesets/${id}.json`, import.meta.url), 'utf8'),
  )
const general = catalog(GENERAL)
const owasp = catalog(OWASP)
const exposed = catalog(EXPOSED)
const GENERAL_RULE: string = general.rules[0].id
const OWASP_SCORING_RULE: string = owasp.rules.find((r: any) => r.action === 'score').id
const EXPOSED_REWRITE_RULE: string = exposed.rules.find((r: any) => r.action === 'rewrite').id

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(() => running.stop())

const entry = (zone: string, phase = PHASE) => `/zones/${zone}/rulesets/phases/${phase}/entrypoint`
const putEntry = (zone: string, rules: unknown[], query = '') =>
  running.call(`${entry(zone)}${query}`, { method: 'PUT', json: { rules } })
const getEntry = async (zone: string) => (await running.call(entry(zone))).body.result

const execute = (id: string, parameters: Record<string, unknown> = {}, extra = {}) => ({
  action: 'execute',
  expression: 'true',
  action_parameters: { id, ...parameters },
  ...extra,
})
const skip = (description: string, path = `/${description.toLowerCase()}`) => ({
  action: 'skip',
  expression: `http.request.uri.path eq "${path}"`,
  description,
  action_parameters: { ruleset: 'current' },
})
/** The vendor's deployment example (docs/vendor-behaviour.md#deployment-example). */
const DEPLOYMENT: any[] = [
  execute(
    GENERAL,
    {
      overrides: {
        enabled: false,
        categories: [{ category: 'joomla', action: 'block', enabled: true }],
      },
    },
    { description: 'CMR' },
  ),
  execute(OWASP, {
    matched_data: { public_key: PUBLIC_KEY },
    overrides: {
      categories: [
        { category: 'paranoia-level-3', enabled: false },
        { category: 'paranoia-level-4', enabled: false },
      ],
      rules: [{ id: OWASP_ANOMALY, score_threshold: 60, action: 'managed_challenge' }],
    },
  }),
  execute(EXPOSED),
]

const descriptions = (ruleset: any) => ruleset.rules.map((r: any) => r.description)

/** A zone whose entry point holds four skip rules R1..R4, as in the vendor's examples. */
async function fourRules() {
  const zone = (await newZone(running)).id
  const { body } = await putEntry(zone, [skip('R1'), skip('R2'), skip('R3'), skip('R4')])
  const ids: Record<string, string> = Object.fromEntries(
    body.result.rules.map((r: any) => [r.description, r.id]),
  )
  return { zone, ruleset: body.result, ids }
}

describe('zone entry point', () => {
  it('answers an absent entry point with 404 10003, then PUT creates it', async () => {
    const zone = (await newZone(running)).id
    const absent = await running.call(entry(zone))
    expect(absent.status).toBe(404)
    expect(absent.body.success).toBe(false)
    expect(absent.body.errors[0]).toMatchObject({
      code: 10003,
      message: `could not find entrypoint ruleset in the ${PHASE} phase`,
    })
    const noVersions = await running.call(`${entry(zone)}/versions`)
    expect(noVersions.status).toBe(200)
    expect(noVersions.body.result).toEqual([])

    const created = await putEntry(zone, DEPLOYMENT)
    expect(created.status).toBe(200)
    const ruleset = created.body.result
    expect(ruleset).toMatchObject({
      name: 'default',
      kind: 'zone',
      phase: PHASE,
      source: 'firewall_managed',
      version: '1',
    })
    expect(ruleset.id).toMatch(/^[0-9a-f]{32}$/)
    expect(typeof ruleset.last_updated).toBe('string')
    expect(ruleset.rules).toHaveLength(3)
    for (const [i, rule] of ruleset.rules.entries()) {
      expect(rule.id).toMatch(/^[0-9a-f]{32}$/)
      expect(rule.ref).toBe(rule.id)
      expect(rule.enabled).toBe(true)
      expect(rule.version).toBe('1')
      expect(typeof rule.last_updated).toBe('string')
      expect(rule.action).toBe('execute')
      expect(rule.expression).toBe('true')
      expect(rule.action_parameters.id).toBe(DEPLOYMENT[i]!.action_parameters.id)
      expect(rule.action_parameters.version).toBe('latest')
    }
    expect(new Set(ruleset.rules.map((r: any) => r.id)).size).toBe(3)
    expect(ruleset.rules[0].description).toBe('CMR')
    expect(ruleset.rules[0].action_parameters.overrides).toEqual(
      DEPLOYMENT[0]!.action_parameters.overrides,
    )
    expect(ruleset.rules[1].action_parameters.matched_data).toEqual({ public_key: PUBLIC_KEY })
    expect(ruleset.rules[1].action_parameters.overrides).toEqual(
      DEPLOYMENT[1]!.action_parameters.overrides,
    )

    const read = await running.call(entry(zone))
    expect(read.status).toBe(200)
    expect(read.body.result).toEqual(ruleset)
    const byId = await running.call(`/zones/${zone}/rulesets/${ruleset.id}`)
    expect(byId.body.result).toEqual(ruleset)
  })

  it('replaces the rules on a second PUT; a re-sent rule keeps its id, only changed rules move on', async () => {
    const zone = (await newZone(running)).id
    const first = (await putEntry(zone, DEPLOYMENT)).body.result
    const [cmr, owaspRule, exposedRule] = first.rules
    const second = await putEntry(zone, [
      cmr,
      { ...owaspRule, description: 'OWASP, now described' },
      skip('health'),
    ])
    expect(second.status).toBe(200)
    const ruleset = second.body.result
    expect(ruleset.id).toBe(first.id)
    expect(ruleset.version).toBe('2')
    expect(ruleset.name).toBe('default')
    expect(ruleset.rules).toHaveLength(3)
    const [a, b, c] = ruleset.rules
    expect(a.id).toBe(cmr.id)
    expect(a.version).toBe('1')
    expect(b.id).toBe(owaspRule.id)
    expect(b.description).toBe('OWASP, now described')
    expect(b.version).toBe('2')
    expect(c.id).not.toBe(exposedRule.id)
    expect(c.id).toMatch(/^[0-9a-f]{32}$/)
    expect(c.version).toBe('1')
    expect(c.action).toBe('skip')
    expect(ruleset.rules.some((r: any) => r.id === exposedRule.id)).toBe(false)
    expect((await getEntry(zone)).rules.map((r: any) => r.id)).toEqual([a.id, b.id, c.id])
  })

  it('keeps the given name on creation, and creates entry points of other phases too', async () => {
    const zone = (await newZone(running)).id
    const named = await running.call(entry(zone), {
      method: 'PUT',
      json: { name: 'my entry point', description: 'mine', rules: [execute(GENERAL)] },
    })
    expect(named.body.result).toMatchObject({ name: 'my entry point', description: 'mine' })
    const custom = await running.call(entry(zone, CUSTOM_PHASE), {
      method: 'PUT',
      json: { rules: [{ action: 'block', expression: 'ip.src eq 192.0.2.1' }] },
    })
    expect(custom.status).toBe(200)
    expect(custom.body.result).toMatchObject({ kind: 'zone', phase: CUSTOM_PHASE, version: '1' })
    expect(custom.body.result.rules[0].action).toBe('block')
  })

  it('creates an entry point with POST kind zone when the phase has none', async () => {
    const zone = (await newZone(running)).id
    const created = await running.call(`/zones/${zone}/rulesets`, {
      method: 'POST',
      json: { name: 'zone custom entry', kind: 'zone', phase: CUSTOM_PHASE, rules: [] },
    })
    expect(created.status).toBe(200)
    const read = await running.call(entry(zone, CUSTOM_PHASE))
    expect(read.body.result.id).toBe(created.body.result.id)
  })
})

describe('entry point names, kinds and phases on update', () => {
  it('keeps the name of an existing entry point when a PUT sends another, as the vendor does', async () => {
    const zone = (await newZone(running)).id
    const first = (await putEntry(zone, [execute(GENERAL)])).body.result
    const renamed = await running.call(entry(zone), {
      method: 'PUT',
      json: { name: 'terraform name', rules: [execute(GENERAL), skip('health')] },
    })
    expect(renamed.status).toBe(200)
    expect(renamed.body.result).toMatchObject({ id: first.id, name: 'default', version: '2' })
    expect(renamed.body.result.rules).toHaveLength(2)
    const byId = await running.call(`/zones/${zone}/rulesets/${first.id}`, {
      method: 'PUT',
      json: { name: 'another name', description: 'by id', rules: [execute(GENERAL)] },
    })
    expect(byId.status).toBe(200)
    expect(byId.body.result).toMatchObject({ name: 'default', description: 'by id', version: '3' })
    expect(await getEntry(zone)).toEqual(byId.body.result)
  })

  it.each([
    { change: { kind: 'custom' }, pointer: '/kind' },
    { change: { phase: CUSTOM_PHASE }, pointer: '/phase' },
  ])(
    'refuses $change on an entry point with 20131, by phase or by id',
    async ({ change, pointer }) => {
      const zone = (await newZone(running)).id
      const first = (await putEntry(zone, [execute(GENERAL)])).body.result
      const json = { ...change, rules: [] }
      refusal(await running.call(entry(zone), { method: 'PUT', json }), 400, 20131, pointer)
      const byId = `/zones/${zone}/rulesets/${first.id}`
      refusal(await running.call(byId, { method: 'PUT', json }), 400, 20131, pointer)
      expect(await getEntry(zone)).toEqual(first)
    },
  )
})

describe('rules of a ruleset', () => {
  it('appends a POSTed rule at the end with version "1", and the ruleset moves on by one', async () => {
    const { zone, ruleset } = await fourRules()
    const added = await running.call(`/zones/${zone}/rulesets/${ruleset.id}/rules`, {
      method: 'POST',
      json: skip('R5'),
    })
    expect(added.status).toBe(200)
    const after = added.body.result
    expect(after.id).toBe(ruleset.id)
    expect(after.version).toBe('2')
    expect(descriptions(after)).toEqual(['R1', 'R2', 'R3', 'R4', 'R5'])
    const rule = after.rules[4]
    expect(rule.id).toMatch(/^[0-9a-f]{32}$/)
    expect(rule).toMatchObject({ version: '1', ref: rule.id, enabled: true, action: 'skip' })
    expect(typeof rule.last_updated).toBe('string')
    expect(after.rules.slice(0, 4)).toEqual(ruleset.rules)
    expect(await getEntry(zone)).toEqual(after)
  })

  it.each([
    { position: () => ({ before: '' }), expected: ['N', 'R1', 'R2', 'R3', 'R4'] },
    { position: (ids: any) => ({ before: ids.R3 }), expected: ['R1', 'R2', 'N', 'R3', 'R4'] },
    { position: (ids: any) => ({ after: ids.R1 }), expected: ['R1', 'N', 'R2', 'R3', 'R4'] },
    { position: () => ({ after: '' }), expected: ['R1', 'R2', 'R3', 'R4', 'N'] },
    { position: () => ({ index: 2 }), expected: ['R1', 'N', 'R2', 'R3', 'R4'] },
  ])('places a POSTed rule at $expected', async ({ position, expected }) => {
    const { zone, ruleset, ids } = await fourRules()
    const added = await running.call(`/zones/${zone}/rulesets/${ruleset.id}/rules`, {
      method: 'POST',
      json: { ...skip('N'), position: position(ids) },
    })
    expect(added.status).toBe(200)
    expect(descriptions(added.body.result)).toEqual(expected)
  })

  // The vendor's worked examples on R1..R4
  // (docs/vendor-behaviour.md#creating-updating-and-positioning-rules).
  it.each([
    { move: 'R2', position: () => ({ before: '' }), expected: ['R2', 'R1', 'R3', 'R4'] },
    { move: 'R2', position: (ids: any) => ({ after: ids.R3 }), expected: ['R1', 'R3', 'R2', 'R4'] },
    { move: 'R1', position: () => ({ index: 3 }), expected: ['R2', 'R3', 'R1', 'R4'] },
  ])(
    'moves $move with a position-only PATCH to $expected',
    async ({ move, position, expected }) => {
      const { zone, ruleset, ids } = await fourRules()
      const moved = await running.call(`/zones/${zone}/rulesets/${ruleset.id}/rules/${ids[move]}`, {
        method: 'PATCH',
        json: { position: position(ids) },
      })
      expect(moved.status).toBe(200)
      expect(descriptions(moved.body.result)).toEqual(expected)
      expect(moved.body.result.version).toBe('2')
      const rule = moved.body.result.rules.find((r: any) => r.id === ids[move])
      expect(rule.version).toBe('1')
      expect(rule.expression).toBe(skip(move).expression)
      expect(descriptions(await getEntry(zone))).toEqual(expected)
    },
  )

  it('replaces a rule with PATCH: id kept, rule version up, fields not sent are gone', async () => {
    const { zone, ruleset, ids } = await fourRules()
    const patched = await running.call(`/zones/${zone}/rulesets/${ruleset.id}/rules/${ids.R2}`, {
      method: 'PATCH',
      json: {
        action: 'skip',
        expression: 'http.request.uri.path eq "/elsewhere"',
        action_parameters: { ruleset: 'current' },
        enabled: false,
      },
    })
    expect(patched.status).toBe(200)
    const after = patched.body.result
    expect(after.version).toBe('2')
    expect(after.rules).toHaveLength(4)
    const rule = after.rules[1]
    expect(rule.id).toBe(ids.R2)
    expect(rule.version).toBe('2')
    expect(rule.expression).toBe('http.request.uri.path eq "/elsewhere"')
    expect(rule.enabled).toBe(false)
    expect(rule.description ?? '').toBe('')
    for (const i of [0, 2, 3]) expect(after.rules[i]).toEqual(ruleset.rules[i])
  })

  it('refuses a partial PATCH without expression with 20125, changing nothing', async () => {
    const { zone, ruleset, ids } = await fourRules()
    const partial = await running.call(`/zones/${zone}/rulesets/${ruleset.id}/rules/${ids.R1}`, {
      method: 'PATCH',
      json: { description: 'only this' },
    })
    const error = refusal(partial, 400, 20125, '/expression')
    expect(error.message).toBe(
      "'' is not a valid value for expression because the expression cannot be blank",
    )
    const onlyParameters = await running.call(
      `/zones/${zone}/rulesets/${ruleset.id}/rules/${ids.R1}`,
      {
        method: 'PATCH',
        json: { expression: 'true', action_parameters: { ruleset: 'current' } },
      },
    )
    expect(refusal(onlyParameters, 400, 20121).message).toBe(
      'action is required for action parameters',
    )
    expect(await getEntry(zone)).toEqual(ruleset)
  })

  it('deletes a rule with 200 and the whole ruleset, one version on', async () => {
    const { zone, ruleset, ids } = await fourRules()
    const deleted = await running.call(`/zones/${zone}/rulesets/${ruleset.id}/rules/${ids.R3}`, {
      method: 'DELETE',
    })
    expect(deleted.status).toBe(200)
    expect(deleted.body.success).toBe(true)
    expect(deleted.body.result.id).toBe(ruleset.id)
    expect(deleted.body.result.version).toBe('2')
    expect(descriptions(deleted.body.result)).toEqual(['R1', 'R2', 'R4'])
    expect(descriptions(await getEntry(zone))).toEqual(['R1', 'R2', 'R4'])
    notRouted(
      await running.call(`/zones/${zone}/rulesets/${ruleset.id}/rules/${ids.R3}`, {
        method: 'DELETE',
      }),
    )
  })

  it('refuses an invalid position with 20128', async () => {
    const { zone, ruleset, ids } = await fourRules()
    const rules = `/zones/${zone}/rulesets/${ruleset.id}/rules`
    refusal(
      await running.call(rules, {
        method: 'POST',
        json: { ...skip('N'), position: { before: UNKNOWN_ID } },
      }),
      400,
      20128,
    )
    refusal(
      await running.call(rules, {
        method: 'POST',
        json: { ...skip('N'), position: { index: 99 } },
      }),
      400,
      20128,
    )
    refusal(
      await running.call(`${rules}/${ids.R1}`, {
        method: 'PATCH',
        json: { position: { after: UNKNOWN_ID } },
      }),
      400,
      20128,
    )
    expect(await getEntry(zone)).toEqual(ruleset)
  })

  it('answers an unknown rule id with 404 7003', async () => {
    const { zone, ruleset } = await fourRules()
    notRouted(
      await running.call(`/zones/${zone}/rulesets/${ruleset.id}/rules/${UNKNOWN_ID}`, {
        method: 'PATCH',
        json: { position: { before: '' } },
      }),
    )
  })
})

describe('versions', () => {
  it('lists, reads and deletes versions; the latest stays, numbers are never reused', async () => {
    const zone = (await newZone(running)).id
    const v1 = (await putEntry(zone, [skip('A')])).body.result
    const rules = `/zones/${zone}/rulesets/${v1.id}/rules`
    const v2 = (await running.call(rules, { method: 'POST', json: skip('B') })).body.result
    const v3 = (await running.call(`${rules}/${v1.rules[0].id}`, { method: 'DELETE' })).body.result
    expect([v1.version, v2.version, v3.version]).toEqual(['1', '2', '3'])

    const versions = `/zones/${zone}/rulesets/${v1.id}/versions`
    const listed = await running.call(versions)
    expect(listed.status).toBe(200)
    expect(listed.body.result.map((v: any) => v.version)).toEqual(['1', '2', '3'])
    for (const summary of listed.body.result) {
      expect(summary).toMatchObject({ id: v1.id, kind: 'zone', phase: PHASE, name: 'default' })
      expect(summary).not.toHaveProperty('rules')
    }
    const entryVersions = await running.call(`${entry(zone)}/versions`)
    expect(entryVersions.body.result).toEqual(listed.body.result)

    expect((await running.call(`${versions}/1`)).body.result).toEqual(v1)
    expect((await running.call(`${versions}/2`)).body.result).toEqual(v2)
    expect((await running.call(`${entry(zone)}/versions/2`)).body.result).toEqual(v2)
    notRouted(await running.call(`${versions}/9`))
    notRouted(await running.call(`${entry(zone)}/versions/9`))

    refusal(await running.call(`${versions}/3`, { method: 'DELETE' }), 400, 20130)
    const deleted = await running.call(`${versions}/2`, { method: 'DELETE' })
    expect(deleted.status).toBe(204)
    expect(deleted.body).toBeNull()
    notRouted(await running.call(`${versions}/2`))
    notRouted(await running.call(`${versions}/2`, { method: 'DELETE' }))

    const v4 = (await running.call(rules, { method: 'POST', json: skip('C') })).body.result
    expect(v4.version).toBe('4')
    const after = await running.call(versions)
    expect(after.body.result.map((v: any) => v.version)).toEqual(['1', '3', '4'])
    expect((await running.call(`${versions}/3`)).body.result).toEqual(v3)
  })
})

describe('custom rulesets', () => {
  const createCustom = (zone: string, body: Record<string, unknown> = {}) =>
    running.call(`/zones/${zone}/rulesets`, {
      method: 'POST',
      json: {
        name: 'my custom ruleset',
        kind: 'custom',
        phase: CUSTOM_PHASE,
        description: 'blocks a few things',
        rules: [{ action: 'block', expression: 'ip.src eq 192.0.2.7', description: 'one' }],
        ...body,
      },
    })

  it('creates, reads, replaces and deletes a custom ruleset', async () => {
    const zone = (await newZone(running)).id
    const created = await createCustom(zone)
    expect(created.status).toBe(200)
    const ruleset = created.body.result
    expect(ruleset).toMatchObject({
      name: 'my custom ruleset',
      kind: 'custom',
      phase: CUSTOM_PHASE,
      description: 'blocks a few things',
      version: '1',
    })
    expect(ruleset.rules[0]).toMatchObject({ action: 'block', version: '1', enabled: true })
    expect(ruleset.rules[0].ref).toBe(ruleset.rules[0].id)
    const path = `/zones/${zone}/rulesets/${ruleset.id}`
    expect((await running.call(path)).body.result).toEqual(ruleset)

    const replaced = await running.call(path, {
      method: 'PUT',
      json: {
        description: 'now challenges',
        rules: [{ action: 'managed_challenge', expression: 'ip.src eq 192.0.2.8' }],
      },
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.result).toMatchObject({
      id: ruleset.id,
      version: '2',
      name: 'my custom ruleset',
      description: 'now challenges',
    })
    expect(replaced.body.result.rules.map((r: any) => r.action)).toEqual(['managed_challenge'])

    const deleted = await running.call(path, { method: 'DELETE' })
    expect(deleted.status).toBe(204)
    expect(deleted.body).toBeNull()
    notRouted(await running.call(path))
  })

  it('creates a ruleset without rules', async () => {
    const zone = (await newZone(running)).id
    const created = await running.call(`/zones/${zone}/rulesets`, {
      method: 'POST',
      json: { name: 'empty', kind: 'custom', phase: CUSTOM_PHASE },
    })
    expect(created.status).toBe(200)
    expect(created.body.result.rules ?? []).toEqual([])
  })

  it('refuses a second zone entry point for a phase with 20217 on /kind', async () => {
    const zone = (await newZone(running)).id
    await putEntry(zone, [execute(GENERAL)])
    const before = (await running.call(`/zones/${zone}/rulesets`)).body.result
    const second = await running.call(`/zones/${zone}/rulesets`, {
      method: 'POST',
      json: { name: 'another', kind: 'zone', phase: PHASE, rules: [] },
    })
    const error = refusal(second, 400, 20217, '/kind')
    expect(error.message).toBe(
      `'zone' is not a valid value for kind because exceeded maximum number of zone rulesets for phase ${PHASE}`,
    )
    expect((await running.call(`/zones/${zone}/rulesets`)).body.result).toEqual(before)
  })

  it.each(['managed', 'root'])('refuses kind %s at the zone with 20218 on /kind', async (kind) => {
    const zone = (await newZone(running)).id
    refusal(await createCustom(zone, { kind }), 400, 20218, '/kind')
    const listed = (await running.call(`/zones/${zone}/rulesets`)).body.result
    expect(listed.every((r: any) => r.kind === 'managed')).toBe(true)
    expect(listed).toHaveLength(3)
  })

  it.each([{ name: 'renamed' }, { kind: 'zone' }, { phase: PHASE }])(
    'refuses to change %o on update with 20131, changing nothing',
    async (change) => {
      const zone = (await newZone(running)).id
      const ruleset = (await createCustom(zone)).body.result
      const path = `/zones/${zone}/rulesets/${ruleset.id}`
      const field = Object.keys(change)[0]!
      refusal(
        await running.call(path, { method: 'PUT', json: { ...change, rules: [] } }),
        400,
        20131,
        `/${field}`,
      )
      expect((await running.call(path)).body.result).toEqual(ruleset)
    },
  )

  it('accepts name, kind and phase on update when they are unchanged', async () => {
    const zone = (await newZone(running)).id
    const ruleset = (await createCustom(zone)).body.result
    const same = await running.call(`/zones/${zone}/rulesets/${ruleset.id}`, {
      method: 'PUT',
      json: { name: 'my custom ruleset', kind: 'custom', phase: CUSTOM_PHASE, rules: [] },
    })
    expect(same.status).toBe(200)
    expect(same.body.result.version).toBe('2')
  })

  it('refuses a block response outside 400..499 with 20122, creating nothing', async () => {
    const zone = (await newZone(running)).id
    const response = { status_code: 200, content: 'nope', content_type: 'text/plain' }
    const answer = await createCustom(zone, {
      rules: [{ action: 'block', expression: 'true', action_parameters: { response } }],
    })
    refusal(answer, 400, 20122, '/rules/0/action_parameters/response')
    const listed = (await running.call(`/zones/${zone}/rulesets`)).body.result
    expect(listed.every((r: any) => r.kind === 'managed')).toBe(true)
    const fine = await createCustom(zone, {
      rules: [
        {
          action: 'block',
          expression: 'true',
          action_parameters: { response: { ...response, status_code: 403 } },
        },
      ],
    })
    expect(fine.status).toBe(200)
    expect(fine.body.result.rules[0].action_parameters.response.status_code).toBe(403)
  })

  it('refuses to delete a ruleset an execute rule deploys (20130), then allows it', async () => {
    const zone = (await newZone(running)).id
    const custom = (await createCustom(zone)).body.result
    const deploy = await running.call(entry(zone, CUSTOM_PHASE), {
      method: 'PUT',
      json: { rules: [execute(custom.id)] },
    })
    expect(deploy.status).toBe(200)
    const path = `/zones/${zone}/rulesets/${custom.id}`
    refusal(await running.call(path, { method: 'DELETE' }), 400, 20130)
    expect((await running.call(path)).body.result).toEqual(custom)

    await running.call(entry(zone, CUSTOM_PHASE), { method: 'PUT', json: { rules: [] } })
    expect((await running.call(path, { method: 'DELETE' })).status).toBe(204)
  })

  it("does not show one zone's rulesets under another zone", async () => {
    const a = (await newZone(running)).id
    const b = (await newZone(running)).id
    const custom = (await createCustom(a)).body.result
    notRouted(await running.call(`/zones/${b}/rulesets/${custom.id}`))
    const listed = (await running.call(`/zones/${b}/rulesets`)).body.result
    expect(listed.some((r: any) => r.id === custom.id)).toBe(false)
  })
})

describe('managed rulesets', () => {
  it('serves a managed ruleset under the zone path with categories and without expressions', async () => {
    const zone = (await newZone(running)).id
    for (const source of [general, owasp, exposed]) {
      const { status, body } = await running.call(`/zones/${zone}/rulesets/${source.id}`)
      expect(status).toBe(200)
      const ruleset = body.result
      expect(ruleset).toMatchObject({
        id: source.id,
        name: source.name,
        kind: 'managed',
        phase: PHASE,
        source: 'firewall_managed',
      })
      expect(ruleset.rules.map((r: any) => r.id)).toEqual(source.rules.map((r: any) => r.id))
      for (const [i, rule] of ruleset.rules.entries()) {
        expect(rule).not.toHaveProperty('expression')
        expect(rule.categories).toEqual(source.rules[i].categories)
        expect(rule.action).toBe(source.rules[i].action)
        expect(rule.enabled).toBe(source.rules[i].enabled)
      }
    }
    const anomaly = (await running.call(`/zones/${zone}/rulesets/${OWASP}`)).body.result.rules.find(
      (r: any) => r.id === OWASP_ANOMALY,
    )
    expect(anomaly).toMatchObject({ score_threshold: 40, action: 'block' })
  })

  it("lists the catalog next to the zone's own rulesets, without rules", async () => {
    const zone = (await newZone(running)).id
    const fresh = (await running.call(`/zones/${zone}/rulesets`)).body.result
    expect(fresh.map((r: any) => r.id).sort()).toEqual([EXPOSED, GENERAL, OWASP].sort())
    for (const ruleset of fresh) {
      expect(ruleset).toMatchObject({ kind: 'managed', phase: PHASE, source: 'firewall_managed' })
      expect(ruleset).not.toHaveProperty('rules')
    }
    const own = (await putEntry(zone, [execute(GENERAL)])).body.result
    const listed = (await running.call(`/zones/${zone}/rulesets`)).body.result
    expect(listed).toHaveLength(4)
    const mine = listed.find((r: any) => r.id === own.id)
    expect(mine).toMatchObject({ kind: 'zone', phase: PHASE, version: '1' })
    expect(mine).not.toHaveProperty('rules')
  })

  it('refuses any change to a managed ruleset with 20129', async () => {
    const zone = (await newZone(running)).id
    const path = `/zones/${zone}/rulesets/${GENERAL}`
    refusal(
      await running.call(path, { method: 'PUT', json: { description: 'mine now', rules: [] } }),
      400,
      20129,
    )
    refusal(
      await running.call(`${path}/rules`, {
        method: 'POST',
        json: { action: 'block', expression: 'true' },
      }),
      400,
      20129,
    )
    refusal(
      await running.call(`${path}/rules/${GENERAL_RULE}`, {
        method: 'PATCH',
        json: { position: { before: '' } },
      }),
      400,
      20129,
    )
    refusal(await running.call(`${path}/rules/${GENERAL_RULE}`, { method: 'DELETE' }), 400, 20129)
    refusal(await running.call(path, { method: 'DELETE' }), 400, 20129)
    const after = (await running.call(path)).body.result
    expect(after.version).toBe(general.version)
    expect(after.description).toBe(general.description)
    expect(after.rules).toHaveLength(general.rules.length)
  })
})

describe('execute rules and overrides', () => {
  it('accepts the overrides the catalog allows', async () => {
    const zone = (await newZone(running)).id
    const accepted = await putEntry(zone, [
      execute(GENERAL, {
        overrides: {
          action: 'managed_challenge',
          categories: [
            { category: 'wordpress', action: 'log', enabled: true },
            { category: 'drupal', enabled: false },
          ],
          rules: [{ id: GENERAL_RULE, action: 'js_challenge' }],
        },
      }),
      execute(EXPOSED, { overrides: { rules: [{ id: EXPOSED_REWRITE_RULE, action: 'rewrite' }] } }),
      execute(OWASP, { overrides: { rules: [{ id: OWASP_ANOMALY, score_threshold: 25 }] } }),
    ])
    expect(accepted.status).toBe(200)
    expect(accepted.body.result.rules[2].action_parameters.overrides).toEqual({
      rules: [{ id: OWASP_ANOMALY, score_threshold: 25 }],
    })
  })

  const cases: { name: string; rules: unknown[]; code: number; pointer?: string }[] = [
    {
      name: 'execute of a ruleset that does not exist',
      rules: [execute(UNKNOWN_ID)],
      code: 20123,
      pointer: '/rules/0/action_parameters/id',
    },
    {
      name: 'execute of a version that does not exist',
      rules: [execute(GENERAL, { version: '999' })],
      code: 20123,
    },
    {
      name: 'the same managed ruleset deployed twice',
      rules: [execute(GENERAL), execute(GENERAL)],
      code: 20124,
      pointer: '/rules/1/action_parameters/id',
    },
    {
      name: 'an override of an unknown rule id',
      rules: [execute(GENERAL, { overrides: { rules: [{ id: UNKNOWN_ID, enabled: false }] } })],
      code: 20126,
    },
    {
      name: 'an override of an unknown tag',
      rules: [
        execute(GENERAL, {
          overrides: { categories: [{ category: 'no-such-tag', enabled: false }] },
        }),
      ],
      code: 20126,
    },
    {
      name: 'rewrite on the general ruleset',
      rules: [
        execute(GENERAL, { overrides: { rules: [{ id: GENERAL_RULE, action: 'rewrite' }] } }),
      ],
      code: 20126,
    },
    {
      name: 'rewrite as the general ruleset-wide action',
      rules: [execute(GENERAL, { overrides: { action: 'rewrite' } })],
      code: 20126,
    },
    {
      name: 'score_threshold on a rule without one',
      rules: [
        execute(GENERAL, { overrides: { rules: [{ id: GENERAL_RULE, score_threshold: 60 }] } }),
      ],
      code: 20126,
    },
    {
      name: 'score_threshold on an OWASP scoring rule',
      rules: [
        execute(OWASP, { overrides: { rules: [{ id: OWASP_SCORING_RULE, score_threshold: 60 }] } }),
      ],
      code: 20126,
    },
    {
      name: 'an action override on an OWASP scoring rule',
      rules: [
        execute(OWASP, { overrides: { rules: [{ id: OWASP_SCORING_RULE, action: 'block' }] } }),
      ],
      code: 20126,
    },
    {
      name: 'a public key that is not base64',
      rules: [execute(GENERAL, { matched_data: { public_key: 'not-a-key' } })],
      code: 20127,
    },
    {
      name: 'a public key of 16 bytes',
      rules: [
        execute(GENERAL, {
          matched_data: { public_key: Buffer.alloc(16, 7).toString('base64') },
        }),
      ],
      code: 20127,
    },
  ]

  it.each(cases)('refuses $name with $code', async ({ rules, code, pointer }) => {
    const zone = (await newZone(running)).id
    refusal(await putEntry(zone, rules), 400, code, pointer)
    expect((await running.call(entry(zone))).status).toBe(404)
  })

  it.each([
    {
      name: 'a category entry with only its category',
      overrides: { categories: [{ category: 'wordpress' }] },
    },
    { name: 'an empty overrides object', overrides: {} },
  ])('refuses $name with 400', async ({ overrides }) => {
    const zone = (await newZone(running)).id
    const answer = await putEntry(zone, [execute(GENERAL, { overrides })])
    expect(answer.status).toBe(400)
    expect(answer.body.success).toBe(false)
    expect(answer.body.errors.length).toBeGreaterThan(0)
    expect((await running.call(entry(zone))).status).toBe(404)
  })

  it('refuses a second execute of a deployed managed ruleset added by POST rule (20124)', async () => {
    const zone = (await newZone(running)).id
    const ruleset = (await putEntry(zone, [execute(OWASP)])).body.result
    refusal(
      await running.call(`/zones/${zone}/rulesets/${ruleset.id}/rules`, {
        method: 'POST',
        json: execute(OWASP),
      }),
      400,
      20124,
    )
    expect(await getEntry(zone)).toEqual(ruleset)
  })
})

describe('refused input changes nothing', () => {
  let zone: string
  let ruleset: any
  beforeAll(async () => {
    zone = (await newZone(running)).id
    ruleset = (await putEntry(zone, [execute(GENERAL), skip('R1')])).body.result
  })

  const cases: { name: string; rules: unknown; code: number; pointer?: string }[] = [
    {
      name: 'an invalid expression',
      rules: [{ ...skip('X'), expression: 'http.hots eq "example.com"' }],
      code: 20120,
      pointer: '/rules/0/expression',
    },
    {
      name: 'an invalid expression in the second rule',
      rules: [execute(GENERAL), { ...skip('X'), expression: 'ip.src eq 34' }],
      code: 20120,
      pointer: '/rules/1/expression',
    },
    {
      name: 'a blank expression',
      rules: [{ ...skip('X'), expression: '' }],
      code: 20125,
      pointer: '/rules/0/expression',
    },
    {
      name: 'an action not allowed in the managed phase',
      rules: [{ action: 'block', expression: 'true' }],
      code: 20121,
      pointer: '/rules/0/action',
    },
    { name: 'a rule without action', rules: [{ expression: 'true' }], code: 20121 },
    {
      name: 'an execute rule without id',
      rules: [{ action: 'execute', expression: 'true', action_parameters: {} }],
      code: 20122,
    },
    {
      name: 'a skip rule with ruleset and rulesets',
      rules: [
        {
          action: 'skip',
          expression: 'true',
          action_parameters: { ruleset: 'current', rulesets: [GENERAL] },
        },
      ],
      code: 20122,
    },
    { name: 'rules that are not an array', rules: 'all of them', code: 1001, pointer: '/rules' },
    { name: 'a rule with an unknown field', rules: [{ ...skip('X'), bogus: 1 }], code: 1001 },
  ]

  it.each(cases)('refuses $name with $code', async ({ rules, code, pointer }) => {
    refusal(await putEntry(zone, rules as unknown[]), 400, code, pointer)
    const after = await getEntry(zone)
    expect(after.version).toBe('1')
    expect(after).toEqual(ruleset)
  })

  it("words an expression that does not parse as the vendor's ruleset error", async () => {
    const expression = 'http.hots eq "example.com"'
    const answer = await putEntry(zone, [{ ...skip('X'), expression }])
    const error = refusal(answer, 400, 20120, '/rules/0/expression')
    expect(error.message).toMatch(
      /^'http\.hots eq "example\.com"' is not a valid value for expression because could not parse filter expression: Filter parsing error \(1:\d+\):\n/,
    )
    expect(error.message).toContain('unknown identifier')
  })

  it('refuses a duplicate rule id in a body with 20133', async () => {
    const [first] = ruleset.rules
    refusal(await putEntry(zone, [first, { ...skip('X'), id: first.id }]), 400, 20133)
    expect(await getEntry(zone)).toEqual(ruleset)
  })

  it('answers unknown zones, rulesets, versions and phases with 404 7003', async () => {
    notRouted(await running.call(`/zones/${UNKNOWN_ID}/rulesets`))
    notRouted(await running.call(entry(UNKNOWN_ID)))
    notRouted(await running.call(`/zones/${zone}/rulesets/${UNKNOWN_ID}`))
    notRouted(await running.call(`/zones/${zone}/rulesets/${UNKNOWN_ID}`, { method: 'DELETE' }))
    notRouted(
      await running.call(`/zones/${zone}/rulesets/${UNKNOWN_ID}`, {
        method: 'PUT',
        json: { rules: [] },
      }),
    )
    notRouted(await running.call(`/zones/${zone}/rulesets/${UNKNOWN_ID}/versions`))
    notRouted(await running.call(`/zones/${zone}/rulesets/phases/no_such_phase/entrypoint`))
    notRouted(
      await running.call(`/zones/${zone}/rulesets/phases/no_such_phase/entrypoint`, {
        method: 'PUT',
        json: { rules: [] },
      }),
    )
    expect(await getEntry(zone)).toEqual(ruleset)
  })

  it('answers malformed JSON with 400', async () => {
    const answer = await running.call(entry(zone), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"rules": [',
    })
    expect(answer.status).toBe(400)
    expect(await getEntry(zone)).toEqual(ruleset)
  })
})

describe('pagination', () => {
  it('walks the whole list one item at a time with the cursor', async () => {
    const zone = (await newZone(running)).id
    await putEntry(zone, [execute(GENERAL)])
    for (const name of ['one', 'two']) {
      await running.call(`/zones/${zone}/rulesets`, {
        method: 'POST',
        json: { name, kind: 'custom', phase: CUSTOM_PHASE },
      })
    }
    const all = (await running.call(`/zones/${zone}/rulesets`)).body.result
    expect(all).toHaveLength(6)

    const seen: string[] = []
    let cursor: string | undefined
    for (let pages = 0; pages < 20; pages++) {
      const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      const { status, body } = await running.call(`/zones/${zone}/rulesets?per_page=1${query}`)
      expect(status).toBe(200)
      expect(body.result).toHaveLength(1)
      seen.push(body.result[0].id)
      cursor = body.result_info?.cursor
      if (!cursor) {
        expect(body.result_info?.cursors?.after).toBeFalsy()
        break
      }
      expect(body.result_info.cursors.after).toBe(cursor)
    }
    expect(seen).toHaveLength(6)
    expect([...seen].sort()).toEqual(all.map((r: any) => r.id).sort())
  })

  it.each(['0', '51', 'many'])('refuses per_page=%s with 400', async (perPage) => {
    const zone = (await newZone(running)).id
    const { status } = await running.call(`/zones/${zone}/rulesets?per_page=${perPage}`)
    expect(status).toBe(400)
  })
})

describe('dry run', () => {
  it('validates a PUT of the entry point and persists nothing', async () => {
    const zone = (await newZone(running)).id
    const creating = await putEntry(zone, [execute(GENERAL)], '?dry_run=true')
    expect(creating.status).toBe(200)
    expect(creating.body.success).toBe(true)
    expect(creating.body.result).toBeNull()
    expect((await running.call(entry(zone))).status).toBe(404)

    const ruleset = (await putEntry(zone, [execute(GENERAL)])).body.result
    const replacing = await putEntry(zone, [execute(OWASP)], '?dry_run=true')
    expect(replacing.status).toBe(200)
    expect(replacing.body.result).toBeNull()
    expect(await getEntry(zone)).toEqual(ruleset)

    refusal(await putEntry(zone, [execute(UNKNOWN_ID)], '?dry_run=true'), 400, 20123)
    const explicitFalse = await putEntry(zone, [execute(OWASP)], '?dry_run=false')
    expect(explicitFalse.body.result.version).toBe('2')
  })

  it('persists nothing for rule and ruleset operations either', async () => {
    const { zone, ruleset, ids } = await fourRules()
    const base = `/zones/${zone}/rulesets/${ruleset.id}`
    const added = await running.call(`${base}/rules?dry_run=true`, {
      method: 'POST',
      json: skip('N'),
    })
    expect(added.status).toBe(200)
    expect(added.body.result).toBeNull()
    const moved = await running.call(`${base}/rules/${ids.R4}?dry_run=true`, {
      method: 'PATCH',
      json: { position: { before: '' } },
    })
    expect(moved.body.result).toBeNull()
    const removed = await running.call(`${base}/rules/${ids.R1}?dry_run=true`, {
      method: 'DELETE',
    })
    expect(removed.status).toBe(200)
    expect(removed.body.result).toBeNull()
    const created = await running.call(`/zones/${zone}/rulesets?dry_run=true`, {
      method: 'POST',
      json: { name: 'not really', kind: 'custom', phase: CUSTOM_PHASE },
    })
    expect(created.status).toBe(200)
    expect(created.body.result).toBeNull()
    expect(await getEntry(zone)).toEqual(ruleset)
    const listed = (await running.call(`/zones/${zone}/rulesets`)).body.result
    expect(listed.some((r: any) => r.name === 'not really')).toBe(false)

    const custom = (
      await running.call(`/zones/${zone}/rulesets`, {
        method: 'POST',
        json: { name: 'kept', kind: 'custom', phase: CUSTOM_PHASE },
      })
    ).body.result
    const deleted = await running.call(`/zones/${zone}/rulesets/${custom.id}?dry_run=true`, {
      method: 'DELETE',
    })
    expect(deleted.status).toBe(204)
    expect((await running.call(`/zones/${zone}/rulesets/${custom.id}`)).status).toBe(200)
  })

  it('refuses a dry_run that is neither true nor false with 400', async () => {
    const zone = (await newZone(running)).id
    const answer = await putEntry(zone, [execute(GENERAL)], '?dry_run=maybe')
    expect(answer.status).toBe(400)
    expect((await running.call(entry(zone))).status).toBe(404)
  })
})

describe('account rulesets', () => {
  const account = `/accounts/${ACCOUNT}/rulesets`
  const accountEntry = `${account}/phases/${PHASE}/entrypoint`

  it('creates the account entry point of kind root with PUT', async () => {
    const absent = await running.call(accountEntry)
    expect(absent.status).toBe(404)
    expect(absent.body.errors[0].code).toBe(10003)
    expect((await running.call(`${accountEntry}/versions`)).body.result).toEqual([])

    const created = await running.call(accountEntry, {
      method: 'PUT',
      json: { rules: [execute(GENERAL)] },
    })
    expect(created.status).toBe(200)
    expect(created.body.result).toMatchObject({
      kind: 'root',
      phase: PHASE,
      version: '1',
      name: 'default',
    })
    expect(created.body.result.rules[0].action_parameters).toMatchObject({
      id: GENERAL,
      version: 'latest',
    })
    expect((await running.call(accountEntry)).body.result).toEqual(created.body.result)

    const listed = (await running.call(account)).body.result
    expect(listed.find((r: any) => r.id === created.body.result.id)).toMatchObject({ kind: 'root' })
    for (const id of [GENERAL, OWASP, EXPOSED]) {
      expect(listed.find((r: any) => r.id === id)).toMatchObject({ kind: 'managed' })
    }
  })

  it('keeps the account entry point name when a PUT sends another', async () => {
    const before = (await running.call(accountEntry)).body.result
    const renamed = await running.call(accountEntry, {
      method: 'PUT',
      json: { name: 'terraform name', rules: before.rules },
    })
    expect(renamed.status).toBe(200)
    expect(renamed.body.result).toMatchObject({ id: before.id, name: before.name, kind: 'root' })
    refusal(
      await running.call(accountEntry, { method: 'PUT', json: { kind: 'custom', rules: [] } }),
      400,
      20131,
      '/kind',
    )
    expect((await running.call(accountEntry)).body.result).toEqual(renamed.body.result)
  })

  it('creates custom rulesets, refuses kind zone and managed with 20218', async () => {
    refusal(
      await running.call(account, {
        method: 'POST',
        json: { name: 'not here', kind: 'zone', phase: CUSTOM_PHASE },
      }),
      400,
      20218,
      '/kind',
    )
    refusal(
      await running.call(account, {
        method: 'POST',
        json: { name: 'never', kind: 'managed', phase: PHASE },
      }),
      400,
      20218,
      '/kind',
    )
    const created = await running.call(account, {
      method: 'POST',
      json: {
        name: 'account custom',
        kind: 'custom',
        phase: CUSTOM_PHASE,
        rules: [{ action: 'block', expression: 'ip.src eq 198.51.100.1' }],
      },
    })
    expect(created.status).toBe(200)
    const id = created.body.result.id
    expect((await running.call(`${account}/${id}`)).body.result).toEqual(created.body.result)
    const added = await running.call(`${account}/${id}/rules`, {
      method: 'POST',
      json: { action: 'log', expression: 'ip.src eq 198.51.100.2' },
    })
    expect(added.body.result.version).toBe('2')
    const versions = (await running.call(`${account}/${id}/versions`)).body.result
    expect(versions.map((v: any) => v.version)).toEqual(['1', '2'])
    expect((await running.call(`${account}/${id}`, { method: 'DELETE' })).status).toBe(204)
    notRouted(await running.call(`${account}/${id}`))
  })

  it('lists the rules of a managed ruleset version by tag', async () => {
    const tagged = general.rules.filter((r: any) => r.categories.includes('wordpress'))
    expect(tagged.length).toBeGreaterThan(1)
    const { status, body } = await running.call(
      `${account}/${GENERAL}/versions/${general.version}/by_tag/wordpress`,
    )
    expect(status).toBe(200)
    expect(body.result).toMatchObject({ id: GENERAL, kind: 'managed' })
    expect(body.result.rules.map((r: any) => r.id)).toEqual(tagged.map((r: any) => r.id))
    for (const rule of body.result.rules) {
      expect(rule.categories).toContain('wordpress')
      expect(rule).not.toHaveProperty('expression')
    }
    const paranoia = await running.call(
      `${account}/${OWASP}/versions/${owasp.version}/by_tag/paranoia-level-4`,
    )
    expect(paranoia.body.result.rules.length).toBe(
      owasp.rules.filter((r: any) => r.categories.includes('paranoia-level-4')).length,
    )
  })
})

describe('durability', () => {
  it('keeps every change across a restart on the same data dir', async () => {
    const { zone, ruleset, ids } = await fourRules()
    const base = `/zones/${zone}/rulesets/${ruleset.id}`
    await running.call(`${base}/rules`, { method: 'POST', json: skip('R5') })
    await running.call(`${base}/rules/${ids.R2}`, {
      method: 'PATCH',
      json: { position: { before: '' } },
    })
    await running.call(`${base}/rules/${ids.R4}`, { method: 'DELETE' })
    await running.call(`${base}/rules/${ids.R3}`, {
      method: 'PATCH',
      json: skip('R3 changed', '/r3'),
    })
    expect((await running.call(`${base}/versions/2`, { method: 'DELETE' })).status).toBe(204)
    const kept = (
      await running.call(`/zones/${zone}/rulesets`, {
        method: 'POST',
        json: { name: 'kept', kind: 'custom', phase: CUSTOM_PHASE, rules: [BLOCK_RULE] },
      })
    ).body.result
    const gone = (
      await running.call(`/zones/${zone}/rulesets`, {
        method: 'POST',
        json: { name: 'gone', kind: 'custom', phase: CUSTOM_PHASE },
      })
    ).body.result
    expect(
      (await running.call(`/zones/${zone}/rulesets/${gone.id}`, { method: 'DELETE' })).status,
    ).toBe(204)

    const before = await getEntry(zone)
    expect(descriptions(before)).toEqual(['R2', 'R1', 'R3 changed', 'R5'])
    const versionsBefore = (await running.call(`${base}/versions`)).body.result
    const versionOne = (await running.call(`${base}/versions/1`)).body.result
    const listBefore = (await running.call(`/zones/${zone}/rulesets`)).body.result
    const accountEntry = `/accounts/${ACCOUNT}/rulesets/phases/${PHASE}/entrypoint`
    const accountBefore = (await running.call(accountEntry)).body.result
    expect(accountBefore.kind).toBe('root')

    await running.stop()
    running = await startService(running.dataDir)

    expect(await getEntry(zone)).toEqual(before)
    expect((await running.call(`${base}/versions`)).body.result).toEqual(versionsBefore)
    expect((await running.call(`${base}/versions/1`)).body.result).toEqual(versionOne)
    notRouted(await running.call(`${base}/versions/2`))
    expect((await running.call(`/zones/${zone}/rulesets/${kept.id}`)).body.result).toEqual(kept)
    notRouted(await running.call(`/zones/${zone}/rulesets/${gone.id}`))
    const listAfter = (await running.call(`/zones/${zone}/rulesets`)).body.result
    expect(listAfter.map((r: any) => r.id).sort()).toEqual(listBefore.map((r: any) => r.id).sort())
    expect((await running.call(accountEntry)).body.result).toEqual(accountBefore)

    const next = await running.call(`${base}/rules`, { method: 'POST', json: skip('R6') })
    expect(Number(next.body.result.version)).toBe(Number(before.version) + 1)
  })
})

describe('versions stored as changes', () => {
  /** Bytes of every file under `path` (the zones' databases, WALs and history archives). */
  const bytesUnder = (path: string): number =>
    statSync(path).isDirectory()
      ? readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0)
      : statSync(path).size

  it('reads every old version back as the API answered it, after many edits and a restart', async () => {
    let service = await startService()
    try {
      const zone = (
        await service.call('/zones', {
          method: 'POST',
          json: { name: 'versions-as-changes.example', plan: 'enterprise' },
        })
      ).body.result.id
      const rule = (n: number) => ({
        action: 'block',
        expression: `ip.src eq 198.51.100.${n}`,
        description: `rule ${n}`,
      })
      const created = await service.call(`/zones/${zone}/rulesets`, {
        method: 'POST',
        json: { name: 'edited', kind: 'custom', phase: CUSTOM_PHASE, rules: [rule(0), rule(1)] },
      })
      const base = `/zones/${zone}/rulesets/${created.body.result.id}`
      const answered = new Map<string, any>([['1', created.body.result]])
      const latest = () => [...answered.values()].at(-1)
      const ruleIds = () => latest().rules.map((r: any) => r.id)
      for (let n = 2; n < 122; n++) {
        const ids = ruleIds()
        const pick = ids[(n * 7) % ids.length]
        const answer = await [
          () => service.call(`${base}/rules`, { method: 'POST', json: rule(n) }),
          () =>
            service.call(`${base}/rules`, {
              method: 'POST',
              json: { ...rule(n), position: { before: '' } },
            }),
          () =>
            service.call(`${base}/rules`, {
              method: 'POST',
              json: { ...rule(n), position: { index: 1 + (n % ids.length) } },
            }),
          () => service.call(`${base}/rules/${pick}`, { method: 'PATCH', json: rule(n) }),
          () =>
            service.call(`${base}/rules/${pick}`, {
              method: 'PATCH',
              json: { position: { index: 1 + ((n * 3) % ids.length) } },
            }),
          () =>
            ids.length > 3
              ? service.call(`${base}/rules/${pick}`, { method: 'DELETE' })
              : service.call(`${base}/rules`, { method: 'POST', json: rule(n) }),
          // A PUT sending some rules back unchanged, in another order, and a new one.
          () =>
            service.call(base, {
              method: 'PUT',
              json: {
                description: `put ${n}`,
                rules: [
                  ...latest()
                    .rules.filter((_: any, i: number) => i % 3 !== 0)
                    .reverse()
                    .map(({ version: _v, last_updated: _l, ...kept }: any) => kept),
                  rule(n),
                ],
              },
            }),
        ][n % 7]!()
        expect(answer.status, JSON.stringify(answer.body)).toBe(200)
        answered.set(answer.body.result.version, answer.body.result)
      }
      for (const version of ['3', '50', '51', '100']) {
        const deleted = await service.call(`${base}/versions/${version}`, { method: 'DELETE' })
        expect(deleted.status).toBe(204)
        answered.delete(version)
        notRouted(await service.call(`${base}/versions/${version}`))
      }

      const readBack = async () => {
        const listed = (await service.call(`${base}/versions`)).body.result
        expect(listed.map((v: any) => v.version)).toEqual([...answered.keys()])
        for (const [version, answer] of answered) {
          const read = (await service.call(`${base}/versions/${version}`)).body.result
          expect(JSON.stringify(read)).toBe(JSON.stringify(answer))
        }
        expect(JSON.stringify((await service.call(base)).body.result)).toBe(
          JSON.stringify(latest()),
        )
      }
      await readBack()
      await service.stop()
      service = await startService(service.dataDir)
      await readBack()
      // A deleted number is never given again: the next version follows the latest.
      const next = await service.call(`${base}/rules`, { method: 'POST', json: rule(200) })
      expect(next.body.result.version).toBe('122')
    } finally {
      await service.stop()
      removeDataDir(service.dataDir)
    }
  })

  it('grows storage linearly with rule adds: the second 200 cost what the first 200 did', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zw-growth-'))
    const zonesDir = join(dataDir, 'objects', 'zone')
    let service = await startService(dataDir)
    const zone = (
      await service.call('/zones', {
        method: 'POST',
        json: { name: 'growth.example', plan: 'enterprise' },
      })
    ).body.result.id
    const ruleset = (
      await service.call(`/zones/${zone}/rulesets/phases/${CUSTOM_PHASE}/entrypoint`, {
        method: 'PUT',
        json: { rules: [] },
      })
    ).body.result.id
    // Sizes are read with the service stopped, so each WAL has been checkpointed into its file.
    const addRules = async (from: number) => {
      service = await startService(dataDir)
      for (let n = from; n < from + 200; n++) {
        const added = await service.call(`/zones/${zone}/rulesets/${ruleset}/rules`, {
          method: 'POST',
          json: {
            action: 'block',
            expression: `ip.src eq 198.51.${n >> 8}.${n & 255}`,
            description: `rule ${n}`,
          },
        })
        expect(added.status).toBe(200)
      }
      await service.stop()
      return bytesUnder(zonesDir)
    }
    try {
      await service.stop()
      const start = bytesUnder(zonesDir)
      const afterFirst = await addRules(0)
      const afterSecond = await addRules(200)
      // Whole-list copies make the second 200 adds cost three times the first (quadratic growth).
      expect(afterSecond - afterFirst).toBeLessThan(1.5 * (afterFirst - start))
    } finally {
      await service.stop()
      removeDataDir(dataDir)
    }
  })
})
