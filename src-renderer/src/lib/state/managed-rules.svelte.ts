// The Managed rules screen's state: a zone's entry point of the managed firewall phase (its
// execute rules are the deployed managed rulesets), the managed rulesets it may deploy, and the
// unsaved edits to the deployments. Deploying and removing a deployment are saved at once; other
// edits stay local until `save`, which PUTs the whole entry point. A refused save keeps the edits.
// The edits are kept per zone (zone-drafts.ts) until saved or discarded, over the entry point
// version they were made on.

import type { ApiMessage } from '@shared/api/envelope'
import {
  MANAGED_OVERRIDE_ACTIONS,
  MANAGED_RULESET_IDS,
  type CategoryOverride,
  type ExecuteParameters,
  type Overrides,
  type Rule,
  type RuleBody,
  type Ruleset,
  type RulesetSummary,
} from '@shared/api/rulesets'
import type { EffectiveRule } from '@shared/rulesets/overrides'
import { allCursorPages, api } from '../api'
import { presentFields } from '../present-fields'
import { ApiCallError, errorMessages } from '../api-error'
import { ZoneChoice } from './zone-choice.svelte'
import {
  addCategoryOverride,
  moveCategoryOverrideUp,
  removeCategoryOverride,
  setRuleOverride,
  setRulesetOverride,
  updateCategoryOverride,
  type OverridePatch,
  type RuleOverridePatch,
} from './override-edits'
import { API_ERRORS } from '@shared/api/error-codes'
import { dropDraft, keepDraft, readDraft } from './zone-drafts'
import { placeErrors, type FieldErrors, type FieldPointers } from '../field-errors'

export const MANAGED_PHASE = 'http_request_firewall_managed'

/** A rule of the entry point, as it is sent back when the entry point is saved. */
export interface EntryRule {
  id: string
  action: string
  expression: string
  description: string
  enabled: boolean
  action_parameters?: Record<string, unknown>
  ref?: string
  logging?: { enabled: boolean }
}

export interface Deployment {
  rule: EntryRule
  parameters: ExecuteParameters
}

/** The rule as the draft holds it: a copy, so that edits never reach the entry point as saved. */
function entryRule(rule: Rule): EntryRule {
  return structuredClone({
    id: rule.id,
    action: rule.action,
    expression: rule.expression ?? '',
    description: rule.description,
    enabled: rule.enabled,
    ...presentFields(rule, ['action_parameters', 'ref', 'logging']),
  })
}

/** The execute parameters of a deployment, or null for the entry point's other rules. */
export function executeParameters(rule: EntryRule): ExecuteParameters | null {
  const parameters = rule.action_parameters
  if (rule.action !== 'execute' || typeof parameters?.['id'] !== 'string') return null
  // the API validated these parameters when it stored them; the id is what tells them apart
  return parameters as unknown as ExecuteParameters
}

/** The rule `ruleId` of these as a deployment, or null when it is none. */
function deploymentOf(rules: readonly EntryRule[], ruleId: string | null): Deployment | null {
  const rule = rules.find((candidate) => candidate.id === ruleId)
  const parameters = rule ? executeParameters(rule) : null
  return rule && parameters ? { rule, parameters } : null
}

/** The actions a managed ruleset's rules may be overridden to. */
export function overrideActions(rulesetId: string): readonly string[] {
  return rulesetId === MANAGED_RULESET_IDS.exposedCredentials
    ? [...MANAGED_OVERRIDE_ACTIONS, 'rewrite']
    : MANAGED_OVERRIDE_ACTIONS
}

/** JSON with sorted keys, so that the same rules compare equal whatever order edits left. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  )
}

/** The unsaved edits of a zone's deployments, as kept between visits. */
interface ManagedDraft {
  /** the entry point version the edits were made on; null while nothing was deployed */
  version: string | null
  rules: EntryRule[]
  openRuleId: string | null
}

const DRAFT_SCREEN = 'managed-rules'

/** The fields of a deployment's settings that a refusal may name. */
export type DeploymentField = 'enabled' | 'rulesAction' | 'rulesStatus' | 'expression' | 'publicKey'

/** Where a deployment's fields are in the entry point sent, the deployment being rule `index`. */
function deploymentFields(index: number): FieldPointers<DeploymentField> {
  const rule = `/rules/${index}`
  const overrides = `${rule}/action_parameters/overrides`
  return {
    enabled: `${rule}/enabled`,
    rulesAction: `${overrides}/action`,
    rulesStatus: `${overrides}/enabled`,
    expression: `${rule}/expression`,
    publicKey: `${rule}/action_parameters/matched_data`,
  }
}

