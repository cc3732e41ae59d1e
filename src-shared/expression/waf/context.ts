// The request context: requestContext(request) derives every WAF field from a plain request
// description (docs/vendor-behaviour.md#deriving-fields-from-a-request): URL split and
// normalized, query arguments, lower-cased header map, cookies, form and multipart bodies,
// sniffed body type, client IP and geo data, scores. Contexts and lists from plain values are
// in plain-context.ts.

import ipaddr from 'ipaddr.js'
import { asciiLower, fromUint8Array, utf8Bytes } from '../values/bytes'
import type { EvaluationContext, ListMatcher } from '../values/evaluation'
import { ipv4, ipv6, parseIp } from '../values/ip'
import { normalizePath, type NormalizationMode } from './normalize'
import type { IpAddress, Value } from '../values/types'
import { urlDecode } from './operations'

export interface RequestDescription {
  readonly method: string
  /** absolute (`https://example.com/a?b`) or origin-form (`/a?b`, host from the Host header) */
  readonly url: string
  /** header names in any case; a value or the values of a repeated header */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>
  readonly body?: string | Uint8Array
  /** client IP address */
  readonly ip?: string
  /** ISO 3166-1 alpha-2 country of the client */
  readonly country?: string
  readonly asn?: number
  readonly continent?: string
  /** cf.bot_management.score (missing unless given) */
  readonly botScore?: number
  /** cf.threat_score (default 0) */
  readonly threatScore?: number
  /** cf.waf.score* (default 100, "not scored") */
  readonly wafScores?: {
    readonly score?: number
    readonly sqli?: number
    readonly xss?: number
    readonly rce?: number
  }
  /** cf.client.bot / cf.bot_management.verified_bot (default false) */
  readonly verifiedBot?: boolean
  /** http.request.version (default HTTP/1.1) */
  readonly httpVersion?: string
  /**
   * The request line exactly as sent (`POST ?x=1 HTTP/1.1`), for what reads it raw: the OWASP
   * ruleset's REQUEST_LINE, REQUEST_METHOD and REQUEST_URI_RAW. No Rules field reads it; without
   * it, the line is made of method, url and httpVersion.
   */
  readonly requestLine?: string
  /** request time in milliseconds since the epoch (default now) */
  readonly timestamp?: number
  readonly tlsVersion?: string
}

export interface RequestContextOptions {
  /** lists `$name` resolves to */
  readonly lists?: Readonly<Record<string, ListMatcher>>
  /** bytes of body inspected (default 128 KB, the Enterprise limit) */
  readonly bodyLimit?: number
  /** URL normalization (default: the vendor's own mode) */
  readonly normalization?: NormalizationMode
  readonly warn?: (message: string) => void
}

export const DEFAULT_BODY_LIMIT = 128 * 1024

export const byName = (a: readonly [string, unknown], b: readonly [string, unknown]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0

/** The values of each name, in order, the names sorted (one map built, in order). */
function groupPairs(pairs: readonly [string, string][]): Map<string, string[]> {
  let sorted = true
  for (let i = 1; i < pairs.length && sorted; i++) sorted = pairs[i - 1]![0] <= pairs[i]![0]
  // The sort is stable: each name keeps its values in order.
  const ordered = sorted ? pairs : [...pairs].sort(byName)
  const groups = new Map<string, string[]>()
  for (const [k, v] of ordered) {
    const list = groups.get(k)
    if (list) list.push(v)
    else groups.set(k, [v])
  }
  return groups
}

/** `a=1&b&c=3`: pairs split at the first `=`, undecoded; a name without `=` has the value "". */
export function splitPairs(query: string): [string, string][] {
  const out: [string, string][] = []
  for (const part of query.split('&')) {
    if (part.length === 0) continue
    const eq = part.indexOf('=')
    out.push(eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)])
  }
  return out
}

