// Reads committed transactions out of a SQLite `-wal` file (https://sqlite.org/fileformat2.html#walformat).
// Header: 32 bytes, big-endian: magic, version, page size, checkpoint sequence, salt-1, salt-2,
// checksum-1, checksum-2. Each frame: a 24-byte header (page number, database size in pages —
// non-zero only on a transaction's commit frame —, salt-1, salt-2, checksum-1, checksum-2) and one
// page image. A frame belongs to the current WAL only if its salts equal the header's and its
// checksum continues the chain; SQLite stops reading at the first frame that fails either test,
// and so do we: frames after it are a previous WAL generation's leftovers or a torn write.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

const WAL_HEADER_BYTES = 32
const FRAME_HEADER_BYTES = 24
const MAGIC_LITTLE_ENDIAN_CHECKSUMS = 0x377f0682
const MAGIC_BIG_ENDIAN_CHECKSUMS = 0x377f0683
const FRAMES_PER_READ = 16

/** Where reading stopped: enough to carry on from there next time without rereading the WAL. */
export interface WalCursor {
  salt1: number
  salt2: number
  /** byte offset just past the last committed frame read */
  end: number
}

export interface PageImage {
  pageNumber: number
  /** a view into the buffer the page was read into (for a WAL, one the next WAL read reuses) */
  data: Buffer
}

export interface WalTransaction {
  pageSize: number
  /** database size in pages after this commit */
  databasePages: number
  pages: PageImage[]
  /** the cursor just past this transaction's commit frame */
  cursor: WalCursor
}

function checksum(
  data: Buffer,
  start: number,
  end: number,
  littleEndian: boolean,
  seed1: number,
  seed2: number,
): [number, number] {
  let s1 = seed1
  let s2 = seed2
  for (let i = start; i < end; i += 8) {
    const x1 = littleEndian ? data.readUInt32LE(i) : data.readUInt32BE(i)
    const x2 = littleEndian ? data.readUInt32LE(i + 4) : data.readUInt32BE(i + 4)
    s1 = (s1 + x1 + s2) >>> 0
    s2 = (s2 + x2 + s1) >>> 0
  }
  return [s1, s2]
}

/**
 * The buffer WAL reads go into, kept from one read to the next: a freshly allocated buffer costs
 * the kernel a page fault per 4 KiB on first touch, which made reading a WAL three times slower.
 * Buffers past RETAINED_READ_BYTES are not kept, so one huge transaction does not pin its size.
 */
let readBuffer = Buffer.allocUnsafe(0)
const RETAINED_READ_BYTES = 16 << 20

/** Reads [start, end) into the shared read buffer; returns a view of what the file held. */
function readRange(fd: number, start: number, end: number): Buffer {
  const length = Math.max(0, end - start)
  let buffer = readBuffer
  if (buffer.length < length) {
    buffer = Buffer.allocUnsafe(length)
    if (length <= RETAINED_READ_BYTES) readBuffer = buffer
  }
  let filled = 0
  while (filled < length) {
    const n = readSync(fd, buffer, filled, length - filled, start + filled)
    if (n === 0) break
    filled += n
  }
  return buffer.subarray(0, filled)
}

/**
 * The transactions committed in `walPath` after `from` (all of them when `from` is null or
 * belongs to an earlier WAL generation, told apart by its salts). A missing or empty WAL has none.
 *
 * `verify` checks every frame's checksum, which means reading the WAL from its start: needed for
 * a WAL a crash left behind, which may end in a torn write. A live session's WAL holds only what
 * SQLite wrote and reported committed, so its new frames are read without the cost of checksums.
 * The page images are views into the shared read buffer: valid until the next WAL read.
 */
