// Which rule fields a request part stands for, so a replay can say which fields its rules read
// that the log did not carry (a body rule replayed on Logpush lines saw no body).

import type { RequestPart } from './formats/types'

/** Field names, or prefixes ending in '.', of the vendor's Rules fields each part feeds. */
const PART_FIELDS: Record<RequestPart, readonly string[]> = {
  body: ['http.request.body.'],
  headers: [
    'http.request.headers',
    'http.request.headers.',
    'http.request.accepted_languages',
    'http.x_forwarded_for',
  ],
  cookies: ['http.cookie', 'http.request.cookies'],
  host: ['http.host', 'http.request.full_uri', 'raw.http.request.full_uri'],
  ip: ['ip.src'],
  country: [
    'ip.src.country',
    'ip.geoip.country',
    'ip.src.continent',
    'ip.geoip.continent',
    'ip.src.is_in_european_union',
    'ip.geoip.is_in_european_union',
  ],
  asn: ['ip.src.asnum', 'ip.geoip.asnum'],
  tls: ['cf.tls_version'],
  bot: [
    'cf.bot_management.score',
    'cf.bot_management.verified_bot',
    'cf.client.bot',
    'cf.verified_bot_category',
  ],
  waf_scores: ['cf.waf.score', 'cf.waf.score.'],
}

const feeds = (part: RequestPart, field: string): boolean =>
  PART_FIELDS[part].some((name) => (name.endsWith('.') ? field.startsWith(name) : field === name))

/** The fields among `fields` that one of the `absent` parts would have fed, sorted. */
export function lackedFields(absent: Iterable<RequestPart>, fields: Iterable<string>): string[] {
  const parts = [...new Set(absent)]
  return [...new Set(fields)].filter((field) => parts.some((part) => feeds(part, field))).sort()
}
