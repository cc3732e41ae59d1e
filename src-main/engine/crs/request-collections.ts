// A request's own collections for the CRS interpreter (interpreter.ts), named and filled as
// ModSecurity 2.9.7 fills them: those of the request line and headers built once on first use, the
// body's (ARGS_POST, FILES, XML, REQUEST_BODY…) in phase 2 by the body processor the content type
// or a rule's ctl chose.

import {
  parseArguments,
  parseCookies,
  parseJson,
  parseMultipart,
  parseXml,
  type CrsRequest,
  type Entry,
} from './request'

/** A request's collections other than those the rules change (TX, MATCHED_VAR…). */
export class RequestCollections {
  /** REQBODY_PROCESSOR: from the content type, or set by ctl:requestBodyProcessor */
  bodyProcessor: string | undefined
  /** ctl:forceRequestBodyVariable */
  forceBody = false
  private body: BodyCollections | undefined
  private readonly fixed = new Map<string, Entry[]>()

  constructor(private readonly request: CrsRequest) {
    const type = this.header('content-type') ?? ''
    if (/^application\/x-www-form-urlencoded/i.test(type)) this.bodyProcessor = 'URLENCODED'
    else if (/^multipart\/form-data/i.test(type)) this.bodyProcessor = 'MULTIPART'
  }

  private header(lowerName: string): string | undefined {
    return this.request.headers.find(([name]) => name.toLowerCase() === lowerName)?.[1]
  }

  /** A collection's keys and values ('' for a scalar) in a phase: the body's from phase 2. */
  entries(name: string, phase: number): Entry[] {
    if (phase >= 2) {
      const value = this.bodyCollections().get(name)
      if (value !== undefined) return value
    } else if (BODY_COLLECTIONS.has(name)) {
      return name === 'ARGS' || name === 'ARGS_NAMES' ? this.queryCollection(name) : []
    }
    return this.requestEntries(name)
  }

  /** A collection that does not depend on the body, built once. */
  private requestEntries(name: string): Entry[] {
    let fixed = this.fixed.get(name)
    if (fixed === undefined) {
      fixed = this.requestCollection(name)
      this.fixed.set(name, fixed)
    }
    return fixed
  }

  private queryCollection(name: string): Entry[] {
    const args = this.requestEntries('ARGS_GET')
    return name === 'ARGS' ? args : args.map(([k]) => [k, k])
  }

  private requestCollection(name: string): Entry[] {
    const r = this.request
    const q = r.uri.indexOf('?')
    const path = q < 0 ? r.uri : r.uri.slice(0, q)
    switch (name) {
      case 'ARGS_GET':
        return parseArguments(q < 0 ? '' : r.uri.slice(q + 1))
      case 'ARGS_GET_NAMES':
        return this.requestEntries('ARGS_GET').map(([k]) => [k, k])
      case 'QUERY_STRING':
        return scalar(q < 0 ? '' : r.uri.slice(q + 1))
      case 'REQUEST_HEADERS':
        return r.headers.map(([k, v]) => [k, v])
      case 'REQUEST_HEADERS_NAMES':
        return r.headers.map(([k]) => [k, k])
      case 'REQUEST_COOKIES':
        return r.headers
          .filter(([k]) => k.toLowerCase() === 'cookie')
          .flatMap(([, v]) => parseCookies(v))
      case 'REQUEST_COOKIES_NAMES':
        return this.requestEntries('REQUEST_COOKIES').map(([k]) => [k, k])
      case 'REQUEST_FILENAME':
        return scalar(path)
      case 'REQUEST_BASENAME':
        return scalar(path.slice(path.lastIndexOf('/') + 1))
      case 'REQUEST_URI':
        return scalar(r.uri)
      case 'REQUEST_URI_RAW':
        return scalar(r.line === undefined ? r.uri : (lineParts(r.line)[1] ?? ''))
      case 'REQUEST_LINE':
        return scalar(r.line ?? `${r.method} ${r.uri} ${r.protocol}`)
      case 'REQUEST_METHOD':
        return scalar(r.line === undefined ? r.method : (lineParts(r.line)[0] ?? ''))
      case 'REQUEST_PROTOCOL':
        return scalar(r.protocol)
      case 'REMOTE_ADDR':
        return scalar(r.remoteAddr)
      case 'UNIQUE_ID':
        return scalar('AAAAAAAAAAAAAAAAAAAAAAAA')
      case 'DURATION':
        return scalar('0')
      default:
        // IP, GLOBAL, GEO, SESSION and the rest hold nothing here.
        return []
    }
  }

