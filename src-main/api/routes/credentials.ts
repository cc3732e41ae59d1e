// /workbench/v1/credentials: the leaked-credential database the exposed-credentials check asks.
// GET counts what it holds; POST …/import streams a hash list from a file on this machine
// (`HASH:COUNT` per line) into it, batch by batch, with `?stream=true` answering NDJSON progress
// lines before the envelope.

import { existsSync, statSync } from 'node:fs'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { badRequest } from '@shared/api/errors'
import { importHashList, type CredentialNamespace } from '../../zones/credentials'
import { ok } from '../envelope'

const ImportBody = Type.Object(
  {
    /** absolute path of the list on this machine */
    path: Type.String({ minLength: 1 }),
    kind: Type.Union([Type.Literal('pair'), Type.Literal('password')]),
    /** the salt the list's hashes were made with, if any */
    salt: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
)

export const credentialRoutes: FastifyPluginAsyncTypebox<{
  credentials: CredentialNamespace
}> = async (app, { credentials }) => {
  const id = credentials.idFromName('credentials')

  app.get('/credentials', async () => ok(await credentials.call(id, (db) => db.counts())))

  app.post(
    '/credentials/import',
    {
      schema: {
        body: ImportBody,
        querystring: Type.Object({ stream: Type.Optional(Type.Boolean()) }),
      },
    },
    async (request, reply) => {
      const { path, kind, salt } = request.body
      if (!existsSync(path) || !statSync(path).isFile()) {
        throw badRequest(1001, `Invalid request: ${path} is not a file on this machine`)
      }
      const stream = request.query.stream === true
      if (stream) reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson' })
      const result = await importHashList(credentials, path, {
        kind,
        salt,
        onProgress: (progress) => {
          if (stream) reply.raw.write(`${JSON.stringify({ progress })}\n`)
        },
      })
      const answer = ok({ ...result, counts: await credentials.call(id, (db) => db.counts()) })
      if (!stream) return answer
      reply.raw.end(`${JSON.stringify(answer)}\n`)
      return reply
    },
  )
}
