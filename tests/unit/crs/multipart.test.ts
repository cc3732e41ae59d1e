// The multipart/form-data parser (src-main/engine/crs/multipart.ts) against ModSecurity 2.9.7
// (Debian, with CRS 3.3.4): each case's ARGS_POST, FILES, MULTIPART_PART_HEADERS and REQBODY_ERROR
// are what the reference logged for the same request (the probes of the differential fuzz,
// /tmp/fuzz/p3.py, and further probes of msc_multipart.c's subtler rules). Where the reference
// answered 500 without running phase 2 (multipart_complete() failing: no boundary at all, or no
// final boundary), the parser must report an error. A property checks it never throws.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { multipartBoundary, parseMultipart } from '../../../src-main/engine/crs/multipart'

const CT = 'multipart/form-data; boundary=XyZ'
const X = '<script>alert(1)</script>'
const END = '--XyZ--\r\n'
const part = (name: string, value: string, extra = '') =>
  `--XyZ\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n\r\n${value}\r\n`
const withDisposition = (disposition: string) =>
  `--XyZ\r\nContent-Disposition: ${disposition}\r\n\r\nv\r\n${END}`

interface Expected {
  args?: [string, string][]
  files?: [string, string][]
  /** the MULTIPART_PART_HEADERS lines, in order */
  headers?: string[]
  fileSizes?: number
  error?: boolean
}

function check(body: string, expected: Expected, contentType = CT) {
  const parsed = parseMultipart(body, contentType)
  expect(parsed.error).toBe(expected.error ?? false)
  expect(parsed.args).toEqual(expected.args ?? [])
  expect(parsed.files).toEqual(expected.files ?? [])
  if (expected.headers !== undefined)
    expect(parsed.partHeaders.map(([, line]) => line)).toEqual(expected.headers)
  expect(parsed.fileSizes).toBe(expected.fileSizes ?? 0)
}

const cdA = 'Content-Disposition: form-data; name="a"'

