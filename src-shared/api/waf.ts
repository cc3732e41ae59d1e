// The previous managed-rules product ("WAF managed rules",
// docs/vendor-behaviour.md#previous-waf-api), the page rules that switch it on and off per URL, and
// the migration to managed rulesets (docs/vendor-behaviour.md#migration-api). Request
// bodies are TypeBox schemas: the API validates with them and both sides take their types from
// them.

import { Type, type Static } from 'typebox'
import type { Outcome } from './simulate'
import type { RuleBody } from './rulesets'

/** The vendor's two packages; their ids are the same on every zone. */
export const WAF_PACKAGE_IDS = {
  cloudflare: '1e334934fd7ae32ad705667f8c1057aa',
  owasp: 'c504870194831cd12c3fc0284f294abb',
} as const

/** The rule id under which the OWASP package logs the requests its anomaly score acts on. */
export const OWASP_PACKAGE_BLOCK_RULE_ID = '981176'

export const WAF_SENSITIVITIES = ['high', 'medium', 'low', 'off'] as const
export type WafSensitivity = (typeof WAF_SENSITIVITIES)[number]

export const WAF_ACTION_MODES = ['simulate', 'block', 'challenge'] as const
export type WafActionMode = (typeof WAF_ACTION_MODES)[number]

/** Anomaly-score thresholds of the OWASP package (AJAX requests have their own). */
export const OWASP_PACKAGE_THRESHOLDS: Record<
  Exclude<WafSensitivity, 'off'>,
  { normal: number; ajax: number }
> = {
  high: { normal: 25, ajax: 65 },
  medium: { normal: 40, ajax: 80 },
  low: { normal: 60, ajax: 120 },
}

export type WafDetectionMode = 'traditional' | 'anomaly'

export interface WafPackage {
  id: string
  name: string
  description: string
  detection_mode: WafDetectionMode
  zone_id: string
  status: 'active'
  /** anomaly packages only */
  sensitivity?: WafSensitivity
  action_mode?: WafActionMode
}

export const WAF_GROUP_MODES = ['on', 'off'] as const
export type WafGroupMode = (typeof WAF_GROUP_MODES)[number]

export interface WafGroup {
  id: string
  name: string
  description: string | null
  rules_count: number
  modified_rules_count: number
  package_id: string
  mode: WafGroupMode
  allowed_modes: WafGroupMode[]
}

/** Modes of a traditional deny rule; `default` follows the rule's `default_mode`. */
export const WAF_DENY_RULE_MODES = ['default', 'disable', 'simulate', 'block', 'challenge'] as const
export const WAF_RULE_MODES = [...WAF_DENY_RULE_MODES, 'on', 'off'] as const
export type WafRuleMode = (typeof WAF_RULE_MODES)[number]

/** The list filter's short codes for rule modes. */
export const WAF_RULE_MODE_CODES: Record<string, WafRuleMode> = {
  DIS: 'disable',
  CHL: 'challenge',
  BLK: 'block',
  SIM: 'simulate',
}

export interface WafRule {
  id: string
  description: string
  priority: string
  group: { id: string; name: string }
  package_id: string
  mode: WafRuleMode
  /** traditional deny rules only */
  default_mode?: Exclude<WafRuleMode, 'default' | 'on' | 'off'>
  allowed_modes: WafRuleMode[]
}

/** What a URI-based override may make of a rule or a group. */
export const WAF_OVERRIDE_ACTIONS = [
  'challenge',
  'block',
  'simulate',
  'disable',
  'default',
] as const
export type WafOverrideAction = (typeof WAF_OVERRIDE_ACTIONS)[number]

export interface WafOverride {
  id: string
  description: string | null
  urls: string[]
  rules: Record<string, WafOverrideAction>
  groups: Record<string, WafOverrideAction>
  rewrite_action: Partial<Record<WafOverrideAction, WafOverrideAction>>
  priority: number
  paused: boolean
}

const OverrideAction = Type.Enum(WAF_OVERRIDE_ACTIONS)

const RewriteAction = Type.Object(
  {
    block: Type.Optional(OverrideAction),
    challenge: Type.Optional(OverrideAction),
    default: Type.Optional(OverrideAction),
    disable: Type.Optional(OverrideAction),
    simulate: Type.Optional(OverrideAction),
  },
  { additionalProperties: false },
)

