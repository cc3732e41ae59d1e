// The Zones screen's state: the list, and the operations on it. Every change goes through the
// bridge and then reloads the list, so what the screen shows is what the service holds.

import type { Zone, ZoneCreate, ZonePlan } from '@shared/api/zones'
import { bridge, describeError } from '../bridge'

export class ZonesState {
  zones = $state.raw<Zone[]>([])
  loading = $state(true)
  error = $state<string | null>(null)

  async load(): Promise<void> {
    this.loading = true
    try {
      this.zones = (await bridge.listZones({ perPage: 1000 })).zones
      this.error = null
    } catch (error) {
      this.error = describeError(error)
    } finally {
      this.loading = false
    }
  }

  /** Runs a change; on failure keeps the message for the screen and reports false. */
  private async change(work: () => Promise<unknown>): Promise<boolean> {
    try {
      await work()
      this.error = null
      await this.load()
      return true
    } catch (error) {
      this.error = describeError(error)
      return false
    }
  }

  create(input: ZoneCreate): Promise<boolean> {
    return this.change(() => bridge.createZone(input))
  }

  rename(zoneId: string, name: string): Promise<boolean> {
    return this.change(() => bridge.renameZone({ zoneId, name }))
  }

  setPlan(zoneId: string, plan: ZonePlan): Promise<boolean> {
    return this.change(() => bridge.setZonePlan({ zoneId, plan }))
  }

  remove(zoneId: string): Promise<boolean> {
    return this.change(() => bridge.deleteZone({ zoneId }))
  }
}
