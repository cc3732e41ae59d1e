// The Simulator screen's state: the zone, the composed request and what the zone did to it, the
// names of the rulesets a trace runs through, and the zone's saved samples with the last run of
// them as a regression suite. The composed request is kept per zone (zone-drafts.ts) as it is
// written, and comes back when the zone is opened again.

import type { ApiMessage } from '@shared/api/envelope'
import type { RulesetSummary } from '@shared/api/rulesets'
import { allCursorPages, workbenchApi } from '../api'
import { errorMessages } from '../api-error'
import { FormCheck } from '../form-check.svelte'
import type { Sample } from '@shared/api/samples'
import type { Outcome, Simulation, SimulatedRequest } from '@shared/api/simulate'
import { buildRequest, requestFields, type DraftFields } from '../request-fields'
import { RequestDraft } from './request-draft.svelte'
import { moveStoredSamples } from './sample-requests'
import { ZoneChoice } from './zone-choice.svelte'
import { keepDraft, readDraft } from './zone-drafts'

const DRAFT_SCREEN = 'simulator'

export interface SuiteRow {
  sample: Sample
  actual: Simulation | null
  error: string | null
}

function simulate(zoneId: string, request: SimulatedRequest, record: boolean): Promise<Simulation> {
  const query = record ? '' : '?record=false'
  return workbenchApi.post<Simulation>(`/zones/${zoneId}/simulate${query}`, request)
}

export class SimulatorState {
  readonly choice = new ZoneChoice()
  readonly draft = new RequestDraft()
  /** ruleset id → name, for the trace's executed rulesets */
  rulesetNames = $state.raw<Record<string, string>>({})
  record = $state(true)
  running = $state(false)
  result = $state.raw<Simulation | null>(null)
  errors = $state.raw<ApiMessage[]>([])
  samples = $state.raw<Sample[]>([])
  suite = $state.raw<SuiteRow[]>([])
  suiteRunning = $state(false)
  /**
   * Run and Save sample send the request composed, which cannot go with a JSON body that does not
   * parse: pressed with one, each says so at the body (FormCheck) and sends nothing.
   */
  readonly requestCheck = new FormCheck(() => ({
    json:
      this.draft.jsonError === null
        ? undefined
        : 'Correct the JSON body first, or choose another body format.',
  }))

  async select(zoneId: string): Promise<void> {
    const previous = this.choice.zone
    this.choice.choose(zoneId)
    const zone = this.choice.zone
    // The URL follows the zone unless the user wrote one of their own.
    const followsZone =
      this.draft.url === '' || (previous !== null && this.draft.url === `https://${previous.name}/`)
    const kept = readDraft<DraftFields>(DRAFT_SCREEN, zoneId)
    if (kept !== null) this.draft.load(kept)
    else if (zone && followsZone) this.draft.url = `https://${zone.name}/`
    this.result = null
    this.suite = []
    this.errors = []
    this.samples = []
    try {
      const moved = await moveStoredSamples(zoneId)
      const samples = await workbenchApi.get<Sample[]>(`/zones/${zoneId}/samples`)
      if (this.choice.zoneId !== zoneId) return
      this.samples = samples
      this.errors = moved
      const rulesets = await allCursorPages<RulesetSummary>(`/zones/${zoneId}/rulesets`)
      if (this.choice.zoneId !== zoneId) return
      this.rulesetNames = Object.fromEntries(rulesets.map((ruleset) => [ruleset.id, ruleset.name]))
    } catch (error) {
      this.errors = errorMessages(error)
    }
  }

  /** Keeps the request as composed now for the zone open. */
  keepRequest(): void {
    const zoneId = this.choice.zoneId
    if (zoneId !== null) keepDraft(DRAFT_SCREEN, zoneId, this.draft.fields())
  }

  async run(): Promise<void> {
    const zoneId = this.choice.zoneId
    if (zoneId === null || this.draft.jsonError !== null) return
    this.running = true
    try {
      this.result = await simulate(zoneId, buildRequest(this.draft.fields()), this.record)
      this.errors = []
    } catch (error) {
      this.result = null
      this.errors = errorMessages(error)
    } finally {
      this.running = false
    }
  }

  /** Whether the sample was saved (a refusal's messages are shown). */
  async saveSample(name: string, expected: Outcome): Promise<boolean> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return false
    try {
      const sample = await workbenchApi.post<Sample>(`/zones/${zoneId}/samples`, {
        name,
        expected,
        request: buildRequest(this.draft.fields()),
      })
      if (this.choice.zoneId === zoneId) this.samples = [...this.samples, sample]
      this.errors = []
      return true
    } catch (error) {
      this.errors = errorMessages(error)
      return false
    }
  }

  async removeSample(id: string): Promise<void> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return
    try {
      await workbenchApi.delete(`/zones/${zoneId}/samples/${id}`)
      if (this.choice.zoneId !== zoneId) return
      this.samples = this.samples.filter((sample) => sample.id !== id)
      this.suite = this.suite.filter((row) => row.sample.id !== id)
      this.errors = []
    } catch (error) {
      this.errors = errorMessages(error)
    }
  }

  openSample(sample: Sample): void {
    this.draft.load(requestFields(sample.request))
    this.result = null
  }

  /** Runs every sample without recording events: a regression check is not traffic. */
  async runSuite(): Promise<void> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return
    this.suiteRunning = true
    const rows: SuiteRow[] = []
    try {
      for (const sample of this.samples) {
        try {
          rows.push({ sample, actual: await simulate(zoneId, sample.request, false), error: null })
        } catch (error) {
          const message = errorMessages(error)
            .map((m) => m.message)
            .join('; ')
          rows.push({ sample, actual: null, error: message })
        }
        if (this.choice.zoneId !== zoneId) return
        this.suite = [...rows]
      }
    } finally {
      this.suiteRunning = false
    }
  }
}
