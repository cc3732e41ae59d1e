// A finished replay's requests, drilled into (issue 19's per-request drill-down): the verdicts of
// an outcome, a rule or a path, each with the request it judged (GET …/replays/{job}/results),
// and one of them opened: the request, the replay's verdict, and its trace, which the replay does
// not keep (it would hold every rule considered for every request), so the request is simulated
// again, recording nothing, with the zone as it is now.

import type { ApiMessage } from '@shared/api/envelope'
import type { RulesetSummary } from '@shared/api/rulesets'
import type {
  Outcome,
  ReplayJob,
  ReplayRuleCount,
  ReplayVerdictLine,
  Simulation,
} from '@shared/api/simulate'
import { allCursorPages, workbenchApi } from '../../lib/api'
import { errorMessages } from '../../lib/api-error'

/** How many verdicts a list shows: the first of the job's that match. */
export const LISTED_RESULTS = 50

/** Which of the job's verdicts are listed. */
export type ResultsFilter =
  | { by: 'outcome'; outcome: Outcome | null }
  | { by: 'rule'; rule: ReplayRuleCount }
  | { by: 'path'; path: string }

function query(filter: ResultsFilter): string {
  const wanted: Record<string, string> = { limit: String(LISTED_RESULTS) }
  if (filter.by === 'outcome' && filter.outcome !== null) wanted.outcome = filter.outcome
  if (filter.by === 'rule') wanted.rule_id = filter.rule.rule_id
  if (filter.by === 'path') wanted.path = filter.path
  return Object.entries(wanted)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&')
}

export class ReplayResults {
  filter = $state.raw<ResultsFilter>({ by: 'outcome', outcome: null })
  verdicts = $state.raw<ReplayVerdictLine[]>([])
  loading = $state(false)
  /** the verdict opened, and what simulating its request again gives */
  opened = $state.raw<ReplayVerdictLine | null>(null)
  simulation = $state.raw<Simulation | null>(null)
  /** ruleset id → name, for the trace's executed rulesets */
  rulesetNames = $state.raw<Record<string, string>>({})
  errors = $state.raw<ApiMessage[]>([])
  private job: ReplayJob | null = null

  /** Lists the verdicts of `job` that `filter` keeps, closing the one opened. */
  async list(job: ReplayJob, filter: ResultsFilter = this.filter): Promise<void> {
    if (this.job?.id !== job.id) this.rulesetNames = {}
    this.job = job
    this.filter = filter
    this.opened = null
    this.simulation = null
    this.errors = []
    this.loading = true
    try {
      const path = `/zones/${job.zone_id}/replays/${job.id}/results?${query(filter)}`
      const verdicts = await workbenchApi.get<ReplayVerdictLine[]>(path)
      if (this.job === job && this.filter === filter) this.verdicts = verdicts
    } catch (error) {
      this.errors = errorMessages(error)
    } finally {
      this.loading = false
    }
  }

  /** Opens a verdict: its request simulated again for the trace. */
  async open(verdict: ReplayVerdictLine): Promise<void> {
    const job = this.job
    if (job === null || verdict.request === undefined) return
    this.opened = verdict
    this.simulation = null
    this.errors = []
    try {
      const simulation = await workbenchApi.post<Simulation>(
        `/zones/${job.zone_id}/simulate?record=false`,
        verdict.request,
      )
      if (Object.keys(this.rulesetNames).length === 0) {
        const rulesets = await allCursorPages<RulesetSummary>(`/zones/${job.zone_id}/rulesets`)
        this.rulesetNames = Object.fromEntries(
          rulesets.map((ruleset) => [ruleset.id, ruleset.name]),
        )
      }
      if (this.opened === verdict) this.simulation = simulation
    } catch (error) {
      this.errors = errorMessages(error)
    }
  }

  close(): void {
    this.opened = null
    this.simulation = null
  }

  /** Forgets the job's lists (another job is shown, or none). */
  clear(): void {
    this.job = null
    this.verdicts = []
    this.filter = { by: 'outcome', outcome: null }
    this.close()
    this.errors = []
  }
}
