// multipart/form-data bodies as ModSecurity 2.9.7 reads them (apache2/msc_multipart.c, with
// modsecurity_request_body_end() of msc_reqbody.c deciding what becomes ARGS), so the rules see
// the same ARGS, FILES and MULTIPART_PART_HEADERS. Bodies are binary strings: one char per byte.
//
// ModSecurity reads the body one line at a time into a buffer of MULTIPART_BUF_SIZE bytes: a line
// that does not fit is handed on in pieces, and only a piece that starts a line can be a boundary.
// The first error stops the parsing for good: the parts finished before it stay (FILES and
// MULTIPART_PART_HEADERS read them), but no part becomes an argument.

// tolower() of the C locale: ASCII letters only (a byte above 0x7f stays as it is).
import { asciiLower } from '@shared/expression'
import type { Entry } from './request'
import { cString } from './transformations'

/** What a multipart body holds, as ModSecurity's parser leaves it. */
export interface Multipart {
  /** the form fields (ARGS_POST), none at all after an error */
  args: Entry[]
  /** FILES: part name → file name */
  files: Entry[]
  /** MULTIPART_PART_HEADERS: part name → each header line */
  partHeaders: Entry[]
  /** the sizes of the files' contents (FILES_COMBINED_SIZE) */
  fileSizes: number
  error: boolean
}

/** MULTIPART_BUF_SIZE of msc_multipart.h */
const BUFFER_SIZE = 4096

/** The characters C's isspace() accepts (the C locale). */
const isCSpace = (c: string | undefined) =>
  c === ' ' || c === '\t' || c === '\n' || c === '\v' || c === '\f' || c === '\r'

/** remove_lf_crlf_inplace() of msc_util.c: one trailing `\n` or `\r\n` goes. */
const withoutLineBreak = (line: string) =>
  line.endsWith('\r\n') ? line.slice(0, -2) : line.endsWith('\n') ? line.slice(0, -1) : line

// ---- The boundary (multipart_init) ----

interface Boundary {
  text: string
  /** given in quotes in the Content-Type (for the "Invalid boundary (quotes)" check) */
  quoted: boolean
}

/**
 * multipart_count_boundary_params(): how many times "boundary", in any case, occurs with an `=`
 * anywhere after it.
 */
function boundaryParameterCount(text: string): number {
  const lower = asciiLower(text)
  let count = 0
  for (let at = lower.indexOf('boundary'); at >= 0; at = lower.indexOf('boundary', at + 8))
    if (lower.includes('=', at + 8)) count++
  return count
}

