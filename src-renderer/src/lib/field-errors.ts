// The API's refusals placed at the fields of the form that sent the request: each message whose
// `source.pointer` (a JSON pointer into the request body, https://www.rfc-editor.org/rfc/rfc6901)
// names a field, or a place inside it, belongs to that field; the rest belong to the screen.

import type { ApiMessage } from '@shared/api/envelope'

/** Each field of a form, by the pointer into the body that names it (e.g. `/0/filter/expression`). */
export type FieldPointers<F extends string> = Readonly<Record<F, string>>

/** The messages that name a field, by field. */
export type FieldErrors<F extends string> = Partial<Record<F, ApiMessage[]>>

function within(pointer: string, field: string): boolean {
  return pointer === field || pointer.startsWith(`${field}/`)
}

/** Each message at the field whose pointer names the most of its own, or else with the rest. */
export function placeErrors<F extends string>(
  errors: readonly ApiMessage[],
  fields: FieldPointers<F>,
): { byField: FieldErrors<F>; rest: ApiMessage[] } {
  const byField: FieldErrors<F> = {}
  const rest: ApiMessage[] = []
  const entries = Object.entries(fields) as [F, string][]
  for (const error of errors) {
    const pointer = error.source?.pointer
    const [field] = entries
      .filter(([, at]) => pointer !== undefined && within(pointer, at))
      .sort(([, a], [, b]) => b.length - a.length)
      .map(([name]) => name)
    if (field === undefined) rest.push(error)
    else (byField[field] ??= []).push(error)
  }
  return { byField, rest }
}
