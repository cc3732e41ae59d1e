// The request as ModSecurity 2.9 presents it to rules: its line, headers, cookies, arguments and
// body, each parsed as ModSecurity's own parsers do (apache2/msc_parsers.c, msc_multipart.c,
// msc_json.c, msc_xml.c of https://github.com/owasp-modsecurity/ModSecurity/tree/v2/master).
// Everything is built from the evaluation context the rest of the engine uses, on first use.

import { RAW_REQUEST_BODY, RAW_REQUEST_LINE, type EvaluationContext } from '@shared/expression'
import { cString } from './transformations'
import { xmlAsUtf8 } from './xml-encoding'

/**
 * A value of a collection: its key, or its name as ModSecurity names it to rules (`ARGS:q`), and
 * its bytes; a named entry of the request's collections carries its key too
 * (request-collections.ts).
 */
export type Entry = readonly [key: string, value: string, keyOfNamed?: string]

const isHex = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)

/** ModSecurity's urldecode_nonstrict: `+` is a space, `%XX` a byte, a bad `%` stays. */
export function urlDecodeArgument(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x2b) out += ' '
    else if (
      c === 0x25 &&
      i + 2 < text.length + 0 &&
      isHex(text.charCodeAt(i + 1)) &&
      isHex(text.charCodeAt(i + 2))
    ) {
      out += String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16))
      i += 2
    } else out += text[i]
  }
  return out
}

/** parse_arguments(): `&`-separated pairs split at the first `=`, names and values decoded. */
export function parseArguments(text: string): Entry[] {
  const entries: Entry[] = []
  if (text === '') return entries
  for (const part of text.split('&')) {
    if (part === '') continue
    const eq = part.indexOf('=')
    entries.push(
      eq < 0
        ? [urlDecodeArgument(part), '']
        : [urlDecodeArgument(part.slice(0, eq)), urlDecodeArgument(part.slice(eq + 1))],
    )
  }
  return entries
}

/**
 * parse_cookies_v0(): `name=value` pairs, leading spaces skipped, separated by `;`, or by `,` when
 * the header holds no `;` and its first `,` is followed by a space (modsecurity_tx_init(), which
 * sees repeated Cookie headers as Apache joins them, with `, `).
 */
export function parseCookies(header: string): Entry[] {
  const entries: Entry[] = []
  const comma = header.indexOf(',')
  const separator = comma >= 0 && header[comma + 1] === ' ' && !header.includes(';') ? ',' : ';'
  for (const part of header.split(separator)) {
    const cookie = part.replace(/^[ \t]+/, '')
    if (cookie === '') continue
    const eq = cookie.indexOf('=')
    const name = eq < 0 ? cookie : cookie.slice(0, eq)
    if (name === '') continue
    entries.push([name, eq < 0 ? '' : cookie.slice(eq + 1)])
  }
  return entries
}

/**
 * The length of the UTF-8 sequence at `i` of a binary string as yajl_lex_utf8_char() checks it
 * (a lead byte and as many continuation bytes as it announces, by their shape only: overlong forms
 * pass), or 0 when it is malformed, which makes the string a lexical error.
 */
function utf8SequenceLength(text: string, i: number): number {
  const lead = text.charCodeAt(i)
  const continuations = lead >> 5 === 0x6 ? 1 : lead >> 4 === 0xe ? 2 : lead >> 3 === 0x1e ? 3 : -1
  if (continuations < 0) return 0
  for (let k = 1; k <= continuations; k++) {
    if (i + k >= text.length || text.charCodeAt(i + k) >> 6 !== 0x2) return 0
  }
  return continuations + 1
}

/**
 * msc_json.c with yajl: each scalar becomes an argument named by its keys joined with `.`;
 * an array's elements take the array's own key again (`{"a":[1]}` gives `a.a`), a top-level
 * array is `array.array`. Stops at the first syntax error, keeping what came before it.
 */
