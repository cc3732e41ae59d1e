// Bookmarks look like the vendor's: `tttttttt-ssssssss-ssssssss-<32 hex>`, all lower-case hex.
//   tttttttt           the timeline: how many restores the database had been through
//   ssssssss-ssssssss  the commit's sequence number (64 bits, big-endian); all f's means "the
//                      last commit of this timeline", which is what an undo bookmark names: the
//                      state at the moment the restore that ends the timeline is applied
//   <32 hex>           a tag binding the first three fields to this database's history id, so a
//                      bookmark from another database (or a mistyped one) is refused
// Timelines and sequence numbers only grow, so bookmarks sort in time order as plain strings.

import { createHash } from 'node:crypto'

export interface BookmarkTarget {
  timeline: number
  /** null for the last commit of the timeline */
  seq: number | null
}

const END_OF_TIMELINE = 'ffffffff-ffffffff'
const SHAPE = /^([0-9a-f]{8})-([0-9a-f]{8}-[0-9a-f]{8})-([0-9a-f]{32})$/
const hex8 = (n: number): string => n.toString(16).padStart(8, '0')

function tag(historyId: string, body: string): string {
  return createHash('sha256').update(`${historyId}:${body}`).digest('hex').slice(0, 32)
}

function sequenceField(seq: number | null): string {
  if (seq === null) return END_OF_TIMELINE
  return `${hex8(Math.floor(seq / 2 ** 32))}-${hex8(seq % 2 ** 32)}`
}

export function formatBookmark(historyId: string, target: BookmarkTarget): string {
  const body = `${hex8(target.timeline)}-${sequenceField(target.seq)}`
  return `${body}-${tag(historyId, body)}`
}

/** Throws, saying what is wrong, unless `bookmark` is well formed and was made by this history. */
export function parseBookmark(historyId: string, bookmark: unknown): BookmarkTarget {
  const match = typeof bookmark === 'string' ? SHAPE.exec(bookmark) : null
  if (match === null) {
    throw new TypeError(
      `Invalid bookmark ${JSON.stringify(bookmark)}: expected the form 0000007b-0000b26e-00001538-0c3e87bb37b3db5cc52eedb93cd3b96b (8-8-8-32 lower-case hex digits), as returned by getCurrentBookmark()`,
    )
  }
  const [, timeline = '', sequence = '', givenTag = ''] = match
  if (tag(historyId, `${timeline}-${sequence}`) !== givenTag) {
    throw new Error(`Bookmark ${bookmark as string} does not belong to this object's storage`)
  }
  const [high = '', low = ''] = sequence.split('-')
  return {
    timeline: parseInt(timeline, 16),
    seq: sequence === END_OF_TIMELINE ? null : parseInt(high, 16) * 2 ** 32 + parseInt(low, 16),
  }
}

/**
 * Whether `bookmark` names the first point of a history: the database as it was when its history
 * began, which for a new object is the empty file, before anything was written.
 */
export function isOriginBookmark(bookmark: string): boolean {
  return bookmark.startsWith(`${hex8(0)}-${sequenceField(0)}-`)
}

/** Whether `bookmark` names the last commit of a timeline: what a restore's undo bookmark names. */
export function isTimelineEndBookmark(bookmark: string): boolean {
  return bookmark.slice(9, 26) === END_OF_TIMELINE
}