export class ManagedRulesState {
  readonly choice = new ZoneChoice()
  /** The managed rulesets a zone may deploy. */
  catalog = $state.raw<RulesetSummary[]>([])
  /** The entry point as the API last answered it; null while nothing is deployed. */
  entrypoint = $state.raw<Ruleset | null>(null)
  /** The entry point's rules with the unsaved edits. */
  draft = $state<EntryRule[]>([])
  /** The rule id of the deployment being configured. */
  openRuleId = $state<string | null>(null)
  /** Managed rulesets with their rules, by ruleset id, fetched when first configured. */
  rulesets = $state.raw<Record<string, Ruleset>>({})
  errors = $state.raw<ApiMessage[]>([])
  loading = $state(false)
  busy = $state(false)
  /** The version the last save produced, to confirm it to the user. */
  savedVersion = $state<string | null>(null)

  readonly dirty = $derived(this.edited())
  /**
   * The refusal placed at the open deployment's fields (the body sent holds the draft's rules in
   * their order, and Deploy and Remove wait until there is no edit), and the rest for the screen.
   */
  readonly placedErrors = $derived(this.placeAtDeployment())

  /** The deployment open, which the address carries. */
  get step(): string | null {
    return this.openRuleId
  }

  get openDeployment(): Deployment | null {
    return deploymentOf(this.draft, this.openRuleId)
  }

  rulesetName(rulesetId: string): string {
    return this.catalog.find((ruleset) => ruleset.id === rulesetId)?.name ?? rulesetId
  }

  /** Whether the saved entry point already executes this managed ruleset. */
  isDeployed(rulesetId: string): boolean {
    return this.savedRules().some((rule) => executeParameters(rule)?.id === rulesetId)
  }

  /** The open deployment as saved, whose values are in force whatever the edits. */
  get deploymentInForce(): Deployment | null {
    return deploymentOf(this.savedRules(), this.openRuleId)
  }

  private placeAtDeployment(): { byField: FieldErrors<DeploymentField>; rest: ApiMessage[] } {
    const index = this.draft.findIndex((rule) => rule.id === this.openRuleId)
    if (index === -1) return { byField: {}, rest: this.errors }
    return placeErrors(this.errors, deploymentFields(index))
  }

  private edited(): boolean {
    return canonical(this.draft) !== canonical(this.savedRules())
  }

  private savedRules(): EntryRule[] {
    return (this.entrypoint?.rules ?? []).map(entryRule)
  }

  private setEntrypoint(ruleset: Ruleset | null): void {
    this.entrypoint = ruleset
    this.draft = this.savedRules()
    if (!this.draft.some((rule) => rule.id === this.openRuleId)) this.openRuleId = null
  }

  private entrypointPath(zoneId: string): string {
    return `/zones/${zoneId}/rulesets/phases/${MANAGED_PHASE}/entrypoint`
  }

  async select(zoneId: string, step: string | null = null): Promise<void> {
    this.choice.choose(zoneId)
    this.openRuleId = null
    this.rulesets = {}
    this.savedVersion = null
    this.loading = true
    try {
      const [catalog, entrypoint] = await Promise.all([
        allCursorPages<RulesetSummary>(`/zones/${zoneId}/rulesets`),
        this.fetchEntrypoint(zoneId),
      ])
      if (this.choice.zoneId !== zoneId) return
      this.catalog = catalog.filter((ruleset) => ruleset.kind === 'managed')
      this.setEntrypoint(entrypoint)
      this.errors = []
      const ruleId = this.restoreDraft(zoneId) ?? step
      if (ruleId !== null && this.draft.some((rule) => rule.id === ruleId)) await this.open(ruleId)
    } catch (error) {
      this.errors = errorMessages(error)
    } finally {
      this.loading = false
    }
  }

  /** Takes up the zone's kept edits if they were made on this version; answers their open rule. */
  private restoreDraft(zoneId: string): string | null {
    const kept = readDraft<ManagedDraft>(DRAFT_SCREEN, zoneId)
    if (kept === null) return null
    if (kept.version !== (this.entrypoint?.version ?? null)) {
      dropDraft(DRAFT_SCREEN, zoneId)
      return null
    }
    this.draft = kept.rules
    return kept.openRuleId
  }

  /** Keeps the edits for the zone while there are any, and forgets them once there are none. */
  private keepEdits(): void {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return
    if (!this.edited()) return dropDraft(DRAFT_SCREEN, zoneId)
    const kept: ManagedDraft = {
      version: this.entrypoint?.version ?? null,
      rules: $state.snapshot(this.draft),
      openRuleId: this.openRuleId,
    }
    keepDraft(DRAFT_SCREEN, zoneId, kept)
  }

