// Filters and firewall rules as the vendor's (deprecated, still used) Filters and Firewall Rules
// APIs show them (docs/vendor-behaviour.md#firewall-rules-api,
// docs/vendor-behaviour.md#filters-api), and the bodies those APIs take.

import { Type, type Static, type TSchema } from 'typebox'
import { API_ERRORS } from './error-codes'
import { badRequest } from './errors'
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

/**
 * A body of one item or an array of them: the vendor's create and bulk routes of both APIs take
 * arrays (what scripts send), and the official SDK and the OpenAPI document send one object.
 */
export const OneOrMany = <T extends TSchema>(item: T) => Type.Union([Type.Array(item), item])
/** The items of a `OneOrMany` body, in order. */
export const itemsOf = <T>(body: T | T[]): T[] => (Array.isArray(body) ? body : [body])

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A preValidation hook refusing a bulk update (one object or an array) that has an item without
 * `id`, saying that each item needs one, rather than as a failed union: the official SDK's
 * `filters.bulkUpdate` types its items without it. `items` names them ('filter', 'firewall rule').
 */
export function requireItemIds(items: string) {
  return async (request: { body: unknown }): Promise<void> => {
    const { body } = request
    const index = [body].flat().findIndex((item) => isRecord(item) && !('id' in item))
    if (index < 0) return
    const at = Array.isArray(body) ? `/${index}` : ''
    throw badRequest(
      API_ERRORS.invalidRequest,
      `Invalid request: body${at} has no id: each ${items} of a bulk update needs the \`id\` of the ${items} it changes`,
      { source: { pointer: at || '/' } },
    )
  }
}

/**
 * The official SDK's action modes that are not the names of actions, and the action each is:
 * its `firewall.rules.create`/`update` send `action: {mode, response?, timeout?}`
 * (docs/vendor-behaviour.md#firewall-rules-api).
 */
const SDK_ACTION_MODES: Readonly<Record<string, FirewallAction>> = {
  ban: 'block',
  simulate: 'log',
}

/**
 * The action as the string the API reads: the SDK's object form becomes its `mode` (`ban` is
 * `block`, `simulate` is `log`); anything else is left for the schema to take or refuse, so an
 * unknown mode is refused as an unknown action is. `response` and `timeout` are not read.
 */
function actionString(action: unknown): unknown {
  if (!isRecord(action)) return action
  const { mode, response, timeout, ...rest } = action
  const shaped =
    typeof mode === 'string' &&
    Object.keys(rest).length === 0 &&
    (response === undefined || isRecord(response)) &&
    (timeout === undefined || typeof timeout === 'number')
  if (!shaped) return action
  return Object.hasOwn(SDK_ACTION_MODES, mode) ? SDK_ACTION_MODES[mode] : mode
}

/** A firewall rule body (one rule or an array) with each rule's action as a string. */
export function withStringActions(body: unknown): unknown {
  const rule = (item: unknown) =>
    isRecord(item) && 'action' in item ? { ...item, action: actionString(item.action) } : item
  return Array.isArray(body) ? body.map(rule) : rule(body)
}
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

/**
 * A PATCH of one rule: its `id` is the path's (the SDK's `firewall.rules.edit` sends `{}`), and
 * a PATCH changes only `priority`, and only when it names it.
 */
export const PriorityEdit = Type.Object(
  {
    id: Type.Optional(Id),
    priority: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 2147483647 }), Type.Null()]),
    ),
  },
  { additionalProperties: true },
)
export type PriorityEdit = Static<typeof PriorityEdit>
/** An item of the bulk PATCH, which names each rule by `id`. */
export const PriorityUpdate = Type.Object(
  { ...PriorityEdit.properties, id: Id },
  { additionalProperties: true },
)
export type PriorityUpdate = Static<typeof PriorityUpdate>
