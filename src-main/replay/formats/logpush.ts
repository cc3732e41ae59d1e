// The vendor's Logpush `http_requests` dataset, one JSON object a line, as Logpush writes it
// (https://developers.cloudflare.com/logs/reference/log-fields/zone/http_requests/). Every
// field the engine can read is mapped; what a log line cannot hold (the body, always; headers
// and cookies unless the job logs them as custom fields) is reported as absent.

import { badRequest } from '@shared/api/errors'
import type { SimulatedRequest } from '@shared/api/simulate'
import { API_ERRORS } from '@shared/api/error-codes'
import type { Line } from '../lines'
import { jsonOfLine } from './requests'
import { httpVersionOf } from './http-version'
import type { ReplayRecord, RequestPart } from './types'

/** A line is Logpush's when it has any of these (the dataset's request fields). */
export const LOGPUSH_REQUEST_FIELDS = [
  'ClientRequestMethod',
  'ClientRequestURI',
  'ClientRequestHost',
]

type LogpushLine = Record<string, unknown>

const WAF_SCORE_FIELDS = [
  ['sqli', 'WAFSQLiAttackScore'],
  ['xss', 'WAFXSSAttackScore'],
  ['rce', 'WAFRCEAttackScore'],
] as const

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined

const integerIn = (value: unknown, min: number, max: number): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
    ? value
    : undefined

/**
 * EdgeStartTimestamp as the job's `timestamp_format` writes it: RFC 3339 text, or a number of
 * seconds, milliseconds or nanoseconds since the epoch (told apart by size).
 */
export function epochMilliseconds(value: unknown): number | undefined {
  if (typeof value === 'string') {
    const parsed = Date.parse(value)
    return Number.isNaN(parsed) ? undefined : parsed
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined
  if (value >= 1e17) return Math.floor(value / 1e6)
  if (value >= 1e14) return Math.floor(value / 1e3)
  if (value >= 1e11) return Math.floor(value)
  return Math.floor(value * 1000)
}

/** A custom-field map (RequestHeaders, Cookies): names to text values. */
function fieldMap(value: unknown): Record<string, string> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const out: Record<string, string> = {}
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === 'string') out[name.toLowerCase()] = item
  }
  return out
}

function urlOf(log: LogpushLine, host: string | undefined): string {
  const target = text(log.ClientRequestURI) ?? text(log.ClientRequestPath) ?? '/'
  if (/^https?:\/\//i.test(target) || host === undefined) return target
  const scheme = text(log.ClientRequestScheme)?.toLowerCase() === 'http' ? 'http' : 'https'
  return `${scheme}://${host}${target.startsWith('/') ? '' : '/'}${target}`
}

export function logpushRequestOfLine(line: Line): ReplayRecord {
  const parsed = jsonOfLine(line)
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest(API_ERRORS.invalidRequest, `Line ${line.number} is not a Logpush record`)
  }
  const log = parsed as LogpushLine
  const method = text(log.ClientRequestMethod)
  if (
    method === undefined ||
    (text(log.ClientRequestURI) ?? text(log.ClientRequestPath)) === undefined
  ) {
    throw badRequest(
      API_ERRORS.invalidRequest,
      `Line ${line.number} lacks ClientRequestMethod or ClientRequestURI: a Logpush job for replay must include both`,
    )
  }
  const absent: RequestPart[] = ['body']
  const host = text(log.ClientRequestHost)
  if (host === undefined) absent.push('host')

  const logged = fieldMap(log.RequestHeaders)
  if (logged === undefined) absent.push('headers')
  const headers: Record<string, string> = { ...logged }
  const setHeader = (name: string, value: string | undefined) => {
    if (value !== undefined && headers[name] === undefined) headers[name] = value
  }
  setHeader('host', host)
  setHeader('user-agent', text(log.ClientRequestUserAgent))
  setHeader('referer', text(log.ClientRequestReferer))
  setHeader('x-requested-with', text(log.ClientXRequestedWith))
  const cookies = fieldMap(log.Cookies)
  if (cookies !== undefined && Object.keys(cookies).length > 0) {
    setHeader(
      'cookie',
      Object.entries(cookies)
        .map(([name, value]) => `${name}=${value}`)
        .join('; '),
    )
  }
  if (headers.cookie === undefined && cookies === undefined) absent.push('cookies')

  const request: { -readonly [K in keyof SimulatedRequest]: SimulatedRequest[K] } = {
    method,
    url: urlOf(log, host),
    headers,
  }
  const ip = text(log.ClientIP)
  if (ip === undefined) absent.push('ip')
  else request.ip = ip
  // T1 (Tor) and XX (unknown) are the dataset's; the request description takes ISO codes only.
  const country = text(log.ClientCountry)?.toUpperCase()
  if (country === undefined || !/^[A-Z]{2}$/.test(country)) absent.push('country')
  else request.country = country
  const asn = integerIn(log.ClientASN, 0, 2 ** 32 - 1)
  if (asn === undefined) absent.push('asn')
  else request.asn = asn
  const version = httpVersionOf(text(log.ClientRequestProtocol))
  if (version !== undefined) request.httpVersion = version
  const tls = text(log.ClientSSLProtocol)
  if (tls === undefined || tls === 'none') absent.push('tls')
  else request.tlsVersion = tls
  const botScore = integerIn(log.BotScore, 1, 99)
  if (botScore === undefined) absent.push('bot')
  else request.botScore = botScore
  if (typeof log.VerifiedBotCategory === 'string')
    request.verifiedBot = log.VerifiedBotCategory !== ''
  const score = integerIn(log.WAFAttackScore, 1, 100)
  if (score === undefined) absent.push('waf_scores')
  else {
    const scores: NonNullable<SimulatedRequest['wafScores']> = { score }
    for (const [kind, field] of WAF_SCORE_FIELDS) {
      const value = integerIn(log[field], 1, 100)
      if (value !== undefined) scores[kind] = value
    }
    request.wafScores = scores
  }
  const time = epochMilliseconds(log.EdgeStartTimestamp)
  const rayId = text(log.RayID)
  return {
    line: line.number,
    request,
    absent,
    ...(time === undefined ? {} : { time }),
    ...(rayId === undefined ? {} : { rayId }),
  }
}
