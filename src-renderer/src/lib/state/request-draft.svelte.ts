// The Simulator's composer: the request's fields as editable state (see request-fields.ts).

import { jsonProblem, type BodyMode, type DraftFields, type FieldRow } from '../request-fields'
import { assignFields } from './assign-fields.svelte'

const DEFAULT_HEADERS: FieldRow[] = [
  {
    name: 'user-agent',
    value: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
  },
  { name: 'accept', value: 'text/html,application/xhtml+xml,*/*;q=0.8' },
]

export class RequestDraft {
  method = $state('GET')
  url = $state('')
  headers = $state<FieldRow[]>(DEFAULT_HEADERS.map((row) => ({ ...row })))
  bodyMode = $state<BodyMode>('none')
  formRows = $state<FieldRow[]>([{ name: '', value: '' }])
  json = $state('{}')
  raw = $state('')
  ip = $state('')
  country = $state('')
  botScore = $state<number | null>(null)
  threatScore = $state<number | null>(null)

  readonly jsonError = $derived(this.bodyMode === 'json' ? jsonProblem(this.json) : null)

  fields(): DraftFields {
    return $state.snapshot({
      method: this.method,
      url: this.url,
      headers: this.headers,
      bodyMode: this.bodyMode,
      formRows: this.formRows,
      json: this.json,
      raw: this.raw,
      ip: this.ip,
      country: this.country,
      botScore: this.botScore,
      threatScore: this.threatScore,
    })
  }

  load(fields: DraftFields): void {
    assignFields<RequestDraft>(this, fields)
  }
}
