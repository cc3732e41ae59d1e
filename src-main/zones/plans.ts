// The vendor's plans as a zone's `plan` object shows them. Ids are stable local identifiers (the
// free plan's is the vendor's well-known one); the rest of the product decides by `legacy_id`.

import type { ZonePlan, ZonePlanInfo } from '@shared/api/zones'

const PLANS: Record<ZonePlan, Omit<ZonePlanInfo, 'is_subscribed' | 'can_subscribe'>> = {
  free: {
    id: '0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
    name: 'Free Website',
    legacy_id: 'free',
    price: 0,
    currency: 'USD',
    frequency: '',
    legacy_discount: false,
    externally_managed: false,
  },
  pro: {
    id: '94f3b7b768b0458b56d2cac4fe5ec0f9',
    name: 'Pro Website',
    legacy_id: 'pro',
    price: 20,
    currency: 'USD',
    frequency: 'monthly',
    legacy_discount: false,
    externally_managed: false,
  },
  business: {
    id: '6d7f2f5f5b1d4a0e9d2a7f2c5e4b3a21',
    name: 'Business Website',
    legacy_id: 'business',
    price: 200,
    currency: 'USD',
    frequency: 'monthly',
    legacy_discount: false,
    externally_managed: false,
  },
  enterprise: {
    id: '1ac039f6c29b691475c3d74fe588d1ae',
    name: 'Enterprise Website',
    legacy_id: 'enterprise',
    price: 0,
    currency: 'USD',
    frequency: '',
    legacy_discount: false,
    externally_managed: true,
  },
}

export function planInfo(plan: ZonePlan): ZonePlanInfo {
  return { ...PLANS[plan], is_subscribed: true, can_subscribe: false }
}

/** A plan named by legacy id (`"pro"`) or by the vendor's `{ id }` form; undefined when unknown. */
export function resolvePlan(plan: ZonePlan | { id: string }): ZonePlan | undefined {
  if (typeof plan === 'string') return plan in PLANS ? plan : undefined
  return (Object.values(PLANS).find((p) => p.id === plan.id) ?? undefined)?.legacy_id
}
