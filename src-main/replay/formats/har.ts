// HTTP Archive 1.2 (http://www.softwareishard.com/blog/har-12-spec/) read as it streams: a
// scanner follows the document's nesting and hands over each element of `log.entries` alone, so
// a HAR of any size is held one entry at a time. A HAR records what a browser sent: it has the
// headers and bodies a log lacks, but not what the edge knew of the client (its IP, country).

import { StringDecoder } from 'node:string_decoder'
import { Type } from 'typebox'
import { Compile } from 'typebox/compile'
import { badRequest } from '@shared/api/errors'
import type { SimulatedRequest } from '@shared/api/simulate'
import { API_ERRORS, REPLAY_ERRORS } from '@shared/api/error-codes'
import { httpVersionOf } from './http-version'
import type { ReplayRecord, RequestPart } from './types'

/** The largest entry read: a HAR entry carries the response body too. */
export const MAX_ENTRY_CHARS = 64 * 1024 * 1024

const HarEntry = Type.Object({
  startedDateTime: Type.Optional(Type.String()),
  request: Type.Object({
    method: Type.String(),
    url: Type.String(),
    httpVersion: Type.Optional(Type.String()),
    headers: Type.Optional(Type.Array(Type.Object({ name: Type.String(), value: Type.String() }))),
    postData: Type.Optional(Type.Object({ text: Type.Optional(Type.String()) })),
  }),
})
/** Compiled once, as requests.ts's schema is: each entry is checked. */
const harEntrySchema = Compile(HarEntry)

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c

interface Frame {
  array: boolean
  /** objects: whether the next string is a key */
  expectKey: boolean
  /** objects: the key whose value is being read (kept only for the two outer levels) */
  key?: string
}

/** Splits a HAR document's text, fed in pieces, into the JSON text of each `log.entries` item. */
export class HarScanner {
  private readonly stack: Frame[] = []
  private inString = false
  private escaped = false
  private keyPieces: string[] | undefined
  private entryPieces: string[] | undefined
  private entryChars = 0
  private entries = 0
  /** whether `log.entries` was found */
  sawEntries = false

  constructor(private readonly maxEntryChars = MAX_ENTRY_CHARS) {}

  private inEntries(): boolean {
    const [root, log, entries] = this.stack
    return (
      this.stack.length === 3 && root!.key === 'log' && log!.key === 'entries' && entries!.array
    )
  }

  /** The entries completed by `text`. */
  feed(text: string): string[] {
    const done: string[] = []
    let entryFrom = this.entryPieces === undefined ? -1 : 0
    let keyFrom = this.keyPieces === undefined ? -1 : 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (c === BACKSLASH) this.escaped = true
        else if (c === QUOTE) {
          this.inString = false
          if (this.keyPieces !== undefined) {
            this.keyPieces.push(text.slice(keyFrom, i + 1))
            this.stack.at(-1)!.key = JSON.parse(this.keyPieces.join('')) as string
            this.keyPieces = undefined
          }
        }
        continue
      }
      if (c === 0x7b || c === 0x5b) {
        if (entryFrom < 0 && this.inEntries()) {
          entryFrom = i
          this.entryPieces = []
        }
        this.stack.push({ array: c === 0x5b, expectKey: c === 0x7b })
        if (this.inEntries()) this.sawEntries = true
      } else if (c === 0x7d || c === 0x5d) {
        this.stack.pop()
        if (entryFrom >= 0 && this.inEntries()) {
          done.push(this.entryPieces!.join('') + text.slice(entryFrom, i + 1))
          this.entryPieces = undefined
          this.entryChars = 0
          entryFrom = -1
          this.entries++
        }
      } else if (c === QUOTE) {
        this.inString = true
        const top = this.stack.at(-1)
        if (entryFrom < 0 && this.stack.length <= 2 && top !== undefined && top.expectKey) {
          this.keyPieces = []
          keyFrom = i
        }
        if (entryFrom < 0 && this.inEntries()) throw notAnObject(this.entries)
      } else if (c === COLON) {
        const top = this.stack.at(-1)
        if (top !== undefined) top.expectKey = false
      } else if (c === COMMA) {
        const top = this.stack.at(-1)
        if (top !== undefined && !top.array) top.expectKey = true
      } else if (entryFrom < 0 && this.inEntries() && c > 0x20) {
        throw notAnObject(this.entries)
      }
    }
    if (this.keyPieces !== undefined) this.keyPieces.push(text.slice(keyFrom))
    if (this.entryPieces !== undefined) {
      const piece = text.slice(entryFrom)
      this.entryChars += piece.length
      if (this.entryChars > this.maxEntryChars) {
        throw badRequest(
          REPLAY_ERRORS.lineTooLong,
          `HAR entry ${this.entries} is longer than ${this.maxEntryChars} characters`,
        )
      }
      this.entryPieces.push(piece)
    }
    return done
  }
}

