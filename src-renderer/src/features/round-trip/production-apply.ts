// Reading an apply's NDJSON answer (POST …/remote/apply?stream=true): one progress line per call,
// then the envelope, whose result says what became of every call even when the remote refused one.

import type { Envelope } from '@shared/api/envelope'
import type { RemoteApplyResult } from '@shared/api/remote'

/** The envelope that ends an apply's stream. */
export function applyEnvelope(text: string): Envelope<RemoteApplyResult> {
  const last = text.trimEnd().split('\n').at(-1) ?? ''
  const envelope = JSON.parse(last) as Envelope<RemoteApplyResult> | { progress: unknown }
  if (!('success' in envelope)) throw new Error('The apply ended before its answer')
  return envelope
}