/** multipart_boundary_characters_valid(): RFC 2046's set, where a space may not come last. */
function boundaryCharactersValid(boundary: string): boolean {
  return /^[0-9A-Za-z'()+_,\-./:=? ]*$/.test(boundary) && !boundary.endsWith(' ')
}

/** multipart_init(): the boundary of a Content-Type, or undefined where ModSecurity refuses it. */
function readBoundary(contentType: string): Boundary | undefined {
  const type = cString(contentType)
  if (type.length > 1024) return undefined
  if (asciiLower(type.slice(0, 19)) !== 'multipart/form-data') return undefined
  // Two "boundary…=" anywhere, in any case, are refused ...
  if (boundaryParameterCount(type) > 1) return undefined
  // ... and the parameter itself is found case-sensitively: `Boundary=` alone fails.
  const at = type.indexOf('boundary')
  if (at < 0) return undefined
  // Between the MIME type and "boundary": spaces and at most one `;`.
  let semicolon = false
  for (const c of type.slice(19, at)) {
    if (isCSpace(c)) continue
    if (c !== ';' || semicolon) return undefined
    semicolon = true
  }
  // The first `=` after the name, with only spaces before it (`boundary = x` is accepted, and
  // the value then starts with the space: everything after the `=` is the boundary).
  const equals = type.indexOf('=', at + 8)
  if (equals < 0) return undefined
  if (![...type.slice(at + 8, equals)].every(isCSpace)) return undefined
  const value = type.slice(equals + 1)
  let boundary: Boundary
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
    boundary = { text: value.slice(1, -1), quoted: true }
  else if (value.startsWith('"') || (value.length >= 2 && value.endsWith('"'))) return undefined
  else boundary = { text: value, quoted: false }
  // Whatever follows (`; charset=…`) is part of the value, so fails the character check.
  if (boundaryParameterCount(boundary.text) !== 0) return undefined
  if (!boundaryCharactersValid(boundary.text) || boundary.text === '') return undefined
  return boundary
}

/** The boundary ModSecurity's multipart_init() takes from a Content-Type, if it accepts it. */
export function multipartBoundary(contentType: string): string | undefined {
  return readBoundary(contentType)?.text
}

// ---- Content-Disposition (multipart_parse_content_disposition) ----

/** is_token_char() of msc_util.c: a printable ASCII character other than the separators. */
const isTokenChar = (c: string) => c > ' ' && c < '\x7f' && !'()<>@,;:\\"/[]?='.includes(c)

interface Disposition {
  name?: string
  filename?: string
}

/**
 * multipart_parse_content_disposition(): `form-data` (case-sensitive), then `; key=value` pairs
 * where the only keys are `name` and `filename`, each at most once. A value is a token, or quoted
 * in `"` or `'` with `\` escaping only the quote and `\` itself. Undefined where ModSecurity
 * refuses the header.
 */
function parseDisposition(header: string): Disposition | undefined {
  if (!header.startsWith('form-data')) return undefined
  const result: Disposition = {}
  let p = 9
  const skipBlanks = () => {
    while (header[p] === ' ' || header[p] === '\t') p++
  }
  const atEnd = () => p >= header.length
  skipBlanks()
  if (atEnd()) return result
  if (header[p] !== ';') return undefined
  p++
  while (!atEnd()) {
    // `form-data; name="a"; ` fails: a `;` must be followed by a parameter, blanks alone will not do.
    skipBlanks()
    if (atEnd()) return undefined
    const keyStart = p
    while (!atEnd() && header[p] !== '=' && header[p] !== ' ' && header[p] !== '\t') p++
    if (atEnd()) return undefined
    const key = header.slice(keyStart, p)
    skipBlanks()
    if (header[p] !== '=') return undefined
    p++
    skipBlanks()
    if (atEnd()) return undefined
    let value = ''
    const quote = header[p]
    if (quote === '"' || quote === "'") {
      p++
      for (;;) {
        if (atEnd()) return undefined // no closing quote
        const c = header[p]
        if (c === quote) break
        if (c === '\\') {
          if (p + 1 >= header.length) return undefined
          // Only the quote and the backslash are escaped; any other `\` stays (IE sends them).
          if (header[p + 1] === quote || header[p + 1] === '\\') p++
        }
        value += header[p]
        p++
      }
      p++
    } else {
      const valueStart = p
      while (!atEnd() && isTokenChar(header[p]!)) p++
      value = header.slice(valueStart, p)
    }
    if (key === 'name' || key === 'filename') {
      if (result[key] !== undefined) return undefined
      result[key] = value
    } else return undefined
    // After a value: the end, or blanks then `;` (so `name=a<b` fails on the `<`).
    skipBlanks()
    if (atEnd()) return result
    if (header[p] !== ';') return undefined
    p++
  }
  return result
}

// ---- The body (multipart_process_chunk and multipart_complete) ----

/** Ends the parsing with an error (a negative return of ModSecurity's functions). */
class MultipartError extends Error {}

interface Part {
  /** set when the part's headers are complete: only a named part is kept */
  name?: string
  filename?: string
  /** header values by lower-case name (an APR table matches names in any case) */
  headers: Map<string, string>
  /** the name, as written, of the header a folded line continues */
  lastHeaderName?: string
  /** the header line being read, recorded once the next one starts */
  lastHeaderLine?: string
  headerLines: string[]
  readingData: boolean
  /** mpp_substate_part_data_read: part data has begun */
  dataSeen: boolean
  value: string
}

const newPart = (): Part => ({
  headers: new Map(),
  headerLines: [],
  readingData: false,
  dataSeen: false,
  value: '',
})

class MultipartReader {
  readonly parts: Part[] = []
  private part: Part | undefined
  private boundaryCount = 0
  complete = false
  /** the line break held back from the part data, dropped if a boundary follows */
  private reserve = ''

  constructor(private readonly boundary: Boundary) {}

  /**
   * One piece of the body as it fills the buffer: a line with its `\n`, or the part of a longer
   * line that fits. `startsLine`: the piece before it ended with `\n` (buf_contains_line).
   */
  piece(piece: string, startsLine: boolean): void {
    if (startsLine && this.boundaryLine(piece)) return
    const part = this.part
    // Data before the first boundary is ignored.
    if (part === undefined) return
    if (part.readingData) this.data(part, piece)
    else {
      // Part header lines must fit the buffer, their `\n` included.
      if (piece.length === BUFFER_SIZE || !piece.endsWith('\n')) throw new MultipartError()
      this.header(part, piece)
    }
  }

  /** Whether the piece was a boundary line (throwing on a malformed one). */
  private boundaryLine(piece: string): boolean {
    const boundary = this.boundary.text
    // strlen(): the line as the C code sees it ends at a NUL.
    if (cString(piece).length <= 3 || !piece.startsWith('--')) return false
    if (!piece.startsWith(boundary, 2)) {
      // Near misses are errors: the boundary in quotes, or after blanks.
      if (this.boundary.quoted && piece[2] === '"' && piece.startsWith(boundary, 3))
        throw new MultipartError()
      let p = 2
      while (isCSpace(piece[p])) p++
      if (p > 2 && piece.startsWith(boundary, p)) throw new MultipartError()
      return false
    }
    // A boundary where the part's data should begin is taken as data (multipart_process_chunk:
    // "data contains boundary"), or as a header line while the headers are still being read.
    if (this.boundaryCount > 0 && this.part?.dataSeen === false) return false
    let rest = piece.slice(2 + boundary.length)
    const final = rest.startsWith('--')
    if (final) rest = rest.slice(2)
    // Nothing may follow but the line break: `--b  \r\n` or `--bx` is an error.
    if (rest !== '\r\n' && rest !== '\n') throw new MultipartError()
    // (ModSecurity's "final duplicate" check cannot fire: nothing is read after the final one.)
    this.endPart(final)
    this.boundaryCount++
    return true
  }

  /** multipart_process_boundary(): keeps the part read so far if named, starts the next one. */
  endPart(final: boolean): void {
    // A part still in its headers has no name: it is dropped silently (flag_invalid_part).
    if (this.part?.name !== undefined) this.parts.push(this.part)
    this.part = final ? undefined : newPart()
    this.reserve = ''
    if (final) this.complete = true
  }

  /** multipart_process_part_header(): one header line, ending with `\n`. */
  private header(part: Part, line: string): void {
    if (line.includes('\0')) throw new MultipartError()
    if (line === '\r\n' || line === '\n') {
      this.endHeaders(part)
      return
    }
    if (isCSpace(line[0])) {
      // Folding (any C whitespace, not only SP and HTAB): continues the last header's value.
      if (part.lastHeaderName === undefined) throw new MultipartError()
      let p = 0
      while (isCSpace(line[p])) p++
      const key = asciiLower(part.lastHeaderName)
      const value = `${part.headers.get(key) ?? ''} ${withoutLineBreak(line.slice(p))}`
      part.headers.set(key, value)
      if (value.length > BUFFER_SIZE) throw new MultipartError()
      part.lastHeaderLine = `${part.lastHeaderName}: ${value}`
      return
    }
    if (part.lastHeaderLine !== undefined) part.headerLines.push(part.lastHeaderLine)
    part.lastHeaderLine = withoutLineBreak(line)
    const colon = line.indexOf(':')
    // The name is everything before the colon, as written (`Name : v` names "Name ").
    if (colon <= 0) throw new MultipartError()
    const name = line.slice(0, colon)
    let p = colon + 1
    while (line[p] === ' ' || line[p] === '\t') p++
    const key = asciiLower(name)
    if (part.headers.has(key)) throw new MultipartError() // a repeated header
    part.headers.set(key, withoutLineBreak(line.slice(p)))
    part.lastHeaderName = name
  }

  /** The empty line after a part's headers (multipart_process_part_header). */
  private endHeaders(part: Part): void {
    const header = part.headers.get('content-disposition')
    if (header === undefined) throw new MultipartError()
    const disposition = parseDisposition(header)
    if (disposition?.name === undefined) throw new MultipartError()
    // A filename must be written `filename=` literally, for parsers that look for just that.
    if (disposition.filename !== undefined && !header.includes('filename='))
      throw new MultipartError()
    part.name = disposition.name
    part.filename = disposition.filename
    part.readingData = true
    part.dataSeen = false
    part.lastHeaderName = undefined
    if (part.lastHeaderLine !== undefined) part.headerLines.push(part.lastHeaderLine)
  }

  /**
   * multipart_process_part_data(): a piece's trailing `\n` or `\r\n` is held back and only added
   * when more data follows, so the line break before a boundary is not part of the value.
   */
  private data(part: Part, piece: string): void {
    part.dataSeen = true
    const lineBreak = piece.endsWith('\r\n') ? '\r\n' : piece.endsWith('\n') ? '\n' : ''
    part.value += this.reserve + piece.slice(0, piece.length - lineBreak.length)
    this.reserve = lineBreak
  }

  /**
   * multipart_complete(): a body that ends without the final boundary's line break still ends
   * well when the buffer holds exactly `--boundary--`; otherwise a body without its final
   * boundary is an error.
   */
  finish(rest: string, startsLine: boolean): void {
    if (this.complete) return
    if (this.boundaryCount === 0) throw new MultipartError()
    if (!startsLine || rest !== `--${this.boundary.text}--`) throw new MultipartError()
    this.endPart(true)
  }
}

/**
 * The body cut as ModSecurity's buffer takes it: each piece is a line with its `\n`, or the
 * first BUFFER_SIZE bytes of a longer line (BUFFER_SIZE - 1 where the next byte is `\r`, which is
 * never the buffer's last byte). What is left at the end, without a `\n`, is `rest`.
 */
function* bufferPieces(body: string): Generator<string, string> {
  let at = 0
  for (;;) {
    const newline = body.indexOf('\n', at)
    let end: number
    if (newline >= 0 && newline - at < BUFFER_SIZE) end = newline + 1
    else if (body.length - at >= BUFFER_SIZE)
      end = at + (body[at + BUFFER_SIZE - 1] === '\r' ? BUFFER_SIZE - 1 : BUFFER_SIZE)
    else return body.slice(at)
    yield body.slice(at, end)
    at = end
  }
}

/**
 * A multipart/form-data body as ModSecurity 2.9.7 parses it, the boundary from `contentType`.
 * Any error (in the Content-Type, a part's headers, a boundary line, or a missing final boundary)
 * leaves no arguments at all, since modsecurity_request_body_end() then skips
 * multipart_get_arguments(); the parts finished before it still give FILES and
 * MULTIPART_PART_HEADERS.
 */
export function parseMultipart(body: string, contentType: string): Multipart {
  const result: Multipart = { args: [], files: [], partHeaders: [], fileSizes: 0, error: false }
  const boundary = readBoundary(contentType)
  if (boundary === undefined) return { ...result, error: true }
  const reader = new MultipartReader(boundary)
  // multipart_complete() only looks for the final boundary when some data came (seen_data).
  if (body !== '') {
    try {
      const pieces = bufferPieces(body)
      let startsLine = true
      let next = pieces.next()
      // After the final boundary the rest of the body is ignored.
      while (!next.done && !reader.complete) {
        reader.piece(next.value, startsLine)
        startsLine = next.value.endsWith('\n')
        next = pieces.next()
      }
      reader.finish(next.done === true ? next.value : '', startsLine)
    } catch (error) {
      if (!(error instanceof MultipartError)) throw error
      result.error = true
    }
  }
  for (const part of reader.parts) {
    const name = part.name ?? ''
    for (const line of part.headerLines) result.partHeaders.push([name, line])
    if (part.filename !== undefined) {
      result.files.push([name, part.filename])
      result.fileSizes += part.value.length
    } else if (!result.error) result.args.push([name, part.value])
  }
  return result
}