const WafOverrideFields = {
  urls: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { minItems: 1, maxItems: 100 }),
  rules: Type.Optional(Type.Record(Type.String(), OverrideAction)),
  groups: Type.Optional(Type.Record(Type.String(), OverrideAction)),
  rewrite_action: Type.Optional(RewriteAction),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
  priority: Type.Optional(Type.Number({ minimum: -1_000_000_000, maximum: 1_000_000_000 })),
  paused: Type.Optional(Type.Boolean()),
}

/** Body of `POST /zones/{zone_id}/firewall/waf/overrides`. */
export const WafOverrideCreateBody = Type.Object(WafOverrideFields)
export type WafOverrideCreate = Static<typeof WafOverrideCreateBody>

/** Body of `PUT …/overrides/{id}` (the vendor's schema requires `id`, `urls`, `rules`, `rewrite_action`). */
export const WafOverrideUpdateBody = Type.Object({
  ...WafOverrideFields,
  id: Type.String(),
  rules: Type.Record(Type.String(), OverrideAction),
  rewrite_action: RewriteAction,
})
export type WafOverrideUpdate = Static<typeof WafOverrideUpdateBody>

export const WafPackageEditBody = Type.Object(
  {
    sensitivity: Type.Optional(Type.Enum(WAF_SENSITIVITIES)),
    action_mode: Type.Optional(Type.Enum(WAF_ACTION_MODES)),
  },
  { additionalProperties: false },
)
export type WafPackageEdit = Static<typeof WafPackageEditBody>

export const WafGroupEditBody = Type.Object({ mode: Type.Enum(WAF_GROUP_MODES) })
export type WafGroupEdit = Static<typeof WafGroupEditBody>

/** A rule's mode is checked against its `allowed_modes`, with the vendor's message. */
export const WafRuleEditBody = Type.Object({ mode: Type.Optional(Type.String()) })
export type WafRuleEdit = Static<typeof WafRuleEditBody>

/** The zone's `waf` setting (`/zones/{zone_id}/settings/waf`). */
export interface WafSetting {
  id: 'waf'
  value: 'on' | 'off'
  editable: boolean
  modified_on: string | null
}

export const WafSettingEditBody = Type.Object({ value: Type.Enum(['on', 'off'] as const) })

// --- page rules -----------------------------------------------------------------------------

/**
 * How a page rule's target compares the request URL with its value (the OpenAPI document's enum
 * and the SDK's `TargetParam.Constraint.operator`); `contains` when none is given.
 */
export const PAGE_RULE_OPERATORS = [
  'matches',
  'contains',
  'equals',
  'not_equal',
  'not_contain',
] as const
export type PageRuleOperator = (typeof PAGE_RULE_OPERATORS)[number]
export const DEFAULT_PAGE_RULE_OPERATOR: PageRuleOperator = 'contains'

export interface PageRuleTarget {
  target: 'url'
  constraint: { operator: PageRuleOperator; value: string }
}

/**
 * How a page rule's target reads in notes, traces and on screen: its value, its operator unless
 * `matches` (e.g. `*example.com/admin/*`, `contains /admin`). A value has no spaces (the API
 * refuses them), so the operator cannot be mistaken for part of it.
 */
export function describeTarget(target: PageRuleTarget): string {
  const { operator, value } = target.constraint
  return operator === 'matches' ? value : `${operator} ${value}`
}

export interface PageRuleAction {
  id: string
  value?: unknown
}

export interface PageRule {
  id: string
  targets: PageRuleTarget[]
  actions: PageRuleAction[]
  priority: number
  status: 'active' | 'disabled'
  created_on: string
  modified_on: string
}

/** The page-rule actions that decide whether the previous WAF runs for a URL. */
export const PAGE_RULE_WAF_ACTIONS = ['disable_security', 'waf'] as const

/** Page rules per zone, by plan (the vendor's included quotas). */
export const PAGE_RULE_QUOTA = { free: 3, pro: 20, business: 50, enterprise: 125 } as const

const PageRuleTargetSchema = Type.Object({
  target: Type.Literal('url'),
  constraint: Type.Object({
    operator: Type.Optional(Type.Enum(PAGE_RULE_OPERATORS)),
    value: Type.String({ minLength: 1, maxLength: 2048 }),
  }),
})

const PageRuleActionSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  value: Type.Optional(Type.Unknown()),
})

const PageRuleFields = {
  targets: Type.Array(PageRuleTargetSchema, { minItems: 1, maxItems: 1 }),
  actions: Type.Array(PageRuleActionSchema, { minItems: 1, maxItems: 32 }),
  priority: Type.Optional(Type.Integer({ minimum: 1 })),
  status: Type.Optional(Type.Enum(['active', 'disabled'] as const)),
}

