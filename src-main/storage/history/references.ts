// The reference of each page for the encoder (page-codec.ts): the page as replaying the current
// segment leaves it, which is what a restore will have in hand when it decodes the next image.
// Pages the segment wrote are kept in memory, least recently used first out past a budget; pages
// it has not written are read from its snapshot. A page the segment wrote but no longer kept has
// no known reference: its next image is stored whole, and is kept again from then on.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import type { PageImage } from './wal'

/** Memory for page images kept per open history: 1,024 pages of 4 KiB. */
const KEPT_IMAGE_BYTES = 4 << 20

export class PageReferences {
  private readonly images = new Map<number, Buffer>()
  private keptBytes = 0
  private readonly borrowed = new Set<number>()
  private readonly written: Set<number>
  private snapshot: { fd: number; bytes: number } | null = null

  /** `written`: the pages the segment's records already write. */
  constructor(
    private readonly snapshotPath: string,
    written: Iterable<number>,
  ) {
    this.written = new Set(written)
  }

  /** The page's reference, or null when it is not known (or is all zeros: past the snapshot's end). */
  reference(pageNumber: number, pageSize: number): Buffer | null {
    const kept = this.images.get(pageNumber)
    if (kept !== undefined) {
      this.images.delete(pageNumber)
      this.images.set(pageNumber, kept)
      return kept
    }
    if (this.written.has(pageNumber)) return null
    const snapshot = this.openSnapshot()
    const position = (pageNumber - 1) * pageSize
    if (position >= snapshot.bytes) return null
    const page = Buffer.alloc(pageSize)
    readSync(snapshot.fd, page, 0, pageSize, position)
    return page
  }

  private openSnapshot(): { fd: number; bytes: number } {
    if (this.snapshot === null) {
      const fd = openSync(this.snapshotPath, 'r')
      this.snapshot = { fd, bytes: fstatSync(fd).size }
    }
    return this.snapshot
  }

  /**
   * Records `page` as its page's reference from now on. The image is borrowed until
   * keepWritten(): most of a large transaction's images are dropped again before then.
   */
  wrote(page: PageImage): void {
    const previous = this.images.get(page.pageNumber)
    if (previous !== undefined) {
      this.images.delete(page.pageNumber)
      this.keptBytes -= previous.length
    }
    this.images.set(page.pageNumber, page.data)
    this.borrowed.add(page.pageNumber)
    this.keptBytes += page.data.length
    this.written.add(page.pageNumber)
    for (const [pageNumber, image] of this.images) {
      if (this.keptBytes <= KEPT_IMAGE_BYTES) break
      this.images.delete(pageNumber)
      this.borrowed.delete(pageNumber)
      this.keptBytes -= image.length
    }
  }

  /** Copies the images wrote() borrowed: a WAL page image is a view into a buffer the next WAL read reuses. */
  keepWritten(): void {
    for (const pageNumber of this.borrowed) {
      const image = this.images.get(pageNumber)
      if (image !== undefined) this.images.set(pageNumber, Buffer.from(image))
    }
    this.borrowed.clear()
  }

  close(): void {
    if (this.snapshot !== null) closeSync(this.snapshot.fd)
    this.snapshot = null
  }
}
