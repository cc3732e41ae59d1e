// The rehearsed migration as the calls to make in production: the same vendor API calls the
// wizard made, in order, as a shell script of curl commands. The entry point it deploys is the
// one rehearsed (not whatever production's config call answers that day), so what was validated
// is what ships. Ids differ in production, so the zone id is a variable the user sets.

import type { MigrationConfig } from '@shared/api/waf'
import { deployPath } from './migration-view'

export interface ProductionScriptInput {
  zoneName: string
  /** the entry point the rehearsal deployed (or will deploy) */
  config: MigrationConfig
  /** whether to pass through validation mode first (Enterprise) */
  validation: boolean
  /** when the rehearsal ran, ISO 8601 */
  rehearsedAt: string
}

const AUTH = '-H "Authorization: Bearer $CLOUDFLARE_API_TOKEN"'

function deploy(mode: 'validation' | 'pending', config: MigrationConfig): string[] {
  return [
    `curl -sS -X PUT "$API${deployPath('$ZONE_ID', mode)}" ${AUTH} \\`,
    `  -H "Content-Type: application/json" --data @- <<'JSON'`,
    JSON.stringify(config, null, 2),
    'JSON',
  ]
}

export function productionScript(input: ProductionScriptInput): string {
  const lines = [
    '#!/bin/sh',
    `# The migration of ${input.zoneName} off the previous WAF managed rules, as rehearsed in`,
    `# Zone Workbench on ${input.rehearsedAt}. It cannot be undone: read it before running it.`,
    '# Set ZONE_ID to the zone id in production and CLOUDFLARE_API_TOKEN to a token with WAF edit.',
    'set -eu',
    ': "${ZONE_ID:?set ZONE_ID}" "${CLOUDFLARE_API_TOKEN:?set CLOUDFLARE_API_TOKEN}"',
    'API=https://api.cloudflare.com/client/v4',
    '',
    '# 1. Eligibility: "compatible" must be true (delete URI-based WAF overrides first).',
    `curl -sS "$API/zones/$ZONE_ID/waf_migration/check?phase_two=1" ${AUTH}`,
    '',
  ]
  if (input.validation) {
    lines.push(
      '# 2. Validation mode (Enterprise): both WAFs run, the new one first. Check the security',
      '#    events, then run step 3.',
      ...deploy('validation', input.config),
      '',
    )
  }
  lines.push(
    `# ${input.validation ? 3 : 2}. Deploy the new managed rules; the previous WAF switches off a few minutes later.`,
    ...deploy('pending', input.config),
    '',
    `# ${input.validation ? 4 : 3}. Follow the switch-over until "migration_state" is "completed".`,
    `curl -sS "$API/zones/$ZONE_ID/waf_migration/status" ${AUTH}`,
    '',
  )
  return lines.join('\n')
}
