// The request as ModSecurity 2.9 presents it to rules: its line, headers, cookies, arguments and
// body, each parsed as ModSecurity's own parsers do (apache2/msc_parsers.c, msc_multipart.c,
// msc_json.c, msc_xml.c of https://github.com/owasp-modsecurity/ModSecurity/tree/v2/master).
// Everything is built from the evaluation context the rest of the engine uses, on first use.

import { RAW_REQUEST_LINE, type EvaluationContext } from '@shared/expression'

/** A value of a collection: its key as ModSecurity names it, and its bytes. */
export type Entry = readonly [key: string, value: string]

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

/** parse_cookies_v0(): `;`-separated `name=value` pairs, leading spaces skipped. */
export function parseCookies(header: string): Entry[] {
  const entries: Entry[] = []
  for (const part of header.split(';')) {
    const cookie = part.replace(/^[ \t]+/, '')
    if (cookie === '') continue
    const eq = cookie.indexOf('=')
    const name = eq < 0 ? cookie : cookie.slice(0, eq)
    if (name === '') continue
    entries.push([name, eq < 0 ? '' : cookie.slice(eq + 1)])
  }
  return entries
}

/** What a multipart body holds, as ModSecurity's parser leaves it. */
export interface Multipart {
  args: Entry[]
  /** FILES: part name → file name */
  files: Entry[]
  /** MULTIPART_PART_HEADERS: part name → each header line */
  partHeaders: Entry[]
  /** the sizes of the files' contents */
  fileSizes: number
  error: boolean
}

export function parseMultipart(body: string, boundary: string): Multipart {
  const result: Multipart = { args: [], files: [], partHeaders: [], fileSizes: 0, error: false }
  const delimiter = `--${boundary}`
  const chunks = body.split(delimiter)
  if (chunks.length < 2) {
    result.error = true
    return result
  }
  let closed = false
  for (const chunk of chunks.slice(1)) {
    if (chunk.startsWith('--')) {
      closed = true
      break
    }
    const part = chunk.replace(/^\r?\n/, '')
    const split = part.search(/\r?\n\r?\n/)
    if (split < 0) {
      result.error = true
      continue
    }
    const headerLines = part.slice(0, split).split(/\r?\n/)
    const value = part
      .slice(split)
      .replace(/^\r?\n\r?\n/, '')
      .replace(/\r?\n$/, '')
    let name = ''
    let filename: string | undefined
    for (const line of headerLines) {
      const colon = line.indexOf(':')
      if (colon <= 0) continue
      if (line.slice(0, colon).trim().toLowerCase() !== 'content-disposition') continue
      const disposition = line.slice(colon + 1)
      name =
        /\bname="([^"]*)"/i.exec(disposition)?.[1] ??
        /\bname=([^;\s]*)/i.exec(disposition)?.[1] ??
        ''
      filename =
        /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ??
        /\bfilename=([^;\s]*)/i.exec(disposition)?.[1]
    }
    for (const line of headerLines) result.partHeaders.push([name, line])
    if (filename !== undefined) {
      result.files.push([name, filename])
      result.fileSizes += value.length
    } else result.args.push([name, value])
  }
  if (!closed) result.error = true
  return result
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
          let code = parseInt(body.slice(i + 2, i + 6), 16)
          i += 6
          if (code >= 0xd800 && code < 0xdc00 && /^\\u[dD][c-fC-F]/.test(body.slice(i, i + 4))) {
            code =
              0x10000 + ((code - 0xd800) << 10) + (parseInt(body.slice(i + 2, i + 6), 16) - 0xdc00)
            i += 6
          }
          out += Buffer.from(String.fromCodePoint(code), 'utf8').toString('latin1')
        } else return undefined
      } else if (c.charCodeAt(0) < 0x20) return undefined
      else {
        out += c
        i++
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
        key = k
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

/** XML:/* (the document's text) and XML://@* (its attributes' values), or a parse error. */
export function parseXml(body: string): { text: string[]; attributes: string[]; error: boolean } {
  const attributes: string[] = []
  const stack: string[] = []
  let text = ''
  let seenRoot = false
  let i = 0
  while (i < body.length) {
    const lt = body.indexOf('<', i)
    const chunk = body.slice(i, lt < 0 ? body.length : lt)
    if (stack.length > 0) text += chunk
    else if (chunk.trim() !== '') return { text: [], attributes: [], error: true }
    if (lt < 0) break
    if (body.startsWith('<?', lt) || body.startsWith('<!--', lt) || body.startsWith('<!', lt)) {
      const close = body.startsWith('<!--', lt) ? body.indexOf('-->', lt) : body.indexOf('>', lt)
      if (close < 0) return { text: [], attributes: [], error: true }
      if (body.startsWith('<![CDATA[', lt)) {
        const end = body.indexOf(']]>', lt)
        if (end < 0) return { text: [], attributes: [], error: true }
        text += body.slice(lt + 9, end)
        i = end + 3
        continue
      }
      i = close + (body.startsWith('<!--', lt) ? 3 : 1)
      continue
    }
    const gt = body.indexOf('>', lt)
    if (gt < 0) return { text: [], attributes: [], error: true }
    const tag = body.slice(lt + 1, gt)
    if (tag.startsWith('/')) {
      if (stack.pop() !== tag.slice(1).trim()) return { text: [], attributes: [], error: true }
    } else {
      const name = /^[^\s/>]+/.exec(tag)?.[0]
      if (name === undefined || (seenRoot && stack.length === 0))
        return { text: [], attributes: [], error: true }
      seenRoot = true
      for (const m of tag.matchAll(/\s[^\s=]+\s*=\s*(?:"([^"]*)"|'([^']*)')/g))
        attributes.push(m[1] ?? m[2] ?? '')
      if (!tag.endsWith('/')) stack.push(name)
    }
    i = gt + 1
  }
  if (!seenRoot || stack.length > 0) return { text: [], attributes: [], error: true }
  return { text: [text], attributes, error: false }
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
  const body = stringField(ctx, 'http.request.body.raw')
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
