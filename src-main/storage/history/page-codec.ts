// How a commit record of the current format (log.ts, kind 4) stores its page images: a table of
// (page number, form) and one raw deflate stream of every page's difference from its reference,
// in the table's order. A page's reference is the page as replaying its segment left it just
// before (the segment's snapshot overwritten by every earlier page image of the segment, in order;
// zeros past the end of the file) for form XOR, all zeros for form IMAGE. A difference is a list
// of runs of 4-byte words, each: words skipped since the last run (varint), words in the run
// (varint), then the run's bytes XOR the reference's; a run of 0 words ends the page. A commit
// changes few bytes of the pages it writes, so a page's difference is a few short runs.
// The stream starts from a preset dictionary of the references (see dictionaryOf), so that a
// changed row that resembles its neighbours costs little. One stream per record rather than one
// per page: zlib's per-call cost (~30 µs) outweighed the compression itself on transactions of
// many pages.

import { deflateRawSync, inflateRawSync } from 'node:zlib'
import type { PageImage } from './wal'

export const PAGE_FORM_IMAGE = 0
export const PAGE_FORM_XOR = 1

const THOROUGH_DIFFERENCE_BYTES = 64 << 10
const COMPRESSED_DIFFERENCE_BYTES = 1 << 20
const DEFLATE_WINDOW_BYTES = 32 << 10
/** A run ends at this many equal words in a row: a run's header costs two bytes or so. */
const RUN_END_EQUAL_WORDS = 2

export interface EncodedPages {
  pageNumbers: number[]
  forms: number[]
  /** raw deflate of the pages' differences */
  stream: Buffer
}

/**
 * zlib's level for a record of `differenceBytes`: thorough for the few pages of everyday edits,
 * fastest past 64 KiB, none past 1 MiB. A transaction that large is mostly new content, so what
 * it changed is its size; compressing it, even at the fastest level, cost a 100,000-row insert
 * ~7 % of its write time, on top of the rest of history's share (bench/history.bench.ts).
 */
function compressionLevel(differenceBytes: number): number {
  if (differenceBytes <= THOROUGH_DIFFERENCE_BYTES) return 6
  return differenceBytes <= COMPRESSED_DIFFERENCE_BYTES ? 1 : 0
}

/**
 * zlib's output chunk for a stream of `inputBytes`: one chunk holds even an uncompressed stream
 * (5 bytes of header per 64 KiB block), so that zlib does not gather a large record's output from
 * 16 KiB pieces.
 */
function outputChunkBytes(inputBytes: number): number {
  return Math.max(16 << 10, inputBytes + 5 * Math.ceil(inputBytes / 0xffff) + 64)
}

/** `buffer`'s 4-byte words, in place when it is aligned for them. */
function wordsOf(buffer: Buffer): Int32Array {
  return buffer.byteOffset % 4 === 0
    ? new Int32Array(buffer.buffer, buffer.byteOffset, buffer.length >> 2)
    : new Int32Array(new Uint8Array(buffer).buffer, 0, buffer.length >> 2)
}

function writeVarint(out: Buffer, at: number, value: number): number {
  let rest = value
  let end = at
  while (rest >= 0x80) {
    out[end++] = (rest & 0x7f) | 0x80
    rest >>>= 7
  }
  out[end++] = rest
  return end
}

/**
 * Writes a page stored as its image: one run from its first non-zero word to its last, which
 * costs a copy. (A B-tree page's free space, zeros in its middle, is left to deflate.)
 */
function writeImage(out: Buffer, at: number, image: Buffer): number {
  const words = wordsOf(image)
  let first = 0
  while (first < words.length && words[first] === 0) first++
  let last = words.length
  while (last > first && words[last - 1] === 0) last--
  let end = at
  if (last > first) {
    end = writeVarint(out, end, first)
    end = writeVarint(out, end, last - first)
    end += image.copy(out, end, first * 4, last * 4)
  }
  end = writeVarint(out, end, 0)
  return writeVarint(out, end, 0)
}

/**
 * Writes the runs where `image` differs from `reference`, XORed, to `out` at `at`, and the end of
 * the page; returns where it stopped.
 */
function writeDifference(out: Buffer, at: number, image: Buffer, reference: Buffer): number {
  const imageWords = wordsOf(image)
  const count = imageWords.length
  const referenceWords = wordsOf(reference)
  let end = at
  let covered = 0
  let i = 0
  while (i < count) {
    if (imageWords[i] === referenceWords[i]) {
      i++
      continue
    }
    const start = i
    let runEnd = i
    for (let equal = 0; i < count && equal < RUN_END_EQUAL_WORDS; i++) {
      if (imageWords[i] === referenceWords[i]) equal++
      else {
        equal = 0
        runEnd = i + 1
      }
    }
    end = writeVarint(out, end, start - covered)
    end = writeVarint(out, end, runEnd - start)
    for (let byte = start * 4; byte < runEnd * 4; byte++)
      out[end++] = (image[byte] ?? 0) ^ (reference[byte] ?? 0)
    covered = runEnd
  }
  end = writeVarint(out, end, 0)
  return writeVarint(out, end, 0)
}

