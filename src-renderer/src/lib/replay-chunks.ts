// Replay in chunks: the bridge answers a call only once it is complete, so the Replay screen
// sends a traffic file a few hundred requests at a time (its progress is the chunks done) and adds
// up the summaries the chunks answer.

import type { Outcome, ReplayPathCount, ReplayRuleCount, ReplaySummary } from '@shared/api/simulate'

export const CHUNK_SIZE = 200

/** A part of the file as the replay route takes it: NDJSON text or a HAR object. */
export interface ReplayChunk {
  body: string | { log: { entries: unknown[] } }
  /** the 1-based number of the chunk's first request in the file */
  first: number
  count: number
}

export interface ReplayTotals {
  requests: number
  outcomes: Record<Outcome, number>
  rules: ReplayRuleCount[]
  paths: ReplayPathCount[]
}

/** A property of a parsed JSON value, if it is an object. */
function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined
}

function harEntries(text: string): unknown[] | null {
  if (!text.trimStart().startsWith('{')) return null
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // Not one JSON document: NDJSON (whose lines are checked one by one).
    return null
  }
  const entries = field(field(parsed, 'log'), 'entries')
  return Array.isArray(entries) ? entries : null
}

function chunks<T>(items: readonly T[], size: number): { items: T[]; first: number }[] {
  const parts: { items: T[]; first: number }[] = []
  for (let start = 0; start < items.length; start += size) {
    parts.push({ items: items.slice(start, start + size), first: start + 1 })
  }
  return parts
}

/**
 * A traffic file (HAR, or NDJSON with one request description a line) in chunks. NDJSON lines are
 * checked to be JSON here, so that a broken line is reported with its line in the file before any
 * request runs.
 */
export function splitTraffic(text: string, size = CHUNK_SIZE): ReplayChunk[] {
  const entries = harEntries(text)
  if (entries !== null) {
    // Only the requests travel: a HAR's responses can be far larger and the replay ignores them.
    const requests = entries.map((entry) => ({ request: field(entry, 'request') }))
    return chunks(requests, size).map(({ items, first }) => ({
      body: { log: { entries: items } },
      first,
      count: items.length,
    }))
  }
  const lines = text
    .split('\n')
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '')
  for (const { line, number } of lines) {
    try {
      JSON.parse(line)
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      throw new Error(`Line ${number} is not JSON: ${reason}`, { cause: error })
    }
  }
  return chunks(lines, size).map(({ items, first }) => ({
    body: items.map(({ line }) => line).join('\n'),
    first,
    count: items.length,
  }))
}

export function emptyTotals(): ReplayTotals {
  return { requests: 0, outcomes: { blocked: 0, challenged: 0, passed: 0 }, rules: [], paths: [] }
}

/** The path a replayed URL counts under: no scheme, host, query or fragment. */
function pathOf(url: string): string {
  const target = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
  return target.split(/[?#]/)[0] || '/'
}

/**
 * The totals with one chunk's summary added. Paths are counted from the per-request results (the
 * route's own path list keeps only its top entries, which would not add up across chunks).
 */
export function addSummary(totals: ReplayTotals, summary: ReplaySummary): ReplayTotals {
  const outcomes = { ...totals.outcomes }
  for (const [outcome, count] of Object.entries(summary.outcomes) as [Outcome, number][]) {
    outcomes[outcome] = (outcomes[outcome] ?? 0) + count
  }

  const rules = new Map(
    totals.rules.map((rule) => [`${rule.ruleset_id}/${rule.rule_id}/${rule.action}`, rule]),
  )
  for (const rule of summary.rules) {
    const key = `${rule.ruleset_id}/${rule.rule_id}/${rule.action}`
    const known = rules.get(key)
    rules.set(key, { ...rule, requests: (known?.requests ?? 0) + rule.requests })
  }

  const paths = new Map(totals.paths.map((path) => [path.path, { ...path }]))
  for (const result of summary.results ?? []) {
    const path = pathOf(result.url)
    const counts = paths.get(path) ?? { path, requests: 0, blocked: 0, challenged: 0, passed: 0 }
    counts.requests++
    counts[result.outcome]++
    paths.set(path, counts)
  }

  return {
    requests: totals.requests + summary.requests,
    outcomes,
    rules: [...rules.values()].sort((a, b) => b.requests - a.requests),
    paths: [...paths.values()].sort((a, b) => b.requests - a.requests),
  }
}