describe('multipart probes of the differential fuzz (p3.py)', () => {
  it('mp-ok: one field', () => {
    check(part('a', X) + END, { args: [['a', X]], headers: [cdA] })
  })
  it('mp-hdrnul: a NUL in part headers is an error; the part before stays in the headers', () => {
    check(part('a', X) + part('b\0', 'v') + END, { error: true, headers: [cdA] })
  })
  it('mp-charset: a parameter after the boundary belongs to it, and `;` is not allowed', () => {
    check(part('a', X) + END, { error: true }, `${CT}; charset=utf-8`)
  })
  it('mp-quotedb: a quoted boundary', () => {
    check(part('a', X) + END, { args: [['a', X]] }, 'multipart/form-data; boundary="XyZ"')
  })
  it("mp-quotedfn: a double-quoted name keeps `; filename='x.php'`", () => {
    check(part("a; filename='x.php'", 'hello') + END, {
      args: [["a; filename='x.php'", 'hello']],
    })
  })
  it('mp-escape: `\\\\` in a quoted name is one backslash', () => {
    check(part('a\\\\hello', 'hello') + END, { args: [['a\\hello', 'hello']] })
  })
  it('mp-unknown-param: parameters other than name and filename are errors', () => {
    check(part('a', X, '; foo=bar') + END, { error: true, headers: [] })
  })
  it('mp-filename-star: filename* is an unknown parameter', () => {
    check(part('a', X, "; filename*=UTF-8''x.php") + END, { error: true })
  })
  it('mp-cd-case: the disposition must be `form-data` in lower case', () => {
    check(`--XyZ\r\ncontent-disposition: Form-Data; name="a"\r\n\r\n${X}\r\n${END}`, {
      error: true,
    })
  })
  it('mp-cd-lower: the header name matches in any case', () => {
    check(`--XyZ\r\ncontent-disposition: form-data; name="a"\r\n\r\n${X}\r\n${END}`, {
      args: [['a', X]],
      headers: ['content-disposition: form-data; name="a"'],
    })
  })
  it('mp-noname: a part without a name is an error', () => {
    check(`--XyZ\r\nContent-Disposition: form-data\r\n\r\n${X}\r\n${END}`, { error: true })
  })
  it('mp-unquoted: an unquoted value ends at a non-token character, which is an error', () => {
    check(
      `--XyZ\r\nContent-Disposition: form-data; name=a<b; filename=x.php\r\n\r\n${X}\r\n${END}`,
      { error: true },
    )
  })
  it('mp-lf: LF line ends', () => {
    check(`--XyZ\nContent-Disposition: form-data; name="a"\n\n${X}\n--XyZ--\n`, {
      args: [['a', X]],
    })
  })
  it('mp-trailing-ws: anything after a boundary but its line break is an error', () => {
    check(`${part('a', X)}--XyZ  \r\n${part('b', 'x')}${END}`, { error: true })
  })
  it('mp-before-after: data before the first and after the last boundary is ignored', () => {
    check(`junk ${X}\r\n${part('a', 'x')}${END}after ${X}`, { args: [['a', 'x']] })
  })
  it('mp-final-nocrlf: a final boundary without its line break still completes', () => {
    check(`${part('a', X)}--XyZ--`, { args: [['a', X]] })
  })
  it('mp-dup-header: a repeated part header is an error', () => {
    check(`--XyZ\r\n${cdA}\r\nContent-Disposition: form-data; name="b"\r\n\r\n${X}\r\n${END}`, {
      error: true,
    })
  })
  it('mp-fold: a folded header joins its lines with a space', () => {
    check(`--XyZ\r\nContent-Disposition: form-data;\r\n name="a"\r\n\r\n${X}\r\n${END}`, {
      args: [['a', X]],
      headers: [cdA],
    })
  })
  it('mp-file-ct: a file part is a FILES entry, not an argument', () => {
    const body =
      '--XyZ\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n' +
      `Content-Type: text/plain; charset=utf-7\r\n\r\n${X}\r\n${END}`
    check(body, {
      files: [['f', 'a.txt']],
      headers: [
        'Content-Disposition: form-data; name="f"; filename="a.txt"',
        'Content-Type: text/plain; charset=utf-7',
      ],
      fileSizes: 25,
    })
  })
  it('mp-two-files: a file then a field', () => {
    const body =
      '--XyZ\r\nContent-Disposition: form-data; name="f"; filename="a;b.php"\r\n\r\nx\r\n' +
      part('a', X) +
      END
    check(body, { args: [['a', X]], files: [['f', 'a;b.php']], fileSizes: 1 })
  })
  it('mp-data-boundary-early: a boundary where data should begin is data', () => {
    check(`--XyZ\r\n${cdA}\r\n\r\n--XyZ\r\n${part('b', X)}${END}`, {
      args: [
        ['a', '--XyZ'],
        ['b', X],
      ],
    })
  })
  it('mp-space-boundary: `boundary = XyZ` makes " XyZ" the boundary, never found', () => {
    expect(multipartBoundary('multipart/form-data;boundary = XyZ')).toBe(' XyZ')
    check(part('a', X) + END, { error: true }, 'multipart/form-data;boundary = XyZ')
  })
  it('mp-nosemi: the semicolon before boundary may be missing', () => {
    check(part('a', X) + END, { args: [['a', X]] }, 'multipart/form-data boundary=XyZ')
  })
  it('mp-Boundary: the parameter name is case-sensitive', () => {
    check(part('a', X) + END, { error: true }, 'multipart/form-data; Boundary=XyZ')
  })
  it('mp-mixed: only multipart/form-data has a boundary (ModSecurity does not parse it)', () => {
    expect(multipartBoundary('multipart/mixed; boundary=XyZ')).toBeUndefined()
  })
  it('mp-longline: a value longer than the line buffer is whole', () => {
    check(part('a', 'a'.repeat(5000) + X) + END, { args: [['a', 'a'.repeat(5000) + X]] })
  })
  it('mp-sq-name: single quotes delimit a value, `"` inside it is kept', () => {
    check(`--XyZ\r\nContent-Disposition: form-data; name='a"b'\r\n\r\n${X}\r\n${END}`, {
      args: [['a"b', X]],
    })
  })
  it('mp-empty-val: an empty value', () => {
    check(part('a', '') + part('b', X) + END, {
      args: [
        ['a', ''],
        ['b', X],
      ],
    })
  })
})

