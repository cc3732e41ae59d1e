// The vendor's v4 API at a remote's base_url, through fetch: its credentials as the vendor takes
// them (a bearer token, or the global key with its email), its envelope checked on every answer,
// its lists read page by page as it pages them. The credentials live in this object only: they are
// never stored, logged or put in an error.

import type { Envelope } from '@shared/api/envelope'
import { ApiError, badRequest } from '@shared/api/errors'
import { type RemoteTarget } from '@shared/api/remote'
import { isLoopbackHost } from '../api/server'
import { REMOTE_ERRORS } from '@shared/api/error-codes'

/** A remote that does not answer within this long is unreachable. */
const TIMEOUT_MS = 30_000

/** The vendor's largest page for filters, firewall rules, overrides and WAF lists. */
const PER_PAGE = 100

export interface RemoteAnswer {
  status: number
  envelope: Envelope<unknown>
}

const invalidTarget = (message: string, pointer: string) =>
  badRequest(REMOTE_ERRORS.target, message, { source: { pointer } })

/** `base_url` as a URL without its trailing slash, if it may be connected to. */
function checkedBaseUrl(baseUrl: string): string {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw invalidTarget(`base_url ${JSON.stringify(baseUrl)} is not a URL`, '/base_url')
  }
  const allowed =
    url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.host))
  if (!allowed || url.username !== '' || url.password !== '') {
    throw invalidTarget(
      `base_url must be https:, or http: to a loopback host (127.0.0.1, localhost, [::1]), without credentials in it: ${url.protocol}//${url.host} is refused`,
      '/base_url',
    )
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

function credentialHeaders(target: RemoteTarget): Record<string, string> {
  if (target.api_token !== undefined) return { authorization: `Bearer ${target.api_token}` }
  if (target.api_email !== undefined && target.api_key !== undefined) {
    return { 'x-auth-email': target.api_email, 'x-auth-key': target.api_key }
  }
  throw invalidTarget(
    'A remote needs api_token, or api_email with api_key',
    target.api_email === undefined ? '/api_token' : '/api_key',
  )
}

const isEnvelope = (value: unknown): value is Envelope<unknown> =>
  value !== null &&
  typeof value === 'object' &&
  typeof (value as Envelope<unknown>).success === 'boolean' &&
  Array.isArray((value as Envelope<unknown>).errors)

/** The remote's errors as one sentence. */
export const remoteMessages = (errors: readonly { code: number; message: string }[]) =>
  errors.map((error) => `${error.code}: ${error.message}`).join('; ') || 'no error given'

export class RemoteClient {
  readonly baseUrl: string
  private readonly headers: Record<string, string>

  constructor(target: RemoteTarget) {
    this.baseUrl = checkedBaseUrl(target.base_url)
    this.headers = credentialHeaders(target)
  }

  /** One call; the remote's answer whatever its status, provided it is the envelope. */
  async call(method: string, path: string, body?: unknown): Promise<RemoteAnswer> {
    const where = `${method} ${this.baseUrl}${path}`
    let response: Response
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          ...this.headers,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      })
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause
      const reason = cause?.code ?? cause?.message ?? (error as Error).message
      throw badRequest(REMOTE_ERRORS.unreachable, `The remote did not answer ${where}: ${reason}`)
    }
    const text = await response.text()
    let envelope: unknown
    try {
      envelope = text === '' && response.status === 204 ? emptySuccess() : JSON.parse(text)
    } catch {
      envelope = undefined
    }
    if (!isEnvelope(envelope)) {
      throw badRequest(
        REMOTE_ERRORS.notEnvelope,
        `The remote answered ${where} with HTTP ${response.status} and not the v4 API's envelope: is base_url the API's root (…/client/v4)?`,
      )
    }
    return { status: response.status, envelope }
  }

  /** A read's result, or the 400 that names the remote's refusal. */
  async get<T>(path: string): Promise<T> {
    const { status, envelope } = await this.call('GET', path)
    if (!envelope.success) throw refusedRead(`GET ${path}`, status, envelope)
    return envelope.result as T
  }

  /** Every item of a list the remote pages by page number (`result_info.total_pages`). */
  async pages<T>(path: string): Promise<T[]> {
    const items: T[] = []
    const join = path.includes('?') ? '&' : '?'
    for (let page = 1; ; page++) {
      const at = `${path}${join}page=${page}&per_page=${PER_PAGE}`
      const { status, envelope } = await this.call('GET', at)
      if (!envelope.success) throw refusedRead(`GET ${at}`, status, envelope)
      const result = (envelope.result ?? []) as T[]
      items.push(...result)
      const totalPages = envelope.result_info?.total_pages ?? page
      if (page >= totalPages || result.length === 0) return items
    }
  }

  /** Every item of a list the remote pages by cursor (the Rulesets API). */
  async cursorPages<T>(path: string): Promise<T[]> {
    const items: T[] = []
    let cursor: string | undefined
    do {
      const at = cursor === undefined ? path : `${path}?cursor=${encodeURIComponent(cursor)}`
      const { status, envelope } = await this.call('GET', at)
      if (!envelope.success) throw refusedRead(`GET ${at}`, status, envelope)
      items.push(...((envelope.result ?? []) as T[]))
      const info = envelope.result_info as
        { cursor?: string; cursors?: { after?: string } } | undefined
      cursor = info?.cursor ?? info?.cursors?.after
    } while (cursor !== undefined && cursor !== '')
    return items
  }
}

const emptySuccess = (): Envelope<null> => ({
  success: true,
  errors: [],
  messages: [],
  result: null,
})

/** The 400 that names a read the remote refused, with its status and errors. */
export function refusedRead(what: string, status: number, envelope: Envelope<unknown>): ApiError {
  return new ApiError(
    400,
    REMOTE_ERRORS.refused,
    `The remote refused ${what} with HTTP ${status}: ${remoteMessages(envelope.errors)}`,
    { meta: { remote_status: status, remote_errors: envelope.errors } },
  )
}
