// HCL read back: the native syntax's subset that Terraform files of a zone's resources use
// (https://github.com/hashicorp/hcl/blob/main/hclsyntax/spec.md): blocks with labels, attributes,
// strings with their escapes and templates, heredocs, numbers, bools, null, lists, objects,
// references, function calls and `#`, `//` and `/* */` comments. Every node and every error
// carries its line, so that a value the caller cannot use is named where it is written. An
// expression with operators, conditionals or `for` is refused as a syntax error at its line.

import { MAX_JSON_DEPTH } from '@shared/api/limits'

export interface HclSpan {
  line: number
  column: number
}

export type HclNode = HclSpan &
  (
    | { kind: 'literal'; value: string | number | boolean | null }
    | { kind: 'list'; items: HclNode[] }
    | { kind: 'object'; entries: HclEntry[] }
    /** a traversal such as `var.x` or `cloudflare_ruleset.name.id`, as written */
    | { kind: 'reference'; path: string }
    | { kind: 'call'; name: string }
    /** a template whose parts are not all literal: `inner` is the first part that is not */
    | { kind: 'template'; inner: HclNode }
  )

export interface HclEntry extends HclSpan {
  key: string
  value: HclNode
}

export interface HclBlock extends HclSpan {
  type: string
  labels: string[]
  body: HclBody
}

export interface HclBody {
  attributes: HclEntry[]
  blocks: HclBlock[]
}

export class HclSyntaxError extends Error {
  constructor(
    readonly span: HclSpan,
    readonly reason: string,
  ) {
    super(`line ${span.line}, column ${span.column}: ${reason}`)
  }
}

const IDENTIFIER_START = /[A-Za-z_]/
const IDENTIFIER_PART = /[A-Za-z0-9_-]/
const NUMBER = /-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/y

const isLiteral = (
  node: HclNode,
): node is HclSpan & { kind: 'literal'; value: string | number | boolean | null } =>
  node.kind === 'literal'

class Parser {
  private offset = 0
  private depth = 0
  private line = 1
  private lineStart = 0

  constructor(private readonly text: string) {}

  private get span(): HclSpan {
    return { line: this.line, column: this.offset - this.lineStart + 1 }
  }

  private fail(reason: string, span: HclSpan = this.span): never {
    throw new HclSyntaxError(span, reason)
  }

  private peek(ahead = 0): string {
    return this.text[this.offset + ahead] ?? ''
  }

  private advance(count = 1): void {
    for (let n = 0; n < count; n++) {
      if (this.text[this.offset] === '\n') {
        this.line++
        this.lineStart = this.offset + 1
      }
      this.offset++
    }
  }

  private startsWith(prefix: string): boolean {
    return this.text.startsWith(prefix, this.offset)
  }

  /** Skips spaces and comments; newlines too when `newlines`. A line comment ends at its newline. */
  private skip(newlines: boolean): void {
    for (;;) {
      const char = this.peek()
      if (char === ' ' || char === '\t' || char === '\r' || (newlines && char === '\n')) {
        this.advance()
      } else if (char === '#' || this.startsWith('//')) {
        while (this.offset < this.text.length && this.peek() !== '\n') this.advance()
      } else if (this.startsWith('/*')) {
        const end = this.text.indexOf('*/', this.offset + 2)
        if (end < 0) this.fail('a comment that is never closed')
        this.advance(end + 2 - this.offset)
      } else return
    }
  }

  private expect(char: string): void {
    if (this.peek() !== char) this.fail(`expected "${char}"${this.found()}`)
    this.advance()
  }

  private found(): string {
    const char = this.peek()
    return char === '' ? ', found the end of the file' : `, found ${JSON.stringify(char)}`
  }

  private identifier(): string {
    if (!IDENTIFIER_START.test(this.peek())) this.fail(`expected a name${this.found()}`)
    const start = this.offset
    while (IDENTIFIER_PART.test(this.peek())) this.advance()
    return this.text.slice(start, this.offset)
  }

  /** The items of a body until `end` (`}`, or the end of the file for the file's own body). */
  body(end: '}' | ''): HclBody {
    const body: HclBody = { attributes: [], blocks: [] }
    for (;;) {
      this.skip(true)
      if (this.peek() === end) return body
      if (this.peek() === '') this.fail(`expected "}"${this.found()}`)
      const span = this.span
      const name = this.identifier()
      this.skip(false)
      if (this.peek() === '=') {
        this.advance()
        this.skip(false)
        body.attributes.push({ ...span, key: name, value: this.expression() })
      } else {
        const labels: string[] = []
        while (this.peek() !== '{') {
          if (this.peek() === '"') {
            const label = this.template('"')
            if (!isLiteral(label) || typeof label.value !== 'string') {
              this.fail('a block label is a literal string', label)
            }
            labels.push(label.value)
          } else labels.push(this.identifier())
          this.skip(false)
        }
        this.advance()
        const inner = this.nested(() => this.body('}'))
        this.advance()
        body.blocks.push({ ...span, type: name, labels, body: inner })
      }
      this.skip(false)
      const next = this.peek()
      if (next === '\n') this.advance()
      else if (next !== end && next !== '') {
        this.fail(`expected a new line after the item${this.found()}`)
      }
    }
  }