export function parseJson(body: string): { args: Entry[]; error: boolean } {
  const args: Entry[] = []
  let i = 0
  let prefix: string | undefined
  let key: string | undefined
  const space = () => {
    while (i < body.length && ' \t\r\n'.includes(body[i]!)) i++
  }
  const add = (value: string) => {
    const k = key ?? ''
    args.push([prefix === undefined ? k : `${prefix}.${k}`, value])
  }
  const enter = (array: boolean) => {
    if (array && key === undefined && prefix === undefined) {
      prefix = 'array'
      key = 'array'
    } else if (prefix !== undefined) prefix = `${prefix}.${key ?? ''}`
    else prefix = key ?? ''
  }
  const leave = (array: boolean) => {
    if (prefix === undefined) return
    const dot = prefix.lastIndexOf('.')
    if (dot >= 0) {
      if (!array) key = prefix.slice(dot + 1)
      prefix = prefix.slice(0, dot)
    } else {
      if (!array) key = prefix
      prefix = undefined
    }
  }
  const string = (): string | undefined => {
    if (body[i] !== '"') return undefined
    i++
    let out = ''
    while (i < body.length && body[i] !== '"') {
      const c = body[i]!
      if (c === '\\') {
        const e = body[i + 1]
        const simple: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        }
        if (e !== undefined && simple[e] !== undefined) {
          out += simple[e]
          i += 2
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(body.slice(i + 2, i + 6))) {
          // yajl_string_decode: a high surrogate takes the next \uXXXX as its pair whatever it
          // is; without one it gives `?`, and what follows it is read on (the reference keeps
          // it: `"\ud800ajavascript:…"` is not `?javascript:…` to rule 941170); other code points
          // (lone low surrogates too) are written as UTF-8 as they are.
          let code = parseInt(body.slice(i + 2, i + 6), 16)
          i += 6
          if ((code & 0xfc00) === 0xd800) {
            if (/^\\u[0-9a-fA-F]{4}/.test(body.slice(i, i + 6))) {
              const low = parseInt(body.slice(i + 2, i + 6), 16)
              code = 0x10000 + ((code & 0x3ff) << 10) + (low & 0x3ff)
              i += 6
            } else {
              out += '?'
              continue
            }
          }
          out += codePointBytes(code)
        } else return undefined
      } else if (c.charCodeAt(0) < 0x20) return undefined
      else if (c.charCodeAt(0) < 0x80) {
        out += c
        i++
      } else {
        const length = utf8SequenceLength(body, i)
        if (length === 0) return undefined
        out += body.slice(i, i + length)
        i += length
      }
    }
    if (i >= body.length) return undefined
    i++
    return out
  }
  const value = (depth: number): boolean => {
    space()
    const c = body[i]
    if (depth > 512) return false
    if (c === '{') {
      i++
      // A top-level object opens no context of its own (yajl_start_map without a key).
      const opened = key !== undefined
      if (opened) enter(false)
      space()
      if (body[i] === '}') {
        i++
        if (opened) leave(false)
        return true
      }
      for (;;) {
        space()
        const k = string()
        if (k === undefined) return false
        // yajl_map_key copies the key with apr_pstrndup: it ends at a NUL byte.
        key = cString(k)
        space()
        if (body[i] !== ':') return false
        i++
        if (!value(depth + 1)) return false
        space()
        if (body[i] === ',') {
          i++
          continue
        }
        if (body[i] !== '}') return false
        i++
        if (opened) leave(false)
        return true
      }
    }
    if (c === '[') {
      i++
      enter(true)
      space()
      if (body[i] === ']') {
        i++
        leave(true)
        return true
      }
      for (;;) {
        if (!value(depth + 1)) return false
        space()
        if (body[i] === ',') {
          i++
          continue
        }
        if (body[i] !== ']') return false
        i++
        leave(true)
        return true
      }
    }
    if (c === '"') {
      const s = string()
      if (s === undefined) return false
      add(s)
      return true
    }
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
      body.slice(i, i + 64),
    )?.[0]
    if (literal === undefined) return false
    i += literal.length
    add(literal === 'null' ? '' : literal)
    return true
  }
  const ok = value(0)
  space()
  return { args, error: !ok || i < body.length }
}

