// A form's own check (lib/form-check.svelte.ts), on a form's $state as a screen's: nothing is said
// before a press; a press answers the first field that cannot be sent and shows a sentence at each
// such field, as the API's refusals are shown; a sentence goes as soon as its field is put right,
// and once the form may be sent, all wait for the next press.

import { describe, expect, it } from 'vitest'
import { FormCheck } from '../../../src-renderer/src/lib/form-check.svelte'

describe('FormCheck', () => {
  it('says what to do at each field once pressed, until the field is right or the form sent', () => {
    const form = $state({ name: '', quota: -1 })
    const check = new FormCheck(() => ({
      name: form.name === '' ? 'Enter the name.' : undefined,
      quota: form.quota < 0 ? 'Enter 0 or more.' : undefined,
    }))
    expect(check.errors).toEqual({})

    expect(check.press()).toBe('name')
    expect(check.errors).toEqual({
      name: [{ code: 0, message: 'Enter the name.' }],
      quota: [{ code: 0, message: 'Enter 0 or more.' }],
    })

    form.name = 'shop.example'
    expect(check.errors).toEqual({ quota: [{ code: 0, message: 'Enter 0 or more.' }] })
    expect(check.press()).toBe('quota')

    form.quota = 3
    expect(check.press()).toBeUndefined()
    expect(check.errors).toEqual({})

    // The form sent is emptied: nothing is said until the next press.
    form.name = ''
    expect(check.errors).toEqual({})
    expect(check.press()).toBe('name')
  })
})
