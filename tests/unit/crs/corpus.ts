// The CRS corpus (tests/fixtures/crs/*.ndjson) and its golden files, the fuzz requests and theirs,
// and a corpus record as the engine's request description: read from the record's exact wire bytes
// (the request line, the headers in order, the body's bytes after the blank line, de-chunked or cut
// at Content-Length as Apache hands it to ModSecurity).
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { RequestDescription } from '@shared/expression'
import type { CorpusRecord as WireRecord, GoldenRecord } from '../../../scripts/crs-reference'

const FIXTURES = resolve(import.meta.dirname, '../../fixtures/crs')

export type { GoldenRecord }

/** A corpus record as the agreement test reads it (the reference runner reads its wire). */
export interface CorpusRecord extends WireRecord {
  /** the regression test's file; absent from the benign requests */
  readonly file?: string
  /** false where the record cannot be described without its raw bytes */
  readonly wb_ok: boolean
  readonly wb_note: string | null
}

function readLines<T>(file: string): T[] {
  return readFileSync(resolve(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T)
}

/** CRS's regression tests and the benign requests, in that order. */
export function readCorpus(): { regression: CorpusRecord[]; benign: CorpusRecord[] } {
  return {
    regression: readLines<CorpusRecord>('crs-tests.ndjson'),
    benign: readLines<CorpusRecord>('benign.ndjson'),
  }
}

/** The differential fuzz run's requests (CRS payloads in other places of benign requests). */
export function readFuzzRequests(): CorpusRecord[] {
  return readLines<CorpusRecord>('fuzz-requests.ndjson')
}

/**
 * What ModSecurity with CRS 3.3.4 gave each request at paranoia level `level`, by id: of the corpus
 * (`golden-plN.jsonl`), or of the fuzz requests with `name` 'fuzz-golden'.
 */
export function readGolden(
  level: number,
  name: 'golden' | 'fuzz-golden' = 'golden',
): Map<string, GoldenRecord> {
  return new Map(readLines<GoldenRecord>(`${name}-pl${level}.jsonl`).map((g) => [g.id, g]))
}

/** A chunked body's data (RFC 9112 section 7.1), extensions and trailers dropped. */
function dechunk(body: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = []
  let at = 0
  while (at < body.length) {
    const lineEnd = body.indexOf(0x0a, at)
    if (lineEnd < 0) break
    const line = Buffer.from(body.subarray(at, lineEnd)).toString('latin1')
    const size = parseInt(line.split(';')[0]!.trim(), 16)
    if (!(size > 0)) break
    parts.push(body.subarray(lineEnd + 1, lineEnd + 1 + size))
    at = lineEnd + 1 + size
    if (body[at] === 0x0d) at++
    if (body[at] === 0x0a) at++
  }
  return Buffer.concat(parts)
}

/**
 * A record's request as the engine's description: method, target and version from the request
 * line, the line itself as sent, each header (a repeated one as a list, in order), the body's bytes, the loopback client
 * the reference saw.
 */
export function describeRequest(record: CorpusRecord): RequestDescription {
  const wire = Buffer.from(record.wire, 'base64')
  const crlf = wire.indexOf('\r\n\r\n')
  const lf = wire.indexOf('\n\n')
  const [headEnd, separator] =
    crlf >= 0 && (lf < 0 || crlf < lf) ? [crlf, 4] : lf >= 0 ? [lf, 2] : [wire.length, 0]
  // The description's texts are UTF-8 encoded into the bytes the engine sees, so the head is read
  // as UTF-8 (bytes that are not UTF-8 cannot be described).
  const lines = new TextDecoder().decode(wire.subarray(0, headEnd)).split(/\r?\n/)
  const requestLine = lines[0] ?? ''
  const [method = '', url = '', httpVersion] = requestLine.split(' ').filter((p) => p !== '')
  const headers: Record<string, string | string[]> = {}
  const byLowerName = new Map<string, string>()
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const name = line.slice(0, colon)
    // Apache strips the spaces and tabs around a value (RFC 9110 §5.5's OWS), nothing else.
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '')
    const known = byLowerName.get(name.toLowerCase())
    if (known === undefined) {
      byLowerName.set(name.toLowerCase(), name)
      headers[name] = value
    } else {
      const previous = headers[known]!
      headers[known] = [...(Array.isArray(previous) ? previous : [previous]), value]
    }
  }
  let body: Uint8Array = wire.subarray(Math.min(wire.length, headEnd + separator))
  const transferEncoding = byLowerName.get('transfer-encoding')
  const contentLength = byLowerName.get('content-length')
  if (transferEncoding !== undefined && /chunked/i.test(String(headers[transferEncoding]))) {
    body = dechunk(body)
    // Apache drops a Content-Length that comes with chunked coding (RFC 9112 section 6.3).
    if (contentLength !== undefined) delete headers[contentLength]
  } else if (contentLength !== undefined && /^\d+$/.test(String(headers[contentLength]))) {
    // Bytes past the Content-Length are not this request's body.
    body = body.subarray(0, Number(headers[contentLength]))
  } else {
    // Without a length or chunked coding, Apache reads no body.
    body = body.subarray(0, 0)
  }
  // A CONNECT's target names the host, and Apache's Host becomes it.
  const host = byLowerName.get('host')
  if (method.toUpperCase() === 'CONNECT' && host !== undefined) headers[host] = url
  return {
    method,
    url,
    headers,
    ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
    ...(httpVersion === undefined ? {} : { httpVersion }),
    requestLine,
    ip: '127.0.0.1',
  }
}