/** A code point as UTF-8 bytes (a binary string), surrogates included, as yajl's Utf32toUtf8. */
function codePointBytes(code: number): string {
  if (code < 0x80) return String.fromCharCode(code)
  if (code < 0x800) return String.fromCharCode(0xc0 | (code >> 6), 0x80 | (code & 0x3f))
  if (code < 0x10000)
    return String.fromCharCode(
      0xe0 | (code >> 12),
      0x80 | ((code >> 6) & 0x3f),
      0x80 | (code & 0x3f),
    )
  return String.fromCharCode(
    0xf0 | (code >> 18),
    0x80 | ((code >> 12) & 0x3f),
    0x80 | ((code >> 6) & 0x3f),
    0x80 | (code & 0x3f),
  )
}

const PREDEFINED_ENTITIES: Record<string, string> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
}

/** A character reference's code point as UTF-8 bytes. */
function characterReference(ref: string): string {
  const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)
  return codePointBytes(code)
}

/**
 * The longest replacement text an entity may have. Entities that expand to entities can grow
 * exponentially ("billion laughs"); libxml2 refuses a document whose entities amplify it so
 * (xmlParserEntityCheck), and so does this parser, with a parse error, beyond this length.
 */
const ENTITY_TEXT_LIMIT = 1 << 16

const CHARACTER = '#[0-9]+|#x[0-9a-fA-F]+'
const CHARACTER_REFERENCE = new RegExp(`&(${CHARACTER});`, 'g')
/** a character reference, or a reference to a predefined or declared entity */
const REFERENCE = new RegExp(`&(${CHARACTER}|[A-Za-z_:][\\w.:-]*);`, 'g')
/** an internal subset's general entity declaration: its name, and its value unless external */
const ENTITY_DECLARATION =
  /<!ENTITY\s+([^\s%]+)\s+(?:"([^"]*)"|'([^']*)'|(?:SYSTEM|PUBLIC)\s[^>]*)\s*>/g

/**
 * A document libxml2 does not finish: its markup is not well formed where this parser checks it,
 * or its entities refer to themselves or amplify it.
 */
class MalformedXml extends Error {}

/**
 * The internal subset's general entities (https://www.w3.org/TR/xml/#intern-replacement): a
 * declaration expands the character references of its value, which gives its replacement text; a
 * use reads that text again, so an entity may name one declared after it. An external entity
 * (SYSTEM, PUBLIC) is not loaded: its text is empty.
 */
class XmlEntities {
  private readonly declared = new Map<string, string>()
  /** the entities being read, innermost last: one of them named again is a loop */
  private readonly open = new Set<string>()
  /**
   * characters of replacement text read so far: what a use parses counts, text or not (nested
   * uses of entities that are all markup amplify the work without the text)
   */
  private read = 0

  constructor(private readonly readLimit: number) {}

  /** The first declaration of a name is the one in force (https://www.w3.org/TR/xml/#sec-entity-decl). */
  declare(name: string, value: string): void {
    if (this.declared.has(name)) return
    this.declared.set(
      name,
      value.replace(CHARACTER_REFERENCE, (_, ref: string) => characterReference(ref)),
    )
  }

  /** A declared entity's replacement text, or undefined. */
  replacement(name: string): string | undefined {
    return this.declared.get(name)
  }

  /** Reads a use of the entity with `read`, refusing a loop and amplified work. */
  use<T>(name: string, read: () => T): T {
    if (this.open.has(name)) throw new MalformedXml(`entity ${name} refers to itself`)
    this.read += Math.max(1, this.declared.get(name)?.length ?? 0)
    if (this.read > this.readLimit) throw new MalformedXml('entities amplify the document')
    this.open.add(name)
    try {
      return read()
    } finally {
      this.open.delete(name)
    }
  }
}

