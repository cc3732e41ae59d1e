// The Zones screen's state: the list, and the operations on it. Every change goes through the API
// as a script's would (the Zones API, and the workbench's rename) and then reloads the list, so
// what the screen shows is what the service holds.

import type { ApiMessage } from '@shared/api/envelope'
import type { Zone, ZoneCreate, ZonePlan } from '@shared/api/zones'
import { api, workbenchApi } from '../api'
import { errorMessages } from '../api-error'
import { listZones } from './zone-choice.svelte'

export class ZonesState {
  zones = $state.raw<Zone[]>([])
  loading = $state(true)
  errors = $state.raw<ApiMessage[]>([])

  async load(): Promise<void> {
    this.loading = true
    try {
      this.zones = await listZones()
      this.errors = []
    } catch (error) {
      this.errors = errorMessages(error)
    } finally {
      this.loading = false
    }
  }

  /**
   * Runs a change; on a refusal keeps the API's messages for the screen, reloads the zones as
   * they are in force, and reports false.
   */
  private async change(work: () => Promise<unknown>): Promise<boolean> {
    try {
      await work()
      this.errors = []
      await this.load()
      return true
    } catch (error) {
      const refusal = errorMessages(error)
      await this.load()
      this.errors = refusal
      return false
    }
  }

  create(input: ZoneCreate): Promise<boolean> {
    return this.change(() => api.post('/zones', input))
  }

  rename(zoneId: string, name: string): Promise<boolean> {
    return this.change(() => workbenchApi.post(`/zones/${zoneId}/rename`, { name }))
  }

  setPlan(zoneId: string, plan: ZonePlan): Promise<boolean> {
    return this.change(() => api.patch(`/zones/${zoneId}`, { plan }))
  }

  remove(zoneId: string): Promise<boolean> {
    return this.change(() => api.delete(`/zones/${zoneId}`))
  }
}
