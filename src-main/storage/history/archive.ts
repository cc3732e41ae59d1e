// Moving committed WAL frames into the history log, and dating them.
//
// afterCommit() must stay cheap (no system call per commit costs less than 20 % of a small
// write), so it only queues the commit's time and note. Now and then (live.ts) it also reads where
// the WAL's content ends, closing a batch: the commits that end there or before are the batch's. When a
// batch's commit count matches its reports (the usual case) each commit gets its own time and
// note. When it does not (a reported transaction that wrote no page, or a commit nobody
// reported), each commit in the batch gets the batch's latest time: never earlier than the truth,
// so bookmarkForTime() never hands out a state that did not yet exist at the time asked for.
//
// Commits without a note that share a millisecond become one point holding the last image of each
// page they touched: times have millisecond resolution, so no time-based lookup can tell them
// apart, and it keeps bursts of small transactions from writing every page image twice. Each
// archive ends a point, so the state at a currentBookmark() call is always exactly restorable.

import { statSync } from 'node:fs'
import type { PointToArchive, HistoryStore } from './store'
import { readCommittedTransactions, type PageImage, type WalTransaction } from './wal'

export interface CommitReport {
  time: number
  note?: string
}

export interface ReportBatch {
  /** the WAL's size when the batch closed: every commit in it ends at or before this offset */
  walEnd: number
  reports: CommitReport[]
}

function dateBatch(transactions: WalTransaction[], reports: CommitReport[]): PointToArchive[] {
  if (transactions.length === reports.length) {
    return transactions.map((transaction, i) => ({
      transaction,
      time: reports[i]?.time ?? 0,
      note: reports[i]?.note,
    }))
  }
  const latest = reports.at(-1)?.time ?? 0
  const notes = reports.flatMap((r) => (r.note === undefined ? [] : [r.note])).join('; ')
  return transactions.map((transaction, i) => {
    const point: PointToArchive = { transaction, time: latest }
    if (i === transactions.length - 1 && notes !== '') point.note = notes
    return point
  })
}

/** Folds each unnoted commit into the next one when both have the same time. */
function coalesce(points: PointToArchive[]): PointToArchive[] {
  const out: PointToArchive[] = []
  let pending: PointToArchive | null = null
  for (const point of points) {
    if (pending !== null && pending.time === point.time) {
      const pages = new Map<number, PageImage>()
      for (const page of [...pending.transaction.pages, ...point.transaction.pages])
        pages.set(page.pageNumber, page)
      point.transaction = { ...point.transaction, pages: [...pages.values()] }
    } else if (pending !== null) out.push(pending)
    if (point.note === undefined) pending = point
    else {
      out.push(point)
      pending = null
    }
  }
  if (pending !== null) out.push(pending)
  return out
}

/** Archives the live WAL's commits not yet in the log, dated by `batches`; unreported ones get `fallbackTime`. */
export function archiveWal(
  store: HistoryStore,
  walPath: string,
  batches: readonly ReportBatch[],
  fallbackTime: () => number,
): void {
  const transactions = readCommittedTransactions(walPath, store.cursor, false)
  if (transactions.length === 0) return
  const archived: PointToArchive[] = []
  let next = 0
  for (const batch of batches) {
    const first = next
    while (
      next < transactions.length &&
      (transactions[next]?.cursor.end ?? Infinity) <= batch.walEnd
    )
      next++
    archived.push(...dateBatch(transactions.slice(first, next), batch.reports))
  }
  const time = fallbackTime()
  for (const transaction of transactions.slice(next)) archived.push({ transaction, time })
  store.appendCommits(coalesce(archived))
}

/**
 * Archives what a WAL left by a crashed session holds. Its commits' reports died with that
 * session; the WAL's last write time bounds their times from above, and the history's newest
 * point from below.
 */
export function archiveLeftoverWal(store: HistoryStore, walPath: string, now: () => number): void {
  const transactions = readCommittedTransactions(walPath, store.cursor, true)
  if (transactions.length === 0) return
  const time = Math.min(now(), Math.max(statSync(walPath).mtimeMs, store.head.time))
  store.appendCommits(transactions.map((transaction) => ({ transaction, time })))
}
