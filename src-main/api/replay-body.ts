// A replay route's body: taken as the request's stream whatever its type, refused past its
// limit, never read whole (but for a JSON string, the text the bridge sends), and what a run
// leaves of it discarded so that the connection's next request is read where it starts. A job's
// upload is spooled to a file as it arrives (spooled), so that it is answered after its body.

import { EventEmitter, once } from 'node:events'
import { createWriteStream, rmSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { badRequest, payloadTooLarge } from '@shared/api/errors'
import { API_ERRORS } from '@shared/api/error-codes'

/** A day of a busy site's logs, uncompressed. */
export const REPLAY_BODY_LIMIT = 64 * 1024 ** 3

/**
 * Lets a plugin's routes take their body as the request's stream, whatever its type (NDJSON, a
 * log, HAR as application/json, gzip): the routes read it through openReplayInput. Register the
 * replay routes in a plugin of their own: this replaces the JSON parser in that plugin.
 */
export function acceptReplayStreams(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload))
}

/**
 * The body of a replay route as chunks, refused past REPLAY_BODY_LIMIT. A run that stops before
 * the end (a refusal, a cancel) leaves the request stream open, since destroying it would reset
 * the connection before the answer is written; the rest of the body is discarded (discardRest)
 * so that the connection's next request is read from where it starts.
 */
export async function* bodyChunks(request: FastifyRequest): AsyncGenerator<Uint8Array> {
  const body = request.body as Readable | undefined
  if (body === undefined) return
  let bytes = 0
  let ended = false
  try {
    for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      bytes += chunk.byteLength
      if (bytes > REPLAY_BODY_LIMIT) throw payloadTooLarge(REPLAY_BODY_LIMIT)
      yield chunk
    }
    ended = true
  } finally {
    if (!ended) discardRest(request)
  }
}

/**
 * Reads and drops what a run left of the body. A reader suspended mid-body (an input refused at
 * its first line) keeps its 'readable' listener, under which resume() does nothing
 * (https://nodejs.org/api/stream.html#readableresume), so the listeners go first.
 */
export function discardRest(request: FastifyRequest): void {
  const raw = request.raw
  if (raw.readableEnded || raw.destroyed) return
  raw.removeAllListeners('readable')
  raw.resume()
}

/**
 * The body's chunks, or, for a JSON string (the bridge's callApi sends the screens' NDJSON chunks
 * as one), the text it holds: bounded by the bridge's own body limit, so read whole.
 */
export async function* replayBody(request: FastifyRequest): AsyncGenerator<Uint8Array> {
  const chunks = bodyChunks(request)
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
    yield* chunks
    return
  }
  const read: Uint8Array[] = []
  for await (const chunk of chunks) {
    read.push(chunk)
    const text = Buffer.concat(read).toString('utf8').trimStart()
    if (text === '') continue
    if (!text.startsWith('"')) {
      yield* read
      yield* chunks
      return
    }
  }
  const whole = Buffer.concat(read).toString('utf8')
  if (whole.trim() === '') return
  let text: unknown
  try {
    text = JSON.parse(whole)
  } catch (error) {
    throw badRequest(
      API_ERRORS.malformedBody,
      `Malformed JSON in request body: ${(error as Error).message}`,
    )
  }
  yield Buffer.from(String(text))
}

/** The size of the body, when the client said it. */
export function declaredLength(request: FastifyRequest): number | undefined {
  const length = Number(request.headers['content-length'])
  return Number.isSafeInteger(length) && length > 0 ? length : undefined
}

/** A body spooled to a file: its chunks read back as the file grows, and when it is all there. */
export interface SpooledBody {
  /** the body's bytes, read from the file at the reader's pace */
  chunks: AsyncIterable<Uint8Array>
  /** resolves with the body's size once all of it is in the file; rejects as the body fails */
  received: Promise<number>
  /**
   * Stops spooling (the run ended before the body did: cancelled, or refused): the rest of the
   * body is discarded as it comes (bodyChunks), `received` resolves, and the file is removed.
   */
  stop(): void
}

/** How much of the spool a read takes at most. */
const SPOOL_READ_BYTES = 64 * 1024

/**
 * `body` written to `file` as fast as it arrives, and read back as the file grows. A job answers
 * an upload once `received` resolves, after the whole body: a client's Node fetch (undici) that
 * gets a complete answer while still sending destroys its connection ("Response completed before
 * request", undici's client-h1.js), and the service, its answer finished, no longer aborts that
 * request (Node's http server drops a request from its connection once answered), so a job
 * reading the body at the workers' pace would wait for the rest forever. Memory stays bounded: the
 * body is held on disk, never in memory.
 */
export function spooled(body: AsyncIterable<Uint8Array>, file: string): SpooledBody {
  writeFileSync(file, '')
  const grown = new EventEmitter()
  /** bytes in the file so far */
  let size = 0
  let ended = false
  let stopped = false
  let failure: Error | undefined
  const received = (async () => {
    const out = createWriteStream(file, { flags: 'a' })
    try {
      for await (const chunk of body) {
        if (stopped) break
        const flushed = new Promise<void>((resolve, reject) =>
          out.write(chunk, (error) => (error ? reject(error) : resolve())),
        )
        // Not awaited but when the stream's buffer is full: each write counts once in the file.
        void flushed.then(
          () => {
            size += chunk.byteLength
            grown.emit('grown')
          },
          () => undefined,
        )
        if (out.writableNeedDrain) await once(out, 'drain')
      }
      await new Promise<void>((resolve, reject) =>
        out.end((error?: Error | null) => (error ? reject(error) : resolve())),
      )
      ended = true
      return size
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error))
      out.destroy()
      throw failure
    } finally {
      grown.emit('grown')
    }
  })()
  received.catch(() => undefined)
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const handle = await open(file, 'r')
    try {
      let position = 0
      for (;;) {
        if (position < size) {
          const buffer = Buffer.allocUnsafe(Math.min(SPOOL_READ_BYTES, size - position))
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
          position += bytesRead
          yield buffer.subarray(0, bytesRead)
          continue
        }
        if (failure !== undefined) throw failure
        if (ended) return
        await once(grown, 'grown')
      }
    } finally {
      await handle.close()
    }
  }
  return {
    chunks: chunks(),
    received,
    stop: () => {
      stopped = true
      rmSync(file, { force: true })
    },
  }
}
