// A saved sample keeps the request description; opening it gives back fields that compose the
// same request, whatever the body's mode.

import { describe, expect, it } from 'vitest'
import {
  buildRequest,
  requestFields,
  type DraftFields,
} from '../../../src-renderer/src/lib/request-fields'

const FIELDS: DraftFields = {
  method: 'POST',
  url: 'https://blog.example.org/wp-login.php',
  headers: [
    { name: 'accept', value: 'a' },
    { name: 'accept', value: 'b' },
  ],
  bodyMode: 'form',
  formRows: [
    { name: 'log', value: 'CF_EXPOSED_USERNAME' },
    { name: 'pwd', value: 'p&w d' },
  ],
  json: '{"a":1}',
  raw: 'x=1',
  ip: '203.0.113.7',
  country: 'DE',
  botScore: 12,
  threatScore: 40,
}

describe('requestFields', () => {
  it.each(['form', 'json', 'raw', 'none'] as const)(
    'gives back fields that compose the same request (%s body)',
    (bodyMode) => {
      const request = buildRequest({ ...FIELDS, bodyMode })
      const fields = requestFields(request)
      expect(fields.bodyMode).toBe(bodyMode)
      expect(buildRequest(fields)).toEqual(request)
    },
  )

  it('reads a form body back into its rows, without the content type it states', () => {
    const fields = requestFields(buildRequest(FIELDS))
    expect(fields.formRows).toEqual(FIELDS.formRows)
    expect(fields.headers).toEqual(FIELDS.headers)
  })
})
