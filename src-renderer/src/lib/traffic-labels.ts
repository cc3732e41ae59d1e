// How the traffic screens (Simulator, Replay, Security events) name and color outcomes and
// actions, so a blocked request looks the same on all three.

import type { Outcome } from '@shared/api/simulate'

export const OUTCOME_LABELS: Record<Outcome, string> = {
  blocked: 'Blocked',
  challenged: 'Challenged',
  passed: 'Passed',
}

// Badges carry white text on these at 4.5:1 or more
// (https://www.w3.org/TR/WCAG21/#contrast-minimum).
export const OUTCOME_COLORS: Record<Outcome, string> = {
  blocked: '#c0362c',
  challenged: '#b45309',
  passed: '#267a4c',
}

const ACTION_LABELS: Record<string, string> = {
  block: 'Block',
  challenge: 'Interactive Challenge',
  js_challenge: 'JS Challenge',
  managed_challenge: 'Managed Challenge',
  allow: 'Allow',
  bypass: 'Bypass',
  log: 'Log',
  rewrite: 'Rewrite',
  score: 'Score',
  execute: 'Execute',
  skip: 'Skip',
}

const ACTION_COLORS: Record<string, string> = {
  block: '#c0362c',
  challenge: '#e0791a',
  managed_challenge: '#f2a93b',
  js_challenge: '#d4b106',
  allow: '#2f8f5b',
  bypass: '#7aa65a',
  log: '#4f7cac',
  rewrite: '#6b5bb5',
  score: '#3a9188',
}

/** The actions a security event can carry. */
export const EVENT_ACTIONS = [
  'block',
  'managed_challenge',
  'js_challenge',
  'challenge',
  'log',
  'rewrite',
  'allow',
  'bypass',
] as const

export function actionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action
}

export function actionColor(action: string): string {
  return ACTION_COLORS[action] ?? '#94a3b8'
}
