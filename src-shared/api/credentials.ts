// The leaked-credential database as /workbench/v1/credentials shows it: the lists imported into it
// (`HASH:COUNT` lines, HASH the SHA-1 of `username:password` or of a password alone) and how many
// distinct hashes of each kind they hold. An import is named, and importing a name again replaces
// that list.

import { Type } from 'typebox'

export const CREDENTIAL_KINDS = ['pair', 'password'] as const
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number]

/** The query of an upload: the list's content is the request body. */
export const CredentialImportQuery = Type.Object({
  kind: Type.Enum(CREDENTIAL_KINDS),
  /** the list's name: importing a name again replaces the list imported under it */
  name: Type.String({ minLength: 1, maxLength: 200 }),
  /** the salt the list's hashes were made with, if any */
  salt: Type.Optional(Type.String({ maxLength: 256 })),
  /** answer NDJSON progress lines before the envelope */
  stream: Type.Optional(Type.Boolean()),
})

/** Distinct hashes held, by kind. */
export type CredentialCounts = Record<CredentialKind, number>

export interface CredentialList {
  name: string
  kind: CredentialKind
  /** well-formed lines imported (a hash listed twice counts twice) */
  lines: number
  /** distinct hashes */
  hashes: number
}

export interface CredentialDatabase extends CredentialCounts {
  lists: CredentialList[]
}

/** What an import has done so far (a progress line) or in all (its answer). */
export interface CredentialImportProgress {
  /** bytes of the upload read, as sent (compressed, for a gzip upload) */
  bytesRead: number
  /** the upload's Content-Length, when it gave one */
  totalBytes: number | null
  added: number
  skipped: number
}

export interface CredentialImport extends CredentialImportProgress {
  name: string
  kind: CredentialKind
  /** a list of this name was imported before, and this one took its place */
  replaced: boolean
  counts: CredentialCounts
}
