// The migration API (docs/vendor-behaviour.md#migration-api):
// /client/v4/zones/:zone_id/waf_migration/{check,config,status}, and the workbench's preview of a
// migration and its side-by-side replay (/workbench/v1/…/{preview,compare}). The deployment itself
// is the Rulesets API's PUT entry point with `waf_migration` (rulesets.ts).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { ZoneConfiguration } from '../../zones/configuration'
import { ok } from '../envelope'
import type { ReplayRunner } from '../replay'
import { ReplayInputQuery, replayInputOptions, replayRoute } from '../replay-route'

const ZoneParams = Type.Object({ zone_id: Type.String() })
/** `phase_two=1` selects the migration's second phase, the only one there is now. */
const PhaseQuery = Type.Object({ phase_two: Type.Optional(Type.String()) })

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
  replays: ReplayRunner
}> = async (app, { configuration, replays }) => {
  app.get(
    '/zones/:zone_id/waf_migration/preview',
    { schema: { params: ZoneParams } },
    async (request) => ok(await configuration.migrationPreview(request.params.zone_id)),
  )

  // The side-by-side replay: each request through the previous product alone and managed
  // rulesets alone (nothing recorded), its body read as a stream in a plugin of its own.
  await app.register(
    replayRoute(
      '/zones/:zone_id/waf_migration/compare',
      ReplayInputQuery,
      (zoneId, query, source, hooks) =>
        replays.compare(zoneId, source, replayInputOptions(query), hooks),
    ),
  )
}
