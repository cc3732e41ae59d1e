// The Host a description's URL names: the OWASP ruleset sees it as a Host header when the
// description's headers leave it out (the simulator's requests), so CRS's 920280 ("missing Host
// header") fires only on a request that really lacks one.
import { describe, expect, it } from 'vitest'
import { requestContext } from '@shared/expression'
import { crsRequestOf } from '../../../src-main/engine/crs/request'

const hostOf = (description: Parameters<typeof requestContext>[0]) =>
  crsRequestOf(requestContext(description)).headers.find(([name]) => name.toLowerCase() === 'host')

describe('the Host the OWASP ruleset sees', () => {
  it('is the URL’s host when the headers name none', () => {
    expect(hostOf({ method: 'GET', url: 'https://example.com/a?b=1' })).toEqual([
      'Host',
      'example.com',
    ])
  })

  it('is the header itself when the headers name one', () => {
    expect(
      hostOf({ method: 'GET', url: 'https://example.com/a', headers: { host: 'other.example' } }),
    ).toEqual(['host', 'other.example'])
  })

  it('is absent from an origin-form request without a Host header', () => {
    expect(hostOf({ method: 'GET', url: '/a' })).toBeUndefined()
  })
})
