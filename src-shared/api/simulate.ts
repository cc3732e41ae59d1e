// The workbench's simulate, replay and events routes: the request description they take (the
// shape `requestContext` reads), as the schema that validates simulate bodies and replayed lines,
// and what they answer, read by the engine that produces it and the renderer that shows it.

import { Type, type Static } from 'typebox'
import { parseIp } from '../expression/values/ip'
import type { OverrideSource } from '../rulesets/overrides'
import type { ApiMessage } from './envelope'
import type { MigrationComparison } from './waf'

export const SimulatedRequest = Type.Object(
  {
    method: Type.String({ minLength: 1, maxLength: 32 }),
    url: Type.String({ minLength: 1, maxLength: 65_536 }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])),
    ),
    body: Type.Optional(Type.String()),
    ip: Type.Optional(Type.String()),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    asn: Type.Optional(Type.Integer({ minimum: 0 })),
    continent: Type.Optional(Type.String()),
    botScore: Type.Optional(Type.Integer({ minimum: 1, maximum: 99 })),
    threatScore: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    wafScores: Type.Optional(
      Type.Object({
        score: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        sqli: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        xss: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        rce: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
      }),
    ),
    verifiedBot: Type.Optional(Type.Boolean()),
    httpVersion: Type.Optional(Type.String()),
    tlsVersion: Type.Optional(Type.String()),
    /** the request line as sent, for the OWASP ruleset (RequestDescription's requestLine) */
    requestLine: Type.Optional(Type.String({ maxLength: 65_600 })),
  },
  // Corpus lines carry labels and notes of their own; they are not part of the request.
  { additionalProperties: true },
)
export type SimulatedRequest = Static<typeof SimulatedRequest>

/**
 * Why a request to simulate would not be read as its author meant it, or undefined. A URL that is
 * neither absolute nor a path (`shop.example.com/admin`) would be read as a path, on no host; a
 * client IP that is not an address in its usual form would leave `ip.src` unset, or (`1.2.3`, read
 * leniently as 1.2.0.3 from logs) set it to another address. Either gives a verdict on another
 * request than the one described, so the simulate route refuses it; replay reads log lines as
 * they come (docs/vendor-behaviour.md#deriving-fields-from-a-request).
 */
export function simulatedRequestProblem(request: SimulatedRequest): string | undefined {
  const { url, ip } = request
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('/') && url !== '*') {
    return `body/url must be an absolute URL (https://host/path) or a path starting with /, not ${JSON.stringify(url)}`
  }
  if (ip !== undefined && parseIp(ip.trim()) === undefined) {
    return `body/ip must be an IPv4 or IPv6 address, not ${JSON.stringify(ip)}`
  }
  return undefined
}

export const OUTCOMES = ['blocked', 'challenged', 'passed'] as const
export type Outcome = (typeof OUTCOMES)[number]

export type NotEvaluated = 'disabled' | 'paused' | 'skipped' | 'stopped'

export type CredentialMatch = 'pair' | 'test-credentials'

/** One rule the engine considered, and what came of it. */
export interface TraceNode {
  kind:
    | 'firewall_rule'
    | 'entrypoint_rule'
    | 'ruleset_rule'
    // the previous product: the page rule and URI override that applied, its packages and rules
    | 'page_rule'
    | 'waf_override'
    | 'waf_package'
    | 'waf_rule'
  ruleset_id: string | null
  rule_id: string
  description: string
  /** the action the rule takes (after overrides) */
  action: string
  /** which override decided the action and the enabled state (rules of executed rulesets) */
  from?: { action: OverrideSource; enabled: OverrideSource; score_threshold?: OverrideSource }
  /** false when the rule was not evaluated; see `not_evaluated` */
  evaluated: boolean
  not_evaluated?: NotEvaluated
  matched?: boolean
  /** an entry point rule whose expression did not match: that expression, and the ruleset an
   * execute rule would have run */
  expression?: string
  executes?: string
  /** a scoring rule's contribution, and the anomaly rule's total and threshold */
  score?: number
  total_score?: number
  score_threshold?: number
  /** an OWASP (CRS) scoring rule that matched: the variable, its value after the rule's
   * transformations, and what the operator matched in it */
  crs?: { rule_id: number; variable: string; value: string; match: string }
  /** the anomaly rule of the OWASP ruleset: the paranoia level its overrides leave running */
  paranoia_level?: number
  credentials?: { username: string; exposed: boolean; match?: CredentialMatch }
  /** what the rule did: e.g. "terminated the request", "skipped the rest of the ruleset" */
  effect?: string
  children?: TraceNode[]
}

