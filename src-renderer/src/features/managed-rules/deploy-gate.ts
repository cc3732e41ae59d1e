// Whether the Managed rules screen may deploy to a zone. A zone still on the previous managed-rules
// product deploys managed rulesets only through its migration, which the API enforces
// (docs/vendor-behaviour.md#migration-api); the screen says so and points to the Migration screen
// instead of offering a Deploy the API would refuse.

import type { MigrationStatus } from '@shared/api/waf'
import type { Zone } from '@shared/api/zones'
import { api } from '../../lib/api'

/** Why the zone cannot deploy a managed ruleset here, or null when it can. */
export async function deployRefusal(zone: Zone): Promise<string | null> {
  if (zone.waf_product !== 'previous') return null
  const status = await api.get<MigrationStatus>(`/zones/${zone.id}/waf_migration/status`)
  return status.migration_state === 'start'
    ? `${zone.name} still runs the previous WAF managed rules: managed rulesets are deployed to it by its migration.`
    : null
}
