// HCL text written the way `terraform fmt` leaves it (hclwrite's formatter,
// https://github.com/hashicorp/hcl/blob/main/hclwrite/format.go): two spaces per level, the `=`
// of consecutive one-line attributes aligned, anything spanning lines written across lines. The
// writer only ever produces that layout, so its output is already canonical.

/** An expression written as it stands, such as a reference to another resource's attribute. */
export class HclExpression {
  constructor(readonly text: string) {}
}

/** An object whose keys are data (map keys such as ids), written quoted. */
export class HclMap {
  constructor(readonly entries: Record<string, HclValue>) {}
}

export type HclValue =
  | string
  | number
  | boolean
  | null
  | HclExpression
  | HclMap
  | HclValue[]
  | { [key: string]: HclValue }

export type HclBodyItem =
  | { attribute: string; value: HclValue }
  | { block: string; labels: string[]; body: HclBodyItem[] }
  | { comment: string }

export const attribute = (name: string, value: HclValue): HclBodyItem => ({
  attribute: name,
  value,
})
export const block = (type: string, labels: string[], body: HclBodyItem[]): HclBodyItem => ({
  block: type,
  labels,
  body,
})
export const comment = (text: string): HclBodyItem => ({ comment: text })

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/

/** A quoted string: HCL's escapes, and `${`/`%{` doubled so that no template is read into it. */
export function quoted(text: string): string {
  const escaped = text
    .replace(/[\\"]|\p{Cc}/gu, (char) => {
      switch (char) {
        case '\\':
          return '\\\\'
        case '"':
          return '\\"'
        case '\n':
          return '\\n'
        case '\r':
          return '\\r'
        case '\t':
          return '\\t'
        default:
          return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
      }
    })
    .replace(/([$%])\{/g, '$1$1{')
  return `"${escaped}"`
}

/** An object of attributes (not a map, a list or an expression). */
export const isHclObject = (value: HclValue): value is { [key: string]: HclValue } =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof HclExpression) &&
  !(value instanceof HclMap)

/** The value on one line, or undefined when it spans lines (objects, lists holding objects). */
function inline(value: HclValue): string | undefined {
  if (value === null) return 'null'
  if (typeof value === 'string') return quoted(value)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value instanceof HclExpression) return value.text
  if (value instanceof HclMap) return Object.keys(value.entries).length === 0 ? '{}' : undefined
  if (Array.isArray(value)) {
    const items = value.map(inline)
    return items.every((item) => item !== undefined) ? `[${items.join(', ')}]` : undefined
  }
  return Object.keys(value).length === 0 ? '{}' : undefined
}

const indentOf = (depth: number) => '  '.repeat(depth)

/** An object's entries as attribute lines: bare names where HCL allows them, quoted otherwise. */
function objectLines(value: { [key: string]: HclValue } | HclMap, depth: number): string[] {
  const quoteAll = value instanceof HclMap
  const entries = Object.entries(quoteAll ? value.entries : value)
  return bodyLines(
    entries.map(([key, item]) => ({
      attribute: quoteAll || !IDENTIFIER.test(key) ? quoted(key) : key,
      value: item,
    })),
    depth,
  )
}

/** The lines after `name = ` of a value that spans lines, its opening bracket first. */
function multiline(value: HclValue, depth: number): string[] {
  const indent = indentOf(depth)
  if (Array.isArray(value)) {
    const lines = ['[']
    for (const item of value) {
      const single = inline(item)
      if (single !== undefined) {
        lines.push(`${indentOf(depth + 1)}${single},`)
        continue
      }
      const [open, ...rest] = multiline(item, depth + 1)
      lines.push(`${indentOf(depth + 1)}${open}`, ...rest.slice(0, -1), `${rest.at(-1)},`)
    }
    lines.push(`${indent}]`)
    return lines
  }
  if (isHclObject(value) || value instanceof HclMap) {
    return ['{', ...objectLines(value, depth + 1), `${indent}}`]
  }
  throw new Error('a scalar is written inline')
}

/** A body's lines at `depth`, each run of one-line attributes with its `=` aligned. */
export function bodyLines(items: HclBodyItem[], depth: number): string[] {
  const indent = indentOf(depth)
  const lines: string[] = []
  let run: { name: string; text: string }[] = []
  const closeRun = () => {
    const width = Math.max(0, ...run.map(({ name }) => name.length))
    for (const { name, text } of run) lines.push(`${indent}${name.padEnd(width)} = ${text}`)
    run = []
  }
  for (const item of items) {
    if ('attribute' in item) {
      const single = inline(item.value)
      if (single !== undefined) {
        run.push({ name: item.attribute, text: single })
        continue
      }
      closeRun()
      const [open, ...rest] = multiline(item.value, depth)
      lines.push(`${indent}${item.attribute} = ${open}`, ...rest)
      continue
    }
    closeRun()
    if ('comment' in item) {
      lines.push(...item.comment.split('\n').map((line) => `${indent}# ${line}`.trimEnd()))
      continue
    }
    const header = [item.block, ...item.labels.map(quoted)].join(' ')
    lines.push(`${indent}${header} {`, ...bodyLines(item.body, depth + 1), `${indent}}`)
  }
  closeRun()
  return lines
}

/** A file of top-level items, a blank line between blocks, ending in a newline. */
export function hclFile(items: HclBodyItem[]): string {
  const chunks: string[][] = []
  let pendingComments: HclBodyItem[] = []
  for (const item of items) {
    if ('comment' in item) {
      pendingComments.push(item)
      continue
    }
    chunks.push(bodyLines([...pendingComments, item], 0))
    pendingComments = []
  }
  if (pendingComments.length > 0) chunks.push(bodyLines(pendingComments, 0))
  return `${chunks.map((lines) => lines.join('\n')).join('\n\n')}\n`
}
