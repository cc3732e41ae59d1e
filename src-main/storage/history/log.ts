// One history log segment: an append-only sequence of records, all integers little-endian, each
// starting with its total length (u32) and kind (u8):
//   base   (kind 3): seq f64, time f64, timeline u32, origin u8, note length u32, note (UTF-8)
//                    The state the segment's snapshot file holds. `origin` marks a point of its own
//                    (history start, or a restore); otherwise it repeats the previous segment's last point.
//   commit (kind 4): seq f64, time f64, timeline u32, page size u32, database pages u32, WAL cursor
//                    (salt-1 u32, salt-2 u32, end f64), page count u32, note length u32, note,
//                    then per page: page number u32 and form u8, then one raw deflate stream of
//                    the pages' differences from their references (page-codec.ts).
//   commit (kind 1): the same header and note, then per page: page number u32 and the page image.
//                    Only read: what history wrote before kind 4.
//   reset  (kind 2): the WAL was checkpointed and truncated; the next WAL is wholly new. Only
//                    read: checkpoints now restart the WAL, and the cursor tells generations apart.
// A record is written with one write() call; a torn tail left by a crash is cut off when the
// segment is next scanned.

import { closeSync, fstatSync, ftruncateSync, openSync, readSync } from 'node:fs'
import { decodePages, type EncodedPages } from './page-codec'
import type { PageImage, WalCursor, WalTransaction } from './wal'

const KIND_COMMIT_IMAGES = 1
const KIND_COMMIT = 4
const KIND_RESET = 2
const KIND_BASE = 3
const COMMIT_HEADER_BYTES = 57
const BASE_HEADER_BYTES = 30
const RESET_BYTES = 5
/** a kind 4 record's page table entry: page number u32, form u8 */
const PAGE_ENTRY_BYTES = 5

export interface PointRecord {
  seq: number
  time: number
  timeline: number
  note?: string
}

export interface BaseRecord extends PointRecord {
  kind: 'base'
  origin: boolean
}

export interface CommitRecord extends PointRecord {
  kind: 'commit'
  databasePages: number
  cursor: WalCursor
  /** whether the record stores its pages encoded (kind 4) or as whole images (kind 1) */
  encoded: boolean
  /** bytes of the page images the record replays */
  pageBytes: number
  /** where the record starts in its segment, and its length */
  offset: number
  length: number
}

export type LogRecord = BaseRecord | CommitRecord | { kind: 'reset' }

function noteBytes(note: string | undefined): Buffer {
  return Buffer.from(note ?? '', 'utf8')
}

export function encodeBase(base: Omit<BaseRecord, 'kind'>): Buffer {
  const note = noteBytes(base.note)
  const out = Buffer.alloc(BASE_HEADER_BYTES + note.length)
  out.writeUInt32LE(out.length, 0)
  out.writeUInt8(KIND_BASE, 4)
  out.writeDoubleLE(base.seq, 5)
  out.writeDoubleLE(base.time, 13)
  out.writeUInt32LE(base.timeline, 21)
  out.writeUInt8(base.origin ? 1 : 0, 25)
  out.writeUInt32LE(note.length, 26)
  note.copy(out, BASE_HEADER_BYTES)
  return out
}

export function encodeCommit(
  point: PointRecord,
  transaction: WalTransaction,
  pages: EncodedPages,
): Buffer {
  const note = noteBytes(point.note)
  const { pageSize, cursor } = transaction
  const count = pages.pageNumbers.length
  // every byte is written below, so the buffer needs no zero-filling
  const out = Buffer.allocUnsafe(
    COMMIT_HEADER_BYTES + note.length + count * PAGE_ENTRY_BYTES + pages.stream.length,
  )
  out.writeUInt32LE(out.length, 0)
  out.writeUInt8(KIND_COMMIT, 4)
  out.writeDoubleLE(point.seq, 5)
  out.writeDoubleLE(point.time, 13)
  out.writeUInt32LE(point.timeline, 21)
  out.writeUInt32LE(pageSize, 25)
  out.writeUInt32LE(transaction.databasePages, 29)
  out.writeUInt32LE(cursor.salt1, 33)
  out.writeUInt32LE(cursor.salt2, 37)
  out.writeDoubleLE(cursor.end, 41)
  out.writeUInt32LE(count, 49)
  out.writeUInt32LE(note.length, 53)
  let at = COMMIT_HEADER_BYTES + note.copy(out, COMMIT_HEADER_BYTES)
  pages.pageNumbers.forEach((pageNumber, i) => {
    out.writeUInt32LE(pageNumber, at)
    out.writeUInt8(pages.forms[i] ?? 0, at + 4)
    at += PAGE_ENTRY_BYTES
  })
  pages.stream.copy(out, at)
  return out
}

function readExactly(fd: number, length: number, position: number): Buffer | null {
  const buffer = Buffer.alloc(length)
  let filled = 0
  while (filled < length) {
    const n = readSync(fd, buffer, filled, length - filled, position + filled)
    if (n === 0) return null
    filled += n
  }
  return buffer
}

