// The read cache takes in a value read from SQLite the second time its key is read.
import { describe, expect, it } from 'vitest'
import { ReadCache } from '../../../src-main/storage/read-cache'

describe('ReadCache.admitRead', () => {
  it('admits a key read before, not one read for the first time', () => {
    const cache = new ReadCache(1024)
    expect(cache.admitRead('a')).toBe(false)
    expect(cache.admitRead('b')).toBe(false)
    expect(cache.admitRead('a')).toBe(true)
    expect(cache.admitRead('a')).toBe(true)
  })

  it('forgets the keys read once after many others', () => {
    const cache = new ReadCache(1024)
    expect(cache.admitRead('early')).toBe(false)
    let admittedOthers = 0
    for (let i = 0; i < 100_000; i++) if (cache.admitRead(`other-${i}`)) admittedOthers++
    expect(cache.admitRead('early')).toBe(false)
    // A key sharing a hash with one read before is admitted early; few are.
    expect(admittedOthers).toBeLessThan(10_000)
  })
})