function notAnObject(index: number) {
  return badRequest(API_ERRORS.invalidRequest, `HAR entry ${index} is not an object`)
}

const HAR_ABSENT: readonly RequestPart[] = ['ip', 'country', 'asn', 'tls', 'bot', 'waf_scores']

/** The request of the `index`th entry (0-based), whose JSON text is `text`. */
export function harRequestOf(text: string, index: number): ReplayRecord {
  let entry: unknown
  try {
    entry = JSON.parse(text)
  } catch (error) {
    throw badRequest(
      API_ERRORS.malformedBody,
      `HAR entry ${index} is not JSON: ${(error as Error).message}`,
    )
  }
  if (!harEntrySchema.Check(entry)) {
    const [first] = harEntrySchema.Errors(entry)
    throw badRequest(
      API_ERRORS.invalidRequest,
      `HAR entry ${index} is not a request: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`,
    )
  }
  const { request: har, startedDateTime } = entry
  const headers: Record<string, string[]> = {}
  for (const { name, value } of har.headers ?? []) {
    // HTTP/2 pseudo-headers (":authority") are not request headers.
    if (name.startsWith(':')) continue
    ;(headers[name.toLowerCase()] ??= []).push(value)
  }
  const request: SimulatedRequest = {
    method: har.method,
    url: har.url,
    headers,
    ...(har.postData?.text === undefined ? {} : { body: har.postData.text }),
    ...(httpVersionOf(har.httpVersion) === undefined
      ? {}
      : { httpVersion: httpVersionOf(har.httpVersion) }),
  }
  const time = startedDateTime === undefined ? NaN : Date.parse(startedDateTime)
  return {
    line: index + 1,
    request,
    absent: HAR_ABSENT,
    ...(Number.isNaN(time) ? {} : { time }),
  }
}

/** HAR entries' JSON texts, the first the `first`th entry (1-based). */
export interface HarBatch {
  first: number
  entries: string[]
}

/**
 * The entries of a HAR document arriving in `chunks`, as their JSON texts in batches of `size`
 * (the first entry is 1): harRequestOf reads each where the batch is evaluated.
 */
export async function* harBatches(
  chunks: AsyncIterable<Uint8Array>,
  size: number,
): AsyncGenerator<HarBatch> {
  const decoder = new StringDecoder('utf8')
  const scanner = new HarScanner()
  let entries: string[] = []
  let first = 1
  const full = function* (done: string[], last: boolean) {
    for (const text of done) {
      entries.push(text)
      if (entries.length < size) continue
      yield { first, entries }
      first += entries.length
      entries = []
    }
    if (last && entries.length > 0) yield { first, entries }
  }
  for await (const chunk of chunks) yield* full(scanner.feed(decoder.write(chunk)), false)
  yield* full(scanner.feed(decoder.end()), true)
  if (!scanner.sawEntries) {
    throw badRequest(API_ERRORS.invalidRequest, 'The HAR document has no log.entries')
  }
}
