// Records as CSV (RFC 4180): a header row, fields with commas, quotes or line breaks quoted.

import { describe, expect, it } from 'vitest'
import { toCsv } from '../../../src-renderer/src/lib/csv'

describe('toCsv', () => {
  it('writes a header and a row per record, quoting what needs it and leaving null empty', () => {
    const records = [
      { path: '/a,b', note: 'say "hi"', count: 2, country: null },
      { path: '/plain', note: 'two\nlines', count: 0, country: 'FR' },
    ]
    expect(toCsv(records, ['path', 'note', 'count', 'country'])).toBe(
      'path,note,count,country\r\n"/a,b","say ""hi""",2,\r\n/plain,"two\nlines",0,FR\r\n',
    )
  })
})