export interface MatchedData {
  before: string
  content: string
  after: string
}

/** A rule that acted on a simulated request: a security event, as the activity log shows one. */
export interface SimulationEvent {
  ruleset_id: string | null
  rule_id: string
  rule_ref?: string
  action: string
  description: string
  /** firewallRules (Firewall Rules), firewallManaged (managed rulesets), waf (the previous WAF) */
  source: 'firewallRules' | 'firewallManaged' | 'waf'
  /** the OWASP anomaly score when the anomaly rule acted */
  score?: number
  /** payload logging: what matched, per field */
  matched_data?: Record<string, MatchedData>
}

/** What the engine decides for one request. */
export interface Decision {
  outcome: Outcome
  /** the terminating action, or null when the request passed */
  action: string | null
  /** the challenge shown, when the outcome is `challenged` */
  challenge?: 'challenge' | 'js_challenge' | 'managed_challenge'
  /** headers added to the request passed to the origin */
  origin_headers: Record<string, string>
  events: SimulationEvent[]
  /** every rule considered, in order; empty when evaluated without a trace */
  trace: TraceNode[]
  /** why evaluation stopped, in a sentence */
  stopped: string
}

/** The answer of POST simulate. */
export interface Simulation extends Decision {
  ray_id: string
}

export interface ReplayRuleCount {
  ruleset_id: string | null
  rule_id: string
  description: string
  action: string
  requests: number
}

export interface ReplayPathCount {
  path: string
  requests: number
  blocked: number
  challenged: number
  passed: number
}

export interface ReplayResult {
  ray_id: string
  method: string
  url: string
  outcome: Outcome
  action: string | null
  rules: string[]
}

export interface ReplaySummary {
  requests: number
  outcomes: Record<Outcome, number>
  rules: ReplayRuleCount[]
  paths: ReplayPathCount[]
  /** some paths were dropped to bound the tally: counts may miss requests (replay-tally.ts) */
  paths_approximate?: boolean
  /**
   * requests no managed rules saw: no deployment's expression matched them (their hosts are
   * outside every deployment's scope, or the zone deploys nothing) and no previous WAF ran for
   * them (the zone has none, or its setting or a page rule turned it off): the screen warns when
   * there are any
   */
  out_of_scope?: number
  results?: ReplayResult[]
}

/** A recorded security event. */
export interface SecurityEvent {
  id: number
  /** ISO 8601 */
  time: string
  ray_id: string
  method: string
  host: string
  path: string
  client_ip: string | null
  country: string | null
  outcome: Outcome
  source: string
  ruleset_id: string | null
  rule_id: string
  action: string
  description: string
}

/** The caps of a zone's event log: past either, the oldest events are dropped. */
export interface EventLogLimits {
  max_events: number
  /** bytes of the log's database in use */
  max_bytes: number
}

/** GET and PATCH …/events/settings: the caps, what the log holds, and what the caps dropped. */
export interface EventLogStatus extends EventLogLimits {
  stored_events: number
  stored_bytes: number
  /** events dropped, oldest first, to keep within the caps */
  dropped: number
}

/** `result_info` of GET …/events. */
export interface EventsResultInfo {
  count: number
  stored_events: number
  dropped: number
}

