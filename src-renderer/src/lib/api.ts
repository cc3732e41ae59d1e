// The loopback API as the screens use it: the bridge's `callApi` carries each request through
// the API's own handlers, so a screen's change is validated, stored and refused exactly as a
// script's would be. A refusal throws ApiCallError with the API's messages (and their pointers).

import type { ResultInfo } from '@shared/api/envelope'
import { ApiCallError } from './api-error'
import { bridge } from './bridge'

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** `result_info` of a cursor-paginated list (the Rulesets API's). */
interface CursorInfo {
  cursor?: string
  cursors?: { after?: string }
}

async function request<T>(
  method: Method,
  path: string,
  body?: unknown,
): Promise<{ result: T; resultInfo?: ResultInfo & CursorInfo }> {
  const answer = await bridge.callApi({ method, path, body })
  if (answer.body === null) return { result: null as T }
  if (!answer.body.success) {
    throw new ApiCallError(answer.status, answer.body.errors ?? [])
  }
  return { result: answer.body.result as T, resultInfo: answer.body.result_info }
}

/**
 * The text of a file the API answers (an export, an NDJSON stream); a refusal throws. A stream
 * with nothing to report answers its envelope alone, which comes back as that envelope's JSON.
 */
async function requestText(method: Method, path: string, body?: unknown): Promise<string> {
  const answer = await bridge.callApi({ method, path, body })
  if (answer.text !== undefined) return answer.text
  if (answer.body?.success) return JSON.stringify(answer.body)
  throw new ApiCallError(answer.status, answer.body?.errors ?? [])
}

/** The vendor's API under /client/v4; paths are given without that prefix. */
export const api = {
  get: async <T>(path: string): Promise<T> => (await request<T>('GET', `/client/v4${path}`)).result,
  /** A page of a paginated list with its `result_info`. */
  page: <T>(path: string) => request<T[]>('GET', `/client/v4${path}`),
  post: async <T>(path: string, body: unknown): Promise<T> =>
    (await request<T>('POST', `/client/v4${path}`, body)).result,
  put: async <T>(path: string, body: unknown): Promise<T> =>
    (await request<T>('PUT', `/client/v4${path}`, body)).result,
  patch: async <T>(path: string, body: unknown): Promise<T> =>
    (await request<T>('PATCH', `/client/v4${path}`, body)).result,
  delete: async <T>(path: string, body?: unknown): Promise<T> =>
    (await request<T>('DELETE', `/client/v4${path}`, body)).result,
}

/** The workbench's own routes under /workbench/v1; paths are given without that prefix. */
export const workbenchApi = {
  get: async <T>(path: string): Promise<T> =>
    (await request<T>('GET', `/workbench/v1${path}`)).result,
  post: async <T>(path: string, body: unknown): Promise<T> =>
    (await request<T>('POST', `/workbench/v1${path}`, body)).result,
  patch: async <T>(path: string, body: unknown): Promise<T> =>
    (await request<T>('PATCH', `/workbench/v1${path}`, body)).result,
  delete: async <T>(path: string): Promise<T> =>
    (await request<T>('DELETE', `/workbench/v1${path}`)).result,
  /** A file the route answers instead of an envelope, as its text. */
  getText: (path: string): Promise<string> => requestText('GET', `/workbench/v1${path}`),
  /** A POST answered by a file or a stream (e.g. NDJSON progress), as its text. */
  postText: (path: string, body: unknown): Promise<string> =>
    requestText('POST', `/workbench/v1${path}`, body),
}

/** Every item of a page-numbered list, page by page. */
export async function allPages<T>(path: string, perPage = 100): Promise<T[]> {
  const items: T[] = []
  const separator = path.includes('?') ? '&' : '?'
  for (let page = 1; ; page++) {
    const { result } = await api.page<T>(`${path}${separator}page=${page}&per_page=${perPage}`)
    items.push(...result)
    if (result.length < perPage) return items
  }
}

/** Every item of a cursor-paginated list (the Rulesets API's), following `result_info.cursor`. */
export async function allCursorPages<T>(path: string, perPage = 50): Promise<T[]> {
  const items: T[] = []
  const separator = path.includes('?') ? '&' : '?'
  let cursor: string | undefined
  do {
    const after = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`
    const { result, resultInfo } = await api.page<T>(
      `${path}${separator}per_page=${perPage}${after}`,
    )
    items.push(...result)
    cursor = resultInfo?.cursor ?? resultInfo?.cursors?.after
  } while (cursor)
  return items
}
