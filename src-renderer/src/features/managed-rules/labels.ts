// How the Managed rules screen names actions and where an effective value came from.

import type { OverrideSource } from '@shared/rulesets/overrides'

const ACTION_LABELS: Record<string, string> = {
  managed_challenge: 'Managed Challenge',
  block: 'Block',
  js_challenge: 'JS Challenge',
  log: 'Log',
  challenge: 'Interactive Challenge',
  rewrite: 'Rewrite',
  score: 'Score',
}

export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action
}

export const SOURCE_LABELS: Record<OverrideSource, string> = {
  rule: 'rule',
  category: 'tag',
  ruleset: 'ruleset',
  default: 'default',
}

/** `<select>` values for an enabled override: '' is no override. */
export function enabledChoice(enabled: boolean | undefined): '' | 'true' | 'false' {
  return enabled === undefined ? '' : enabled ? 'true' : 'false'
}

export function enabledFromChoice(choice: string): boolean | null {
  return choice === '' ? null : choice === 'true'
}
