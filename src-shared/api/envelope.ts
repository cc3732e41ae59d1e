// The vendor's v4 response envelope. Every answer of the loopback API, its own routes under
// /client/v4 and ours under /workbench/v1 alike, has this shape.

export interface ApiMessage {
  code: number
  message: string
  /** JSON pointer into the request body, as the Rulesets API reports validation errors */
  source?: { pointer: string }
  /** nested causes, e.g. 6003 → 6111 for a malformed Authorization header */
  error_chain?: ApiMessage[]
  meta?: Record<string, unknown>
  /** the vendor's success messages carry `type: null` (e.g. a token verification's 10000) */
  type?: string | null
}

export interface ResultInfo {
  page: number
  per_page: number
  count: number
  total_count: number
  total_pages: number
}

export interface Envelope<T> {
  success: boolean
  errors: ApiMessage[]
  messages: ApiMessage[]
  result: T | null
  result_info?: ResultInfo
}
