// Applying a scheduled restore, with the database closed. Order matters for crash safety:
// 1. archive the leftover WAL, so the state just before the restore (the undo point) is in the log;
// 2. write the restored state as a new snapshot, starting a new timeline (the restore's own point);
// 3. delete the WAL and its index: they describe the replaced file, and SQLite would replay them
//    onto the restored one;
// 4. replace the database file with the snapshot, then drop the request.
// A crash anywhere repeats the request at the next open; step 2 is skipped when it already happened.

import { rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { archiveLeftoverWal } from './archive'
import { syncDirectory, writeFileDurably } from './durable'
import { HistoryStore, restoreNote } from './store'
import type { PointRecord } from './log'
import type { ApplyScheduledRestore } from './types'

export const applyScheduledRestore: ApplyScheduledRestore = (file, options) => {
  const store = HistoryStore.load(file, options)
  if (store === null) return false
  try {
    archiveLeftoverWal(store, `${file}-wal`, options.now)
    const bookmark = store.scheduledRestore
    if (bookmark === null) return false
    if (!store.endsWithRestoreTo(bookmark)) {
      let target: PointRecord
      try {
        target = store.resolve(bookmark)
      } catch (error) {
        store.clearScheduledRestore()
        throw new Error(
          `The restore to ${bookmark} scheduled for this open was dropped: ${(error as Error).message}`,
          {
            cause: error,
          },
        )
      }
      const before = store.head
      store.startSegment(
        {
          seq: before.seq + 1,
          time: options.now(),
          timeline: before.timeline + 1,
          origin: true,
          note: restoreNote(bookmark),
        },
        (path) => store.materialize(target.seq, path),
      )
    }
    rmSync(`${file}-wal`, { force: true })
    rmSync(`${file}-shm`, { force: true })
    writeFileDurably(file, (path) => store.materialize(store.head.seq, path))
    syncDirectory(dirname(file))
    store.clearScheduledRestore()
    return true
  } finally {
    store.close()
  }
}
