// /workbench/v1/zones/{zone_id}/history: the points in a zone's history, and restoring one.
// Restoring is reversible: the answer carries the bookmark that undoes it. A point's diff is the
// zone's configuration then against now.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Bookmark } from '@shared/api/history'
import type { Bundles } from '../../bundles'
import type { ZoneRegistry } from '../../zones/registry'
import { ok } from '../envelope'

const ZoneParams = Type.Object({ zone_id: Type.String() })

export const historyRoutes: FastifyPluginAsyncTypebox<{
  zones: ZoneRegistry
  bundles: Bundles
}> = async (app, { zones, bundles }) => {
  app.get(
    '/zones/:zone_id/history',
    {
      schema: {
        params: ZoneParams,
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
          before: Type.Optional(Bookmark),
        }),
      },
    },
    async (request) => {
      return ok(await zones.history(request.params.zone_id, request.query))
    },
  )

  // The zone at a point against now, compared as bundles (bundles/bundles.ts compareWithPoint).
  app.get(
    '/zones/:zone_id/history/:bookmark/diff',
    { schema: { params: Type.Object({ zone_id: Type.String(), bookmark: Bookmark }) } },
    async (request) =>
      ok(await bundles.compareWithPoint(request.params.zone_id, request.params.bookmark)),
  )

  app.post(
    '/zones/:zone_id/history/restore',
    {
      schema: {
        params: ZoneParams,
        body: Type.Object({ bookmark: Type.String({ minLength: 1 }) }),
      },
    },
    async (request) => {
      const { restored, undo } = await zones.restore(request.params.zone_id, request.body.bookmark)
      return ok({ restored, undo_bookmark: undo })
    },
  )
}
