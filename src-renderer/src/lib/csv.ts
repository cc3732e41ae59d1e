// Records as CSV text for a spreadsheet: a header row, then one row per record. Fields holding a
// comma, a quote or a line break are quoted, with their quotes doubled, and lines end in CRLF, as
// RFC 4180 writes it (https://www.rfc-editor.org/rfc/rfc4180#section-2).

type Cell = string | number | boolean | null | undefined

function cell(value: Cell): string {
  const text = value === null || value === undefined ? '' : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** The CSV of `records`, with the columns named by `columns` in that order. */
export function toCsv<Row extends object>(
  records: readonly Row[],
  columns: readonly (keyof Row & string)[],
): string {
  const lines = [columns.map(cell).join(',')]
  for (const record of records)
    lines.push(columns.map((column) => cell(record[column] as Cell)).join(','))
  return `${lines.join('\r\n')}\r\n`
}
