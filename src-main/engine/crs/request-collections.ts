// A request's own collections for the CRS interpreter (interpreter.ts), named and filled as
// ModSecurity 2.9.7 fills them, each built once on first use: those of the request line and
// headers, and in phase 2 the body's (ARGS_POST, FILES, XML, REQUEST_BODY…), from one parse by the
// body processor the content type or a rule's ctl chose.

import { isUnreserved } from '@shared/expression'
import {
  parseArguments,
  parseCookies,
  parseJson,
  parseXml,
  type CrsRequest,
  type Entry,
} from './request'
import { parseMultipart } from './multipart'

/** A request's collections other than those the rules change (TX, MATCHED_VAR…). */
export class RequestCollections {
  /** REQBODY_PROCESSOR: from the content type, or set by ctl:requestBodyProcessor */
  bodyProcessor: string | undefined
  /** ctl:forceRequestBodyVariable */
  forceBody = false
  private parsed: ParsedBody | undefined
  /** the collections of phase 2 that the body fills, by name */
  private readonly body = new Map<string, Entry[]>()
  private readonly fixed = new Map<string, Entry[]>()
  /** the path as Apache leaves it for phase 2, and the collections read from it when it changed */
  private phase2Path: string | undefined
  private phase2PathChanged = false
  private phase2Paths: Map<string, Entry[]> | undefined
  /** by collection: its entries named, and the entries they were named from */
  private readonly namedLists = new Map<string, { from: Entry[]; named: Entry[] }>()

  constructor(private readonly request: CrsRequest) {
    const type = this.header('content-type')
    if (type === undefined) return
    if (/^application\/x-www-form-urlencoded/i.test(type)) this.bodyProcessor = 'URLENCODED'
    else if (/^multipart\/form-data/i.test(type)) this.bodyProcessor = 'MULTIPART'
  }

  private header(lowerName: string): string | undefined {
    for (const [name, value] of this.request.headers)
      if (name.length === lowerName.length && name.toLowerCase() === lowerName) return value
    return undefined
  }

  /** A collection's keys and values ('' for a scalar) in a phase: the body's from phase 2. */
  entries(name: string, phase: number): Entry[] {
    if (phase >= 2) {
      if (BODY_COLLECTIONS.has(name)) return this.bodyEntries(name)
      if (PHASE_2_PATH_COLLECTIONS.has(name)) return this.phase2PathEntries(name)
    } else if (BODY_COLLECTIONS.has(name)) {
      return name === 'ARGS' || name === 'ARGS_NAMES' ? this.queryCollection(name) : []
    }
    return this.requestEntries(name)
  }

