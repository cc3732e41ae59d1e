// /client/v4/zones: the zones the account holds, as the vendor's Zones API serves them.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ZoneCreateBody, ZoneEditBody, ZoneListSearch } from '@shared/api/zones'
import type { ZoneRegistry } from '../../zones/registry'
import { ok, pageOf, pageQuery, paged } from '../envelope'

const ZoneParams = Type.Object({ zone_id: Type.String() })
const ZONES_PER_PAGE = { default: 20, minimum: 5, maximum: 50 }
const ZoneListQuery = Type.Object({
  ...ZoneListSearch.properties,
  ...pageQuery(ZONES_PER_PAGE),
})

export const zoneRoutes: FastifyPluginAsyncTypebox<{ zones: ZoneRegistry }> = async (
  app,
  { zones },
) => {
  app.get('/zones', { schema: { querystring: ZoneListQuery } }, async (request) => {
    const { page: _page, per_page: _perPage, ...search } = request.query
    const page = pageOf(request.query, ZONES_PER_PAGE.default)
    const { zones: items, total } = await zones.list({ ...search, ...page })
    return paged(items, total, page)
  })

  app.post('/zones', { schema: { body: ZoneCreateBody } }, async (request) =>
    ok(await zones.create(request.body)),
  )

  app.get('/zones/:zone_id', { schema: { params: ZoneParams } }, async (request) =>
    ok(await zones.get(request.params.zone_id)),
  )

  app.patch(
    '/zones/:zone_id',
    { schema: { params: ZoneParams, body: ZoneEditBody } },
    async (request) => ok(await zones.edit(request.params.zone_id, request.body)),
  )

  app.delete('/zones/:zone_id', { schema: { params: ZoneParams } }, async (request) =>
    ok(await zones.delete(request.params.zone_id)),
  )
}

/**
 * /workbench/v1/zones/{zone_id}/rename: zone names are fixed in the vendor's API (a zone is its
 * domain); the workbench lets one rename a zone under its own prefix.
 */
export const zoneRenameRoutes: FastifyPluginAsyncTypebox<{ zones: ZoneRegistry }> = async (
  app,
  { zones },
) => {
  app.post(
    '/zones/:zone_id/rename',
    {
      schema: {
        params: ZoneParams,
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 253 }) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => ok(await zones.rename(request.params.zone_id, request.body.name)),
  )
}