  private async fetchEntrypoint(zoneId: string): Promise<Ruleset | null> {
    try {
      return await api.get<Ruleset>(this.entrypointPath(zoneId))
    } catch (error) {
      const absent =
        error instanceof ApiCallError &&
        error.status === 404 &&
        error.errors.some((e) => e.code === API_ERRORS.noEntrypoint)
      if (absent) return null
      throw error
    }
  }

  /** Opens a deployment for configuration, fetching its managed ruleset's rules. */
  async open(ruleId: string): Promise<void> {
    this.openRuleId = ruleId
    this.keepEdits()
    const rulesetId = this.openDeployment?.parameters.id
    const zoneId = this.choice.zoneId
    if (rulesetId === undefined || zoneId === null || this.rulesets[rulesetId]) return
    try {
      const ruleset = await api.get<Ruleset>(`/zones/${zoneId}/rulesets/${rulesetId}`)
      this.rulesets = { ...this.rulesets, [rulesetId]: ruleset }
    } catch (error) {
      this.errors = errorMessages(error)
    }
  }

  private async put(rules: RuleBody[]): Promise<Ruleset | null> {
    const zoneId = this.choice.zoneId
    if (zoneId === null) return null
    this.busy = true
    try {
      const ruleset = await api.put<Ruleset>(this.entrypointPath(zoneId), { rules })
      this.setEntrypoint(ruleset)
      this.keepEdits()
      this.savedVersion = ruleset.version
      this.errors = []
      return ruleset
    } catch (error) {
      this.errors = errorMessages(error)
      this.savedVersion = null
      return null
    } finally {
      this.busy = false
    }
  }

  async deploy(rulesetId: string): Promise<void> {
    const execute: RuleBody = {
      action: 'execute',
      expression: 'true',
      action_parameters: { id: rulesetId },
    }
    const saved = await this.put([...this.savedRules(), execute])
    const deployed = saved?.rules.find(
      (rule) => rule.action === 'execute' && rule.action_parameters?.['id'] === rulesetId,
    )
    if (deployed) await this.open(deployed.id)
  }

  async removeDeployment(ruleId: string): Promise<void> {
    await this.put(this.savedRules().filter((rule) => rule.id !== ruleId))
  }

  /** Answers whether the entry point was saved. */
  async save(): Promise<boolean> {
    return (await this.put($state.snapshot(this.draft))) !== null
  }

  discard(): void {
    this.setEntrypoint(this.entrypoint)
    this.keepEdits()
    this.errors = []
  }

  private edit(change: (deployment: Deployment) => void): void {
    const deployment = this.openDeployment
    if (deployment === null) return
    change(deployment)
    this.savedVersion = null
    this.keepEdits()
  }

  private editOverrides(change: (overrides: Overrides | undefined) => Overrides | undefined) {
    this.edit(({ parameters }) => {
      const next = change($state.snapshot(parameters.overrides))
      if (next) parameters.overrides = next
      else delete parameters.overrides
    })
  }

  setExpression(expression: string): void {
    this.edit(({ rule }) => (rule.expression = expression))
  }

  setDeploymentEnabled(enabled: boolean): void {
    this.edit(({ rule }) => (rule.enabled = enabled))
  }

  /** An empty key turns payload logging off. */
  setPublicKey(publicKey: string): void {
    this.edit(({ parameters }) => {
      const key = publicKey.trim()
      if (key === '') delete parameters.matched_data
      else parameters.matched_data = { public_key: key }
    })
  }

  setRulesetOverride(patch: OverridePatch): void {
    this.editOverrides((overrides) => setRulesetOverride(overrides, patch))
  }

  addTagOverride(entry: CategoryOverride): void {
    this.editOverrides((overrides) => addCategoryOverride(overrides, entry))
  }

  updateTagOverride(index: number, patch: OverridePatch): void {
    this.editOverrides((overrides) => updateCategoryOverride(overrides, index, patch))
  }

  removeTagOverride(index: number): void {
    this.editOverrides((overrides) => removeCategoryOverride(overrides, index))
  }

  moveTagOverrideUp(index: number): void {
    this.editOverrides((overrides) => moveCategoryOverrideUp(overrides, index))
  }

  setRuleOverride(ruleId: string, patch: RuleOverridePatch): void {
    this.editOverrides((overrides) => setRuleOverride(overrides, ruleId, patch))
  }
}

/** A managed rule and what it does once the deployment's overrides apply. */
export interface RulePreview {
  rule: Rule
  effective: EffectiveRule
}