/** The body of PATCH …/events/settings; null puts a cap back to its default. */
export const EventLogSettings = Type.Object(
  {
    max_events: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 100_000_000 }), Type.Null()]),
    ),
    // Below 64 KiB the log's empty tables alone would fill the cap.
    max_bytes: Type.Optional(
      Type.Union([Type.Integer({ minimum: 65_536, maximum: 2 ** 40 }), Type.Null()]),
    ),
  },
  { additionalProperties: false },
)
export type EventLogSettings = Static<typeof EventLogSettings>

/** What a streamed replay or compare says of its input (src-main/replay/input.ts). */
export interface ReplayInputSummary {
  /** the input's format: `requests`, `logpush`, `har` or `combined` */
  format: string
  /** whether it was detected from the first line rather than named (`?format=`) */
  format_detected: boolean
  gzip: boolean
  /** bytes of input read (compressed bytes, for gzip) */
  bytes: number
  /** lines that record no request (a TLS handshake in an access log, a bare "-") */
  skipped: number
  /** the Rules fields the zone's rules read that some request's log did not carry */
  lacked_fields: string[]
  /** the worker threads that evaluated it (0: the service's own, for an input up to 1 MiB) */
  threads: number
  /** the workers were kept warm from an earlier run, the zone unchanged (absent at 0 threads) */
  warm?: boolean
}

/** The answer of POST …/replay, and a finished replay job's summary. */
export type StreamedReplaySummary = ReplaySummary & ReplayInputSummary

/** One `?stream=true` progress line while a replay or compare runs. */
export interface ReplayProgress {
  /** requests evaluated so far */
  done: number
  skipped: number
  /** bytes of input read so far (compressed bytes, for gzip) */
  bytes: number
  /** the input's size, when known (a file, or an upload with a Content-Length) */
  total_bytes?: number
  /** requests per second since the start */
  rate: number
  bytes_per_second: number
  /** seconds left at this rate, when the input's size is known */
  seconds_left?: number
}

/** One verdict line of a replay's NDJSON (`?results=true` as NDJSON, a job's verdicts). */
export interface ReplayVerdictLine extends ReplayResult {
  /** the request's line in the input (for HAR, its entry's index + 1) */
  line: number
  trace?: TraceNode[]
  /** the request judged, as the simulate API takes it (a replay job's results carry it) */
  request?: SimulatedRequest
}

export const REPLAY_JOB_KINDS = ['replay', 'compare'] as const
export type ReplayJobKind = (typeof REPLAY_JOB_KINDS)[number]
export type ReplayJobState = 'running' | 'done' | 'cancelled' | 'failed'

/** A finished compare: the migration's comparison, and what was read. */
export type StreamedComparison = MigrationComparison & ReplayInputSummary

/** What a finished job found: a replay's summary, or a compare's. */
export type ReplayJobSummary = StreamedReplaySummary | StreamedComparison

/** A replay or compare run by the service (…/replays, …/waf_migration/compares). */
export interface ReplayJob {
  id: string
  zone_id: string
  kind: ReplayJobKind
  state: ReplayJobState
  /** ISO 8601 */
  started_on: string
  finished_on?: string
  /** the file replayed, or "upload" */
  source: string
  progress: ReplayProgress
  /** when done */
  summary?: ReplayJobSummary
  /** when failed: why, as the API's errors */
  errors?: ApiMessage[]
}

/** The body of POST …/replays naming a file on this machine instead of uploading it. */
export const ReplayFileBody = Type.Object(
  {
    file: Type.String({ minLength: 1, maxLength: 4096 }),
    format: Type.Optional(Type.String({ maxLength: 32 })),
    host: Type.Optional(Type.String({ maxLength: 253 })),
  },
  { additionalProperties: false },
)
export type ReplayFileBody = Static<typeof ReplayFileBody>
