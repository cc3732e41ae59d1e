// SHA-256 and HMAC-SHA256 over binary strings, synchronous (WebCrypto is async, the expression
// evaluator is synchronous, and node:crypto is not in the renderer): @noble/hashes, audited and
// pure, computes them. Used by sha256() and is_timed_hmac_valid_v0().

import { hmac } from '@noble/hashes/hmac.js'
import { sha256 as sha256Digest } from '@noble/hashes/sha2.js'
import { fromUint8Array, toUint8Array } from './bytes'

/** SHA-256 digest (32 bytes) of a binary string, as a binary string. */
export function sha256(message: string): string {
  return fromUint8Array(sha256Digest(toUint8Array(message)))
}

/** HMAC-SHA256 (RFC 2104) of a binary string under a binary-string key, as a binary string. */
export function hmacSha256(key: string, message: string): string {
  return fromUint8Array(hmac(sha256Digest, toUint8Array(key), toUint8Array(message)))
}
