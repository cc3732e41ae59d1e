// The migration API (docs/vendor-behaviour.md#migration-api):
// /client/v4/zones/:zone_id/waf_migration/{check,config,status}, and the workbench's preview of a
// migration and its side-by-side replay (/workbench/v1/…/{preview,compare}). The deployment itself
// is the Rulesets API's PUT entry point with `waf_migration` (rulesets.ts).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ComparisonTally } from '@shared/replay/comparison-tally'
import type { ZoneConfiguration } from '../../zones/configuration'
import type { ZoneRegistry } from '../../zones/registry'
import type { Simulator } from '../../zones/simulator'
import { ok } from '../envelope'
import { acceptTrafficFiles, REPLAY_BODY_LIMIT, replayInChunks } from '../replay'

const ZoneParams = Type.Object({ zone_id: Type.String() })
/** `phase_two=1` selects the migration's second phase, the only one there is now. */
const PhaseQuery = Type.Object({ phase_two: Type.Optional(Type.String()) })
const CompareQuery = Type.Object({ stream: Type.Optional(Type.Boolean()) })

export const wafMigrationRoutes: FastifyPluginAsyncTypebox<{
  configuration: ZoneConfiguration
}> = async (app, { configuration }) => {
  app.get(
    '/zones/:zone_id/waf_migration/check',
    { schema: { params: ZoneParams, querystring: PhaseQuery } },
    async (request) => ok(await configuration.migrationCheck(request.params.zone_id)),
  )

  app.get(
    '/zones/:zone_id/waf_migration/config',
    { schema: { params: ZoneParams, querystring: PhaseQuery } },
    async (request) => ok(await configuration.migrationConfig(request.params.zone_id)),
  )

  app.get(
    '/zones/:zone_id/waf_migration/status',
    { schema: { params: ZoneParams } },
    async (request) => ok(await configuration.migrationStatus(request.params.zone_id)),
  )
}

export const wafMigrationWorkbenchRoutes: FastifyPluginAsyncTypebox<{
  configuration: ZoneConfiguration
  simulator: Simulator
  zones: ZoneRegistry
}> = async (app, { configuration, simulator, zones }) => {
  acceptTrafficFiles(app)

  app.get(
    '/zones/:zone_id/waf_migration/preview',
    { schema: { params: ZoneParams } },
    async (request) => ok(await configuration.migrationPreview(request.params.zone_id)),
  )

  // The side-by-side replay: each request through the previous product alone and managed
  // rulesets alone (nothing recorded).
  app.post(
    '/zones/:zone_id/waf_migration/compare',
    { schema: { params: ZoneParams, querystring: CompareQuery }, bodyLimit: REPLAY_BODY_LIMIT },
    async (request, reply) => {
      // an empty file is judged by nothing, and names the zone's own entry point
      const tally = new ComparisonTally('entrypoint')
      return replayInChunks(
        request,
        reply,
        zones,
        async (chunk, offset) => {
          const compared = await simulator.compare(request.params.zone_id, chunk, offset)
          tally.judgedBy(compared.newConfiguration)
          for (const result of compared.results) tally.add(result)
        },
        () => tally.comparison(),
      )
    },
  )
}