function decodeNote(buffer: Buffer, start: number, length: number): string | undefined {
  return length === 0 ? undefined : buffer.toString('utf8', start, start + length)
}

function decodeAt(fd: number, offset: number, length: number, kind: number): LogRecord | null {
  if (kind === KIND_RESET && length === RESET_BYTES) return { kind: 'reset' }
  if (kind === KIND_BASE && length >= BASE_HEADER_BYTES) {
    const record = readExactly(fd, length, offset)
    if (record === null) return null
    return {
      kind: 'base',
      seq: record.readDoubleLE(5),
      time: record.readDoubleLE(13),
      timeline: record.readUInt32LE(21),
      origin: record.readUInt8(25) === 1,
      note: decodeNote(record, BASE_HEADER_BYTES, record.readUInt32LE(26)),
    }
  }
  if ((kind === KIND_COMMIT || kind === KIND_COMMIT_IMAGES) && length >= COMMIT_HEADER_BYTES) {
    const header = readExactly(fd, COMMIT_HEADER_BYTES, offset)
    if (header === null) return null
    const noteLength = header.readUInt32LE(53)
    const note = noteLength === 0 ? null : readExactly(fd, noteLength, offset + COMMIT_HEADER_BYTES)
    return {
      kind: 'commit',
      seq: header.readDoubleLE(5),
      time: header.readDoubleLE(13),
      timeline: header.readUInt32LE(21),
      databasePages: header.readUInt32LE(29),
      cursor: {
        salt1: header.readUInt32LE(33),
        salt2: header.readUInt32LE(37),
        end: header.readDoubleLE(41),
      },
      note: note === null ? undefined : decodeNote(note, 0, noteLength),
      encoded: kind === KIND_COMMIT,
      pageBytes: header.readUInt32LE(49) * header.readUInt32LE(25),
      offset,
      length,
    }
  }
  return null
}

/**
 * Every whole record of the segment, in order, and the segment's length. A trailing partial
 * record (a write cut short by a crash) is truncated away.
 */
export function scanSegment(path: string): { records: LogRecord[]; length: number } {
  const fd = openSync(path, 'r+')
  try {
    const size = fstatSync(fd).size
    const records: LogRecord[] = []
    let offset = 0
    for (;;) {
      const prefix = readExactly(fd, 5, offset)
      if (prefix === null) break
      const length = prefix.readUInt32LE(0)
      if (offset + length > size) break
      const record = decodeAt(fd, offset, length, prefix.readUInt8(4))
      if (record === null) break
      records.push(record)
      offset += length
    }
    if (offset < size) ftruncateSync(fd, offset)
    return { records, length: offset }
  } finally {
    closeSync(fd)
  }
}

interface PageTable {
  pageSize: number
  pageNumbers: number[]
  /** each page's form (kind 4; empty for kind 1, whose pages are images) */
  forms: number[]
  /** where the first entry starts and the last one ends */
  start: number
  end: number
}

/** A commit record's page size and its pages' entries, in order. */
function pageTable(buffer: Buffer): PageTable {
  const pageSize = buffer.readUInt32LE(25)
  const count = buffer.readUInt32LE(49)
  const encoded = buffer.readUInt8(4) === KIND_COMMIT
  const entryBytes = encoded ? PAGE_ENTRY_BYTES : 4 + pageSize
  const start = COMMIT_HEADER_BYTES + buffer.readUInt32LE(53)
  const pageNumbers: number[] = []
  const forms: number[] = []
  let at = start
  for (let i = 0; i < count; i++, at += entryBytes) {
    pageNumbers.push(buffer.readUInt32LE(at))
    if (encoded) forms.push(buffer.readUInt8(at + 4))
  }
  return { pageSize, pageNumbers, forms, start, end: at }
}

function readRecord(fd: number, record: CommitRecord): Buffer {
  const buffer = readExactly(fd, record.length, record.offset)
  if (buffer === null)
    throw new Error(`History log is shorter than its commit record ${record.seq}`)
  return buffer
}

/** The page numbers a commit record writes, in order, read from an open segment. */
export function readCommitPageNumbers(fd: number, record: CommitRecord): number[] {
  return pageTable(readRecord(fd, record)).pageNumbers
}

/**
 * Replays a commit record read from an open segment: each page image in order goes to `write`;
 * `read` answers a page as the replay has left it so far (the reference of an encoded page).
 */
export function replayCommit(
  fd: number,
  record: CommitRecord,
  read: (pageNumber: number, pageSize: number) => Buffer,
  write: (page: PageImage) => void,
): number {
  const buffer = readRecord(fd, record)
  const { pageSize, pageNumbers, forms, start, end } = pageTable(buffer)
  if (record.encoded) {
    decodePages(pageSize, { pageNumbers, forms, stream: buffer.subarray(end) }, read, write)
  } else {
    pageNumbers.forEach((pageNumber, i) => {
      const image = start + i * (4 + pageSize) + 4
      write({ pageNumber, data: buffer.subarray(image, image + pageSize) })
    })
  }
  return pageSize
}
