// Saved sample requests used to be kept in this machine's renderer storage; they now live in the
// zone's object (/workbench/v1/zones/{id}/samples), so they travel with its bundle and survive a
// reinstall. What an earlier version left in storage is moved into the zone on first load.

import type { ApiMessage } from '@shared/api/envelope'
import type { Sample } from '@shared/api/samples'
import { OUTCOMES, type Outcome } from '@shared/api/simulate'
import { workbenchApi } from '../api'
import { errorMessages } from '../api-error'
import { BODY_MODES, buildRequest, type DraftFields, type FieldRow } from '../request-fields'

/** A sample as an earlier version stored it: the composer's fields. */
interface StoredSample {
  name: string
  expected: Outcome
  fields: DraftFields
}

const storageKey = (zoneId: string) => `zone-workbench:samples:${zoneId}`

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const isRows = (value: unknown): value is FieldRow[] =>
  Array.isArray(value) &&
  value.every(
    (row) => isRecord(row) && typeof row['name'] === 'string' && typeof row['value'] === 'string',
  )

const isNumberOrNull = (value: unknown) => value === null || typeof value === 'number'

function isFields(value: unknown): value is DraftFields {
  if (!isRecord(value)) return false
  const strings = ['method', 'url', 'json', 'raw', 'ip', 'country'] as const
  return (
    strings.every((key) => typeof value[key] === 'string') &&
    isRows(value['headers']) &&
    isRows(value['formRows']) &&
    (BODY_MODES as readonly unknown[]).includes(value['bodyMode']) &&
    isNumberOrNull(value['botScore']) &&
    isNumberOrNull(value['threatScore'])
  )
}

function isStoredSample(value: unknown): value is StoredSample {
  return (
    isRecord(value) &&
    typeof value['name'] === 'string' &&
    (OUTCOMES as readonly unknown[]).includes(value['expected']) &&
    isFields(value['fields'])
  )
}

function storedSamples(zoneId: string): StoredSample[] {
  const text = localStorage.getItem(storageKey(zoneId))
  if (text === null) return []
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) ? parsed.filter(isStoredSample) : []
  } catch {
    return []
  }
}

/**
 * Moves the samples an earlier version kept in storage for the zone into the zone, in their
 * order, and forgets them there; one the API refuses stays in storage and its messages are
 * answered, so nothing saved is lost.
 */
export async function moveStoredSamples(zoneId: string): Promise<ApiMessage[]> {
  if (localStorage.getItem(storageKey(zoneId)) === null) return []
  const refused: StoredSample[] = []
  const messages: ApiMessage[] = []
  for (const sample of storedSamples(zoneId)) {
    try {
      await workbenchApi.post<Sample>(`/zones/${zoneId}/samples`, {
        name: sample.name,
        expected: sample.expected,
        request: buildRequest(sample.fields),
      })
    } catch (error) {
      refused.push(sample)
      messages.push(...errorMessages(error))
    }
  }
  if (refused.length === 0) localStorage.removeItem(storageKey(zoneId))
  else localStorage.setItem(storageKey(zoneId), JSON.stringify(refused))
  return messages
}