function extensionOf(path: string): string {
  const segment = path.slice(path.lastIndexOf('/') + 1)
  const dot = segment.lastIndexOf('.')
  if (dot <= 0) return ''
  return segment.slice(dot + 1).toLowerCase()
}

/** Parses an address leniently (ipaddr.js), keeping IPv4-mapped IPv6 addresses as IPv6. */
export function parseClientIp(text: string): IpAddress | undefined {
  const strict = parseIp(text.trim())
  if (strict) return strict
  try {
    const addr = ipaddr.parse(text.trim().replace(/%.*$/, ''))
    const bytes = addr.toByteArray()
    if (addr.kind() === 'ipv4') return ipv4(bytes.reduce((n, b) => n * 256 + b, 0))
    return ipv6(bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n))
  } catch {
    return undefined
  }
}

/* eslint-disable no-control-regex */
const MIME_SIGNATURES: [RegExp, string][] = [
  [/^\x89PNG\r\n\x1a\n/, 'image/png'],
  [/^\xff\xd8\xff/, 'image/jpeg'],
  [/^GIF8[79]a/, 'image/gif'],
  [/^RIFF....WEBP/s, 'image/webp'],
  [/^%PDF-/, 'application/pdf'],
  [/^PK\x03\x04/, 'application/zip'],
  [/^\x1f\x8b/, 'application/gzip'],
  [/^BM/, 'image/bmp'],
  [/^\x7fELF/, 'application/x-executable'],
  [/^MZ/, 'application/x-msdownload'],
  [/^\s*<\?xml/i, 'application/xml'],
  [/^\s*<(!doctype html|html|head|body|script)/i, 'text/html'],
  [/^\s*[{[]/, 'application/json'],
]
/* eslint-enable no-control-regex */

/** The body's type, sniffed from its first bytes (as http.request.body.mime). */
export function sniffMime(body: string): string {
  for (const [re, mime] of MIME_SIGNATURES) if (re.test(body.slice(0, 64))) return mime
  // eslint-disable-next-line no-control-regex
  return /[\x00-\x08\x0e-\x1f]/.test(body.slice(0, 512)) ? 'application/octet-stream' : 'text/plain'
}

/** A Content-Type header's type, lower-cased, and its boundary. */
function contentType(raw: string): { type: string; boundary?: string } {
  const [type = '', ...params] = raw.split(';')
  const out: { type: string; boundary?: string } = { type: type.trim().toLowerCase() }
  for (const p of params) {
    const m = /^\s*boundary\s*=\s*"?([^";]+)"?/i.exec(p)
    if (m && m[1]) out.boundary = m[1]
  }
  return out
}

interface MultipartPart {
  name: string
  filename: string | undefined
  contentType: string | undefined
  disposition: string
  transferEncoding: string | undefined
  value: string
}

function parseMultipart(body: string, boundary: string): MultipartPart[] {
  const parts: MultipartPart[] = []
  const delimiter = `--${boundary}`
  const chunks = body.split(delimiter)
  for (const chunk of chunks.slice(1)) {
    if (chunk.startsWith('--')) break
    const part = chunk.replace(/^\r?\n/, '')
    const split = part.search(/\r?\n\r?\n/)
    if (split < 0) continue
    const head = part.slice(0, split)
    const value = part
      .slice(split)
      .replace(/^\r?\n\r?\n/, '')
      .replace(/\r?\n$/, '')
    const headers = new Map<string, string>()
    for (const line of head.split(/\r?\n/)) {
      const colon = line.indexOf(':')
      if (colon > 0)
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
    }
    const disposition = headers.get('content-disposition') ?? ''
    const name =
      /\bname="([^"]*)"/i.exec(disposition)?.[1] ??
      /\bname=([^;]*)/i.exec(disposition)?.[1]?.trim() ??
      ''
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1]
    parts.push({
      name,
      filename,
      contentType: headers.get('content-type'),
      disposition: disposition.split(';')[0]?.trim() ?? '',
      transferEncoding: headers.get('content-transfer-encoding'),
      value,
    })
  }
  return parts
}

