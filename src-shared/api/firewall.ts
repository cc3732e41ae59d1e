// Filters and firewall rules as the vendor's (deprecated, still used) Filters and Firewall Rules
// APIs show them (docs/vendor-behaviour.md#firewall-rules-api,
// docs/vendor-behaviour.md#filters-api), and the bodies those APIs take.

import { Type, type Static } from 'typebox'
import type { ZonePlan } from './zones'

export const FIREWALL_ACTIONS = [
  'block',
  'challenge',
  'js_challenge',
  'managed_challenge',
  'allow',
  'log',
  'bypass',
] as const
export type FirewallAction = (typeof FIREWALL_ACTIONS)[number]

/**
 * Why a zone's plan cannot use an action, or undefined when it can: `log` is Enterprise's only
 * (docs/vendor-behaviour.md#firewall-rules-api). The API refuses with it, and the screens say it
 * instead of offering the action.
 */
export function firewallActionUnavailable(
  action: FirewallAction,
  plan: ZonePlan,
): string | undefined {
  return action === 'log' && plan !== 'enterprise'
    ? 'the log action is available on the Enterprise plan only'
    : undefined
}

/** What a `bypass` rule can skip. */
export const FIREWALL_PRODUCTS = [
  'zoneLockdown',
  'uaBlock',
  'bic',
  'hot',
  'securityLevel',
  'rateLimit',
  'waf',
] as const
export type FirewallProduct = (typeof FIREWALL_PRODUCTS)[number]

export interface Filter {
  id: string
  expression: string
  paused: boolean
  description?: string
  ref?: string
}

export interface FirewallRule {
  id: string
  /** `{ id, deleted: true }` once the filter is gone */
  filter: Filter | { id: string; deleted: true }
  action: FirewallAction
  /** null when unset: such rules run after every rule that has one */
  priority: number | null
  paused: boolean
  description?: string
  ref?: string
  products?: FirewallProduct[]
  created_on: string
  modified_on: string
}

const Id = Type.String({ pattern: '^[0-9a-f]{32}$' })
const filterFields = {
  expression: Type.String(),
  paused: Type.Optional(Type.Boolean()),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  ref: Type.Optional(Type.String({ maxLength: 50 })),
}

export const FilterCreate = Type.Object(filterFields, { additionalProperties: false })
export type FilterCreate = Static<typeof FilterCreate>
/** A filter's PUT: the fields it sends change, the others stay as they are. */
export const FilterUpdate = Type.Object(
  { id: Type.Optional(Id), ...filterFields, expression: Type.Optional(Type.String()) },
  { additionalProperties: false },
)
export type FilterUpdate = Static<typeof FilterUpdate>
export const FilterBulkUpdate = Type.Object(
  { ...FilterUpdate.properties, id: Id },
  { additionalProperties: false },
)
export type FilterBulkUpdate = Static<typeof FilterBulkUpdate>

const IdOnly = Type.Object({ id: Type.String() }, { additionalProperties: false })
/**
 * The ids a bulk DELETE of filters names in its body, besides `?id=`: the vendor's OpenAPI
 * document gives the body `{ "id": … }`, and scripts send an array of them.
 */
export const FilterDeleteBody = Type.Union([IdOnly, Type.Array(IdOnly), Type.Null()])
export type FilterDeleteBody = Static<typeof FilterDeleteBody>
/** The same for firewall rules, whose single form may also say `delete_filter_if_unused`. */
export const FirewallRuleDeleteBody = Type.Union([
  Type.Object(
    { id: Type.String(), delete_filter_if_unused: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  ),
  Type.Array(IdOnly),
  Type.Null(),
])
export type FirewallRuleDeleteBody = Static<typeof FirewallRuleDeleteBody>

/** The ids of a bulk DELETE: those of the query, then those of the body. */
export function idsToDelete(
  query: string[] | undefined,
  body: { id: string } | { id: string }[] | null | undefined,
): string[] {
  const fromBody = body === null || body === undefined ? [] : [body].flat().map((item) => item.id)
  return [...(query ?? []), ...fromBody]
}

const ruleFields = {
  action: Type.Enum(FIREWALL_ACTIONS),
  priority: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.Null()]),
  ),
  paused: Type.Optional(Type.Boolean()),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  ref: Type.Optional(Type.String({ maxLength: 50 })),
  products: Type.Optional(Type.Array(Type.Enum(FIREWALL_PRODUCTS), { uniqueItems: true })),
}

/** A rule to create: its filter by id, or a new filter inline (expression, no id). */
export const FirewallRuleCreate = Type.Object(
  {
    ...ruleFields,
    filter: Type.Object(
      {
        id: Type.Optional(Id),
        expression: Type.Optional(Type.String()),
        paused: Type.Optional(Type.Boolean()),
        description: Type.Optional(Type.String({ maxLength: 500 })),
        ref: Type.Optional(Type.String({ maxLength: 50 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)
export type FirewallRuleCreate = Static<typeof FirewallRuleCreate>

/**
 * A whole rule, for PUT: only `filter.id` is read from the filter (PUT re-links, never edits
 * a filter); fields left out are reset.
 */
export const FirewallRuleUpdate = Type.Object(
  {
    ...ruleFields,
    id: Type.Optional(Id),
    filter: Type.Object({ id: Id }, { additionalProperties: true }),
  },
  { additionalProperties: false },
)
export type FirewallRuleUpdate = Static<typeof FirewallRuleUpdate>

export const FirewallRuleBulkUpdate = Type.Object(
  { ...FirewallRuleUpdate.properties, id: Id },
  { additionalProperties: false },
)
export type FirewallRuleBulkUpdate = Static<typeof FirewallRuleBulkUpdate>

export const PriorityUpdate = Type.Object(
  {
    id: Id,
    priority: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.Null()]),
    ),
  },
  { additionalProperties: true },
)
export type PriorityUpdate = Static<typeof PriorityUpdate>
