// /client/v4/user/tokens/verify: whether the API token a request presents is valid, as the
// vendor's User API Tokens API answers it (docs/vendor-behaviour.md#token-verification). The
// server's guard has checked the credentials before this runs, so a missing or wrong token is
// refused there as on every route; what reaches the handler is the valid token, or the valid
// global key, which the vendor refuses here: it has no token to verify.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { API_ERRORS, API_MESSAGES } from '@shared/api/error-codes'
import { badRequest } from '@shared/api/errors'
import type { TokenVerification } from '@shared/api/tokens'
import { presentedToken, tokenId } from '../auth'
import { ok } from '../envelope'

export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/user/tokens/verify', async (request) => {
    const token = presentedToken(request.headers)
    if (token === undefined) {
      throw badRequest(API_ERRORS.invalidRequest, 'Missing "Authorization" header')
    }
    // The workbench's token never expires and has no start: expires_on and not_before are absent.
    const verification: TokenVerification = { id: tokenId(token), status: 'active' }
    const { code, message } = API_MESSAGES.tokenValid
    return ok(verification, [{ code, message, type: null }])
  })
}
