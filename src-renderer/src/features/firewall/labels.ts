// How the Firewall rules screen names the actions, and the Edit button of each record.

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

/** The id of the Edit button of a record in the table `table` labels, where focus can go. */
export function editButtonId(table: string, recordId: string): string {
  return `edit-${table.replace(/\s/g, '-')}-${recordId}`
}
