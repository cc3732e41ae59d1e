// /workbench/v1/credentials: the leaked-credential database the exposed-credentials check asks.
// GET describes it (distinct hashes by kind, and the lists imported); POST …/import takes a hash
// list's content (`HASH:COUNT` per line) as the request body, `?kind=…&name=…[&salt=…]`, read as
// it arrives and never held whole (`Content-Encoding: gzip` accepted), with `?stream=true`
// answering NDJSON progress lines before the envelope. No path on this machine is read: a list
// arrives as an upload, or through the Electron shell's file dialog.

import { Readable, Transform, pipeline } from 'node:stream'
import { createGunzip } from 'node:zlib'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ApiError, badRequest } from '@shared/api/errors'
import {
  CredentialImportQuery,
  type CredentialImport,
  type CredentialImportProgress,
} from '@shared/api/credentials'
import { importHashList, type CredentialNamespace } from '../../zones/credentials'
import { failed, ok } from '../envelope'
import type { RouteAccess } from '../server'
import { API_ERRORS } from '@shared/api/error-codes'

export const credentialRoutes: FastifyPluginAsyncTypebox<{
  credentials: CredentialNamespace
}> = async (app, { credentials }) => {
  const id = credentials.idFromName('credentials')
  app.get('/credentials', async () => ok(await credentials.call(id, (db) => db.database())))
  await app.register(credentialUploadRoute, { credentials, path: '/credentials/import' })
}

const UPLOAD_TYPES = ['text/plain', 'application/octet-stream']

const uploadRequired = () =>
  badRequest(
    API_ERRORS.invalidHeaders,
    "Invalid request headers: upload the list's content as the request body",
    {
      error_chain: [
        {
          code: API_ERRORS.invalidContentHeader,
          message: `Invalid Content-Type header, valid values are ${UPLOAD_TYPES.join(', ')}`,
        },
      ],
    },
  )

/** What reading a list can fail with through its sender's doing, as the vendor's 400s. */
export function uploadFault(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return badRequest(
      API_ERRORS.malformedBody,
      `Invalid request: the list is not valid gzip (${code})`,
    )
  }
  if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE') {
    return badRequest(
      API_ERRORS.malformedBody,
      'Invalid request: the upload ended before its content did',
    )
  }
  return undefined
}

/**
 * POST `path`: one list's upload into the database, all of it or nothing. Its own scope takes
 * text bodies as the raw stream. The headless shell registers it again as its bridge's
 * `importCredentialList`, behind the UI's session.
 */
export const credentialUploadRoute: FastifyPluginAsyncTypebox<{
  credentials: CredentialNamespace
  path: string
  access?: RouteAccess
}> = async (app, { credentials, path, access }) => {
  app.addContentTypeParser(UPLOAD_TYPES, (_request, payload, done) => done(null, payload))

  app.post(
    path,
    {
      config: access === undefined ? {} : { access },
      schema: { querystring: CredentialImportQuery },
    },
    async (request, reply) => {
      const { kind, name, salt, stream } = request.query
      const body = request.body
      if (!(body instanceof Readable)) throw uploadRequired()
      const encoding = request.headers['content-encoding'] ?? 'identity'
      if (encoding !== 'identity' && encoding !== 'gzip') {
        throw badRequest(API_ERRORS.invalidHeaders, 'Invalid request headers', {
          error_chain: [
            {
              code: API_ERRORS.invalidContentHeader,
              message: 'Invalid Content-Encoding header, valid values are gzip',
            },
          ],
        })
      }
      const length = Number(request.headers['content-length'])
      const bytes = { bytesRead: 0, totalBytes: Number.isSafeInteger(length) ? length : null }
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes.bytesRead += chunk.length
          done(null, chunk)
        },
      })
      // pipeline's callback sees the failure the import's reading rethrows; nothing to add here.
      const ignore = () => undefined
      const content =
        encoding === 'gzip'
          ? pipeline(body, counter, createGunzip(), ignore)
          : pipeline(body, counter, ignore)

      const writeLine = (line: unknown) => {
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson' })
        }
        reply.raw.write(`${JSON.stringify(line)}\n`)
      }
      try {
        const outcome = await importHashList(credentials, content, { name, kind, salt }, (done) => {
          if (stream === true) {
            writeLine({ progress: { ...bytes, ...done } satisfies CredentialImportProgress })
          }
        })
        const answer = ok({ name, kind, ...bytes, ...outcome } satisfies CredentialImport)
        if (stream !== true) return answer
        writeLine(answer)
      } catch (error) {
        const fault = uploadFault(error)
        // Once progress lines have gone out, the status is sent: the failure is the last line.
        if (!reply.raw.headersSent) throw fault ?? error
        if (fault === undefined) console.error(`POST ${request.url}:`, error)
        writeLine(
          failed(
            (
              fault ??
              new ApiError(
                500,
                API_ERRORS.internalError,
                'Internal error: the import failed; see the log',
              )
            ).toMessages(),
          ),
        )
      }
      reply.raw.end()
      return reply
    },
  )
}
