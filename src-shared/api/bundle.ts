// The zone bundle: one JSON document holding everything the vendor's API shows of a zone's
// security configuration, in the API's own shapes, with every id kept. It is how a zone leaves
// the workbench and comes back (export, import, and later Terraform, scripts and remote plans).
// This schema is the bundle's single source of truth: the import validates with it, and it is a
// JSON Schema as it stands (`JSON.stringify(ZoneBundle)`).
//
// Account-level managed rulesets are not carried: the execute rules that deploy them name them
// by id. Security events are traffic, not configuration, and are not carried either; the event
// log's caps are. The zone's saved sample requests (the workbench's own) are.

import { Type, type Static } from 'typebox'
import { FIREWALL_ACTIONS, FIREWALL_PRODUCTS } from './firewall'
import { PHASES, RuleBody } from './rulesets'
import { Sample } from './samples'
import {
  MIGRATION_STATES,
  PageRuleCreateBody,
  WAF_ACTION_MODES,
  WAF_GROUP_MODES,
  WAF_RULE_MODES,
  WAF_SENSITIVITIES,
  WafOverrideCreateBody,
} from './waf'
import { WAF_PRODUCTS, ZONE_PLANS, ZONE_TYPES } from './zones'

export const BUNDLE_FORMAT = 'zone-workbench/bundle'
export const BUNDLE_VERSION = 1

const Id = Type.String({ pattern: '^[0-9a-f]{32}$' })
const Timestamp = Type.String({ minLength: 1, maxLength: 64 })
const Version = Type.String({ pattern: '^[1-9][0-9]{0,9}$' })

const BundleZone = Type.Object(
  {
    id: Id,
    name: Type.String({ minLength: 1, maxLength: 253 }),
    type: Type.Enum(ZONE_TYPES),
    plan: Type.Enum(ZONE_PLANS),
    paused: Type.Boolean(),
    waf_product: Type.Enum(WAF_PRODUCTS),
    created_on: Timestamp,
    modified_on: Timestamp,
  },
  { additionalProperties: false },
)

/** A rule as the Rulesets API answers it: a rule body with its identity and versions. */
export const BundleRule = Type.Object(
  {
    ...RuleBody.properties,
    id: Id,
    version: Version,
    action: Type.String({ minLength: 1 }),
    expression: Type.String(),
    description: Type.String({ maxLength: 500 }),
    last_updated: Timestamp,
    ref: Type.String({ minLength: 1, maxLength: 500 }),
    enabled: Type.Boolean(),
  },
  { additionalProperties: false },
)
export type BundleRule = Static<typeof BundleRule>

/** A zone's own ruleset (an entry point, or a custom ruleset) as the API answers it. */
export const BundleRuleset = Type.Object(
  {
    id: Id,
    name: Type.String({ minLength: 1, maxLength: 500 }),
    description: Type.String({ maxLength: 500 }),
    source: Type.Optional(Type.String()),
    kind: Type.Enum(['custom', 'zone'] as const),
    version: Version,
    rules: Type.Array(BundleRule),
    last_updated: Timestamp,
    phase: Type.Enum(PHASES),
  },
  { additionalProperties: false },
)
export type BundleRuleset = Static<typeof BundleRuleset>

export const BundleFilter = Type.Object(
  {
    id: Id,
    paused: Type.Boolean(),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    ref: Type.Optional(Type.String({ maxLength: 50 })),
    expression: Type.String(),
  },
  { additionalProperties: false },
)
export type BundleFilter = Static<typeof BundleFilter>

/** A firewall rule as the API answers it, naming its filter by id (the filter is in `filters`). */
export const BundleFirewallRule = Type.Object(
  {
    id: Id,
    paused: Type.Boolean(),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    action: Type.Enum(FIREWALL_ACTIONS),
    priority: Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.Null()]),
    filter: Type.Object({ id: Id }, { additionalProperties: false }),
    ref: Type.Optional(Type.String({ maxLength: 50 })),
    products: Type.Optional(Type.Array(Type.Enum(FIREWALL_PRODUCTS), { uniqueItems: true })),
    created_on: Timestamp,
    modified_on: Timestamp,
  },
  { additionalProperties: false },
)
export type BundleFirewallRule = Static<typeof BundleFirewallRule>

export const BundlePageRule = Type.Object(
  {
    id: Id,
    targets: PageRuleCreateBody.properties.targets,
    actions: PageRuleCreateBody.properties.actions,
    priority: Type.Integer({ minimum: 1 }),
    status: Type.Enum(['active', 'disabled'] as const),
    created_on: Timestamp,
    modified_on: Timestamp,
  },
  { additionalProperties: false },
)
export type BundlePageRule = Static<typeof BundlePageRule>

const { urls, rules, groups, rewrite_action, priority } =
  Type.Required(WafOverrideCreateBody).properties
export const BundleWafOverride = Type.Object(
  {
    id: Id,
    description: Type.Union([Type.String({ maxLength: 1024 }), Type.Null()]),
    urls,
    rules,
    groups,
    rewrite_action,
    priority,
    paused: Type.Boolean(),
  },
  { additionalProperties: false },
)
export type BundleWafOverride = Static<typeof BundleWafOverride>