function scoreClass(score: number): string {
  if (score <= 20) return 'attack'
  if (score <= 50) return 'likely_attack'
  if (score <= 80) return 'likely_clean'
  if (score <= 99) return 'clean'
  return 'unscored'
}

/** http.request.cookies: every Cookie header's pairs, names percent-decoded. */
function cookiesOf(cookieHeaders: readonly string[] | undefined): Map<string, string[]> {
  const cookies: [string, string][] = []
  for (const header of cookieHeaders ?? []) {
    for (const piece of header.split(';')) {
      const part = piece.trim()
      if (!part) continue
      const eq = part.indexOf('=')
      const name = eq < 0 ? part : part.slice(0, eq).trim()
      const value = eq < 0 ? '' : part.slice(eq + 1).trim()
      cookies.push([decodePercent(name), value])
    }
  }
  return groupPairs(cookies)
}

const Q_PARAMETER = /^\s*q\s*=\s*([0-9.]+)/

/**
 * http.request.accepted_languages: Accept-Language's tags by preference, by q (1 when absent) and,
 * at equal q, in header order; `*` and empty entries left out; a malformed q (`0.8.1`) counts as
 * 0. Nearly every request has one, usually listed by preference already (`en-US,en;q=0.9`): that
 * needs no sorting.
 */
function acceptedLanguages(header: string | undefined): string[] {
  if (header === undefined || header === '') return []
  const tags: string[] = []
  const qualities: number[] = []
  let ordered = true
  for (const item of header.split(',')) {
    const semicolon = item.indexOf(';')
    const tag = (semicolon < 0 ? item : item.slice(0, semicolon)).trim()
    if (tag === '' || tag === '*') continue
    let q = 1
    if (semicolon >= 0) {
      for (const parameter of item.slice(semicolon + 1).split(';')) {
        const value = Q_PARAMETER.exec(parameter)?.[1]
        if (value !== undefined) {
          q = Number(value) || 0
          break
        }
      }
    }
    if (q > qualities[qualities.length - 1]!) ordered = false
    qualities.push(q)
    tags.push(tag)
  }
  if (ordered) return tags
  // The sort is stable: equal qualities keep header order.
  return tags
    .map((_, i) => i)
    .sort((a, b) => qualities[b]! - qualities[a]!)
    .map((i) => tags[i]!)
}

/** Where a context carries RequestDescription's requestLine, beside the WAF fields. */
export const RAW_REQUEST_LINE = 'raw.http.request.line'
/**
 * Where a context carries the whole body, beside the WAF fields (whose body stops at the
 * inspection limit): ModSecurity reads a body whole, files past its limit for form data.
 */
export const RAW_REQUEST_BODY = 'raw.http.request.body'

/** Builds the evaluation context of a request: every WAF field (docs/vendor-behaviour.md#fields). */
export function requestContext(
  request: RequestDescription,
  options: RequestContextOptions = {},
): EvaluationContext {
  return {
    fields: new RequestFields(request, options),
    ...(options.lists ? { lists: options.lists } : {}),
    ...(options.warn ? { warn: options.warn } : {}),
  }
}

/** The lower-cased header name's first value, in header order. */
function firstHeader(pairs: readonly [string, string][], lower: string): string | undefined {
  for (const [name, value] of pairs) if (name === lower) return value
  return undefined
}

/** A field list and its names and values, built together (query arguments, a form's fields). */
interface PairFields {
  byName: Map<string, string[]>
  names: string[]
  values: string[]
}

function pairFields(pairs: readonly [string, string][]): PairFields {
  return {
    byName: groupPairs(pairs),
    names: pairs.map((p) => p[0]),
    values: pairs.map((p) => p[1]),
  }
}

