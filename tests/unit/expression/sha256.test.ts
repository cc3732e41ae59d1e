// The expression's SHA-256 and HMAC-SHA256 (on @noble/hashes) give node:crypto's digests for any
// binary string, keys longer than a block included.

import fc from 'fast-check'
import { createHash, createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { hmacSha256, sha256 } from '@shared/expression/values/sha256'

const binary = (maxLength: number) =>
  fc
    .uint8Array({ maxLength })
    .map((bytes) => ({ bytes: Buffer.from(bytes), text: Buffer.from(bytes).toString('latin1') }))

describe('sha256 over binary strings', () => {
  it('is the SHA-256 digest of the bytes, as a binary string', () => {
    expect(sha256('')).toBe(createHash('sha256').digest().toString('latin1'))
    fc.assert(
      fc.property(binary(300), ({ bytes, text }) => {
        expect(sha256(text)).toBe(createHash('sha256').update(bytes).digest().toString('latin1'))
      }),
    )
  })

  it('keeps only the low byte of each code unit', () => {
    expect(sha256('\u0141')).toBe(sha256('\u0041'))
  })

  it('computes HMAC-SHA256 under short and long keys', () => {
    fc.assert(
      fc.property(binary(150), binary(200), (key, message) => {
        expect(hmacSha256(key.text, message.text)).toBe(
          createHmac('sha256', key.bytes).update(message.bytes).digest().toString('latin1'),
        )
      }),
    )
  })
})
