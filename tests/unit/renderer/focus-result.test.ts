// The record that takes a deleted one's place, where focus goes after a delete (lib/focus-result.ts).

import { describe, expect, it } from 'vitest'
import { recordAfterRemoval } from '../../../src-renderer/src/lib/focus-result'

describe('recordAfterRemoval', () => {
  it("is the record now at the removed one's index, else the last, else none", () => {
    // a, b, c with b removed leaves a, c: c took b's place
    expect(recordAfterRemoval(['a', 'c'], 1)).toBe('c')
    // a, b, c with c removed leaves a, b: there is no next, so the new last
    expect(recordAfterRemoval(['a', 'b'], 2)).toBe('b')
    expect(recordAfterRemoval([], 0)).toBeUndefined()
  })
})
