// Bounds on what a request may hold, shared by the API's parsers and the bridge's contract.

/**
 * The deepest nesting of arrays and objects a JSON body may have. The vendor's deepest bodies
 * (a ruleset rule's overrides) nest about 7 levels; validators, structuredClone and
 * JSON.stringify recurse, so a structure deeper than this never reaches them.
 */
export const MAX_JSON_DEPTH = 64

/**
 * The highest page number a list accepts: past any list's end, and small enough that the row
 * offset (page − 1) × per_page (per_page ≤ 1000) stays an exact integer for SQLite.
 */
export const MAX_PAGE = 2_147_483_647

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, by one linear scan that skips
 * strings (and their escapes), so it can run before JSON.parse. Malformed text is left for the
 * parser to refuse.
 */
export function jsonTextNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (char === QUOTE) {
      for (i++; i < text.length; i++) {
        const inString = text.charCodeAt(i)
        if (inString === BACKSLASH) i++
        else if (inString === QUOTE) break
      }
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      if (++depth > limit) return true
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) {
      depth--
    }
  }
  return false
}

/**
 * Whether a value, as JSON would write it, nests deeper than `limit`. Iterative, so a value too
 * deep for JSON.stringify is measured safely; a cycle counts as too deep.
 */
export function valueNestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: { item: unknown; depth: number }[] = [{ item: value, depth: 0 }]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { item, depth } = next
    if (typeof item !== 'object' || item === null) continue
    if (depth >= limit) return true
    for (const child of Object.values(item)) pending.push({ item: child, depth: depth + 1 })
  }
  return false
}
