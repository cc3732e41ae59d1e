// The migration API (docs/vendor-behaviour.md#migration-api):
// /client/v4/zones/:zone_id/waf_migration/{check,config,status}, and the workbench's preview of a
// migration (/workbench/v1/…/preview). The deployment itself is the Rulesets API's PUT entry point
// with `waf_migration` (rulesets.ts); the side-by-side replay is with the other replays
// (simulate.ts).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { ZoneConfiguration } from '../../zones/configuration'
import { ok } from '../envelope'

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

export const wafMigrationPreviewRoutes: FastifyPluginAsyncTypebox<{
  configuration: ZoneConfiguration
}> = async (app, { configuration }) => {
  app.get(
    '/zones/:zone_id/waf_migration/preview',
    { schema: { params: ZoneParams } },
    async (request) => ok(await configuration.migrationPreview(request.params.zone_id)),
  )
}