describe('further probes of msc_multipart.c, against the reference', () => {
  it('a missing final boundary, or no boundary at all, is an error', () => {
    check(part('a', 'x'), { error: true })
    check('hello world\r\n', { error: true })
    // headers, the empty line, then the final boundary: taken as data, so no final boundary
    check(`--XyZ\r\n${cdA}\r\n\r\n${END}`, { error: true })
  })

  it('a boundary in quotes or after blanks is an error, one with other text is not a boundary', () => {
    const quoted = 'multipart/form-data; boundary="XyZ"'
    check(`${part('a', 'x')}--"XyZ"\r\n${END}`, { error: true }, quoted)
    check(`${part('a', 'x')}-- XyZ\r\n${END}`, { error: true })
    check(`--\tXyZ\r\n${part('a', 'x')}${END}`, { error: true })
    check(`${part('a', 'x')}--XyZ--x\r\n`, { error: true })
    check(part('a', '--\r\n---\r\n--X') + END, { args: [['a', '--\r\n---\r\n--X']] })
  })

  it('reads the Content-Disposition parameters as ModSecurity does', () => {
    check(withDisposition('form-data; name="a"; '), { error: true })
    check(withDisposition('form-data; name="a";'), { args: [['a', 'v']] })
    check(withDisposition('form-data ;name = a-b.c ; filename= f.txt'), {
      files: [['a-b.c', 'f.txt']],
      fileSizes: 1,
    })
    check(withDisposition(`form-data; name="a\\"b\\x\\\\c"; filename='q\\'r\\"s'`), {
      files: [['a"b\\x\\c', `q'r\\"s`]],
      fileSizes: 1,
    })
    // `filename ="x"` parses, but the header lacks the literal `filename=`
    check(withDisposition('form-data; name="a"; filename ="x"'), { error: true })
    check(withDisposition('form-data; name="a"; name="b"'), { error: true })
    check(withDisposition('form-dataX; name="a"'), { error: true })
    check(withDisposition('form-data; name="a'), { error: true })
  })

  it('reads part headers as ModSecurity does', () => {
    check(
      `--XyZ\r\nContent-Disposition: form-data;\r\n\tname="a"\r\nX-A: 1\r\n \r\n\r\nv\r\n${END}`,
      {
        args: [['a', 'v']],
        headers: [cdA, 'X-A: 1 '],
      },
    )
    check(`--XyZ\r\nContent-Disposition: form-data;\r\n\vname="a"\r\n\r\nv\r\n${END}`, {
      args: [['a', 'v']],
    })
    check(`--XyZ\r\n name="a"\r\n${cdA}\r\n\r\nv\r\n${END}`, { error: true })
    check(`--XyZ\r\nCONTENT-DISPOSITION: form-data; name="a"\r\n\r\nv\r\n${END}`, {
      args: [['a', 'v']],
    })
    check(`--XyZ\r\nContent-Disposition : form-data; name="a"\r\n\r\nv\r\n${END}`, { error: true })
    check(`--XyZ\r\n: x\r\n${cdA}\r\n\r\nv\r\n${END}`, { error: true })
  })

  it('limits part header lines and folded values to the 4096-byte buffer', () => {
    const withHeader = (line: string) => `--XyZ\r\n${cdA}\r\n${line}\r\n\r\nv\r\n${END}`
    // 4095 bytes with the line break fit the buffer, 4096 do not
    check(withHeader(`X-L: ${'h'.repeat(4095 - 7)}`), { args: [['a', 'v']] })
    check(withHeader(`X-L: ${'h'.repeat(4096 - 7)}`), { error: true })
    check(withHeader(`X-A: ${'a'.repeat(3000)}\r\n ${'b'.repeat(1500)}`), { error: true })
  })

  it('cuts long lines as the 4096-byte buffer does: only a piece starting a line is a boundary', () => {
    // 4095 bytes then `\r`: the `\r` is never the buffer's last byte
    check(part('a', 'a'.repeat(4095)) + part('b', 'y') + END, {
      args: [
        ['a', 'a'.repeat(4095)],
        ['b', 'y'],
      ],
    })
    check(part('a', `${'a'.repeat(4096)}--XyZ--`), { error: true })
    check(part('a', `${'a'.repeat(4096)}--XyZ\r\nv`) + END, {
      args: [['a', `${'a'.repeat(4096)}--XyZ\r\nv`]],
    })
  })

  it('keeps data bytes as they are, holding back only the line break before a boundary', () => {
    check(part('a', 'x\0y\r\nz\n') + END, { args: [['a', 'x\0y\r\nz\n']] })
    check('--XyZ\nContent-Disposition: form-data; name="a"\r\n\nl1\rl2\n\r\n--XyZ--\n', {
      args: [['a', 'l1\rl2\n']],
    })
    check(part('\xe9\xff', '\xe9\x80') + END, { args: [['\xe9\xff', '\xe9\x80']] })
    // a line shorter than 4 bytes up to a NUL is no boundary
    check(
      '--a\r\nContent-Disposition: form-data; name="x"\r\n\r\nv\r\n--a\0\r\n--a--\r\n',
      { args: [['x', 'v\r\n--a\0']] },
      'multipart/form-data; boundary=a',
    )
  })

  it('ends at the final boundary, where a part still in its headers is dropped', () => {
    check(part('a', 'x') + END + part('b', 'y') + END + END, { args: [['a', 'x']] })
    // the final boundary without line break, in a part's headers: that part is dropped
    check(`${part('a', 'x')}--XyZ\r\n${cdA}\r\n--XyZ--`, { args: [['a', 'x']] })
    // with its line break it is read as a header line, without a colon
    check(`${part('a', 'x')}--XyZ\r\n${cdA}\r\n--XyZ--\r\n`, { error: true, headers: [cdA] })
    check(part('a', '1') + part('a', '2') + END, {
      args: [
        ['a', '1'],
        ['a', '2'],
      ],
    })
  })

  it('keeps the files finished before an error, but no argument', () => {
    const body =
      '--XyZ\r\nContent-Disposition: form-data; name="f"; filename="a.php"\r\n\r\nabc\r\n' +
      part('a', 'x') +
      `--XyZ\r\nbad header\r\n\r\n${END}`
    check(body, { error: true, files: [['f', 'a.php']], fileSizes: 3 })
    const file =
      '--XyZ\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n' +
      'Content-Type: text/plain\r\n\r\nl1\r\nl2\nl3\r\n'
    check(file + part('a', 'x') + END, {
      args: [['a', 'x']],
      files: [['f', 'a.txt']],
      fileSizes: 9,
    })
  })
})