/** The fields the normalized path gives. */
interface NormalizedUri {
  path: string
  extension: string
  uri: string
  fullUri: string
}

/** The multipart body's fields. */
interface MultipartFields {
  byName: Map<string, string[]>
  names: string[][]
  values: string[]
  contentTypes: string[][]
  dispositions: string[][]
  transferEncodings: string[][]
  filenames: string[][]
}

/**
 * A request's fields. Those every request needs (the request line, the headers as sent, the raw
 * body, the client) are built with it; the others (the header map and what is read from it, the
 * normalized path, the arguments, the form and multipart bodies, the sniffed type) on first read,
 * then kept: a zone whose rules read few of them (the OWASP ruleset reads none) does not pay for
 * them. Every context has the same own fields in the same order and the same getters, so a
 * rule's read of a field stays a cached lookup.
 */
class RequestFields {
  [field: string]: Value | undefined

  readonly #pairs: [string, string][]
  readonly #rawPath: string
  readonly #rawQuery: string | undefined
  readonly #scheme: string
  readonly #host: string
  readonly #normalization: NormalizationMode
  readonly #body: string
  #headers: Map<string, string[]> | undefined
  #uri: NormalizedUri | undefined
  #query: PairFields | undefined
  #form: PairFields | undefined
  #multipart: MultipartFields | undefined
  #contentType: { type: string; boundary?: string } | undefined
  #cookies: Map<string, string[]> | undefined
  #languages: string[] | undefined
  #mime: string | undefined

