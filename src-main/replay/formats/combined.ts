// The combined log format of Apache (`LogFormat "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\"
// \"%{User-agent}i\"" combined`, https://httpd.apache.org/docs/2.4/logs.html#combined) and nginx
// (`log_format combined`, https://nginx.org/en/docs/http/ngx_http_log_module.html#log_format),
// and the common format, which stops after the size. Both servers escape `"` and `\` with a
// backslash and other bytes as `\xHH`. The log has no Host: the replay names it, else the
// request is read in origin form and its host is reported absent. Nor does it say the scheme:
// a request is read as HTTPS, as most of an edge's traffic is.

import type { SimulatedRequest } from '@shared/api/simulate'
import { parseIp } from '@shared/expression'
import type { Line } from '../lines'
import { httpVersionOf } from './http-version'
import type { ReplayRecord, RequestPart } from './types'

const QUOTED = String.raw`"((?:[^"\\]|\\.)*)"`
const COMBINED = new RegExp(
  String.raw`^(\S+) \S+ \S+ \[([^\]]+)\] ${QUOTED} (\d{3}|-) (\d+|-)(?: ${QUOTED} ${QUOTED})?`,
)
/** A request line: method, target, protocol (HTTP/0.9's has none). */
const REQUEST_LINE = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) (\S+)(?: (HTTP\/\d(?:\.\d)?))?$/

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** Whether a line is in the combined or common format (for detecting the format). */
export const isCombinedLine = (text: string): boolean => COMBINED.test(text)

/** The bytes a server's escapes stand for, read as UTF-8. */
export function unescapeLogField(value: string): string {
  if (!value.includes('\\')) return value
  const bytes: number[] = []
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!
    if (c === '\\' && i + 1 < value.length) {
      const next = value[i + 1]!
      const hex = next === 'x' ? value.slice(i + 2, i + 4) : ''
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16))
        i += 3
        continue
      }
      const named = { n: 0x0a, t: 0x09, r: 0x0d, v: 0x0b, b: 0x08 }[next]
      bytes.push(named ?? next.charCodeAt(0))
      i += 1
      continue
    }
    for (const byte of Buffer.from(c, 'utf8')) bytes.push(byte)
  }
  return Buffer.from(bytes).toString('utf8')
}

/** `10/Oct/2000:13:55:36 -0700` in ms since the epoch. */
export function logTime(value: string): number | undefined {
  const m = /^(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/.exec(value)
  const month = m === null ? -1 : MONTHS.indexOf(m[2]!)
  if (m === null || month < 0) return undefined
  const offset = (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 60 + Number(m[9])) * 60_000
  return Date.UTC(+m[3]!, month, +m[1]!, +m[4]!, +m[5]!, +m[6]!) - offset
}

const ABSENT_ALWAYS: readonly RequestPart[] = [
  'body',
  'headers',
  'cookies',
  'country',
  'asn',
  'tls',
  'bot',
  'waf_scores',
]

export function combinedRequestOfLine(line: Line, host: string | undefined): ReplayRecord {
  const m = COMBINED.exec(line.text)
  if (m === null) return { line: line.number, skipped: 'not a combined or common log line' }
  const requestLine = REQUEST_LINE.exec(unescapeLogField(m[3]!))
  if (requestLine === null)
    return { line: line.number, skipped: 'no request line (the server refused what it read)' }
  const [, method, target, version] = requestLine
  const headers: Record<string, string> = {}
  const referer = m[6] === undefined ? undefined : unescapeLogField(m[6])
  const userAgent = m[7] === undefined ? undefined : unescapeLogField(m[7])
  if (host !== undefined) headers.host = host
  if (referer !== undefined && referer !== '-') headers.referer = referer
  if (userAgent !== undefined && userAgent !== '-') headers['user-agent'] = userAgent
  const absolute = /^https?:\/\//i.test(target!)
  const request: { -readonly [K in keyof SimulatedRequest]: SimulatedRequest[K] } = {
    method: method!,
    url: absolute || host === undefined ? target! : `https://${host}${target}`,
    headers,
    httpVersion: httpVersionOf(version) ?? 'HTTP/0.9',
  }
  const absent = [...ABSENT_ALWAYS]
  if (host === undefined && !absolute) absent.push('host')
  // %h is a host name where the server looks names up.
  if (parseIp(m[1]!) !== undefined) request.ip = m[1]!
  else absent.push('ip')
  const time = logTime(m[2]!)
  return { line: line.number, request, absent, ...(time === undefined ? {} : { time }) }
}
