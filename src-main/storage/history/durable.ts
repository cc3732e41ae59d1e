// Crash-safe file writes: a crash leaves either the old file or the whole new one, never a part.

import { closeSync, fsyncSync, openSync, renameSync } from 'node:fs'

function syncPath(path: string, flags: string): void {
  const fd = openSync(path, flags)
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Makes renames and deletions inside `dir` durable. */
export function syncDirectory(dir: string): void {
  syncPath(dir, 'r')
}

/** `write` fills a temporary file, which is synced and renamed over `path`. */
export function writeFileDurably(path: string, write: (tmpPath: string) => void): void {
  const tmp = `${path}.tmp`
  write(tmp)
  syncPath(tmp, 'r+')
  renameSync(tmp, path)
}
