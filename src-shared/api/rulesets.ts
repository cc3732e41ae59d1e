// Rulesets as the vendor's Rulesets API shows them (docs/vendor-behaviour.md#rulesets-and-phases),
// and the request bodies it takes. The bodies are TypeBox schemas: the API validates their shape
// with them and both sides take their types from them. What a schema cannot say (an expression that
// does not parse, an execute rule naming no ruleset, an override of an unknown tag) is checked in
// main, where the errors get the vendor's codes and `source.pointer`.

import { Type, type Static } from 'typebox'

/** The phases the vendor's SDK knows (a superset of older schemas). */
export const PHASES = [
  'ddos_l4',
  'ddos_l7',
  'http_config_settings',
  'http_custom_errors',
  'http_log_custom_fields',
  'http_ratelimit',
  'http_request_cache_settings',
  'http_request_dynamic_redirect',
  'http_request_firewall_custom',
  'http_request_firewall_managed',
  'http_request_late_transform',
  'http_request_origin',
  'http_request_redirect',
  'http_request_sanitize',
  'http_request_sbfm',
  'http_request_select_configuration',
  'http_request_transform',
  'http_response_cache_settings',
  'http_response_compression',
  'http_response_firewall_managed',
  'http_response_headers_transform',
  'magic_transit',
  'magic_transit_ids_managed',
  'magic_transit_managed',
  'magic_transit_ratelimit',
] as const
export type Phase = (typeof PHASES)[number]

export const RULESET_KINDS = ['managed', 'custom', 'root', 'zone'] as const
export type RulesetKind = (typeof RULESET_KINDS)[number]

/** Every rule action the vendor's API names. */
export const RULE_ACTIONS = [
  'block',
  'challenge',
  'compress_response',
  'ddos_dynamic',
  'execute',
  'force_connection_close',
  'js_challenge',
  'log',
  'log_custom_field',
  'managed_challenge',
  'redirect',
  'rewrite',
  'route',
  'score',
  'serve_error',
  'set_cache_control',
  'set_cache_settings',
  'set_cache_tags',
  'set_config',
  'skip',
] as const
export type RuleAction = (typeof RULE_ACTIONS)[number]

/**
 * Actions a managed ruleset's rules may be overridden to (Managed Challenge, Block, JS Challenge,
 * Log, Interactive Challenge: docs/vendor-behaviour.md#actions); the exposed-credentials rules also
 * take `rewrite`.
 */
export const MANAGED_OVERRIDE_ACTIONS = [
  'managed_challenge',
  'block',
  'js_challenge',
  'log',
  'challenge',
] as const
export type ManagedOverrideAction = (typeof MANAGED_OVERRIDE_ACTIONS)[number]

export const SKIP_PRODUCTS = [
  'bic',
  'hot',
  'rateLimit',
  'securityLevel',
  'uaBlock',
  'waf',
  'zoneLockdown',
] as const

export const SENSITIVITY_LEVELS = ['default', 'medium', 'low', 'eoff'] as const

export const MANAGED_RULESET_IDS = {
  general: 'efb7b8c949ac4650a09736fc376e9aee',
  owasp: '4814384a9e5d4991b9815dcfc25d2f1f',
  exposedCredentials: 'c2e184081120413c86c3ab7e14069605',
} as const
/** The OWASP core ruleset's last rule: blocks when the anomaly score reaches its threshold. */
export const OWASP_ANOMALY_RULE_ID = '6179ae15870a4bb7b2d480d4843b323c'

const Id = Type.String({ pattern: '^[0-9a-f]{32}$' })

export const CategoryOverride = Type.Object(
  {
    category: Type.String({ minLength: 1 }),
    action: Type.Optional(Type.String({ pattern: '^[a-z_]+$' })),
    enabled: Type.Optional(Type.Boolean()),
    sensitivity_level: Type.Optional(Type.Enum(SENSITIVITY_LEVELS)),
  },
  { additionalProperties: false, minProperties: 2 },
)
export type CategoryOverride = Static<typeof CategoryOverride>

export const RuleOverride = Type.Object(
  {
    id: Id,
    action: Type.Optional(Type.String({ pattern: '^[a-z_]+$' })),
    enabled: Type.Optional(Type.Boolean()),
    score_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    sensitivity_level: Type.Optional(Type.Enum(SENSITIVITY_LEVELS)),
  },
  { additionalProperties: false, minProperties: 2 },
)
export type RuleOverride = Static<typeof RuleOverride>

