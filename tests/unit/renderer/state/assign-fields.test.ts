// assignFields sets a state class's `$state` fields from a record of the same names, through
// their setters, as copies: editing the state afterwards leaves the record as it was.

import { describe, expect, it } from 'vitest'
import { assignFields } from '../../../../src-renderer/src/lib/state/assign-fields.svelte'
import { RequestDraft } from '../../../../src-renderer/src/lib/state/request-draft.svelte'

describe('assignFields', () => {
  it('sets the named fields only, as copies of the record', () => {
    const draft = new RequestDraft()
    const headers = [{ name: 'x-test', value: '1' }]
    assignFields(draft, { url: 'https://shop.example/login', headers })
    expect(draft.url).toBe('https://shop.example/login')
    expect(draft.method).toBe('GET')
    expect(draft.headers).toEqual(headers)

    draft.headers[0]!.value = '2'
    expect(headers[0]!.value).toBe('1')
    expect(draft.fields().headers[0]!.value).toBe('2')
  })
})