  /**
   * A collection's entries in a phase named as ModSecurity names them to rules (`ARGS:q`; a scalar
   * by the collection's name), each with its key: named once, and shared by the rules reading the
   * collection or some of its keys.
   */
  named(name: string, phase: number): Entry[] {
    const from = this.entries(name, phase)
    const cached = this.namedLists.get(name)
    if (cached?.from === from) return cached.named
    const named = namedEntries(name, from)
    this.namedLists.set(name, { from, named })
    return named
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

  private phase2PathEntries(name: string): Entry[] {
    if (this.phase2Path === undefined) {
      const uri = this.request.uri
      const q = uri.indexOf('?')
      const path = q < 0 ? uri : uri.slice(0, q)
      this.phase2Path = apachePath(path)
      // Most paths come out as they went in: phase 2 then shares phase 1's collections.
      this.phase2PathChanged = this.phase2Path !== path
    }
    if (!this.phase2PathChanged) return this.requestEntries(name)
    this.phase2Paths ??= new Map()
    let entries = this.phase2Paths.get(name)
    if (entries === undefined) {
      entries = this.requestCollection(name, this.phase2Path)
      this.phase2Paths.set(name, entries)
    }
    return entries
  }

  private queryCollection(name: string): Entry[] {
    const args = this.requestEntries('ARGS_GET')
    return name === 'ARGS' ? args : namesOf(args)
  }

  /** A collection of the request line and headers; `path`: the request's, unless given. */
  private requestCollection(name: string, givenPath?: string): Entry[] {
    const r = this.request
    const q = r.uri.indexOf('?')
    const path = givenPath ?? (q < 0 ? r.uri : r.uri.slice(0, q))
    switch (name) {
      case 'ARGS_GET':
        // add_argument() (msc_parsers.c) keeps no more than SecArgumentsLimit arguments in all.
        return upToLimit(parseArguments(q < 0 ? '' : r.uri.slice(q + 1)), ARGUMENTS_LIMIT)
      case 'ARGS_GET_NAMES':
        return namesOf(this.requestEntries('ARGS_GET'))
      case 'QUERY_STRING':
        return scalar(q < 0 ? '' : r.uri.slice(q + 1))
      case 'REQUEST_HEADERS':
        return r.headers.map(([k, v]) => [k, v])
      case 'REQUEST_HEADERS_NAMES':
        return namesOf(r.headers)
      case 'REQUEST_COOKIES':
        return r.headers
          .filter(([k]) => k.toLowerCase() === 'cookie')
          .flatMap(([, v]) => parseCookies(v))
      case 'REQUEST_COOKIES_NAMES':
        return namesOf(this.requestEntries('REQUEST_COOKIES'))
      case 'REQUEST_FILENAME':
        return scalar(path)
      case 'REQUEST_BASENAME':
        return scalar(path.slice(path.lastIndexOf('/') + 1))
      case 'REQUEST_URI':
        return scalar(q < 0 ? path : path + r.uri.slice(q))
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
        // EMPTY_COLLECTIONS, and any other collection the interpreter does not fill.
        return []
    }
  }

  /** The body as its processor parsed it, once. */
  private parsedBody(): ParsedBody {
    if (this.parsed !== undefined) return this.parsed
    const body = this.request.body
    const parsed: ParsedBody = {
      args: [],
      error: false,
      multipart: NO_MULTIPART,
      xml: NO_XML,
      bodyVisible: false,
    }
    if (body.length > 0) {
      if (this.bodyProcessor === 'URLENCODED') parsed.args = parseArguments(body)
      else if (this.bodyProcessor === 'JSON') Object.assign(parsed, parseJson(body))
      else if (this.bodyProcessor === 'XML') {
        const xml = parseXml(body)
        parsed.error = xml.error
        parsed.xml = xml
      } else if (this.bodyProcessor === 'MULTIPART') {
        const multipart = parseMultipart(body, this.header('content-type') ?? '')
        parsed.args = multipart.args
        parsed.error = multipart.error
        parsed.multipart = multipart
      }
    }
    // modsecurity_request_body_end(): the URLENCODED processor always keeps the raw body; with
    // ctl:forceRequestBodyVariable (901340, 920480) so does a body no processor took, or one whose
    // processor failed (REQBODY_ERROR): only a processor that succeeded leaves it out.
    parsed.bodyVisible =
      this.bodyProcessor === 'URLENCODED' ||
      (this.forceBody && (this.bodyProcessor === undefined || parsed.error))
    // The body's arguments come after the query's, up to SecArgumentsLimit in all.
    parsed.args = upToLimit(parsed.args, ARGUMENTS_LIMIT - this.requestEntries('ARGS_GET').length)
    this.parsed = parsed
    return parsed
  }

  /** A collection of phase 2 that the body fills, built on first use. */
  private bodyEntries(name: string): Entry[] {
    let entries = this.body.get(name)
    if (entries === undefined) {
      entries = this.bodyCollection(name)
      this.body.set(name, entries)
    }
    return entries
  }

  private bodyCollection(name: string): Entry[] {
    const { args, error, multipart, xml, bodyVisible } = this.parsedBody()
    const body = this.request.body
    switch (name) {
      case 'ARGS_POST':
        return args
      case 'ARGS_POST_NAMES':
        return namesOf(args)
      case 'ARGS': {
        const get = this.requestEntries('ARGS_GET')
        return get.length === 0 ? args : [...get, ...args]
      }
      case 'ARGS_NAMES':
        return namesOf(this.bodyEntries('ARGS'))
      case 'ARGS_COMBINED_SIZE': {
        let size = 0
        for (const [key, value] of this.bodyEntries('ARGS')) size += key.length + value.length
        return scalar(String(size))
      }
      case 'FILES':
        return multipart.files
      case 'FILES_NAMES':
        return namesOf(multipart.files)
      case 'FILES_COMBINED_SIZE':
        return scalar(String(multipart.fileSizes))
      case 'MULTIPART_PART_HEADERS':
        return multipart.partHeaders
      case 'MULTIPART_STRICT_ERROR':
        return scalar(error && this.bodyProcessor === 'MULTIPART' ? '1' : '0')
      case 'MULTIPART_UNMATCHED_BOUNDARY':
        return scalar('0')
      case 'REQBODY_ERROR':
        return scalar(error ? '1' : '0')
      case 'XML':
        return [
          ...xml.text.map((v): Entry => ['/*', v]),
          ...xml.attributes.map((v): Entry => ['//@*', v]),
        ]
      case 'REQUEST_BODY':
        return bodyVisible ? scalar(body) : []
      case 'REQUEST_BODY_LENGTH':
        return scalar(String(body.length))
      default:
        return []
    }
  }
}

/** The body as its processor left it (request.ts, multipart.ts). */
interface ParsedBody {
  args: Entry[]
  error: boolean
  multipart: { files: Entry[]; partHeaders: Entry[]; fileSizes: number }
  xml: { text: string[]; attributes: string[] }
  /** whether REQUEST_BODY holds the body */
  bodyVisible: boolean
}
const NO_MULTIPART: ParsedBody['multipart'] = { files: [], partHeaders: [], fileSizes: 0 }
const NO_XML: ParsedBody['xml'] = { text: [], attributes: [] }

/** `ARGS_NAMES` and the like: each entry's key as its value. */
export function namesOf(entries: readonly Entry[]): Entry[] {
  return entries.map(([key]) => [key, key])
}

/** ModSecurity 2.9.7's SecArgumentsLimit by default (ARGUMENTS_LIMIT), which the reference keeps. */
const ARGUMENTS_LIMIT = 1000

/** The first `limit` entries (none below 0); the same list when it has no more. */
function upToLimit(entries: Entry[], limit: number): Entry[] {
  return entries.length <= limit ? entries : entries.slice(0, Math.max(0, limit))
}

/** Entries of a collection with their names (`ARGS:q`; a scalar's is the collection's). */
export function namedEntries(collection: string, entries: readonly Entry[]): Entry[] {
  const named: Entry[] = []
  for (let i = 0; i < entries.length; i++) {
    const [key, value] = entries[i]!
    named.push([key === '' ? collection : `${collection}:${key}`, value, key])
  }
  return named
}

/** A collection of one value, without a key. */
function scalar(value: string): Entry[] {
  return [['', value]]
}

/**
 * Collections that hold nothing on any request here, as they hold nothing in the reference: the
 * persistent ones (IP, GLOBAL, SESSION, USER, RESOURCE), whose setvars compiled-rule.ts does not
 * keep, and GEO, which only @geoLookup fills (REQUEST-910 runs it on TX:REAL_IP, which the
 * reference's set-up leaves unset). run-plan.ts folds the rules reading them.
 */
export const EMPTY_COLLECTIONS: ReadonlySet<string> = new Set([
  'IP',
  'GLOBAL',
  'SESSION',
  'USER',
  'RESOURCE',
  'GEO',
])

/**
 * Whether a collection's values may differ between the phases: they come from the body in phase
 * 2, or from the path Apache rewrites before it.
 */
export function changesInPhase2(collection: string): boolean {
  return BODY_COLLECTIONS.has(collection) || PHASE_2_PATH_COLLECTIONS.has(collection)
}

/**
 * The collections ModSecurity reads from r->parsed_uri.path (re_variables.c), which Apache
 * rewrites in place (ap_process_request_internal) after phase 1 and before phase 2 (the fixups
 * hook): phase 1 sees the path as sent, phase 2 as apachePath leaves it.
 */
const PHASE_2_PATH_COLLECTIONS = new Set(['REQUEST_FILENAME', 'REQUEST_BASENAME', 'REQUEST_URI'])

const PERCENT_ESCAPE = /%(..)?/gs
/** a path Apache would change: with an escape, `//`, or a `.` or `..` segment */
const APACHE_CHANGES = /%|\/\/|\/\.\.?(?:\/|$)/
const HEX_PAIR = /^[0-9a-fA-F]{2}$/

/**
 * The path as Apache 2.4 leaves it for phase 2: ap_normalize_path decodes the `%XX` of unreserved
 * characters, merges `//` and removes `.` and `..` segments (RFC 3986 §5.2.4); ap_unescape_url
 * then decodes every other `%XX` once. A path Apache refuses (a `%` without two hex digits,
 * `%00`, `%2F`, `..` above the root) gets no phase 2: it is returned as it is.
 */
export function apachePath(path: string): string {
  if (!path.startsWith('/') || !APACHE_CHANGES.test(path)) return path
  let refused = false
  const unreservedDecoded = path.replace(PERCENT_ESCAPE, (escape, hex: string | undefined) => {
    if (hex === undefined || !HEX_PAIR.test(hex)) refused = true
    else if (isUnreserved(parseInt(hex, 16))) return String.fromCharCode(parseInt(hex, 16))
    return escape
  })
  if (refused) return path
  const segments: string[] = []
  const parts = unreservedDecoded.slice(1).split('/')
  let endsInSlash = false
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    endsInSlash = i === parts.length - 1 && (part === '' || part === '.' || part === '..')
    if (part === '..') {
      if (segments.length === 0) return path
      segments.pop()
    } else if (part !== '' && part !== '.') segments.push(part)
  }
  const normal = `/${segments.join('/')}${endsInSlash && segments.length > 0 ? '/' : ''}`
  const decoded = normal.replace(PERCENT_ESCAPE, (_, hex: string) => {
    const c = parseInt(hex, 16)
    if (c === 0 || c === 0x2f) refused = true
    return String.fromCharCode(c)
  })
  return refused ? path : decoded
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
