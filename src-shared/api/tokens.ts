// What `GET /user/tokens/verify` answers of the API token a request presents, as the vendor's
// User API Tokens API does. Sources: the SDK's `TokenVerifyResponse`
// (https://github.com/cloudflare/cloudflare-typescript/blob/main/src/resources/user/tokens/tokens.ts)
// and docs/vendor-behaviour.md#token-verification for the answers seen.

export const TOKEN_STATUSES = ['active', 'disabled', 'expired'] as const
export type TokenStatus = (typeof TOKEN_STATUSES)[number]

export interface TokenVerification {
  /** the token's id (32 hex digits), never the token */
  id: string
  status: TokenStatus
  /**
   * When the token stops and starts being accepted: the vendor sends them only for a token that
   * has them, and the workbench's token has neither, so they are never sent.
   */
  expires_on?: string
  not_before?: string
}
