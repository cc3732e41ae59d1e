// The zone a traffic screen (Simulator, Replay, Security events) works on. The last zone chosen on
// any of them is the one the next opens with, so moving from a simulation to its events keeps
// the zone.

import type { Zone } from '@shared/api/zones'
import { bridge } from '../bridge'

let lastZoneId: string | null = null

export class ZoneChoice {
  zones = $state.raw<Zone[]>([])
  zoneId = $state<string | null>(null)
  loaded = $state(false)

  readonly zone = $derived(this.zones.find((zone) => zone.id === this.zoneId) ?? null)

  /** Loads the zones and answers the one to open: the last chosen if it exists, else the first. */
  async load(): Promise<string | null> {
    this.zones = (await bridge.listZones({ perPage: 1000 })).zones
    this.loaded = true
    const known = (id: string | null) => id !== null && this.zones.some((zone) => zone.id === id)
    if (known(this.zoneId)) return this.zoneId
    return known(lastZoneId) ? lastZoneId : (this.zones[0]?.id ?? null)
  }

  choose(zoneId: string): void {
    this.zoneId = zoneId
    lastZoneId = zoneId
  }
}
