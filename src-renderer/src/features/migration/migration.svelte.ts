// The Migration screen's state: the zone, where its migration is (the status API), and the
// wizard's steps. Eligibility and the preview are fetched afresh each time their step opens, so
// they follow the edits made to the settings. Deploying in validation mode and cutting over are
// the calls a team will make in production: PUT of the managed phase's entry point with
// `waf_migration`. While the switch-over is pending the status is polled until it completes.

import type { ApiMessage } from '@shared/api/envelope'
import type {
  MigrationCheck,
  MigrationConfig,
  MigrationPreview,
  MigrationStatus,
} from '@shared/api/waf'
import { api, workbenchApi } from '../../lib/api'
import { errorMessages } from '../../lib/api-error'
import { ZoneChoice } from '../../lib/state/zone-choice.svelte'
import { ComparisonState } from './comparison.svelte'
import { LegacySettingsState } from './legacy-settings.svelte'
import { deployPath, WIZARD_STEPS, type DeployMode, type WizardStep } from './migration-view'

/** How often the status is asked while the switch-over is pending. */
const POLL_MS = 1000

/** The step a zone opens on, from where its migration is. */
function stepFor(status: MigrationStatus): WizardStep {
  if (status.migration_state === 'validation') return 'validate'
  if (status.migration_state === 'pending') return 'cutover'
  return 'settings'
}

export class MigrationWizard {
  readonly choice = new ZoneChoice()
  readonly settings = new LegacySettingsState()
  readonly comparison = new ComparisonState()
  status = $state.raw<MigrationStatus | null>(null)
  step = $state<WizardStep>('settings')
  check = $state.raw<MigrationCheck | null>(null)
  preview = $state.raw<MigrationPreview | null>(null)
  /** what the user typed to confirm the cut-over */
  confirmation = $state('')
  errors = $state.raw<ApiMessage[]>([])
  loading = $state(false)
  busy = $state(false)
  /** the time the countdown is shown at, moved on with each poll */
  now = $state(Date.now())
  private poller: ReturnType<typeof setTimeout> | null = null
  /** the zone whose pending switch-over is being followed */
  private followed: string | null = null

  readonly state = $derived(this.status?.migration_state ?? null)
  readonly confirmed = $derived(
    this.choice.zone !== null && this.confirmation.trim() === this.choice.zone.name,
  )

  /**
   * What the cut-over deploys: in validation mode the entry point that was validated, else the
   * configuration generated from the previous product's settings.
   */
  readonly cutOverConfig = $derived.by((): MigrationConfig | null => {
    if (this.state === 'validation' && this.preview?.current_entrypoint) {
      return this.preview.current_entrypoint
    }
    return this.preview?.config ?? null
  })

  /** Opens the zone at the step its migration stands at, or at the step asked for (the address's). */
  async select(zoneId: string, asked: string | null = null): Promise<void> {
    this.stopPolling()
    this.choice.choose(zoneId)
    this.status = null
    this.check = null
    this.preview = null
    this.confirmation = ''
    this.errors = []
    void this.comparison.follow(zoneId)
    this.loading = true
    try {
      const status = await this.fetchStatus(zoneId)
      if (status === null) return
      const opened = status.migration_state === 'pending' ? undefined : asked
      this.step = WIZARD_STEPS.find((step) => step === opened) ?? stepFor(status)
      if (status.migration_state === 'pending') this.follow(zoneId)
      else if (status.migration_state !== 'completed') await this.open(this.step)
    } catch (error) {
      this.errors = errorMessages(error)
    } finally {
      this.loading = false
    }
  }

  /** The zone's status, kept unless the user has moved to another zone meanwhile. */
  private async fetchStatus(zoneId: string): Promise<MigrationStatus | null> {
    const status = await api.get<MigrationStatus>(`/zones/${zoneId}/waf_migration/status`)
    if (this.choice.zoneId !== zoneId) return null
    this.status = status
    this.now = Date.now()
    return status
  }

  /** Opens a step and fetches what it shows. */
  async open(step: WizardStep): Promise<void> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return
    this.step = step
    this.errors = []
    try {
      if (step === 'settings') await this.settings.load(zoneId)
      if (step === 'eligibility') {
        const [check] = await Promise.all([
          api.get<MigrationCheck>(`/zones/${zoneId}/waf_migration/check?phase_two=1`),
          // the overrides that block a migration are named with a link to them
          this.settings.load(zoneId),
        ])
        if (this.choice.zoneId === zoneId) this.check = check
      }
      if (step === 'review' || step === 'validate' || step === 'cutover') {
        const preview = await workbenchApi.get<MigrationPreview>(
          `/zones/${zoneId}/waf_migration/preview`,
        )
        if (this.choice.zoneId === zoneId) this.preview = preview
      }
    } catch (error) {
      this.errors = errorMessages(error)
    }
  }

  /** Enterprise only: both products run, the new one first, until the cut-over. */
  async deployValidation(): Promise<void> {
    const config = this.preview?.config
    if (!config) return
    await this.deploy('validation', config)
    if (this.errors.length === 0) await this.open('validate')
  }

  /** Irreversible: the new rules are deployed and the previous product switched off. */
  async cutOver(): Promise<void> {
    const config = this.cutOverConfig
    if (!config || !this.confirmed) return
    await this.deploy('pending', config)
  }

  private async deploy(mode: DeployMode, config: MigrationConfig): Promise<void> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return
    this.busy = true
    this.errors = []
    try {
      await api.put(deployPath(zoneId, mode), config)
      const status = await this.fetchStatus(zoneId)
      if (status?.migration_state === 'pending') this.follow(zoneId)
    } catch (error) {
      this.errors = errorMessages(error)
    } finally {
      this.busy = false
    }
  }

  /** Follows the status every second until the switch-over completes. */
  private follow(zoneId: string): void {
    this.stopPolling()
    this.followed = zoneId
    this.poller = setTimeout(() => void this.pollOnce(zoneId), POLL_MS)
  }

  private async pollOnce(zoneId: string): Promise<void> {
    try {
      const status = await this.fetchStatus(zoneId)
      if (status === null || this.followed !== zoneId) return
      this.errors = []
      if (status.migration_state === 'completed') {
        this.followed = null
        // the zone's WAF product changed with it
        await this.choice.load()
        return
      }
    } catch (error) {
      this.errors = errorMessages(error)
    }
    if (this.followed === zoneId) this.follow(zoneId)
  }

  stopPolling(): void {
    if (this.poller !== null) clearTimeout(this.poller)
    this.poller = null
    this.followed = null
  }
}
