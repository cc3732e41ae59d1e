// A firewall rule blocking what `expression` matches, as a zone's gathered configuration holds it:
// cheap to compile, and its verdicts show whether the zone a replay ran was the one meant.
import type { Gathered } from '../../../src-main/zones/simulator'

export function blockingRule(expression: string): Gathered['firewallRules'][number] {
  return {
    id: 'a'.repeat(32),
    action: 'block',
    priority: null,
    paused: false,
    filter: { id: 'b'.repeat(32), expression, paused: false },
  }
}
