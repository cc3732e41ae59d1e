// The leaked-credential database over the API: a list arrives as an upload (never a path on this
// machine), goes in whole or not at all, and importing a list's name again replaces that list. An
// import the process never finished is discarded when the service next starts.

import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHeadless } from '../../src-main/headless'
import type { Service } from '../../src-main/service'
import type { CredentialNamespace } from '../../src-main/zones/credentials'
import { openZoneObjects } from '../../src-main/zones/registry'
import { CREDENTIALS, removeDataDir, startService, type Running } from './harness'

const ECC = 'c2e184081120413c86c3ab7e14069605'
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex').toUpperCase()

let running: Running
let zoneId: string

beforeAll(async () => {
  running = await startService()
  const zone = await running.call('/zones', {
    method: 'POST',
    json: { name: 'credentials.example', plan: 'pro' },
  })
  zoneId = zone.body.result.id
  const put = await running.call(
    `/zones/${zoneId}/rulesets/phases/http_request_firewall_managed/entrypoint`,
    {
      method: 'PUT',
      json: { rules: [{ action: 'execute', expression: 'true', action_parameters: { id: ECC } }] },
    },
  )
  expect(put.status).toBe(200)
})
afterAll(async () => {
  await running.stop()
  removeDataDir(running.dataDir)
})