  private bodyCollections(): BodyCollections {
    if (this.body !== undefined) return this.body
    const r = this.request
    const body = r.body
    const collections: BodyCollections = new Map()
    let args: Entry[] = []
    let error = false
    let multipart = { files: [] as Entry[], partHeaders: [] as Entry[], fileSizes: 0 }
    let xml: { text: string[]; attributes: string[] } = { text: [], attributes: [] }
    if (body.length > 0) {
      if (this.bodyProcessor === 'URLENCODED') args = parseArguments(body)
      else if (this.bodyProcessor === 'JSON') ({ args, error } = parseJson(body))
      else if (this.bodyProcessor === 'XML') {
        const parsed = parseXml(body)
        error = parsed.error
        xml = parsed
      } else if (this.bodyProcessor === 'MULTIPART') {
        const boundary = /boundary\s*=\s*"?([^";,]+)"?/i.exec(
          this.header('content-type') ?? '',
        )?.[1]
        if (boundary === undefined) error = true
        else {
          const parsed = parseMultipart(body, boundary)
          args = parsed.args
          error = parsed.error
          multipart = parsed
        }
      }
    }
    const get = this.requestEntries('ARGS_GET')
    const names = (entries: Entry[]): Entry[] => entries.map(([k]) => [k, k])
    collections.set('ARGS_POST', args)
    collections.set('ARGS_POST_NAMES', names(args))
    collections.set('ARGS', [...get, ...args])
    collections.set('ARGS_NAMES', names([...get, ...args]))
    collections.set('ARGS_COMBINED_SIZE', [
      ['', String([...get, ...args].reduce((n, [k, v]) => n + k.length + v.length, 0))],
    ])
    collections.set('FILES', multipart.files)
    collections.set('FILES_NAMES', names(multipart.files))
    collections.set('FILES_COMBINED_SIZE', [['', String(multipart.fileSizes)]])
    collections.set('MULTIPART_PART_HEADERS', multipart.partHeaders)
    collections.set('MULTIPART_STRICT_ERROR', [
      ['', error && this.bodyProcessor === 'MULTIPART' ? '1' : '0'],
    ])
    collections.set('MULTIPART_UNMATCHED_BOUNDARY', [['', '0']])
    collections.set('REQBODY_ERROR', [['', error ? '1' : '0']])
    collections.set('XML', [
      ...xml.text.map((v): Entry => ['/*', v]),
      ...xml.attributes.map((v): Entry => ['//@*', v]),
    ])
    const bodyVisible =
      this.bodyProcessor === 'URLENCODED' || (this.forceBody && this.bodyProcessor === undefined)
    collections.set('REQUEST_BODY', bodyVisible ? [['', body]] : [])
    collections.set('REQUEST_BODY_LENGTH', [['', String(body.length)]])
    this.body = collections
    return collections
  }
}

type BodyCollections = Map<string, Entry[]>

/** A collection of one value, without a key. */
function scalar(value: string): Entry[] {
  return [['', value]]
}

/** Whether a collection's values come from the body in phase 2 (so differ between the phases). */
export function readsBody(collection: string): boolean {
  return BODY_COLLECTIONS.has(collection)
}

/** A request line's method, target and protocol, as Apache splits it at spaces and tabs. */
function lineParts(line: string): string[] {
  return line.split(/[ \t]+/).filter((part) => part !== '')
}

const BODY_COLLECTIONS = new Set([
  'ARGS',
  'ARGS_NAMES',
  'ARGS_POST',
  'ARGS_POST_NAMES',
  'ARGS_COMBINED_SIZE',
  'FILES',
  'FILES_NAMES',
  'FILES_COMBINED_SIZE',
  'MULTIPART_PART_HEADERS',
  'MULTIPART_STRICT_ERROR',
  'MULTIPART_UNMATCHED_BOUNDARY',
  'REQBODY_ERROR',
  'XML',
  'REQUEST_BODY',
  'REQUEST_BODY_LENGTH',
])