/**
 * The index of the first `char` from `from` on that is outside a quoted literal (`"…"` or `'…'`,
 * as attribute values and DOCTYPE literals are written), or -1.
 */
function outsideQuotes(body: string, from: number, char: string): number {
  let quote: string | undefined
  for (let i = from; i < body.length; i++) {
    const c = body[i]!
    if (quote !== undefined) {
      if (c === quote) quote = undefined
    } else if (c === char) return i
    else if (c === '"' || c === "'") quote = c
  }
  return -1
}

/**
 * A document's content as libxml2 builds its tree, and what ModSecurity reads of it: the text of
 * every element (XML:/*, xmlNodeGetContent() of the root) and the values of the document's
 * attributes (XML://@*). A declared entity used in content is parsed as content where it is used,
 * its markup included (`<!ENTITY e "&#60;b&#62;x&#60;/b&#62;">` gives an element `b` whose text
 * is `x`); its elements' attributes stay under the entity's reference, where the XPath of
 * XML://@* does not look. Checked against the reference (docs/crs-exclusions.md).
 */
class XmlContent {
  #text = ''
  readonly attributes: string[] = []
  /** characters of text and attribute values so far (libxml2 refuses ten times the document) */
  private length = 0

  constructor(
    readonly entities: XmlEntities,
    private readonly amplificationLimit: number,
  ) {}

  /** XML:/*'s value: the text read so far */
  get text(): string {
    return this.#text
  }

  private grow(length: number): void {
    this.length += length
    if (this.length > this.amplificationLimit)
      throw new MalformedXml('entities amplify the document')
  }

  /** Character data: references decoded, a declared entity's text read as content. */
  characters(chunk: string): void {
    if (!chunk.includes('&')) return this.appendText(chunk)
    let last = 0
    for (const m of chunk.matchAll(REFERENCE)) {
      this.appendText(chunk.slice(last, m.index))
      last = m.index + m[0].length
      const ref = m[1]!
      if (ref.startsWith('#')) this.appendText(characterReference(ref))
      else if (PREDEFINED_ENTITIES[ref] !== undefined) this.appendText(PREDEFINED_ENTITIES[ref])
      else {
        const replacement = this.entities.replacement(ref)
        // libxml2 leaves an unknown entity's reference as it is.
        if (replacement === undefined) this.appendText(m[0])
        else this.entities.use(ref, () => readMarkup(replacement, this, false))
      }
    }
    this.appendText(chunk.slice(last))
  }

  /** Text as it stands (CDATA, an entity's comments), counted against the amplification limit. */
  appendText(text: string): void {
    this.grow(text.length)
    this.#text += text
  }

  /**
   * An attribute value as libxml2 normalises it: references decoded, tabs and line ends made
   * spaces. An entity whose replacement text holds `<` may not be used there (XML's WFC "No < in
   * Attribute Values").
   */
  attributeValue(raw: string): string {
    const value = this.decodeAttribute(raw.replace(/[\t\n]/g, ' '))
    this.grow(value.length)
    return value
  }

  private decodeAttribute(text: string): string {
    if (!text.includes('&')) return text
    return text.replace(REFERENCE, (whole, ref: string) => {
      if (ref.startsWith('#')) return characterReference(ref)
      const predefined = PREDEFINED_ENTITIES[ref]
      if (predefined !== undefined) return predefined
      const replacement = this.entities.replacement(ref)
      if (replacement === undefined) return whole
      if (replacement.includes('<')) throw new MalformedXml(`entity ${ref} puts < in an attribute`)
      const value = this.entities.use(ref, () => this.decodeAttribute(replacement))
      if (value.length > ENTITY_TEXT_LIMIT) throw new MalformedXml(`entity ${ref} amplifies`)
      return value
    })
  }
}