/** Whether the exposed-credentials check finds this login's pair leaked. */
async function exposed(email: string, password: string): Promise<boolean> {
  const answer = await running.call(`${running.origin}/workbench/v1/zones/${zoneId}/simulate`, {
    method: 'POST',
    json: {
      method: 'POST',
      url: 'https://app.example.com/api/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    },
  })
  expect(answer.status).toBe(200)
  return answer.body.result.origin_headers['Exposed-Credential-Check'] === '1'
}

async function upload(
  content: string | Buffer,
  query: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const response = await fetch(
    `${running.origin}/workbench/v1/credentials/import?${new URLSearchParams(query)}`,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${CREDENTIALS.apiToken}`,
        'content-type': 'text/plain',
        ...headers,
      },
      // fetch's body type takes an ArrayBuffer-backed view, not a Buffer
      body: typeof content === 'string' ? content : new Uint8Array(content),
    },
  )
  return { status: response.status, text: await response.text() }
}

const database = async () =>
  (await running.call(`${running.origin}/workbench/v1/credentials`)).body.result

/** Rows of the credential object's own tables, read while the service runs. */
const rows = (namespace: CredentialNamespace, query: string, ...bindings: string[]) =>
  namespace.inspect(namespace.idFromName('credentials'), (storage) =>
    storage.sql.exec(query, ...bindings).toArray(),
  )

describe('credential import', () => {
  it('imports an uploaded list with progress, after which its pairs count as exposed', async () => {
    const filler = Array.from({ length: 12_000 }, (_, i) => `${sha1(`user${i}:pw${i}`)}:${i + 1}`)
    const list = [
      ...filler,
      `${sha1('somesalt' + 'new.user@example.com:Hunter2!')}:3`,
      'not a hash',
    ].join('\n')
    expect(await exposed('new.user@example.com', 'Hunter2!')).toBe(false)

    const answer = await upload(list, {
      kind: 'pair',
      name: 'leak.txt',
      salt: 'somesalt',
      stream: 'true',
    })
    expect(answer.status).toBe(200)
    const parts = answer.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    const progress = parts.filter((part) => 'progress' in part).map((part) => part.progress)
    expect(progress.length).toBeGreaterThanOrEqual(2)
    expect(progress.at(-1)).toMatchObject({ added: 12_001, skipped: 1 })
    expect(parts.at(-1).result).toMatchObject({
      name: 'leak.txt',
      kind: 'pair',
      added: 12_001,
      skipped: 1,
      replaced: false,
      bytesRead: Buffer.byteLength(list),
      totalBytes: Buffer.byteLength(list),
    })
    expect(await exposed('new.user@example.com', 'Hunter2!')).toBe(true)
    expect((await database()).lists).toContainEqual({
      name: 'leak.txt',
      kind: 'pair',
      lines: 12_001,
      hashes: 12_001,
    })
  })

  it('reads a gzip upload', async () => {
    const list = `${sha1('zipped@example.com:Gz1pped!')}:1\n`
    const answer = await upload(
      gzipSync(list),
      { kind: 'pair', name: 'zipped.txt.gz' },
      { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' },
    )
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text).result).toMatchObject({ added: 1, skipped: 0 })
    expect(await exposed('zipped@example.com', 'Gz1pped!')).toBe(true)
  })

  it('refuses a path on this machine, reading nothing', async () => {
    const before = await database()
    const passwd = readFileSync('/etc/passwd', 'utf8')
    for (const body of [
      { path: '/etc/passwd', kind: 'pair' },
      { path: '../../../../etc/passwd', kind: 'password', name: 'passwd' },
    ]) {
      const answer = await running.call(`${running.origin}/workbench/v1/credentials/import`, {
        method: 'POST',
        json: body,
      })
      expect(answer.status).toBe(400)
      expect(answer.body.result).toBeNull()
      expect(JSON.stringify(answer.body)).not.toMatch(/bytesRead|totalBytes|added|skipped/)
      expect(JSON.stringify(answer.body)).not.toContain(String(statSync('/etc/passwd').size))
    }
    const withQuery = await running.call(
      `${running.origin}/workbench/v1/credentials/import?kind=pair&name=passwd`,
      { method: 'POST', json: { path: '/etc/passwd' } },
    )
    expect(withQuery.status).toBe(400)
    expect(withQuery.body.errors[0].message).toMatch(/upload the list's content/)
    expect(JSON.stringify(withQuery.body)).not.toContain(
      String(passwd.split('\n').filter(Boolean).length),
    )
    expect(await database()).toEqual(before)
  })

  it('refuses an empty upload, a list with no hash line and a broken gzip, writing nothing', async () => {
    const before = await database()
    const empty = await upload('', { kind: 'pair', name: 'empty.txt' })
    expect(empty.status).toBe(400)
    expect(JSON.parse(empty.text).errors[0].message).toMatch(/empty/)

    const junk = await upload('hello\nworld\n', { kind: 'pair', name: 'junk.txt' })
    expect(junk.status).toBe(400)
    expect(JSON.parse(junk.text).errors[0].message).toMatch(/2 skipped/)

    // Valid lines, then the gzip stream breaks off: the batches already staged are dropped.
    const lines = Array.from({ length: 20_000 }, (_, i) => `${sha1(`cut${i}`)}:1`).join('\n')
    const zipped = gzipSync(lines)
    const broken = await upload(
      zipped.subarray(0, zipped.length - 1000),
      { kind: 'password', name: 'broken.gz', stream: 'true' },
      { 'content-encoding': 'gzip' },
    )
    const last = JSON.parse(broken.text.trim().split('\n').at(-1)!)
    expect(last.success).toBe(false)
    expect(last.errors[0].code).toBe(6007)

    expect(await database()).toEqual(before)
    expect(await rows(running.service.credentials, 'SELECT * FROM staging')).toEqual([])
    expect(
      await rows(
        running.service.credentials,
        'SELECT * FROM list_hashes WHERE hash = ?',
        sha1('cut0'),
      ),
    ).toEqual([])
  })

  it('replaces a list imported again under its name instead of adding to it', async () => {
    const listed = sha1('twice@example.com:Tw1ce!')
    const first = [`${listed}:5`, `${sha1('other')}:1`, `${listed}:2`].join('\n')
    const answers = [
      await upload(first, { kind: 'pair', name: 'again.txt' }),
      await upload(first, { kind: 'pair', name: 'again.txt' }),
    ].map((answer) => JSON.parse(answer.text).result)
    expect(answers.map((answer) => answer.replaced)).toEqual([false, true])
    expect(answers[1].counts).toEqual(answers[0].counts)
    const lists = (await database()).lists.filter((list: any) => list.name === 'again.txt')
    expect(lists).toEqual([{ name: 'again.txt', kind: 'pair', lines: 3, hashes: 2 }])
    const stored = await rows(
      running.service.credentials,
      'SELECT sum(count) AS count FROM list_hashes WHERE hash = ?',
      listed,
    )
    expect(stored).toEqual([{ count: 7 }])
    expect(await exposed('twice@example.com', 'Tw1ce!')).toBe(true)

    const replacement = `${sha1('third@example.com:Thr33!')}:1`
    await upload(replacement, { kind: 'pair', name: 'again.txt' })
    expect(await exposed('twice@example.com', 'Tw1ce!')).toBe(false)
    expect(await exposed('third@example.com', 'Thr33!')).toBe(true)
  })

  it('discards at start an import the process never finished', async () => {
    const before = await database()
    const staged = sha1('killed@example.com:K1lled!')
    await running.stop()

    // What a process killed between two batches leaves: a staged list, never finished.
    const objects = openZoneObjects(running.dataDir)
    const id = objects.credentials.idFromName('credentials')
    await objects.credentials.call(id, (db) => {
      const list = db.beginImport('killed.txt', 'pair', '')
      db.stageEntries(list, [{ hash: staged, count: 1 }])
    })
    expect(await rows(objects.credentials, 'SELECT name FROM staging')).toEqual([
      { name: 'killed.txt' },
    ])
    await objects.credentials.close()

    running = await startService(running.dataDir)
    expect(await database()).toEqual(before)
    expect(await rows(running.service.credentials, 'SELECT * FROM staging')).toEqual([])
    expect(
      await rows(running.service.credentials, 'SELECT * FROM list_hashes WHERE hash = ?', staged),
    ).toEqual([])
    expect(await exposed('killed@example.com', 'K1lled!')).toBe(false)

    const retried = await upload(`${staged}:1`, { kind: 'pair', name: 'killed.txt' })
    expect(JSON.parse(retried.text).result).toMatchObject({ added: 1, replaced: false })
    expect(await exposed('killed@example.com', 'K1lled!')).toBe(true)
  })
})

describe('credential import through the headless bridge', () => {
  const TOKEN = 'credentialBridgeToken0123456789abcdefgh'
  const dataDir = mkdtempSync(join(tmpdir(), 'zw-credentials-bridge-'))
  let service: Service
  let origin: string

  beforeAll(async () => {
    ;({ service, origin } = await startHeadless({ dataDir, port: 0, apiToken: TOKEN }))
  })
  afterAll(async () => {
    await service.close()
    removeDataDir(dataDir)
  })

  it('takes the page’s upload as importCredentialList, and has no file dialog to open', async () => {
    const list = `${sha1('Pa55word!')}:4\n`
    const response = await fetch(
      `${origin}/workbench/v1/bridge/importCredentialList?kind=password&name=picked.txt`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
        body: list,
      },
    )
    expect(response.status).toBe(200)
    expect((await response.json()).result).toMatchObject({
      name: 'picked.txt',
      kind: 'password',
      added: 1,
      counts: { password: expect.any(Number) },
    })

    const asJson = await fetch(`${origin}/workbench/v1/bridge/importCredentialList`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'pair' }),
    })
    expect(asJson.status).toBe(400)
    await expect(service.bridge.importCredentialList({ kind: 'pair' })).rejects.toThrow(
      /no file dialog/,
    )
  })
})
