// Opens storages on real SQLite files in a temporary folder removed after the test file.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach } from 'vitest'
import { openStorage, type Backend, type Storage } from '../../../src-main/storage'

const dir = mkdtempSync(join(tmpdir(), 'storage-test-'))
const opened: Storage[] = []
let counter = 0

afterEach(() => {
  for (const storage of opened.splice(0)) storage.close()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

export function newFile(): string {
  return join(dir, `object-${++counter}.sqlite`)
}

export async function open(
  backend: Backend,
  file = newFile(),
  now?: () => number,
): Promise<Storage> {
  const storage = await openStorage(file, now === undefined ? { backend } : { backend, now })
  opened.push(storage)
  return storage
}

/** Lets the implicit transaction commit (it commits on a later turn of the event loop). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