describe('multipartBoundary (multipart_init)', () => {
  it.each([
    ['multipart/form-data; boundary=XyZ', 'XyZ'],
    ['MULTIPART/FORM-DATA; boundary=XyZ', 'XyZ'],
    ['multipart/form-data; boundary="XyZ"', 'XyZ'],
    ['multipart/form-data; boundary=X yZ', 'X yZ'],
    ['multipart/form-data; boundary=XyZ; boundary=abc', undefined],
    ['multipart/form-data; charset=utf-8; boundary=XyZ', undefined],
    ['multipart/form-data;; boundary=XyZ', undefined],
    ['multipart/form-data; boundaryx=XyZ', undefined],
    ['multipart/form-data; boundary="XyZ', undefined],
    ['multipart/form-data; boundary=XyZ"', undefined],
    ['multipart/form-data; boundary=', undefined],
    ['multipart/form-data; boundary=XyZ ', undefined],
    ['multipart/form-data; boundary=a=boundary=', undefined],
    [`multipart/form-data; boundary=${'x'.repeat(1000)}`, undefined],
  ])('%s', (contentType, boundary) => {
    expect(multipartBoundary(contentType)).toBe(boundary)
  })
  // references: ct-upper, ct-space-inside accepted; ct-two, ct-charset-first, ct-twosemi,
  // ct-name-junk, ct-halfquote, ct-empty refused (REQBODY_ERROR from multipart_init)
  it('refuses bodies with a refused boundary', () => {
    for (const contentType of [
      'multipart/form-data; boundary=XyZ; boundary=abc',
      'multipart/form-data;; boundary=XyZ',
    ])
      check(part('a', 'x') + END, { error: true }, contentType)
    check(part('a', 'x') + END, { args: [['a', 'x']] }, 'MULTIPART/FORM-DATA; boundary=XyZ')
  })
})

describe('any body', () => {
  it('is parsed without throwing, its values taken from the body', () => {
    const pieces = fc.constantFrom(
      '--XyZ\r\n',
      '--XyZ--',
      '--XyZ--\r\n',
      '\r\n',
      '\n',
      '\r',
      '\0',
      ' ',
      `${cdA}\r\n`,
      'Content-Disposition: form-data; name=b; filename="f"\r\n',
      'X: y\r\n',
      '-- XyZ',
      '"',
      '\\',
      ';',
      'a'.repeat(4094),
    )
    const bytes = fc
      .array(fc.integer({ min: 0, max: 255 }), { maxLength: 8 })
      .map((codes) => String.fromCharCode(...codes))
    const bodies = fc
      .array(fc.oneof(pieces, bytes), { maxLength: 16 })
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(
        bodies,
        fc.constantFrom(CT, 'multipart/form-data; boundary="XyZ"'),
        (body, ct) => {
          const parsed = parseMultipart(body, ct)
          if (parsed.error) expect(parsed.args).toEqual([])
          for (const [, value] of parsed.args) expect(body.includes(value)).toBe(true)
          expect(parsed.fileSizes).toBeLessThanOrEqual(body.length)
        },
      ),
      { numRuns: 300 },
    )
  })
})
