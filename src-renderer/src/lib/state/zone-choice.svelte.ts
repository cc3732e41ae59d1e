// The zone a screen works on. The last zone chosen on any zone screen (Managed rules, Firewall
// rules, Simulator, Replay, Security events, Migration, History, Export, Production) is the one
// the next opens with, so following a trace's edit link or moving from a simulation to its events
// keeps the zone.

import type { ApiMessage } from '@shared/api/envelope'
import type { Zone } from '@shared/api/zones'
import { allPages } from '../api'
import { errorMessages } from '../api-error'

/** The largest page of zones the Zones API serves. */
const ZONES_PER_PAGE = 50

let lastZoneId: string | null = null

/** Every zone the workbench holds, by name, through the Zones API. */
export function listZones(): Promise<Zone[]> {
  return allPages<Zone>('/zones', ZONES_PER_PAGE)
}

export class ZoneChoice {
  zones = $state.raw<Zone[]>([])
  zoneId = $state<string | null>(null)
  loaded = $state(false)

  readonly zone = $derived(this.zones.find((zone) => zone.id === this.zoneId) ?? null)

  /**
   * Loads the zones and answers the one to open: the one asked for (by the address) if it
   * exists, else the one chosen if it still exists, else the last chosen on any screen, else the
   * first.
   */
  async load(asked: string | null = null): Promise<string | null> {
    this.zones = await listZones()
    this.loaded = true
    const known = (id: string | null) => id !== null && this.zones.some((zone) => zone.id === id)
    if (known(asked)) return asked
    if (known(this.zoneId)) return this.zoneId
    if (known(lastZoneId)) return lastZoneId
    return this.zones[0]?.id ?? null
  }

  choose(zoneId: string): void {
    this.zoneId = zoneId
    lastZoneId = zoneId
  }

  /** Loads the zones and chooses the one to open, for a screen that loads nothing of it itself. */
  async open(): Promise<void> {
    const zoneId = await this.load()
    if (zoneId !== null) this.choose(zoneId)
  }
}

/** A screen's state that works on one zone at a time. */
export interface ZoneScreenState {
  readonly choice: ZoneChoice
  errors: ApiMessage[]
  /** The screen's step or selection, which the address carries after the zone. */
  readonly step?: string | null
  /** Edits not saved yet, for a screen whose changes are drafts until saved. */
  readonly dirty?: boolean
  discard?(): void
  /** Chooses the zone and loads what the screen shows of it, opening the step asked for. */
  select(zoneId: string, step?: string | null): unknown
}

/**
 * Opens a zone screen on the zone the address asks for (else as `ZoneChoice.load` chooses) and
 * at its step; a refusal is kept on it. The zone already open is not loaded again.
 */
export async function openZoneScreen(
  screen: ZoneScreenState,
  asked: string | null = null,
  step: string | null = null,
): Promise<void> {
  if (asked !== null && asked === screen.choice.zoneId) return
  try {
    const zoneId = await screen.choice.load(asked)
    if (zoneId !== null) await screen.select(zoneId, step)
  } catch (error) {
    screen.errors = errorMessages(error)
  }
}
