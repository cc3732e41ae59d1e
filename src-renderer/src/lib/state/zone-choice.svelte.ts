// The zone a screen works on. The last zone chosen on any zone screen (Managed rules, Firewall
// rules, Simulator, Replay, Security events) is the one the next opens with, so following a
// trace's edit link or moving from a simulation to its events keeps the zone.

import type { Zone } from '@shared/api/zones'
import { bridge } from '../bridge'

let lastZoneId: string | null = null

/** The zone of `zones` to open with: the last one chosen on any screen, else the first. */
export function zoneToOpen(zones: readonly Zone[]): Zone | undefined {
  return zones.find((zone) => zone.id === lastZoneId) ?? zones[0]
}

export function rememberZone(zoneId: string): void {
  lastZoneId = zoneId
}

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
    return zoneToOpen(this.zones)?.id ?? null
  }

  choose(zoneId: string): void {
    this.zoneId = zoneId
    rememberZone(zoneId)
  }
}
