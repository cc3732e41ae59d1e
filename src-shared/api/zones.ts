// A zone as the vendor's v4 API shows it, plus the two properties Zone Workbench adds to rehearse
// a zone's WAF: its plan (which decides migration eligibility) and which WAF product it runs.
// Request bodies are TypeBox schemas: the API validates with them and both sides take their types
// from them, so the two cannot disagree.

import { Type, type Static } from 'typebox'

export const ZONE_PLANS = ['free', 'pro', 'business', 'enterprise'] as const
export type ZonePlan = (typeof ZONE_PLANS)[number]

/** `previous`: still on the previous managed-rules product, so its migration can be rehearsed. */
export const WAF_PRODUCTS = ['managed_rulesets', 'previous'] as const
export type WafProduct = (typeof WAF_PRODUCTS)[number]

export const ZONE_TYPES = ['full', 'partial', 'secondary'] as const
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
  },
  { additionalProperties: false, minProperties: 1 },
)
export type ZoneEdit = Static<typeof ZoneEditBody>

const ZONE_NAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/

/** Zone names are registrable domain names: at least two labels, letters, digits and hyphens. */
export function isValidZoneName(name: string): boolean {
  return ZONE_NAME.test(name)
}
