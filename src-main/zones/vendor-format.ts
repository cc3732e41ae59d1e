// How the vendor's API writes identifiers and times, for everything the zones layer creates.

import { randomBytes } from 'node:crypto'

/** The vendor's timestamps: RFC 3339 UTC with microseconds. */
export function vendorTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z')
}

/** Ids are 32 lowercase hexadecimal characters. */
export const newVendorId = (): string => randomBytes(16).toString('hex')
