// Reading a traffic file, as the replay routes take it and the Replay and Migration screens cut
// it into chunks: one HAR document, or NDJSON with one request description a line. And the path a
// replayed request counts under in a summary.

import { normalizePath, utf8Bytes } from '@shared/expression'

/** The entries of `text` if it is one HAR document (a JSON object whose `log` has `entries`). */
export function harEntries(text: string): unknown[] | undefined {
  // NDJSON of more than one line is never one JSON document: skip parsing the whole file.
  if (!text.trimStart().startsWith('{')) return undefined
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch {
    return undefined
  }
  const entries = (document as { log?: { entries?: unknown } } | null)?.log?.entries
  return Array.isArray(entries) ? entries : undefined
}

/** One request description of an NDJSON file, with its 1-based line number in the file. */
export interface TrafficLine {
  line: string
  number: number
}

/** The non-blank lines of an NDJSON file, trimmed. */
export function trafficLines(text: string): TrafficLine[] {
  return text
    .split('\n')
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '')
}

/**
 * The path a replayed request counts under: the URL without scheme, host, query and fragment,
 * normalised as the vendor's `http.request.uri.path` reads it
 * (docs/vendor-behaviour.md#url-normalisation).
 */
export function requestPath(url: string): string {
  const target = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
  const rawPath = target.split(/[?#]/, 1)[0] || '/'
  return normalizePath(utf8Bytes(rawPath))
}
