import { describe, expect, it } from 'vitest'
import type { ReplayInputSummary } from '@shared/api/simulate'
import { inputRead } from '../../../src-renderer/src/lib/job-progress'

const read = (summary: Partial<ReplayInputSummary>): string =>
  inputRead({
    format: 'requests',
    format_detected: true,
    gzip: false,
    bytes: 0,
    skipped: 0,
    lacked_fields: [],
    threads: 1,
    ...summary,
  })

describe('how a job read its input', () => {
  it('names each format as people call it, then gzip and the lines skipped', () => {
    expect(read({})).toBe('NDJSON request descriptions')
    expect(read({ format: 'logpush', gzip: true })).toBe('Logpush http_requests, gzip')
    expect(read({ format: 'combined', skipped: 1250 })).toBe(
      'access log, combined format, 1,250 lines skipped',
    )
    expect(read({ format: 'har' })).toBe('HAR')
  })
})
