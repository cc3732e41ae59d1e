// A file-system failure on a file the user chose in a dialog (gone, unreadable, a folder, a
// full disk) is the user's to fix: a 400 naming the file, not an internal error.

import { basename } from 'node:path'
import { badRequest } from '@shared/api/errors'
import { API_ERRORS } from '@shared/api/error-codes'

export function fileFault(doing: 'read' | 'write', file: string, error: unknown): Error {
  const { code, syscall } = error as NodeJS.ErrnoException
  if (syscall === undefined) return error as Error
  return badRequest(
    API_ERRORS.invalidRequest,
    `Cannot ${doing} ${basename(file)} (${code ?? syscall})`,
  )
}