  /** An expression, nested no deeper than a JSON body may be: the parser recurses. */
  private expression(): HclNode {
    return this.nested(() => this.value())
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_JSON_DEPTH) this.fail(`nested deeper than ${MAX_JSON_DEPTH} levels`)
    try {
      return parse()
    } finally {
      this.depth--
    }
  }

  private value(): HclNode {
    const span = this.span
    const char = this.peek()
    if (char === '"') return this.template('"')
    if (this.startsWith('<<')) return this.heredoc()
    if (char === '[') return this.list()
    if (char === '{') return this.object()
    if (char === '(') {
      this.advance()
      this.skip(true)
      const inner = this.expression()
      this.skip(true)
      this.expect(')')
      return inner
    }
    NUMBER.lastIndex = this.offset
    const number = NUMBER.exec(this.text)
    if (number !== null) {
      this.advance(number[0].length)
      return { ...span, kind: 'literal', value: Number(number[0]) }
    }
    if (!IDENTIFIER_START.test(char)) this.fail(`expected a value${this.found()}`)
    const name = this.identifier()
    if (name === 'true' || name === 'false') {
      return { ...span, kind: 'literal', value: name === 'true' }
    }
    if (name === 'null') return { ...span, kind: 'literal', value: null }
    if (this.peek() === '(' || this.startsWith('::')) return this.call(span, name)
    let path = name
    for (;;) {
      if (this.peek() === '.' && IDENTIFIER_START.test(this.peek(1))) {
        this.advance()
        path += `.${this.identifier()}`
      } else if (this.peek() === '.' && /[0-9*]/.test(this.peek(1))) {
        const start = this.offset
        this.advance()
        while (/[0-9*]/.test(this.peek())) this.advance()
        path += this.text.slice(start, this.offset)
      } else if (this.peek() === '[') {
        const start = this.offset
        this.advance()
        this.skip(true)
        this.expression()
        this.skip(true)
        this.expect(']')
        path += this.text.slice(start, this.offset)
      } else return { ...span, kind: 'reference', path }
    }
  }

  /** A function call (`name(…)`, or a provider's `provider::name::fn(…)`), its arguments skipped. */
  private call(span: HclSpan, name: string): HclNode {
    let full = name
    while (this.startsWith('::')) {
      this.advance(2)
      full += `::${this.identifier()}`
    }
    this.expect('(')
    this.skip(true)
    while (this.peek() !== ')') {
      this.expression()
      this.skip(true)
      if (this.startsWith('...')) this.advance(3)
      this.skip(true)
      if (this.peek() !== ',') break
      this.advance()
      this.skip(true)
    }
    this.expect(')')
    return { ...span, kind: 'call', name: full }
  }

  private list(): HclNode {
    const span = this.span
    this.advance()
    const items: HclNode[] = []
    for (;;) {
      this.skip(true)
      if (this.peek() === ']') break
      items.push(this.expression())
      this.skip(true)
      if (this.peek() !== ',') break
      this.advance()
    }
    this.expect(']')
    return { ...span, kind: 'list', items }
  }

  private object(): HclNode {
    const span = this.span
    this.advance()
    const entries: HclEntry[] = []
    for (;;) {
      this.skip(true)
      if (this.peek() === '}') break
      const keySpan = this.span
      const key = this.objectKey()
      this.skip(false)
      if (this.peek() !== '=' && this.peek() !== ':') this.fail(`expected "="${this.found()}`)
      this.advance()
      this.skip(false)
      entries.push({ ...keySpan, key, value: this.expression() })
      this.skip(false)
      if (this.peek() === ',' || this.peek() === '\n') this.advance()
      else if (this.peek() !== '}') this.fail(`expected "," or a new line${this.found()}`)
    }
    this.expect('}')
    return { ...span, kind: 'object', entries }
  }

  /** An object's key: a name, or an expression whose value is a literal. */
  private objectKey(): string {
    if (IDENTIFIER_START.test(this.peek())) return this.identifier()
    const node = this.expression()
    if (!isLiteral(node) || node.value === null) this.fail('an object key is a literal', node)
    return String(node.value)
  }

  /** A heredoc (`<<EOT`, or `<<-EOT` with its common indentation removed): a template. */
  private heredoc(): HclNode {
    const span = this.span
    this.advance(2)
    const indented = this.peek() === '-'
    if (indented) this.advance()
    const marker = this.identifier()
    if (this.peek() === '\r') this.advance()
    this.expect('\n')
    const lines: string[] = []
    const lineSpans: HclSpan[] = []
    for (;;) {
      if (this.offset >= this.text.length) this.fail(`the heredoc ${marker} is never closed`, span)
      const end = this.text.indexOf('\n', this.offset)
      const line = this.text.slice(this.offset, end < 0 ? undefined : end).replace(/\r$/, '')
      if (line.trim() === marker) {
        this.advance(line.length)
        break
      }
      lines.push(line)
      lineSpans.push(this.span)
      this.advance(end < 0 ? line.length : end + 1 - this.offset)
    }
    const indent = indented
      ? Math.min(
          ...lines
            .filter((line) => line.trim() !== '')
            .map((line) => /^[ \t]*/.exec(line)![0].length),
        )
      : 0
    const parts: HclNode[] = lines.map((line, index) =>
      new Parser(`${line.slice(Number.isFinite(indent) ? indent : 0)}\n`).templateText(
        '',
        lineSpans[index]!,
      ),
    )
    return joined(span, parts)
  }

  /** A quoted template from its opening quote to its closing one. */
  private template(quote: '"'): HclNode {
    const span = this.span
    this.advance()
    const node = this.templateParts(quote, span)
    this.expect(quote)
    return node
  }

  /** A heredoc line's text as a template, its lines counted from `span`. */
  templateText(end: '', span: HclSpan): HclNode {
    this.line = span.line
    this.lineStart = -span.column + 1
    return this.templateParts(end, span)
  }

  private templateParts(end: '"' | '', span: HclSpan): HclNode {
    const quoted = end === '"'
    const parts: HclNode[] = []
    let text = ''
    let textSpan = this.span
    const flush = () => {
      if (text !== '') parts.push({ ...textSpan, kind: 'literal', value: text })
      text = ''
      textSpan = this.span
    }
    for (;;) {
      const char = this.peek()
      if (char === '' && quoted) this.fail('a string that is never closed', span)
      if (char === end) break
      if (quoted && char === '\n') this.fail('a quoted string ends at the end of its line', span)
      if (this.startsWith('$${') || this.startsWith('%%{')) {
        text += `${char}{`
        this.advance(3)
      } else if (this.startsWith('${')) {
        flush()
        const at = this.span
        this.advance(2)
        this.skip(true)
        if (this.peek() === '~') this.advance()
        this.skip(true)
        const inner = this.expression()
        this.skip(true)
        if (this.peek() === '~') this.advance()
        if (this.peek() !== '}')
          this.fail(`expected "}" closing the interpolation${this.found()}`, at)
        this.advance()
        parts.push(inner)
        textSpan = this.span
      } else if (this.startsWith('%{')) {
        this.fail('a template directive (%{ … }) is not a literal value')
      } else if (quoted && char === '\\') {
        text += this.escape()
      } else {
        text += char
        this.advance()
      }
    }
    flush()
    return joined(span, parts)
  }

  private escape(): string {
    const span = this.span
    const next = this.peek(1)
    const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' }
    if (next in simple) {
      this.advance(2)
      return simple[next]!
    }
    const digits = next === 'u' ? 4 : next === 'U' ? 8 : 0
    const hex = this.text.slice(this.offset + 2, this.offset + 2 + digits)
    if (digits === 0 || !new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(hex)) {
      this.fail(`an escape HCL does not know: \\${next}`, span)
    }
    this.advance(2 + digits)
    return String.fromCodePoint(parseInt(hex, 16))
  }
}

/** A template's parts as one node: a literal when each part is one, else the first that is not. */
function joined(span: HclSpan, parts: HclNode[]): HclNode {
  // "${x}" alone is x itself, whatever its type.
  if (parts.length === 1 && !isLiteral(parts[0]!)) return parts[0]!
  const inner = parts.find((part) => !isLiteral(part))
  if (inner !== undefined) {
    return { ...span, kind: 'template', inner: inner.kind === 'template' ? inner.inner : inner }
  }
  const text = parts
    .map((part) => (isLiteral(part) && part.value !== null ? String(part.value) : ''))
    .join('')
  return { ...span, kind: 'literal', value: text }
}

/** The file's body, or an HclSyntaxError at the first thing it cannot read. */
export function parseHcl(text: string): HclBody {
  const parser = new Parser(text)
  return parser.body('')
}