export function readCommittedTransactions(
  walPath: string,
  from: WalCursor | null,
  verify: boolean,
): WalTransaction[] {
  let fd: number
  try {
    fd = openSync(walPath, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  try {
    const size = fstatSync(fd).size
    const header = Buffer.alloc(WAL_HEADER_BYTES)
    if (readSync(fd, header, 0, WAL_HEADER_BYTES, 0) < WAL_HEADER_BYTES) return []
    const magic = header.readUInt32BE(0)
    if (magic !== MAGIC_LITTLE_ENDIAN_CHECKSUMS && magic !== MAGIC_BIG_ENDIAN_CHECKSUMS) return []
    const littleEndian = magic === MAGIC_LITTLE_ENDIAN_CHECKSUMS
    const pageSize = header.readUInt32BE(8)
    const salt1 = header.readUInt32BE(16)
    const salt2 = header.readUInt32BE(20)
    let [sum1, sum2] = checksum(header, 0, 24, littleEndian, 0, 0)
    if (sum1 !== header.readUInt32BE(24) || sum2 !== header.readUInt32BE(28)) return []
    const continues = from !== null && from.salt1 === salt1 && from.salt2 === salt2
    const alreadyRead = continues ? from.end : WAL_HEADER_BYTES
    const start = verify ? WAL_HEADER_BYTES : alreadyRead
    const frameBytes = FRAME_HEADER_BYTES + pageSize
    const region = readRange(fd, start, size)
    const transactions: WalTransaction[] = []
    let pending: PageImage[] = []
    for (let at = 0; at + frameBytes <= region.length; at += frameBytes) {
      if (region.readUInt32BE(at + 8) !== salt1 || region.readUInt32BE(at + 12) !== salt2) break
      if (verify) {
        ;[sum1, sum2] = checksum(region, at, at + 8, littleEndian, sum1, sum2)
        ;[sum1, sum2] = checksum(
          region,
          at + FRAME_HEADER_BYTES,
          at + frameBytes,
          littleEndian,
          sum1,
          sum2,
        )
        if (sum1 !== region.readUInt32BE(at + 16) || sum2 !== region.readUInt32BE(at + 20)) break
      }
      pending.push({
        pageNumber: region.readUInt32BE(at),
        data: region.subarray(at + FRAME_HEADER_BYTES, at + frameBytes),
      })
      const databasePages = region.readUInt32BE(at + 4)
      const end = start + at + frameBytes
      if (databasePages !== 0) {
        if (end > alreadyRead)
          transactions.push({
            pageSize,
            databasePages,
            pages: pending,
            cursor: { salt1, salt2, end },
          })
        pending = []
      }
    }
    return transactions
  } finally {
    closeSync(fd)
  }
}

/**
 * The cursor just past the last committed frame of the WAL's current generation, carrying on
 * from `from` (what the last call found) so as not to rescan what it already passed. A checkpoint
 * that restarts the WAL leaves the previous generation's frames after the new ones; they carry
 * other salts, and the scan stops there, as SQLite's does. Reads frame headers only.
 */
export function committedWalEnd(fd: number, from: WalCursor | null): WalCursor | null {
  const header = Buffer.alloc(WAL_HEADER_BYTES)
  if (readSync(fd, header, 0, WAL_HEADER_BYTES, 0) < WAL_HEADER_BYTES) return null
  const magic = header.readUInt32BE(0)
  if (magic !== MAGIC_LITTLE_ENDIAN_CHECKSUMS && magic !== MAGIC_BIG_ENDIAN_CHECKSUMS) return null
  const frameBytes = FRAME_HEADER_BYTES + header.readUInt32BE(8)
  const salt1 = header.readUInt32BE(16)
  const salt2 = header.readUInt32BE(20)
  const continues = from !== null && from.salt1 === salt1 && from.salt2 === salt2
  let end = continues ? from.end : WAL_HEADER_BYTES
  // Frames are read a chunk at a time: usually one read covers what was written since last time.
  const chunkBytes = frameBytes * FRAMES_PER_READ
  for (let chunkStart = end; ; chunkStart += chunkBytes) {
    const chunk = readRange(fd, chunkStart, chunkStart + chunkBytes)
    const filled = chunk.length
    for (let at = 0; at + FRAME_HEADER_BYTES <= filled; at += frameBytes) {
      if (chunk.readUInt32BE(at + 8) !== salt1 || chunk.readUInt32BE(at + 12) !== salt2) {
        return { salt1, salt2, end }
      }
      // Only a commit frame (one giving the database size) ends a transaction.
      if (chunk.readUInt32BE(at + 4) !== 0) end = chunkStart + at + frameBytes
    }
    if (filled < chunkBytes) return { salt1, salt2, end }
  }
}
