// How the Firewall rules screen names the actions.

import type { FirewallAction } from '@shared/api/firewall'

export const ACTION_LABELS: Record<FirewallAction, string> = {
  block: 'Block',
  challenge: 'Interactive Challenge',
  js_challenge: 'JS Challenge',
  managed_challenge: 'Managed Challenge',
  allow: 'Allow',
  log: 'Log',
  bypass: 'Bypass',
}