export const Overrides = Type.Object(
  {
    action: Type.Optional(Type.String({ pattern: '^[a-z_]+$' })),
    enabled: Type.Optional(Type.Boolean()),
    sensitivity_level: Type.Optional(Type.Enum(SENSITIVITY_LEVELS)),
    categories: Type.Optional(Type.Array(CategoryOverride, { minItems: 1 })),
    rules: Type.Optional(Type.Array(RuleOverride, { minItems: 1 })),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type Overrides = Static<typeof Overrides>

/** `action_parameters` of an `execute` rule. */
export interface ExecuteParameters {
  id: string
  version?: string
  matched_data?: { public_key: string }
  overrides?: Overrides
}

export const Position = Type.Union([
  Type.Object(
    { before: Type.String({ pattern: '^(?:[0-9a-f]{32})?$' }) },
    { additionalProperties: false },
  ),
  Type.Object(
    { after: Type.String({ pattern: '^(?:[0-9a-f]{32})?$' }) },
    { additionalProperties: false },
  ),
  Type.Object({ index: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
])
export type Position = Static<typeof Position>

const ruleFields = {
  // Read-only fields a client echoes back (a GET result sent again) are accepted and ignored;
  // `id` keeps a rule's identity across a PUT, and may be empty (the migration's config does so).
  id: Type.Optional(Type.String({ pattern: '^(?:[0-9a-f]{32})?$' })),
  version: Type.Optional(Type.String()),
  last_updated: Type.Optional(Type.String()),
  categories: Type.Optional(Type.Array(Type.String())),
  ref: Type.Optional(Type.String({ maxLength: 500 })),
  action: Type.Optional(Type.String()),
  action_parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  expression: Type.Optional(Type.String()),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  enabled: Type.Optional(Type.Boolean()),
  logging: Type.Optional(Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false })),
  exposed_credential_check: Type.Optional(
    Type.Object(
      {
        username_expression: Type.String({ maxLength: 1024 }),
        password_expression: Type.String({ maxLength: 1024 }),
      },
      { additionalProperties: false },
    ),
  ),
  ratelimit: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}

/** A rule as a client sends it, inside a ruleset body. */
export const RuleBody = Type.Object(ruleFields, { additionalProperties: false })
export type RuleBody = Static<typeof RuleBody>

/** Body of POST …/rules and PATCH …/rules/{rule_id}: a rule plus where it goes. */
export const RulePlacementBody = Type.Object(
  { ...ruleFields, position: Type.Optional(Position) },
  { additionalProperties: false },
)
export type RulePlacementBody = Static<typeof RulePlacementBody>

/** Body of POST …/rulesets. */
export const RulesetCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 500 }),
    kind: Type.Enum(RULESET_KINDS),
    phase: Type.Enum(PHASES),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    rules: Type.Optional(Type.Array(RuleBody)),
  },
  { additionalProperties: false },
)
export type RulesetCreateBody = Static<typeof RulesetCreateBody>

/**
 * Body of PUT …/rulesets/{id} and PUT …/phases/{phase}/entrypoint. `rules` replaces every rule.
 * The fields that cannot change (id, kind, phase, version…) are accepted when they match.
 */
export const RulesetUpdateBody = Type.Object(
  {
    id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    kind: Type.Optional(Type.Enum(RULESET_KINDS)),
    phase: Type.Optional(Type.Enum(PHASES)),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    version: Type.Optional(Type.String()),
    last_updated: Type.Optional(Type.String()),
    source: Type.Optional(Type.String()),
    rules: Type.Optional(Type.Array(RuleBody)),
  },
  { additionalProperties: false },
)
export type RulesetUpdateBody = Static<typeof RulesetUpdateBody>

/** A rule as the API answers it. Managed rulesets' rules come without `expression`. */
export interface Rule {
  id: string
  version: string
  action: string
  action_parameters?: Record<string, unknown>
  expression?: string
  description: string
  last_updated: string
  ref: string
  enabled: boolean
  categories?: string[]
  logging?: { enabled: boolean }
  exposed_credential_check?: { username_expression: string; password_expression: string }
  ratelimit?: Record<string, unknown>
  /** OWASP's anomaly rule: the score at or above which it acts */
  score_threshold?: number
}

export interface Ruleset {
  id: string
  name: string
  description: string
  kind: RulesetKind
  phase: Phase
  version: string
  last_updated: string
  /** `firewall_managed` for the managed firewall phase's rulesets */
  source?: string
  rules: Rule[]
}

/** A ruleset in a list or a version list: everything but its rules. */
export type RulesetSummary = Omit<Ruleset, 'rules'>