/**
 * XML:/* (the document's text) and XML://@* (its attributes' values), or a parse error; text and
 * values as libxml2 leaves them: line ends normalised to `\n`, references and entities decoded,
 * whitespace in attribute values made spaces.
 */
export function parseXml(raw: string): { text: string[]; attributes: string[]; error: boolean } {
  const utf8 = xmlAsUtf8(raw)
  if (utf8 === undefined) return { text: [], attributes: [], error: true }
  const body = utf8.replace(/\r\n?/g, '\n')
  // Entities used many times amplify the document as well (libxml2 refuses ten times its size).
  const amplificationLimit = Math.max(ENTITY_TEXT_LIMIT, 10 * body.length)
  const content = new XmlContent(new XmlEntities(amplificationLimit), amplificationLimit)
  try {
    readMarkup(body, content, true)
  } catch (e) {
    if (e instanceof MalformedXml) return { text: [], attributes: [], error: true }
    throw e
  }
  return { text: [content.text], attributes: content.attributes, error: false }
}

/**
 * Reads markup into `content`: the whole document (`document`: a prolog, one root element, its
 * attributes recorded), or an entity's replacement text used in content (elements balanced within
 * it). Throws MalformedXml.
 */
function readMarkup(body: string, content: XmlContent, document: boolean): void {
  const stack: string[] = []
  let seenRoot = false
  let i = 0
  while (i < body.length) {
    const lt = body.indexOf('<', i)
    const chunk = body.slice(i, lt < 0 ? body.length : lt)
    if (stack.length > 0 || !document) content.characters(chunk)
    else if (chunk.trim() !== '') throw new MalformedXml('text outside the root element')
    if (lt < 0) break
    if (document && !seenRoot && /^<!DOCTYPE\b/i.test(body.slice(lt, lt + 9))) {
      i = readDoctype(body, lt, content.entities)
      continue
    }
    if (body.startsWith('<![CDATA[', lt)) {
      const end = body.indexOf(']]>', lt)
      if (end < 0) throw new MalformedXml('unterminated CDATA section')
      content.appendText(body.slice(lt + 9, end))
      i = end + 3
      continue
    }
    if (body.startsWith('<?', lt) || body.startsWith('<!', lt)) {
      const terminator = body.startsWith('<!--', lt)
        ? '-->'
        : body.startsWith('<?', lt)
          ? '?>'
          : '>'
      const close = body.indexOf(terminator, lt + 2)
      if (close < 0) throw new MalformedXml('unterminated markup')
      // An entity's own comments and processing instructions are among its content's nodes, whose
      // content xmlNodeGetContent() gives as it walks the entity (those inside elements it skips).
      if (!document && stack.length === 0 && terminator !== '>')
        content.appendText(
          terminator === '-->' ? body.slice(lt + 4, close) : piContent(body, lt, close),
        )
      i = close + terminator.length
      continue
    }
    const gt = outsideQuotes(body, lt, '>')
    if (gt < 0) throw new MalformedXml('unterminated tag')
    const tag = body.slice(lt + 1, gt)
    if (tag.startsWith('/')) {
      if (stack.pop() !== tag.slice(1).trim()) throw new MalformedXml('mismatched end tag')
    } else {
      const name = /^[^\s/>]+/.exec(tag)?.[0]
      if (name === undefined) throw new MalformedXml('tag without a name')
      if (document && seenRoot && stack.length === 0)
        throw new MalformedXml('a second root element')
      seenRoot = true
      for (const m of tag.matchAll(/\s([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
        // Namespace declarations are no attributes to libxml2's tree (xmlns, xmlns:prefix).
        if (m[1] === 'xmlns' || m[1]!.startsWith('xmlns:')) continue
        const value = content.attributeValue(m[2] ?? m[3] ?? '')
        if (document) content.attributes.push(value)
      }
      if (!tag.endsWith('/')) stack.push(name)
    }
    i = gt + 1
  }
  if (stack.length > 0) throw new MalformedXml('unclosed element')
  if (document && !seenRoot) throw new MalformedXml('no root element')
}

/** A processing instruction's content: what follows its target and the whitespace after it. */
function piContent(body: string, lt: number, close: number): string {
  return /^[^\s?]*\s*([\s\S]*)$/.exec(body.slice(lt + 2, close))![1]!
}

/** A DOCTYPE at `lt`: its internal subset's entities declared; the index after it. */
function readDoctype(body: string, lt: number, entities: XmlEntities): number {
  // the internal subset, [ ... ], holds the entities' declarations
  const open = outsideQuotes(body, lt, '[')
  const firstClose = outsideQuotes(body, lt, '>')
  let close = firstClose
  if (open >= 0 && (firstClose < 0 || open < firstClose)) {
    const end = outsideQuotes(body, open, ']')
    if (end < 0) throw new MalformedXml('unterminated internal subset')
    const subset = body.slice(open + 1, end)
    for (const m of subset.matchAll(ENTITY_DECLARATION)) entities.declare(m[1]!, m[2] ?? m[3] ?? '')
    close = outsideQuotes(body, end, '>')
  }
  if (close < 0) throw new MalformedXml('unterminated DOCTYPE')
  return close + 1
}

/** The request's parts the collections are built from, read from the evaluation context. */
export interface CrsRequest {
  method: string
  /** the request target as sent (path and query) */
  uri: string
  protocol: string
  /**
   * the request line as sent, when the description has it: REQUEST_LINE, and the method and
   * target ModSecurity reads from it (a target without its leading `/` stays so)
   */
  line?: string
  /** header names and values in order, a repeated header's values joined with `, ` */
  headers: Entry[]
  body: string
  remoteAddr: string
}

function stringField(ctx: EvaluationContext, name: string): string {
  const value = ctx.fields[name]
  return typeof value === 'string' ? value : ''
}

export function crsRequestOf(ctx: EvaluationContext): CrsRequest {
  const names = ctx.fields['http.request.headers.names']
  const values = ctx.fields['http.request.headers.values']
  // Apache merges a repeated header into one, its values joined with ", " (RFC 9110 §5.3).
  const merged = new Map<string, [string, string]>()
  if (Array.isArray(names) && Array.isArray(values)) {
    names.forEach((name, index) => {
      const key = String(name).toLowerCase()
      const value = String(values[index] ?? '')
      const seen = merged.get(key)
      if (seen) seen[1] = `${seen[1]}, ${value}`
      else merged.set(key, [String(name), value])
    })
  }
  // The whole body: ModSecurity parses all of it (a form's files count towards its 13 MB limit,
  // not towards the 128 KB one for the rest), where the WAF fields stop at the inspection limit.
  const whole = ctx.fields[RAW_REQUEST_BODY]
  const body = typeof whole === 'string' ? whole : stringField(ctx, 'http.request.body.raw')
  const line = ctx.fields[RAW_REQUEST_LINE]
  // A body travels with its length (RFC 9112 §6): a description that leaves it out means it.
  // With Transfer-Encoding, Apache drops Content-Length (RFC 9112 §6.3), as ModSecurity sees.
  // An HTTP/1.1 request names its host in Host (RFC 9112 §3.2): a description whose URL names
  // one and whose headers do not was sent with it, as the simulator's requests are.
  const host = stringField(ctx, 'http.host')
  if (host !== '' && !merged.has('host')) merged.set('host', ['Host', host])
  if (merged.has('transfer-encoding')) merged.delete('content-length')
  else if (body.length > 0 && !merged.has('content-length'))
    merged.set('content-length', ['Content-Length', String(body.length)])
  return {
    method: stringField(ctx, 'http.request.method'),
    uri: stringField(ctx, 'raw.http.request.uri'),
    protocol: stringField(ctx, 'http.request.version') || 'HTTP/1.1',
    headers: [...merged.values()],
    body,
    remoteAddr: '127.0.0.1',
    ...(typeof line === 'string' ? { line } : {}),
  }
}
