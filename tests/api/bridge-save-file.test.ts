// The bridge's saveFile outside Electron: the headless shell's page downloads the file itself, so
// the service has no save dialog to open and says so; and whatever the shell, the renderer names a
// file, never a path.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHeadless } from '../../src-main/headless'
import type { Service } from '../../src-main/service'

const TOKEN = 'saveFileTestToken0123456789abcdefghijkl'
let service: Service
let origin: string
const dataDir = mkdtempSync(join(tmpdir(), 'zw-save-file-'))

beforeAll(async () => {
  ;({ service, origin } = await startHeadless({ dataDir, port: 0, apiToken: TOKEN }))
})
afterAll(async () => {
  await service.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function saveFile(input: unknown) {
  const response = await fetch(`${origin}/workbench/v1/bridge/saveFile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(input),
  })
  return { status: response.status, body: await response.json() }
}

describe('bridge saveFile in the headless shell', () => {
  it('has no save dialog to open, and says where the file comes from instead', async () => {
    const { status, body } = await saveFile({ suggestedName: 'a.example.tf', text: 'x' })
    expect(status).toBe(400)
    expect(body.errors[0].message).toMatch(/no save dialog.*\/export/)
  })

  it.each(['../escape.tf', 'dir/a.tf', 'C:\\a.tf', ''])(
    'refuses %j as a name: the renderer never names a path',
    async (suggestedName) => {
      const { status, body } = await saveFile({ suggestedName, text: 'x' })
      expect(status).toBe(400)
      expect(body.errors[0].message).toMatch(/Invalid input for saveFile at \/suggestedName/)
    },
  )
})
