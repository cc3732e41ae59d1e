// The request the Simulator composes, as plain fields: method, URL, headers, a body written as a
// form, as JSON or as raw text, and what the edge knows of the client. `buildRequest` turns them
// into the request description the simulate route takes, which is what a saved sample keeps;
// `requestFields` turns it back into fields, so a sample loads back into the composer.

import type { SimulatedRequest } from '@shared/api/simulate'

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const
export const BODY_MODES = ['none', 'form', 'json', 'raw'] as const
export type BodyMode = (typeof BODY_MODES)[number]

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded'
export const JSON_CONTENT_TYPE = 'application/json'

export interface FieldRow {
  name: string
  value: string
}

/** Everything the composer holds, as plain data. */
export interface DraftFields {
  method: string
  url: string
  headers: FieldRow[]
  bodyMode: BodyMode
  formRows: FieldRow[]
  json: string
  raw: string
  ip: string
  country: string
  /** null when not given (an emptied number field binds null) */
  botScore: number | null
  threatScore: number | null
}

/** Why `text` is not JSON, or null when it is. */
export function jsonProblem(text: string): string | null {
  try {
    JSON.parse(text)
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/** The content type a body mode sends, or null when the headers as written decide. */
export function modeContentType(mode: BodyMode): string | null {
  if (mode === 'form') return FORM_CONTENT_TYPE
  if (mode === 'json') return JSON_CONTENT_TYPE
  return null
}

function bodyText(fields: DraftFields): string | undefined {
  switch (fields.bodyMode) {
    case 'form': {
      const rows = fields.formRows.filter((row) => row.name !== '')
      return new URLSearchParams(rows.map((row) => [row.name, row.value])).toString()
    }
    case 'json':
      return fields.json
    case 'raw':
      return fields.raw === '' ? undefined : fields.raw
    case 'none':
      return undefined
  }
}

/** The request description of the composed fields. */
export function buildRequest(fields: DraftFields): SimulatedRequest {
  const contentType = modeContentType(fields.bodyMode)
  // A form or JSON body states its own content type, replacing one written in the headers.
  const rows = fields.headers.filter(
    (row) =>
      row.name.trim() !== '' &&
      (contentType === null || row.name.trim().toLowerCase() !== 'content-type'),
  )
  const headers: Record<string, string[]> = {}
  for (const row of rows) (headers[row.name.trim()] ??= []).push(row.value)
  if (contentType !== null) headers['content-type'] = [contentType]
  const request: SimulatedRequest = {
    method: fields.method,
    url: fields.url.trim(),
    headers: Object.fromEntries(
      Object.entries(headers).map(([name, values]) => [
        name,
        values.length === 1 ? values[0]! : values,
      ]),
    ),
  }
  const body = bodyText(fields)
  if (body !== undefined) request.body = body
  if (fields.ip.trim() !== '') request.ip = fields.ip.trim()
  if (fields.country.trim() !== '') request.country = fields.country.trim().toUpperCase()
  if (fields.botScore !== null) request.botScore = fields.botScore
  if (fields.threatScore !== null) request.threatScore = fields.threatScore
  return request
}

/** The fields that compose `request`: the body's mode is read from its content type. */
export function requestFields(request: SimulatedRequest): DraftFields {
  const rows = Object.entries(request.headers ?? {}).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((one) => ({ name, value: one })),
  )
  const contentType = rows.find((row) => row.name.toLowerCase() === 'content-type')?.value
  const body = request.body
  const bodyMode: BodyMode =
    body === undefined
      ? 'none'
      : contentType === FORM_CONTENT_TYPE
        ? 'form'
        : contentType === JSON_CONTENT_TYPE
          ? 'json'
          : 'raw'
  return {
    method: request.method,
    url: request.url,
    // A form or JSON body states its own content type (buildRequest adds it back).
    headers:
      modeContentType(bodyMode) === null
        ? rows
        : rows.filter((row) => row.name.toLowerCase() !== 'content-type'),
    bodyMode,
    formRows:
      bodyMode === 'form'
        ? [...new URLSearchParams(body)].map(([name, value]) => ({ name, value }))
        : [{ name: '', value: '' }],
    json: bodyMode === 'json' ? body! : '{}',
    raw: bodyMode === 'raw' ? body! : '',
    ip: request.ip ?? '',
    country: request.country ?? '',
    botScore: request.botScore ?? null,
    threatScore: request.threatScore ?? null,
  }
}
