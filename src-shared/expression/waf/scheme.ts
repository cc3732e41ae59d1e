// The vendor's scheme for WAF rules: every field (docs/vendor-behaviour.md#fields) with its type and
// a short description, and the vendor's functions.

import { createScheme, type FieldDefinition, type Scheme } from '../scheme/scheme'
import { arrayOf, mapOf, type Type } from '../values/types'
import { BUILTIN_FUNCTIONS } from './functions'

const S: Type = 'Bytes'
const I: Type = 'Int'
const B: Type = 'Bool'
const IP: Type = 'Ip'
const AS = arrayOf('Bytes')
const AAS = arrayOf(arrayOf('Bytes'))
const AI = arrayOf('Int')
const MAS = mapOf(arrayOf('Bytes'))

type Row = [name: string, type: Type, doc: string, deprecatedBy?: string]

const WAF_FIELDS: Row[] = [
  ['http.request.method', S, 'HTTP method, uppercase (GET, POST, …)'],
  ['http.request.uri', S, 'URI path and query string, e.g. /articles/index?section=539061'],
  ['http.request.uri.path', S, 'URI path, after URL normalization'],
  [
    'http.request.uri.path.extension',
    S,
    'lowercased extension of the last path segment (mp3, html, …)',
  ],
  ['http.request.uri.query', S, 'query string without the leading ?'],
  ['http.request.full_uri', S, 'scheme://host + URI path and query'],
  [
    'http.request.uri.args',
    MAS,
    'query arguments by name; repeated names keep request order; undecoded',
  ],
  ['http.request.uri.args.names', AS, 'names of the query arguments, in request order'],
  ['http.request.uri.args.values', AS, 'values of the query arguments, in request order'],
  ['raw.http.request.uri', S, 'URI as received, before normalization'],
  ['raw.http.request.uri.path', S, 'URI path as received'],
  ['raw.http.request.uri.path.extension', S, 'extension of the path as received'],
  ['raw.http.request.uri.query', S, 'query string as received'],
  ['raw.http.request.full_uri', S, 'full URI as received'],
  ['raw.http.request.uri.args', MAS, 'query arguments as received'],
  ['raw.http.request.uri.args.names', AS, 'names of the query arguments as received'],
  ['raw.http.request.uri.args.values', AS, 'values of the query arguments as received'],
  ['http.request.version', S, 'HTTP version, e.g. HTTP/1.1'],
  ['http.request.timestamp.sec', I, 'time the request was received, in seconds since the epoch'],
  ['http.request.timestamp.msec', I, 'milliseconds part of the request time'],
  ['http.host', S, 'Host header'],
  ['http.user_agent', S, 'User-Agent header'],
  ['http.referer', S, 'Referer header'],
  ['http.cookie', S, 'whole Cookie header'],
  ['http.x_forwarded_for', S, 'X-Forwarded-For header'],
  ['http.request.headers', MAS, 'request headers by lower-cased name; values as received'],
  ['http.request.headers.names', AS, 'header names, original case'],
  ['http.request.headers.values', AS, 'header values, aligned with .names'],
  ['http.request.headers.truncated', B, 'too many headers: the header maps may be incomplete'],
  ['http.request.cookies', MAS, 'cookies by (URL-decoded) name'],
  ['http.request.accepted_languages', AS, 'Accept-Language entries by preference'],
  ['http.request.body.raw', S, 'request body, possibly truncated'],
  ['http.request.body.truncated', B, 'the body exceeded the inspection limit'],
  ['http.request.body.size', I, 'full size of the body in bytes'],
  [
    'http.request.body.form',
    MAS,
    'form fields of an application/x-www-form-urlencoded body; undecoded',
  ],
  ['http.request.body.form.names', AS, 'names of the form fields'],
  ['http.request.body.form.values', AS, 'values of the form fields'],
  ['http.request.body.mime', S, 'MIME type sniffed from the body content'],
  ['http.request.body.multipart', MAS, 'multipart form parts by name'],
  ['http.request.body.multipart.names', AAS, 'names of the multipart parts'],
  ['http.request.body.multipart.values', AS, 'values of the multipart parts'],
  ['http.request.body.multipart.content_types', AAS, 'Content-Type of each multipart part'],
  ['http.request.body.multipart.content_dispositions', AAS, 'Content-Disposition of each part'],
  [
    'http.request.body.multipart.content_transfer_encodings',
    AAS,
    'Content-Transfer-Encoding of each part',
  ],
  ['http.request.body.multipart.filenames', AAS, 'file names of each part'],
  ['ip.src', IP, 'client IP address'],
  ['ip.src.country', S, 'ISO 3166-1 alpha-2 country code of the client (T1 = Tor)'],
  ['ip.src.continent', S, 'continent code of the client (AF AN AS EU NA OC SA T1)'],
  ['ip.src.asnum', I, 'autonomous system number of the client'],
  ['ip.src.is_in_european_union', B, 'the client is in the European Union'],
  ['ip.src.subdivision_1_iso_code', S, 'ISO 3166-2 code of the first-level region'],
  ['ip.src.subdivision_2_iso_code', S, 'ISO 3166-2 code of the second-level region'],
  ['ip.src.city', S, 'city of the client'],
  ['ip.src.region', S, 'region of the client'],
  ['ip.src.region_code', S, 'region code of the client'],
  ['ip.src.postal_code', S, 'postal code of the client'],
  ['ip.src.metro_code', S, 'metro code of the client'],
  ['ip.src.lat', S, 'latitude of the client'],
  ['ip.src.lon', S, 'longitude of the client'],
  ['ip.src.timezone.name', S, 'time zone of the client'],
  ['ip.geoip.country', S, 'deprecated: use ip.src.country', 'ip.src.country'],
  ['ip.geoip.continent', S, 'deprecated: use ip.src.continent', 'ip.src.continent'],
  ['ip.geoip.asnum', I, 'deprecated: use ip.src.asnum', 'ip.src.asnum'],
  [
    'ip.geoip.is_in_european_union',
    B,
    'deprecated: use ip.src.is_in_european_union',
    'ip.src.is_in_european_union',
  ],
  [
    'ip.geoip.subdivision_1_iso_code',
    S,
    'deprecated: use ip.src.subdivision_1_iso_code',
    'ip.src.subdivision_1_iso_code',
  ],
  [
    'ip.geoip.subdivision_2_iso_code',
    S,
    'deprecated: use ip.src.subdivision_2_iso_code',
    'ip.src.subdivision_2_iso_code',
  ],
  ['ssl', B, 'the client connection is encrypted'],
  ['cf.client.bot', B, 'known good bot (verified bot)'],
  ['cf.bot_management.verified_bot', B, 'known good bot'],
  ['cf.bot_management.score', I, 'bot score, 1 (bot) … 99 (human)'],
  ['cf.bot_management.static_resource', B, 'request for a static resource'],
  ['cf.bot_management.ja3_hash', S, 'JA3 fingerprint of the TLS client'],
  ['cf.bot_management.ja4', S, 'JA4 fingerprint of the TLS client'],
  ['cf.bot_management.js_detection.passed', B, 'the client passed JavaScript detection'],
  ['cf.bot_management.detection_ids', AI, 'bot detection IDs that matched'],
  ['cf.bot_management.corporate_proxy', B, 'the request comes from a corporate proxy'],
  ['cf.verified_bot_category', S, 'category of the verified bot'],
  ['cf.threat_score', I, 'legacy threat score (now always 0)'],
  ['cf.waf.score', I, 'WAF attack score, 1 (attack) … 99 (clean), 100 = not scored'],
  ['cf.waf.score.sqli', I, 'SQL injection attack score'],
  ['cf.waf.score.xss', I, 'cross-site scripting attack score'],
  ['cf.waf.score.rce', I, 'remote code execution attack score'],
  ['cf.waf.score.class', S, 'attack, likely_attack, likely_clean or clean'],
  ['cf.waf.auth_detected', B, 'credentials were seen in the request'],
  [
    'cf.waf.credential_check.username_and_password_leaked',
    B,
    'the username/password pair is leaked',
  ],
  ['cf.waf.credential_check.username_leaked', B, 'the username is leaked'],
  ['cf.waf.credential_check.password_leaked', B, 'the password is leaked'],
  ['cf.waf.credential_check.username_password_similar', B, 'a similar pair is leaked'],
  ['cf.waf.content_scan.has_obj', B, 'the request carries content objects'],
  ['cf.waf.content_scan.has_malicious_obj', B, 'a content object is malicious'],
  ['cf.waf.content_scan.has_failed', B, 'the content scan failed'],
  ['cf.waf.content_scan.num_obj', I, 'number of content objects'],
  ['cf.waf.content_scan.num_malicious_obj', I, 'number of malicious content objects'],
  ['cf.waf.content_scan.obj_sizes', AI, 'sizes of the content objects'],
  ['cf.waf.content_scan.obj_types', AS, 'types of the content objects'],
  ['cf.waf.content_scan.obj_results', AS, 'scan results of the content objects'],
  ['cf.edge.server_ip', IP, 'edge server IP address'],
  ['cf.edge.server_port', I, 'edge server port'],
  ['cf.ray_id', S, 'Ray ID of the request'],
  ['cf.tls_version', S, 'TLS version of the client connection'],
  ['cf.tls_cipher', S, 'TLS cipher of the client connection'],
  ['cf.worker.upstream_zone', S, 'zone of the Worker that made the subrequest'],
  ['cf.hostname.metadata', S, 'custom hostname metadata'],
  ['cf.random_seed', S, 'random bytes, for uuidv4()'],
  ['cf.zone.name', S, 'zone name'],
  ['cf.zone.plan', S, 'zone plan (ENT, BIZ, PRO, FREE)'],
  ['cf.llm.prompt.detected', B, 'the request carries an LLM prompt'],
  ['cf.llm.prompt.pii_detected', B, 'the LLM prompt contains personal information'],
  ['cf.llm.prompt.pii_categories', AS, 'categories of personal information in the prompt'],
  ['cf.llm.prompt.injection_score', I, 'prompt-injection score, 1 (likely) … 99 (unlikely)'],
  ['cf.llm.prompt.unsafe_topic_detected', B, 'the prompt touches an unsafe topic'],
  ['cf.llm.prompt.unsafe_topic_categories', AS, 'unsafe topics of the prompt'],
  ['http.response.code', I, 'response status code (response phases)'],
  ['http.response.headers', MAS, 'response headers by lower-cased name (response phases)'],
  ['http.response.headers.names', AS, 'response header names (response phases)'],
  ['http.response.headers.values', AS, 'response header values (response phases)'],
]

function wafFields(): Record<string, Omit<FieldDefinition, 'name'>> {
  const out: Record<string, Omit<FieldDefinition, 'name'>> = {
    true: { type: 'Bool', constant: true, doc: 'always true' },
    false: { type: 'Bool', constant: false, doc: 'always false' },
  }
  for (const [name, type, doc, deprecatedBy] of WAF_FIELDS) {
    out[name] = deprecatedBy ? { type, doc, deprecatedBy } : { type, doc }
  }
  return out
}

/**
 * The vendor's scheme for WAF expressions: every field of docs/vendor-behaviour.md#fields and every
 * function of docs/vendor-behaviour.md#functions.
 */
export const WAF_SCHEME: Scheme = createScheme({
  fields: wafFields(),
  functions: BUILTIN_FUNCTIONS,
})
