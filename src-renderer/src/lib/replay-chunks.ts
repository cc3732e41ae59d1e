// Replay in chunks: the bridge answers a call only once it is complete, so the Replay and
// Migration screens send a traffic file a few hundred requests at a time (their progress is the
// chunks done) and add up what the chunks answer (@shared/replay's tallies).

import { harEntries, trafficLines } from '@shared/replay/traffic'

export const CHUNK_SIZE = 200

/** A part of the file as the replay route takes it: NDJSON text or a HAR object. */
export interface ReplayChunk {
  body: string | { log: { entries: unknown[] } }
  /** the 1-based number of the chunk's first request in the file */
  first: number
  count: number
}

/** A property of a parsed JSON value, if it is an object. */
function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined
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
  if (entries !== undefined) {
    // Only the requests travel: a HAR's responses can be far larger and the replay ignores them.
    const requests = entries.map((entry) => ({ request: field(entry, 'request') }))
    return chunks(requests, size).map(({ items, first }) => ({
      body: { log: { entries: items } },
      first,
      count: items.length,
    }))
  }
  const lines = trafficLines(text)
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