/** The previous product's package as the API answers it; only an anomaly package's settings change. */
const BundleWafPackage = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64 }),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    detection_mode: Type.Optional(Type.Enum(['traditional', 'anomaly'] as const)),
    zone_id: Type.Optional(Id),
    status: Type.Optional(Type.Literal('active')),
    sensitivity: Type.Optional(Type.Enum(WAF_SENSITIVITIES)),
    action_mode: Type.Optional(Type.Enum(WAF_ACTION_MODES)),
  },
  { additionalProperties: false },
)

const CatalogRef = {
  id: Type.String({ minLength: 1, maxLength: 64 }),
  package_id: Type.String({ minLength: 1, maxLength: 64 }),
}

/** The previous product's settings: only groups and rules whose mode is not the default. */
const BundlePreviousWaf = Type.Object(
  {
    setting: Type.Object(
      {
        id: Type.Literal('waf'),
        value: Type.Enum(['on', 'off'] as const),
        editable: Type.Optional(Type.Boolean()),
        modified_on: Type.Union([Timestamp, Type.Null()]),
      },
      { additionalProperties: false },
    ),
    packages: Type.Array(BundleWafPackage),
    groups: Type.Array(
      Type.Object(
        { ...CatalogRef, mode: Type.Enum(WAF_GROUP_MODES) },
        { additionalProperties: false },
      ),
    ),
    rules: Type.Array(
      Type.Object(
        { ...CatalogRef, mode: Type.Enum(WAF_RULE_MODES) },
        { additionalProperties: false },
      ),
    ),
    overrides: Type.Array(BundleWafOverride),
  },
  { additionalProperties: false },
)
export type BundlePreviousWaf = Static<typeof BundlePreviousWaf>

/** `GET /zones/{zone_id}/waf_migration/status` of a zone whose migration has begun. */
const BundleMigration = Type.Object(
  {
    created: Timestamp,
    migration_state: Type.Enum(MIGRATION_STATES.filter((state) => state !== 'start')),
    old_waf_status: Type.Optional(Type.Enum(['enabled', 'disabled'] as const)),
    new_waf_status: Type.Optional(Type.Enum(['enabled', 'disabled'] as const)),
    source: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]),
    switch_at: Type.Union([Timestamp, Type.Null()]),
  },
  { additionalProperties: false },
)
export type BundleMigration = Static<typeof BundleMigration>

export const ZoneBundle = Type.Object(
  {
    format: Type.Literal(BUNDLE_FORMAT),
    version: Type.Literal(BUNDLE_VERSION),
    exported_at: Timestamp,
    zone: BundleZone,
    rulesets: Type.Array(BundleRuleset),
    filters: Type.Array(BundleFilter),
    firewall_rules: Type.Array(BundleFirewallRule),
    /** the zone's own firewall rule quota, or null for its plan's */
    firewall_settings: Type.Object(
      { rule_quota: Type.Union([Type.Integer({ minimum: 0, maximum: 100_000 }), Type.Null()]) },
      { additionalProperties: false },
    ),
    page_rules: Type.Array(BundlePageRule),
    /** the caps of the zone's security-event log (its events are not carried) */
    event_log_settings: Type.Object(
      {
        max_events: Type.Integer({ minimum: 1, maximum: 100_000_000 }),
        max_bytes: Type.Integer({ minimum: 65_536, maximum: 2 ** 40 }),
      },
      { additionalProperties: false },
    ),
    /** a zone on the previous managed-rules product only */
    previous_waf: Type.Optional(BundlePreviousWaf),
    /** a zone whose migration off the previous product has begun, as its status answers it */
    waf_migration: Type.Optional(BundleMigration),
    /**
     * the workbench's own saved sample requests; a bundle without them (one written before they
     * were carried, or read from production) leaves the zone's as they are
     */
    samples: Type.Optional(Type.Array(Sample, { maxItems: 10_000 })),
  },
  { additionalProperties: false },
)
export type ZoneBundle = Static<typeof ZoneBundle>

/** A zone's configuration as a bundle holds it, without the document's own fields. */
export type BundleContent = Omit<ZoneBundle, 'format' | 'version' | 'exported_at'>

export const BUNDLE_RESOURCE_KINDS = [
  'zone',
  'ruleset',
  'filter',
  'firewall_rule',
  'firewall_settings',
  'page_rule',
  'event_log_settings',
  'waf_setting',
  'waf_package',
  'waf_group',
  'waf_rule',
  'waf_override',
  'sample',
] as const
export type BundleResourceKind = (typeof BUNDLE_RESOURCE_KINDS)[number]

/** One resource an import (or a later plan) creates, updates or deletes. */
export interface ConfigurationChange {
  kind: BundleResourceKind
  id: string
  action: 'create' | 'update' | 'delete'
  /** what changes, in a sentence */
  summary: string
}

/** The answer of POST /workbench/v1/zones/import. */
export interface BundleImportResult {
  zone: { id: string; name: string }
  changes: ConfigurationChange[]
}
