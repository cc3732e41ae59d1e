// The ruleset phases that decide where a function may be used (docs/vendor-behaviour.md#phases).

import type { UseSite } from '../scheme/functions'

export const PHASE_CUSTOM = 'http_request_firewall_custom'
export const PHASE_MANAGED = 'http_request_firewall_managed'
export const PHASE_RATELIMIT = 'http_ratelimit'
/** the previous product's firewall rules (the Filters API) */
export const PHASE_LEGACY_FIREWALL = 'legacy_firewall_rules'
export const TRANSFORM_PHASES = [
  'http_request_transform',
  'http_request_late_transform',
  'http_response_headers_transform',
]
const REDIRECT_PHASE = 'http_request_dynamic_redirect'
export const CUSTOM_ERRORS = 'http_custom_errors'

export const inPhases =
  (...phases: string[]) =>
  (site: UseSite) =>
    phases.includes(site.phase)

export const rewriteOnly = (site: UseSite) =>
  site.valueExpression && (TRANSFORM_PHASES.includes(site.phase) || site.phase === REDIRECT_PHASE)
