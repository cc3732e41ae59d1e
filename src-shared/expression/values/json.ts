import { BACKSLASH, CARRIAGE_RETURN, DOUBLE_QUOTE, LINE_FEED, SPACE, TAB } from './chars'
// A small JSON reader for lookup_json_string / lookup_json_integer. Unlike JSON.parse it keeps
// each number's source text, so that `42.0` can be told apart from `42` (the vendor's
// lookup_json_integer accepts only plain integers), and it works on the body's bytes.

export type JsonValue =
  | { readonly t: 'string'; readonly v: string }
  | { readonly t: 'number'; readonly raw: string }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'null' }
  | { readonly t: 'array'; readonly items: JsonValue[] }
  | { readonly t: 'object'; readonly entries: Map<string, JsonValue> }

const MAX_DEPTH = 512

class JsonSyntaxError extends Error {}
// One instance, thrown for every malformed document: capturing a stack trace each time would cost
// more than parsing (most request bodies a rule looks into are not JSON).
const SYNTAX_ERROR = new JsonSyntaxError()
/** the first character of every JSON document (after white space) */
const DOCUMENT_START = /^[{["\-0-9tfn]$/

/** Parses JSON text (a JS string); returns undefined when it is not a valid document. */
export function parseJson(text: string): JsonValue | undefined {
  let pos = 0
  const fail = (): never => {
    throw SYNTAX_ERROR
  }
  const ws = () => {
    for (;;) {
      const c = text.charCodeAt(pos)
      if (c === SPACE || c === TAB || c === LINE_FEED || c === CARRIAGE_RETURN) pos++
      else return
    }
  }
  const str = (): string => {
    pos++ // opening quote
    let out = ''
    for (;;) {
      const start = pos
      while (pos < text.length) {
        const c = text.charCodeAt(pos)
        if (c === DOUBLE_QUOTE || c === BACKSLASH || c < SPACE) break
        pos++
      }
      out += text.slice(start, pos)
      if (pos >= text.length) fail()
      const c = text.charCodeAt(pos)
      if (c === DOUBLE_QUOTE) {
        pos++
        return out
      }
      if (c < SPACE) fail()
      const e = text[pos + 1]
      pos += 2
      switch (e) {
        case '"':
          out += '"'
          break
        case '\\':
          out += '\\'
          break
        case '/':
          out += '/'
          break
        case 'b':
          out += '\b'
          break
        case 'f':
          out += '\f'
          break
        case 'n':
          out += '\n'
          break
        case 'r':
          out += '\r'
          break
        case 't':
          out += '\t'
          break
        case 'u': {
          const hex = text.slice(pos, pos + 4)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail()
          out += String.fromCharCode(parseInt(hex, 16))
          pos += 4
          break
        }
        default:
          fail()
      }
    }
  }
  const value = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) fail()
    ws()
    const c = text[pos]
    if (c === '{') {
      pos++
      const entries = new Map<string, JsonValue>()
      ws()
      if (text[pos] === '}') {
        pos++
        return { t: 'object', entries }
      }
      for (;;) {
        ws()
        if (text[pos] !== '"') fail()
        const key = str()
        ws()
        if (text[pos] !== ':') fail()
        pos++
        const v = value(depth + 1)
        if (!entries.has(key)) entries.set(key, v)
        ws()
        if (text[pos] === ',') {
          pos++
          continue
        }
        if (text[pos] === '}') {
          pos++
          return { t: 'object', entries }
        }
        fail()
      }
    }
    if (c === '[') {
      pos++
      const items: JsonValue[] = []
      ws()
      if (text[pos] === ']') {
        pos++
        return { t: 'array', items }
      }
      for (;;) {
        items.push(value(depth + 1))
        ws()
        if (text[pos] === ',') {
          pos++
          continue
        }
        if (text[pos] === ']') {
          pos++
          return { t: 'array', items }
        }
        fail()
      }
    }
    if (c === '"') return { t: 'string', v: str() }
    if (text.startsWith('true', pos)) {
      pos += 4
      return { t: 'bool', v: true }
    }
    if (text.startsWith('false', pos)) {
      pos += 5
      return { t: 'bool', v: false }
    }
    if (text.startsWith('null', pos)) {
      pos += 4
      return { t: 'null' }
    }
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(
      text.slice(pos, pos + 400),
    )
    if (!m) fail()
    const raw = (m as RegExpExecArray)[0]
    pos += raw.length
    return { t: 'number', raw }
  }
  // Most bodies a rule looks into are not JSON at all: refuse them before parsing.
  ws()
  if (!DOCUMENT_START.test(text.charAt(pos))) return undefined
  try {
    const v = value(0)
    ws()
    return pos === text.length ? v : undefined
  } catch (e) {
    if (e instanceof JsonSyntaxError || e instanceof RangeError) return undefined
    throw e
  }
}

/** Follows object keys (strings) and array indexes (integers) from `root`. */
export function lookupJson(
  root: JsonValue,
  path: readonly (string | number)[],
): JsonValue | undefined {
  let cur: JsonValue | undefined = root
  for (const key of path) {
    if (!cur) return undefined
    if (typeof key === 'string') {
      cur = cur.t === 'object' ? cur.entries.get(key) : undefined
    } else {
      cur = cur.t === 'array' ? cur.items[key < 0 ? cur.items.length + key : key] : undefined
    }
  }
  return cur
}
