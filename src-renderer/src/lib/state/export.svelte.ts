// The Export screen's state: the zone, the format, and the zone written in that format as the API
// answers it, previewed at once on each choice and saved as a file through the bridge (the
// Electron shell's save dialog, or the browser's download).

import type { ApiMessage } from '@shared/api/envelope'
import { workbenchApi } from '../api'
import { errorMessages } from '../api-error'
import { bridge } from '../bridge'
import { ZoneChoice } from './zone-choice.svelte'

export interface ExportFormat {
  value: string
  label: string
  query: string
  /** the file's name after the zone's, as the API's Content-Disposition gives it */
  extension: string
  /** v3 resources exist only for a zone on the previous product */
  previousOnly?: boolean
}
export const EXPORT_FORMATS: ExportFormat[] = [
  {
    value: 'bundle',
    label: 'Bundle (JSON, to import into a workbench)',
    query: 'format=bundle',
    extension: '.zone-workbench.json',
  },
  {
    value: 'terraform-v5',
    label: 'Terraform, provider v5',
    query: 'format=terraform&provider=v5',
    extension: '.tf',
  },
  {
    value: 'terraform-v4',
    label: 'Terraform, provider v4',
    query: 'format=terraform&provider=v4',
    extension: '.tf',
  },
  {
    value: 'terraform-v3',
    label: 'Terraform, provider v3 (previous WAF)',
    query: 'format=terraform&provider=v3',
    extension: '.tf',
    previousOnly: true,
  },
  {
    value: 'curl',
    label: 'curl script (bash, curl and jq)',
    query: 'format=curl',
    extension: '.sh',
  },
]

export class ExportState {
  readonly choice = new ZoneChoice()
  formatValue = $state('bundle')
  text = $state<string | null>(null)
  loading = $state(false)
  errors = $state.raw<ApiMessage[]>([])
  /** the last preview asked for: a late answer for an earlier choice is dropped */
  private latest = 0

  readonly formats = $derived(
    EXPORT_FORMATS.filter(
      (format) => !format.previousOnly || this.choice.zone?.waf_product === 'previous',
    ),
  )
  readonly format = $derived(
    this.formats.find((format) => format.value === this.formatValue) ?? EXPORT_FORMATS[0]!,
  )
  readonly fileName = $derived(`${this.choice.zone?.name ?? 'zone'}${this.format.extension}`)

  select(zoneId: string): Promise<void> {
    this.choice.choose(zoneId)
    return this.preview()
  }

  chooseFormat(value: string): Promise<void> {
    this.formatValue = value
    return this.preview()
  }

  /** Asks the API for the zone in the chosen format. */
  async preview(): Promise<void> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return
    const request = ++this.latest
    this.loading = true
    this.errors = []
    try {
      const text = await workbenchApi.getText(`/zones/${zoneId}/export?${this.format.query}`)
      if (request === this.latest) this.text = text
    } catch (error) {
      if (request !== this.latest) return
      this.text = null
      this.errors = errorMessages(error)
    } finally {
      if (request === this.latest) this.loading = false
    }
  }

  async save(): Promise<void> {
    if (this.text === null) return
    this.errors = []
    try {
      await bridge.saveFile({ suggestedName: this.fileName, text: this.text })
    } catch (error) {
      this.errors = errorMessages(error)
    }
  }
}
