// /workbench/v1/zones/{zone_id}/samples: the zone's saved sample requests (the workbench's own;
// the vendor has no such resource). Each write is one change of the zone's object, with its
// point in the zone's history.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { SampleBody } from '@shared/api/samples'
import type { Clock } from '../../objects'
import type { ZoneRegistry } from '../../zones/registry'
import type { SampleContext, SampleStore } from '../../zones/samples'
import { newVendorId, vendorTimestamp } from '../../zones/vendor-format'
import { ok } from '../envelope'

const ZoneParams = Type.Object({ zone_id: Type.String() })
const SampleParams = Type.Object({ zone_id: Type.String(), sample_id: Type.String() })

export const sampleRoutes: FastifyPluginAsyncTypebox<{
  zones: ZoneRegistry
  clock: Clock
}> = async (app, { zones, clock }) => {
  const inZone = <R>(zoneId: string, work: (samples: SampleStore, context: SampleContext) => R) =>
    zones.inZone(zoneId, (zone) =>
      zone.change(() =>
        work(zone.samples, {
          basePath: `/zones/${zoneId}`,
          timestamp: () => vendorTimestamp(clock.now()),
          newId: newVendorId,
          describe: (note) => zone.describe(note),
        }),
      ),
    )

  app.get('/zones/:zone_id/samples', { schema: { params: ZoneParams } }, async (request) =>
    ok(await inZone(request.params.zone_id, (samples) => samples.list())),
  )

  app.post(
    '/zones/:zone_id/samples',
    { schema: { params: ZoneParams, body: SampleBody } },
    async (request) =>
      ok(await inZone(request.params.zone_id, (s, context) => s.create(request.body, context))),
  )

  app.get(
    '/zones/:zone_id/samples/:sample_id',
    { schema: { params: SampleParams } },
    async (request) =>
      ok(
        await inZone(request.params.zone_id, (s, context) =>
          s.get(request.params.sample_id, context.basePath),
        ),
      ),
  )

  app.put(
    '/zones/:zone_id/samples/:sample_id',
    { schema: { params: SampleParams, body: SampleBody } },
    async (request) =>
      ok(
        await inZone(request.params.zone_id, (s, context) =>
          s.replace(request.params.sample_id, request.body, context),
        ),
      ),
  )

  app.delete(
    '/zones/:zone_id/samples/:sample_id',
    { schema: { params: SampleParams } },
    async (request) =>
      ok(
        await inZone(request.params.zone_id, (s, context) =>
          s.delete(request.params.sample_id, context),
        ),
      ),
  )
}