export const PageRuleCreateBody = Type.Object(PageRuleFields)
export type PageRuleCreate = Static<typeof PageRuleCreateBody>

/** Targets as stored and answered: the operator given, or the vendor's default (`contains`). */
export function withOperators(targets: PageRuleCreate['targets']): PageRuleTarget[] {
  return targets.map(({ target, constraint }) => ({
    target,
    constraint: {
      operator: constraint.operator ?? DEFAULT_PAGE_RULE_OPERATOR,
      value: constraint.value,
    },
  }))
}

export const PageRuleEditBody = Type.Object(
  {
    targets: Type.Optional(PageRuleFields.targets),
    actions: Type.Optional(PageRuleFields.actions),
    priority: PageRuleFields.priority,
    status: PageRuleFields.status,
  },
  { minProperties: 1 },
)
export type PageRuleEdit = Static<typeof PageRuleEditBody>

// --- migration ------------------------------------------------------------------------------

/**
 * Where a zone is in its migration: `start` (on the previous product, not begun), `validation`
 * (Enterprise: both products run, the new one first), `pending` (the new rules are deployed and
 * the previous product is being switched off), `completed` (on managed rulesets for good; also
 * every zone created on managed rulesets).
 */
export const MIGRATION_STATES = ['start', 'validation', 'pending', 'completed'] as const
export type MigrationState = (typeof MIGRATION_STATES)[number]

/** `waf_migration` query values: `pending` or `1`, `validation` or `2`. */
export const WAF_MIGRATION_MODES: Record<string, 'pending' | 'validation'> = {
  pending: 'pending',
  '1': 'pending',
  validation: 'validation',
  '2': 'validation',
}

export interface MigrationCheck {
  compatible: boolean
  migration_state: MigrationState
  /** Zone Workbench: why the zone cannot migrate (empty when it can) */
  reasons: string[]
}

export interface MigrationConfig {
  name: string
  rules: RuleBody[]
}

export type ProductStatus = 'enabled' | 'disabled'

export interface MigrationStatus {
  /** when the migration began (ISO 8601), null before */
  created: string | null
  migration_state: MigrationState
  old_waf_status: ProductStatus
  new_waf_status: ProductStatus
  /** what began the migration (`api`), null before */
  source: string | null
  /** Zone Workbench: when the switch-over of a `pending` migration completes (ISO 8601) */
  switch_at: string | null
}

/** A setting of the previous product that the migration does not carry over. */
export interface NotMigrated {
  kind: 'group_mode' | 'rule_mode'
  package_id: string
  id: string
  name: string
  mode: string
  default_mode: string
}

/** How the OWASP package's settings map onto the OWASP core ruleset. */
export interface SensitivityMapping {
  sensitivity: WafSensitivity
  action_mode: WafActionMode
  /** null when the package is off (the core ruleset is not deployed) */
  paranoia_level: 1 | 2 | null
  score_threshold: number | null
  action: string | null
}

/** Zone Workbench's preview of a migration: `GET /workbench/v1/zones/{id}/waf_migration/preview`. */
export interface MigrationPreview {
  check: MigrationCheck
  /** the configuration `GET …/waf_migration/config` answers (null when it cannot be built) */
  config: MigrationConfig | null
  /** the vendor-style error that prevents building it */
  config_error: { code: number; message: string } | null
  /** the zone's managed-phase entry point today, null when it has none */
  current_entrypoint: { name: string; rules: RuleBody[] } | null
  owasp: SensitivityMapping
  not_migrated: NotMigrated[]
  /** one line per legacy setting carried over: what became of it */
  carried_over: string[]
}

/** One request of a side-by-side replay. */
export interface ComparedRequest {
  index: number
  method: string
  url: string
  differs: boolean
  previous: { outcome: Outcome; action: string | null; rules: string[] }
  new: { outcome: Outcome; action: string | null; rules: string[] }
}

/** The answer of `POST /workbench/v1/zones/{id}/waf_migration/compare`. */
export interface MigrationComparison {
  requests: number
  differences: number
  /** where the new product's configuration came from */
  new_configuration: 'entrypoint' | 'generated'
  outcomes: { previous: Record<Outcome, number>; new: Record<Outcome, number> }
  /** requests by previous outcome, then new outcome */
  matrix: Record<Outcome, Record<Outcome, number>>
  /** differences first, then the rest, each group in request order */
  results: ComparedRequest[]
}