  constructor(request: RequestDescription, options: RequestContextOptions) {
    // headers: original names and values in order; the map, keyed by lower-cased name, on demand
    const names: string[] = []
    const values: string[] = []
    const pairs: [string, string][] = []
    const add = (name: string, lower: string, value: string) => {
      const val = utf8Bytes(value)
      names.push(name)
      values.push(val)
      pairs.push([lower, val])
    }
    const given = request.headers ?? {}
    for (const name of Object.keys(given)) {
      const value = given[name]!
      const n = utf8Bytes(name)
      const lower = asciiLower(n)
      if (typeof value === 'string') add(n, lower, value)
      else for (const v of value) add(n, lower, v)
    }

    // URL
    const url = utf8Bytes(request.url)
    const absolute = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/s.exec(url)
    const scheme = absolute
      ? (absolute[1] ?? 'http').toLowerCase()
      : firstHeader(pairs, 'x-forwarded-proto')?.toLowerCase() === 'https'
        ? 'https'
        : 'http'
    const authority = absolute ? (absolute[2] ?? '').replace(/^.*@/, '') : undefined
    let target = absolute ? (absolute[3] ?? '') : url
    const hash = target.indexOf('#')
    if (hash >= 0) target = target.slice(0, hash)
    const q = target.indexOf('?')
    const rawPath = (q < 0 ? target : target.slice(0, q)) || '/'
    const rawQuery = q < 0 ? undefined : target.slice(q + 1)
    const host = firstHeader(pairs, 'host') ?? authority ?? ''
    const rawUri = rawQuery === undefined ? rawPath : `${rawPath}?${rawQuery}`
    const now = request.timestamp ?? Date.now()

    // body
    const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT
    const body =
      request.body === undefined
        ? ''
        : typeof request.body === 'string'
          ? utf8Bytes(request.body)
          : fromUint8Array(request.body)
    const raw = body.length > limit ? body.slice(0, limit) : body

    // client, scores and bots
    const ip = request.ip !== undefined ? parseClientIp(request.ip) : undefined
    if (request.ip !== undefined && !ip)
      options.warn?.(`invalid client IP ${JSON.stringify(request.ip)}`)
    const country = request.country === undefined ? undefined : utf8Bytes(request.country)
    const continent = request.continent === undefined ? undefined : utf8Bytes(request.continent)
    const scores = request.wafScores ?? {}
    const waf = scores.score ?? 100

    this.#pairs = pairs
    this.#rawPath = rawPath
    this.#rawQuery = rawQuery
    this.#scheme = scheme
    this.#host = host
    this.#normalization = options.normalization ?? 'cloudflare'
    this.#body = raw
    this['http.request.headers.names'] = names
    this['http.request.headers.values'] = values
    this['http.request.headers.truncated'] = false
    this['http.request.method'] = utf8Bytes(request.method.toUpperCase())
    this['http.request.uri.query'] = rawQuery ?? ''
    this['raw.http.request.uri'] = rawUri
    this['raw.http.request.uri.path'] = rawPath
    this['raw.http.request.uri.path.extension'] = extensionOf(rawPath)
    this['raw.http.request.uri.query'] = rawQuery ?? ''
    this['raw.http.request.full_uri'] = `${scheme}://${host}${rawUri}`
    this['http.request.version'] = utf8Bytes(request.httpVersion ?? 'HTTP/1.1')
    // Not a Rules field (the scheme has none such): carried for the OWASP ruleset's interpreter.
    this[RAW_REQUEST_LINE] =
      request.requestLine === undefined ? undefined : utf8Bytes(request.requestLine)
    this[RAW_REQUEST_BODY] = body
    this['http.request.timestamp.sec'] = Math.floor(now / 1000)
    this['http.request.timestamp.msec'] = Math.floor(now % 1000)
    this.ssl = scheme === 'https'
    this['http.host'] = host
    this['http.request.body.raw'] = raw
    this['http.request.body.size'] = body.length
    this['http.request.body.truncated'] = body.length > limit
    this['ip.src'] = ip
    this['ip.src.country'] = country
    this['ip.geoip.country'] = country
    this['ip.src.continent'] = continent
    this['ip.geoip.continent'] = continent
    this['ip.src.asnum'] = request.asn
    this['ip.geoip.asnum'] = request.asn
    this['cf.bot_management.score'] = request.botScore
    this['cf.client.bot'] = request.verifiedBot ?? false
    this['cf.bot_management.verified_bot'] = request.verifiedBot ?? false
    this['cf.threat_score'] = request.threatScore ?? 0
    this['cf.waf.score'] = waf
    this['cf.waf.score.sqli'] = scores.sqli ?? 100
    this['cf.waf.score.xss'] = scores.xss ?? 100
    this['cf.waf.score.rce'] = scores.rce ?? 100
    this['cf.waf.score.class'] = scoreClass(waf)
    this['cf.tls_version'] =
      request.tlsVersion === undefined ? undefined : utf8Bytes(request.tlsVersion)
  }

  #headerMap(): Map<string, string[]> {
    return (this.#headers ??= groupPairs(this.#pairs))
  }

