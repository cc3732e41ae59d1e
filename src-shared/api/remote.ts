// A remote: any endpoint that speaks the vendor's v4 API (production, or another workbench),
// which a zone is pulled from, planned against and applied to. Its credentials travel in each
// request's body and are never stored.

import { Type, type Static } from 'typebox'
import type { ApiMessage } from './envelope'
import type { ConfigurationChange } from './bundle'
import { REMOTE_ERRORS } from './error-codes'
import { badRequest } from './errors'

export const RemoteTarget = Type.Object(
  {
    /** the API's root, e.g. https://api.cloudflare.com/client/v4 */
    base_url: Type.String({ minLength: 1, maxLength: 2048 }),
    api_token: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    api_email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    api_key: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    zone_id: Type.Optional(Type.String({ pattern: '^[0-9a-f]{32}$' })),
    zone_name: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
  },
  { additionalProperties: false },
)
export type RemoteTarget = Static<typeof RemoteTarget>

/** What to give in each field of a remote that cannot be sent empty. */
const WANTED: Readonly<Record<string, string>> = {
  base_url: "the remote API's root, e.g. https://api.cloudflare.com/client/v4",
  api_token: "the remote's API token, or api_email with api_key",
  api_email: "the email of the remote's account, with its api_key",
  api_key: "the remote's global API key, with api_email",
}

/**
 * A preValidation hook of the remote's routes: a base_url or credential sent empty is one that
 * cannot be used (10510, pointing at it), said in a sentence naming what to give, where the
 * schema's minLength would answer in the validator's words ("body/api_token must NOT have fewer
 * than 1 characters").
 */
export async function refuseEmptyRemoteFields(request: { body: unknown }): Promise<void> {
  const { body } = request
  if (body === null || typeof body !== 'object') return
  const empty = Object.keys(WANTED).find((field) => (body as Record<string, unknown>)[field] === '')
  if (empty === undefined) return
  throw badRequest(REMOTE_ERRORS.target, `${empty} is empty: give ${WANTED[empty]}`, {
    source: { pointer: `/${empty}` },
  })
}

/** One call of a plan, against the remote's base_url. */
export interface RemoteCall {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string
  body?: unknown
  /**
   * Local ids of what this call creates, each with the JSON pointer of its remote id in the
   * remote's answer: a later call naming that local id is sent with the remote's id instead.
   */
  creates?: { id: string; at: string }[]
}

/** The answer of POST /workbench/v1/zones/{zone_id}/remote/plan. */
export interface RemotePlan {
  zone: { id: string; name: string }
  remote_zone: { id: string; name: string }
  calls: RemoteCall[]
  changes: ConfigurationChange[]
  empty: boolean
}

/** What became of each call of an apply. */
export interface AppliedCall extends RemoteCall {
  outcome: 'done' | 'failed' | 'not_run'
  /** the remote's HTTP status (a call that ran) */
  status?: number
  /** the remote's errors (a call that failed) */
  errors?: ApiMessage[]
}

/** The answer of POST /workbench/v1/zones/{zone_id}/remote/apply. */
export interface RemoteApplyResult {
  zone: { id: string; name: string }
  remote_zone: { id: string; name: string }
  /** the calls the remote accepted */
  applied: number
  calls: AppliedCall[]
  changes: ConfigurationChange[]
}
