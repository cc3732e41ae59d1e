// The app's addresses: a screen alone, or a zone screen with its zone and step; anything else
// names no screen (the Not found screen), never Zones in its place.

import { describe, expect, it } from 'vitest'
import { parseRoute, routeHref } from '../../../src-renderer/src/lib/route'

describe('parseRoute', () => {
  it('reads a screen alone, and an empty address as Zones', () => {
    expect(parseRoute('')).toEqual({ screen: 'zones', zoneId: null, step: null })
    expect(parseRoute('#/')).toEqual({ screen: 'zones', zoneId: null, step: null })
    expect(parseRoute('#/simulator')).toEqual({ screen: 'simulator', zoneId: null, step: null })
  })

  it("reads a zone screen's zone and step", () => {
    expect(parseRoute('#/zones/abc/managed-rules')).toEqual({
      screen: 'managed-rules',
      zoneId: 'abc',
      step: null,
    })
    expect(parseRoute('#/zones/abc/migration/review')).toEqual({
      screen: 'migration',
      zoneId: 'abc',
      step: 'review',
    })
  })

  it('names no screen for an unknown or malformed address', () => {
    for (const hash of [
      '#/nowhere',
      '#/simulator/extra',
      '#/zones/abc',
      '#/zones/abc/zones',
      '#/zones/abc/nowhere',
      '#/zones/abc/migration/review/more',
      '#/zones/%E0%A4%A/simulator',
    ]) {
      expect(parseRoute(hash).screen, hash).toBeNull()
    }
  })

  it('reads back what routeHref writes', () => {
    const href = routeHref('migration', 'a/b c', 'review')
    expect(href).toBe('#/zones/a%2Fb%20c/migration/review')
    expect(parseRoute(href)).toEqual({ screen: 'migration', zoneId: 'a/b c', step: 'review' })
    expect(routeHref('settings')).toBe('#/settings')
  })
})
