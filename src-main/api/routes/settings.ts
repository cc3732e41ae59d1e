// /workbench/v1/settings: the workbench's own settings that are not a zone's. Rotating the
// credentials replaces the API token and the global key at once: the old ones stop working with
// this answer, which carries the new ones (the only place they are given out, besides the
// Settings screen and the shell's start-up lines).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Credentials } from '../auth'
import { ok } from '../envelope'

export const settingsRoutes: FastifyPluginAsyncTypebox<{
  rotateCredentials: () => Credentials
}> = async (app, { rotateCredentials }) => {
  // The request says nothing but "rotate": a body, if any, is an empty object.
  const schema = { body: Type.Optional(Type.Object({}, { additionalProperties: false })) }
  app.post('/settings/rotate-credentials', { schema }, async () => {
    const credentials = rotateCredentials()
    return ok({
      api_token: credentials.apiToken,
      email: credentials.email,
      api_key: credentials.apiKey,
    })
  })
}
