// How the Migration screen names the previous product's settings and the migration's states, the
// page-rule actions and target operators it offers, and the switch-over countdown it shows.

import type {
  MigrationState,
  NotMigrated,
  PageRuleAction,
  PageRuleCreate,
  PageRuleOperator,
  PageRuleTarget,
  ProductStatus,
  WafActionMode,
  WafOverrideAction,
  WafRuleMode,
  WafSensitivity,
} from '@shared/api/waf'

export const WIZARD_STEPS = ['settings', 'eligibility', 'review', 'validate', 'cutover'] as const
export type WizardStep = (typeof WIZARD_STEPS)[number]

export const STEP_LABELS: Record<WizardStep, string> = {
  settings: 'Current settings',
  eligibility: 'Eligibility',
  review: 'Review',
  validate: 'Validate',
  cutover: 'Cut over',
}

export const STATE_LABELS: Record<MigrationState, string> = {
  start: 'Not started',
  validation: 'Validation mode',
  pending: 'Switching over',
  completed: 'Completed',
}

export const PRODUCT_STATUS_LABELS: Record<ProductStatus, string> = {
  enabled: 'Enabled',
  disabled: 'Disabled',
}

export const SENSITIVITY_LABELS: Record<WafSensitivity, string> = {
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  off: 'Off',
}

export const ACTION_MODE_LABELS: Record<WafActionMode, string> = {
  simulate: 'Simulate',
  block: 'Block',
  challenge: 'Challenge',
}

export const RULE_MODE_LABELS: Record<WafRuleMode | WafOverrideAction, string> = {
  default: 'Default',
  disable: 'Disable',
  simulate: 'Simulate',
  block: 'Block',
  challenge: 'Challenge',
  on: 'On',
  off: 'Off',
}

export const NOT_MIGRATED_KIND_LABELS: Record<NotMigrated['kind'], string> = {
  group_mode: 'Group',
  rule_mode: 'Rule',
}

/** How the new configuration is deployed: beside the previous product, or to replace it. */
export type DeployMode = 'validation' | 'pending'

/**
 * The call that deploys the new configuration (PUT, under /client/v4): the managed phase's entry
 * point with `waf_migration`, in validation mode (both products run) or for the cut-over.
 */
export function deployPath(zoneId: string, mode: DeployMode): string {
  return `/zones/${zoneId}/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=${mode}&phase_two=1`
}

/** The page-rule actions that switch the previous WAF off or on for a URL pattern. */
export const PAGE_RULE_CHOICES = [
  { key: 'disable_security', label: 'Disable Security', action: { id: 'disable_security' } },
  { key: 'waf_off', label: 'Web Application Firewall: Off', action: { id: 'waf', value: 'off' } },
  { key: 'waf_on', label: 'Web Application Firewall: On', action: { id: 'waf', value: 'on' } },
] as const satisfies readonly { key: string; label: string; action: PageRuleAction }[]
export type PageRuleChoice = (typeof PAGE_RULE_CHOICES)[number]['key']

/**
 * What the value of a page rule's target is under each operator, as the form explains it: the API
 * takes a URL for `matches`, `equals` and `not_equal` and any part of one for `contains` and
 * `not_contain`, never with spaces, quotes or `\`; only `matches` reads `*` as a wildcard
 * (docs/vendor-behaviour.md#page-rules).
 */
export const PAGE_RULE_VALUE_HELP: Record<PageRuleOperator, { hint: string; example: string }> = {
  matches: {
    hint: 'A URL pattern (scheme optional); * stands for any run of characters.',
    example: '*example.com/admin/*',
  },
  contains: {
    hint: 'Any part of the URL, such as a path; * is a plain character.',
    example: '/admin',
  },
  equals: {
    hint: 'The whole URL (scheme optional); * is a plain character.',
    example: 'example.com/admin',
  },
  not_equal: {
    hint: 'The rule applies to every URL but this one (scheme optional); * is a plain character.',
    example: 'example.com/admin',
  },
  not_contain: {
    hint: 'The rule applies to every URL without this part (e.g. a path); * is a plain character.',
    example: '/admin',
  },
}

/** The body that creates an active page rule with one of those actions; `matches` unless told. */
export function pageRuleBody(
  value: string,
  choice: PageRuleChoice,
  operator: PageRuleOperator = 'matches',
): PageRuleCreate {
  const { action } = PAGE_RULE_CHOICES.find((candidate) => candidate.key === choice)!
  return {
    targets: [{ target: 'url', constraint: { operator, value: value.trim() } }],
    actions: [{ ...action }],
    status: 'active',
  }
}

/** The requests a page rule's target takes, as a sentence begins ("Requests whose URL is …"). */
export function requestsTargeted(target: PageRuleTarget): string {
  const { operator, value } = target.constraint
  const phrases: Record<PageRuleOperator, string> = {
    matches: 'matching',
    contains: 'whose URL contains',
    equals: 'whose URL is',
    not_equal: 'whose URL is not',
    not_contain: 'whose URL does not contain',
  }
  return `Requests ${phrases[operator]} ${value}`
}

/** A page-rule action as the vendor's dashboard words it; other actions by id and value. */
export function pageRuleActionLabel(action: PageRuleAction): string {
  const known = PAGE_RULE_CHOICES.find(
    (choice) =>
      choice.action.id === action.id &&
      ('value' in choice.action ? choice.action.value === action.value : true),
  )
  if (known) return known.label
  return action.value === undefined ? action.id : `${action.id}: ${JSON.stringify(action.value)}`
}

/** Whole seconds until the switch-over completes (0 once due), or null when none is scheduled. */
export function secondsUntil(switchAt: string | null, now: number): number | null {
  if (switchAt === null) return null
  return Math.max(0, Math.ceil((Date.parse(switchAt) - now) / 1000))
}

/** How far the switch-over has come, 0 to 1, from the migration's start to its switch time. */
export function switchProgress(created: string | null, switchAt: string | null, now: number) {
  if (created === null || switchAt === null) return 0
  const start = Date.parse(created)
  const span = Date.parse(switchAt) - start
  if (span <= 0) return 1
  return Math.min(1, Math.max(0, (now - start) / span))
}
