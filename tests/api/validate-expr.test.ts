// GET and POST /filters/validate-expr answer as the vendor does.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type Running } from './harness'

let running: Running
beforeAll(async () => {
  running = await startService()
})
afterAll(() => running.stop())

const viaGet = (expression: string) =>
  running.call(`/filters/validate-expr?expression=${encodeURIComponent(expression)}`)
const viaPost = (expression: string) =>
  running.call('/filters/validate-expr', { method: 'POST', json: { expression } })

describe('validate-expr', () => {
  it.each([viaGet, viaPost])(
    'accepts a valid expression with success and a null result (%#)',
    async (call) => {
      const { status, body } = await call(
        'http.request.uri.path contains "/admin" and ip.src in {10.0.0.0/8}',
      )
      expect(status).toBe(200)
      expect(body).toEqual({ success: true, errors: [], messages: [], result: null })
    },
  )

  it.each([viaGet, viaPost])(
    "answers an invalid expression with the vendor's caret message (%#)",
    async (call) => {
      const { status, body } = await call('ip.src==34')
      expect(status).toBe(400)
      expect(body).toEqual({
        success: false,
        errors: [
          {
            message:
              "Filter parsing error:\n`ip.src==34`\n          ^^ couldn't parse address in network: invalid IP address syntax\n",
          },
        ],
        messages: null,
        result: null,
      })
    },
  )

  // As in the vendor's documented answer for `ip.src==34`, the carets start one column to the
  // right of the token's place in the quoted line.
  it('puts the carets under the unknown field', async () => {
    const { body } = await viaPost('http.hots eq "example.com"')
    expect(body.success).toBe(false)
    const [, quoted, carets] = body.errors[0].message.split('\n')
    expect(quoted).toBe('`http.hots eq "example.com"`')
    expect(carets).toMatch(/^ {2}\^{9} unknown identifier/)
  })

  it('refuses a request without an expression with 400', async () => {
    expect((await running.call('/filters/validate-expr')).status).toBe(400)
    expect(
      (await running.call('/filters/validate-expr', { method: 'POST', json: {} })).status,
    ).toBe(400)
  })
})
