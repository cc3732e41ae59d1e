// How a screen that edits a zone's settings loads them and changes them. A change goes to the API
// and then what it touched is reloaded, also after a refusal (a refused change may still have done
// part of its work, as a firewall rule refused for the quota still creates its inline filter); the
// screen is busy meanwhile and shows the messages of both calls.

import type { ApiMessage } from '@shared/api/envelope'
import { errorMessages } from '../api-error'

/** The part of a screen's state that loading and changing report on. */
export interface EditingState {
  loading: boolean
  busy: boolean
  errors: ApiMessage[]
}

/** Fetches the zone's settings while `loading`; the API's messages, if any, replace the last. */
export async function loadZone(
  state: EditingState,
  zoneId: string,
  fetch: (zoneId: string) => Promise<void>,
): Promise<void> {
  state.loading = true
  try {
    await fetch(zoneId)
    state.errors = []
  } catch (error) {
    state.errors = errorMessages(error)
  } finally {
    state.loading = false
  }
}

/**
 * Runs a change on the zone and reloads it while `busy`; keeps the API's messages on the state and
 * reports whether there were none. Without a zone nothing runs.
 */
export async function changeZone(
  state: EditingState,
  zoneId: string | null,
  work: (zoneId: string) => Promise<unknown>,
  reload: (zoneId: string) => Promise<void>,
): Promise<boolean> {
  if (zoneId === null) return false
  state.busy = true
  let refused: ApiMessage[] = []
  try {
    await work(zoneId)
  } catch (error) {
    refused = errorMessages(error)
  }
  try {
    await reload(zoneId)
  } catch (error) {
    refused = [...refused, ...errorMessages(error)]
  }
  state.errors = refused
  state.busy = false
  return refused.length === 0
}
