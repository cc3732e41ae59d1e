// Point-in-time recovery for an object's SQLite database: a log of every committed WAL transaction
// plus periodic base snapshots, kept beside the database in `<file>.history/` (layout in store.ts).
export { openHistory } from './live'
export { isOriginBookmark, isTimelineEndBookmark } from './bookmark'
export { applyScheduledRestore } from './restore'
export { historyDirectory, restoredBookmark } from './store'
export type {
  ApplyScheduledRestore,
  History,
  HistoryOptions,
  HistoryPoint,
  OpenHistory,
} from './types'
