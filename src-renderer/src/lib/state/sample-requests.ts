// Saved sample requests: named requests with the outcome they should get, per zone, kept in this
// machine's renderer storage (they are a user's test cases, not part of the zone's configuration).

import { OUTCOMES, type Outcome } from '@shared/api/simulate'
import { BODY_MODES, type DraftFields, type FieldRow } from '../request-fields'

export interface SampleRequest {
  id: string
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

function isSample(value: unknown): value is SampleRequest {
  return (
    isRecord(value) &&
    typeof value['id'] === 'string' &&
    typeof value['name'] === 'string' &&
    (OUTCOMES as readonly unknown[]).includes(value['expected']) &&
    isFields(value['fields'])
  )
}

/** The zone's saved samples; entries this version cannot read are left out. */
export function loadSamples(zoneId: string): SampleRequest[] {
  const text = localStorage.getItem(storageKey(zoneId))
  if (text === null) return []
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) ? parsed.filter(isSample) : []
  } catch {
    return []
  }
}

export function storeSamples(zoneId: string, samples: readonly SampleRequest[]): void {
  localStorage.setItem(storageKey(zoneId), JSON.stringify(samples))
}
