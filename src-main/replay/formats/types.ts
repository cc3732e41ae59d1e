// What every replay format reads a request into.

import type { SimulatedRequest } from '@shared/api/simulate'

export const REPLAY_FORMATS = ['requests', 'logpush', 'har', 'combined'] as const
/**
 * `requests`: our request descriptions, one JSON object a line (the simulate API's body);
 * `logpush`: the vendor's Logpush `http_requests` dataset as NDJSON; `har`: an HTTP Archive 1.2;
 * `combined`: the combined (or common) access log format of nginx and Apache.
 */
export type ReplayFormat = (typeof REPLAY_FORMATS)[number]

/** Parts of a request a log may not carry; the rule fields each stands for are in absent.ts. */
export type RequestPart =
  'body' | 'headers' | 'cookies' | 'host' | 'ip' | 'country' | 'asn' | 'tls' | 'bot' | 'waf_scores'

export interface ReplayRequest {
  /** the line it was read from (for HAR, the entry's index + 1) */
  line: number
  request: SimulatedRequest
  /** what the log did not carry for this request, so rules reading it saw a default */
  absent: readonly RequestPart[]
  /** when the request was made (ms since the epoch), where the log says */
  time?: number
  /** the vendor's id of the request, where the log gives it (Logpush's RayID): see rayIdOf */
  rayId?: string
}

/** A log line that records no request (a TLS handshake sent to port 80, a bare "-"). */
export interface SkippedLine {
  line: number
  skipped: string
}

export type ReplayRecord = ReplayRequest | SkippedLine

export const isSkipped = (record: ReplayRecord): record is SkippedLine => 'skipped' in record