  #normalizedUri(): NormalizedUri {
    if (this.#uri === undefined) {
      const path = normalizePath(this.#rawPath, this.#normalization)
      const uri = this.#rawQuery === undefined ? path : `${path}?${this.#rawQuery}`
      this.#uri = {
        path,
        extension: extensionOf(path),
        uri,
        fullUri: `${this.#scheme}://${this.#host}${uri}`,
      }
    }
    return this.#uri
  }

  // The raw and the normalized URI share one query, and so one set of arguments (values are
  // never changed once built).
  #queryFields(): PairFields {
    return (this.#query ??= pairFields(splitPairs(this.#rawQuery ?? '')))
  }

  #bodyType(): { type: string; boundary?: string } {
    return (this.#contentType ??= contentType(firstHeader(this.#pairs, 'content-type') ?? ''))
  }

  #formFields(): PairFields {
    return (this.#form ??= pairFields(
      this.#bodyType().type === 'application/x-www-form-urlencoded' ? splitPairs(this.#body) : [],
    ))
  }

  #multipartFields(): MultipartFields {
    if (this.#multipart === undefined) {
      const { type, boundary } = this.#bodyType()
      const parts =
        type === 'multipart/form-data' && boundary
          ? parseMultipart(this.#body, utf8Bytes(boundary))
          : []
      this.#multipart = {
        byName: groupPairs(parts.map((p) => [p.name, p.value])),
        names: parts.map((p) => [p.name]),
        values: parts.map((p) => p.value),
        contentTypes: parts.map((p) => (p.contentType ? [p.contentType] : [])),
        dispositions: parts.map((p) => [p.disposition]),
        transferEncodings: parts.map((p) => (p.transferEncoding ? [p.transferEncoding] : [])),
        filenames: parts.map((p) => (p.filename !== undefined ? [p.filename] : [])),
      }
    }
    return this.#multipart
  }

  get 'http.request.headers'(): Value {
    return this.#headerMap()
  }
  get 'http.request.uri'(): Value {
    return this.#normalizedUri().uri
  }
  get 'http.request.uri.path'(): Value {
    return this.#normalizedUri().path
  }
  get 'http.request.uri.path.extension'(): Value {
    return this.#normalizedUri().extension
  }
  get 'http.request.full_uri'(): Value {
    return this.#normalizedUri().fullUri
  }
  get 'http.request.uri.args'(): Value {
    return this.#queryFields().byName
  }
  get 'http.request.uri.args.names'(): Value {
    return this.#queryFields().names
  }
  get 'http.request.uri.args.values'(): Value {
    return this.#queryFields().values
  }
  get 'raw.http.request.uri.args'(): Value {
    return this.#queryFields().byName
  }
  get 'raw.http.request.uri.args.names'(): Value {
    return this.#queryFields().names
  }
  get 'raw.http.request.uri.args.values'(): Value {
    return this.#queryFields().values
  }
  get 'http.user_agent'(): Value | undefined {
    return this.#headerMap().get('user-agent')?.[0]
  }
  get 'http.referer'(): Value | undefined {
    return this.#headerMap().get('referer')?.[0]
  }
  get 'http.x_forwarded_for'(): Value | undefined {
    return this.#headerMap().get('x-forwarded-for')?.[0]
  }
  get 'http.cookie'(): Value | undefined {
    return this.#headerMap().get('cookie')?.join('; ')
  }
  get 'http.request.cookies'(): Value {
    return (this.#cookies ??= cookiesOf(this.#headerMap().get('cookie')))
  }
  get 'http.request.accepted_languages'(): Value {
    return (this.#languages ??= acceptedLanguages(this.#headerMap().get('accept-language')?.[0]))
  }
  get 'http.request.body.mime'(): Value {
    return (this.#mime ??= this.#body.length > 0 ? sniffMime(this.#body) : '')
  }
  get 'http.request.body.form'(): Value {
    return this.#formFields().byName
  }
  get 'http.request.body.form.names'(): Value {
    return this.#formFields().names
  }
  get 'http.request.body.form.values'(): Value {
    return this.#formFields().values
  }
  get 'http.request.body.multipart'(): Value {
    return this.#multipartFields().byName
  }
  get 'http.request.body.multipart.names'(): Value {
    return this.#multipartFields().names
  }
  get 'http.request.body.multipart.values'(): Value {
    return this.#multipartFields().values
  }
  get 'http.request.body.multipart.content_types'(): Value {
    return this.#multipartFields().contentTypes
  }
  get 'http.request.body.multipart.content_dispositions'(): Value {
    return this.#multipartFields().dispositions
  }
  get 'http.request.body.multipart.content_transfer_encodings'(): Value {
    return this.#multipartFields().transferEncodings
  }
  get 'http.request.body.multipart.filenames'(): Value {
    return this.#multipartFields().filenames
  }
}

function decodePercent(s: string): string {
  return s.indexOf('%') < 0 ? s : urlDecode(s.replace(/\+/g, '%2B'))
}

// ---------------------------------------------------------------------------------------------
