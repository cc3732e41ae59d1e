// A zone as the vendor's v4 API shows it, plus the two properties Zone Workbench adds to rehearse
// a zone's WAF: its plan (which decides migration eligibility) and which WAF product it runs.
// Request bodies are TypeBox schemas: the API validates with them and both sides take their types
// from them, so the two cannot disagree.

import { Type, type Static } from 'typebox'

export const ZONE_PLANS = ['free', 'pro', 'business', 'enterprise'] as const
export type ZonePlan = (typeof ZONE_PLANS)[number]

/**
 * Whether a zone on `plan` may deploy its migration in validation mode (both products running
 * side by side until the cut-over): Enterprise zones only (docs/vendor-behaviour.md#migration-api).
 */
export function offersValidationMode(plan: ZonePlan): boolean {
  return plan === 'enterprise'
}

/** `previous`: still on the previous managed-rules product, so its migration can be rehearsed. */
export const WAF_PRODUCTS = ['managed_rulesets', 'previous'] as const
export type WafProduct = (typeof WAF_PRODUCTS)[number]

/**
 * `internal`: an Internal DNS zone, resolved only through the vendor's Gateway; it gets no
 * Cloudflare name servers (https://developers.cloudflare.com/dns/internal-dns/internal-zones/).
 */
export const ZONE_TYPES = ['full', 'partial', 'secondary', 'internal'] as const
export type ZoneType = (typeof ZONE_TYPES)[number]

export interface ZonePlanInfo {
  id: string
  name: string
  legacy_id: ZonePlan
  price: number
  currency: string
  frequency: string
  is_subscribed: boolean
  can_subscribe: boolean
  legacy_discount: boolean
  externally_managed: boolean
}

export interface Zone {
  id: string
  name: string
  status: 'active' | 'pending'
  paused: boolean
  type: ZoneType
  development_mode: number
  name_servers: string[]
  original_name_servers: string[] | null
  original_registrar: string | null
  original_dnshost: string | null
  created_on: string
  modified_on: string
  activated_on: string | null
  account: { id: string; name: string }
  owner: { id: string | null; type: 'user' | 'organization'; email: string | null }
  permissions: string[]
  plan: ZonePlanInfo
  meta: { phishing_detected: boolean; cdn_only: boolean; dns_only: boolean }
  /** custom name servers (host names), [] when none were set */
  vanity_name_servers: string[]
  /** Zone Workbench: which WAF product the zone runs (set at creation). */
  waf_product: WafProduct
}

const PlanRef = Type.Union([Type.Enum(ZONE_PLANS), Type.Object({ id: Type.String() })])

/** Body of `POST /zones`. `plan` and `waf_product` are Zone Workbench's additions. */
export const ZoneCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 253 }),
  account: Type.Optional(Type.Object({ id: Type.String() })),
  type: Type.Optional(Type.Enum(ZONE_TYPES)),
  plan: Type.Optional(PlanRef),
  waf_product: Type.Optional(Type.Enum(WAF_PRODUCTS)),
})
export type ZoneCreate = Static<typeof ZoneCreateBody>

/** Body of `PATCH /zones/{zone_id}`: what the vendor lets one edit. */
export const ZoneEditBody = Type.Object(
  {
    paused: Type.Optional(Type.Boolean()),
    type: Type.Optional(Type.Enum(ZONE_TYPES)),
    plan: Type.Optional(PlanRef),
    /** host names, checked by isValidHostName (the vendor's 400 in its envelope for a bad one) */
    vanity_name_servers: Type.Optional(Type.Array(Type.String(), { maxItems: 20 })),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type ZoneEdit = Static<typeof ZoneEditBody>

const ZONE_NAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/

const HOST_NAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/i

/** A name server's host name: at least two labels of letters, digits and hyphens. */
export function isValidHostName(name: string): boolean {
  return HOST_NAME.test(name)
}

/** Zone names are registrable domain names: at least two labels, letters, digits and hyphens. */
export function isValidZoneName(name: string): boolean {
  return ZONE_NAME.test(name)
}

export const ZONE_STATUSES = ['initializing', 'pending', 'active', 'moved'] as const
export const ZONE_LIST_ORDERS = ['name', 'status', 'account.id', 'account.name', 'plan.id'] as const

/**
 * The search and order of `GET /zones`, page aside, as the vendor defines them
 * (https://developers.cloudflare.com/api/resources/zones/methods/list/; the official SDK sends
 * `account` as `account.id` and `account.name`). `match` says whether a zone must meet every
 * requirement given (`all`, the default) or one of them (`any`).
 */
export const ZoneListSearch = Type.Object({
  name: Type.Optional(Type.String()),
  status: Type.Optional(Type.Enum(ZONE_STATUSES)),
  /** zones of any of these types (the SDK repeats `type=` for several: `arrayFormat: 'repeat'`) */
  type: Type.Optional(Type.Array(Type.Enum(ZONE_TYPES), { minItems: 1, maxItems: 10 })),
  'account.id': Type.Optional(Type.String()),
  'account.name': Type.Optional(Type.String()),
  order: Type.Optional(Type.Enum(ZONE_LIST_ORDERS)),
  direction: Type.Optional(Type.Enum(['asc', 'desc'])),
  match: Type.Optional(Type.Enum(['any', 'all'])),
})
export type ZoneListSearch = Static<typeof ZoneListSearch>

const NAME_OPERATORS = [
  'equal',
  'not_equal',
  'starts_with',
  'ends_with',
  'contains',
  'starts_with_case_sensitive',
  'ends_with_case_sensitive',
  'contains_case_sensitive',
] as const
type NameOperator = (typeof NAME_OPERATORS)[number]

/** A name to look for, as `name` and `account.name` of the zone list give it. */
export interface NameSearch {
  operator: NameOperator
  value: string
}

/**
 * `operator:value`, or a value alone for `equal` (a zone name has no colon, so the two never mix;
 * the form is the one the vendor's API reads, e.g. `name=starts_with:shop`).
 */
export function parseNameSearch(text: string): NameSearch {
  const colon = text.indexOf(':')
  const operator = NAME_OPERATORS.find((known) => known === text.slice(0, colon))
  return colon < 0 || operator === undefined
    ? { operator: 'equal', value: text }
    : { operator, value: text.slice(colon + 1) }
}

/** Whether `name` is what `search` looks for; only the `_case_sensitive` operators mind case. */
export function nameMatches(search: NameSearch, name: string): boolean {
  const sensitive = search.operator.endsWith('_case_sensitive')
  const have = sensitive ? name : name.toLowerCase()
  const want = sensitive ? search.value : search.value.toLowerCase()
  switch (search.operator.replace('_case_sensitive', '')) {
    case 'equal':
      return have === want
    case 'not_equal':
      return have !== want
    case 'starts_with':
      return have.startsWith(want)
    case 'ends_with':
      return have.endsWith(want)
    default:
      return have.includes(want)
  }
}