/** Reads the difference at `at` of `stream` into `page` (XORing it in); returns where it ended. */
function readDifference(stream: Buffer, at: number, page: Buffer, pageNumber: number): number {
  let position = at
  const varint = (): number => {
    let value = 0
    for (let shift = 0; ; shift += 7) {
      const byte = stream[position++]
      if (byte === undefined || shift > 28)
        throw new Error(`History record's difference for page ${pageNumber} is cut short`)
      value += (byte & 0x7f) * 2 ** shift
      if (byte < 0x80) return value
    }
  }
  let word = 0
  for (;;) {
    word += varint()
    const length = varint()
    if (length === 0) return position
    const start = word * 4
    const end = start + length * 4
    if (end > page.length || position + length * 4 > stream.length)
      throw new Error(`History record's difference for page ${pageNumber} runs past its end`)
    for (let byte = start; byte < end; byte++)
      page[byte] = (page[byte] ?? 0) ^ (stream[position++] ?? 0)
    word += length
  }
}

/**
 * The stream's preset dictionary: the references, as they were before the record, of the pages it
 * first stores as XOR, as much as deflate's window holds (the last 32 KiB). Matches against them
 * store what moved within a page, or repeats a neighbouring row, in a few bytes.
 */
function dictionaryOf(
  pageSize: number,
  pageNumbers: readonly number[],
  forms: readonly number[],
  before: (pageNumber: number) => Buffer,
): Buffer {
  const seen = new Set<number>()
  const xorFirst: number[] = []
  pageNumbers.forEach((pageNumber, i) => {
    if (seen.has(pageNumber)) return
    seen.add(pageNumber)
    if (forms[i] === PAGE_FORM_XOR) xorFirst.push(pageNumber)
  })
  const windowPages = Math.ceil(DEFLATE_WINDOW_BYTES / pageSize)
  return Buffer.concat(xorFirst.slice(-windowPages).map(before)).subarray(-DEFLATE_WINDOW_BYTES)
}

/** zlib's options for a stream with `dictionary` (which zlib refuses when empty). */
function withDictionary<T extends object>(options: T, dictionary: Buffer): T {
  return dictionary.length === 0 ? options : { ...options, dictionary }
}

/**
 * Encodes `pages` in order. `reference` answers a page's reference as it was before the record
 * (asked once per page, before `written` hears of it), or null when the caller does not know it:
 * the page is then stored as its image. `written` is told each image once it is encoded.
 */
export function encodePages(
  pageSize: number,
  pages: readonly PageImage[],
  reference: (pageNumber: number) => Buffer | null,
  written: (page: PageImage) => void,
): EncodedPages {
  // A page's difference is at most half as long again as the page: a run holds a word or more and
  // the next starts two words on, so a run header (two varints of up to 3 bytes) per three words.
  const differences = Buffer.allocUnsafe(pages.length * (pageSize + pageSize / 2 + 16))
  let end = 0
  const before = new Map<number, Buffer | null>()
  // a page the record writes twice (SQLite spilled it mid-transaction) is XORed with its first image
  const inRecord = new Map<number, Buffer>()
  const pageNumbers: number[] = []
  const forms: number[] = []
  for (const page of pages) {
    let known = inRecord.get(page.pageNumber) ?? null
    if (!before.has(page.pageNumber)) {
      known = reference(page.pageNumber)
      before.set(page.pageNumber, known)
    }
    forms.push(known === null ? PAGE_FORM_IMAGE : PAGE_FORM_XOR)
    end =
      known === null
        ? writeImage(differences, end, page.data)
        : writeDifference(differences, end, page.data, known)
    pageNumbers.push(page.pageNumber)
    inRecord.set(page.pageNumber, page.data)
    written(page)
  }
  const dictionary = dictionaryOf(
    pageSize,
    pageNumbers,
    forms,
    (pageNumber) => before.get(pageNumber) ?? Buffer.alloc(pageSize),
  )
  const level = compressionLevel(end)
  return {
    pageNumbers,
    forms,
    stream: deflateRawSync(
      differences.subarray(0, end),
      withDictionary({ level, chunkSize: outputChunkBytes(end) }, dictionary),
    ),
  }
}

/**
 * Replays encoded pages in order: `read` answers a page's current bytes (its reference) in a
 * buffer of its own, and `write` stores the decoded image, before the next page is decoded.
 */
export function decodePages(
  pageSize: number,
  encoded: EncodedPages,
  read: (pageNumber: number, pageSize: number) => Buffer,
  write: (page: PageImage) => void,
): void {
  const dictionary = dictionaryOf(pageSize, encoded.pageNumbers, encoded.forms, (pageNumber) =>
    read(pageNumber, pageSize),
  )
  const differences = inflateRawSync(encoded.stream, withDictionary({}, dictionary))
  let at = 0
  encoded.pageNumbers.forEach((pageNumber, i) => {
    const form = encoded.forms[i]
    if (form !== PAGE_FORM_XOR && form !== PAGE_FORM_IMAGE)
      throw new Error(`History record stores page ${pageNumber} in unknown form ${form}`)
    const data = form === PAGE_FORM_XOR ? read(pageNumber, pageSize) : Buffer.alloc(pageSize)
    at = readDifference(differences, at, data, pageNumber)
    write({ pageNumber, data })
  })
}
